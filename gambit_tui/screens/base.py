"""What every Gambit screen shares: the status line, the footer and the "too small" notice."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, ClassVar, ParamSpec, TypeVar, cast

from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.events import DescendantFocus
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Select

from .. import events
from ..widgets.footer import GambitFooter
from ..widgets.status_bar import StatusBar
from ..widgets.text_lines import repaint_changed_lines
from ..widgets.too_small import TooSmall

if TYPE_CHECKING:
    from ..app import GambitApp


P = ParamSpec("P")
R = TypeVar("R")


def while_composed(method: Callable[P, R]) -> Callable[P, R | None]:
    """Skip a refresh that finds its widgets gone: a language or theme change recomposes the
    screen, and a server message or a timer may arrive while the new widgets are mounting
    (the refresh after the recompose shows the latest state anyway)."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R | None:
        try:
            return method(*args, **kwargs)
        except NoMatches:
            return None

    return wrapper


def show_status(bar: StatusBar, gapp: GambitApp, game: str | None, context: str) -> None:
    """The player's name, chips and rating (for ``game``) and where they are."""
    bar.lang = gapp.lang
    bar.game = game
    bar.context = context
    bar.you = gapp.model.you


class GambitScreen(Screen):
    """A full screen: status bar on top, the body, the footer, and the too-small notice.

    Subclasses write :meth:`compose_body`, :meth:`setup` (titles, columns, focus: whatever
    a freshly composed body needs) and :meth:`refresh_view`, which sets the widgets' attributes
    from the app's model. Both run after mounting and after a language or theme change (which
    recomposes the screen); ``refresh_view`` also whenever the model changes.
    """

    #: The game whose rating the status bar shows (None: every game).
    game: str | None = None
    #: What a table's Esc, opened over this screen, says it goes back to: ``lobby``,
    #: ``events`` or just ``back`` (the table's footer names it).
    ESCAPE_TO: ClassVar[str] = "back"
    #: How the app's host draws a screen at once, in the callback that changed it (a server
    #: running many apps on one loop sets it: server/apphost/draw_now.py); None leaves every
    #: change to Textual's next frame, as a plain Textual app does.
    draw_screen_now: ClassVar[Callable[[Screen], bool] | None] = None
    #: How the app's host runs a call as the screen's own message handling, outside its
    #: message loop (server/apphost/draw_now.py); None: a message is posted to the screen
    #: and handled in its turn, as a plain Textual app does.
    run_as_screen: ClassVar[Callable[[Screen, Callable[[], object]], object] | None] = None
    _bindings_pending = False
    #: True while :meth:`handle_now` handles a message: what the handler leaves to be done
    #: after it (lines to compare, the footer's keys) is done by :meth:`draw_now` right after,
    #: not in another turn of the screen's message loop (a wake for nothing, per move).
    drawing_now = False

    def refresh_bindings(self) -> None:
        """Ask the footer to look at the keys again, once the current message is handled
        (a move sets several things that each ask, and the footer checks every key)."""
        if self._bindings_pending:
            return
        self._bindings_pending = True
        if not self.drawing_now:
            self.call_next(self._publish_bindings)

    def bindings_state(self) -> Hashable | None:
        """Everything this screen's keys depend on (which are enabled, how the footer writes
        them), cheap to work out: the footer looks at the keys again only when it changed (or
        focus moved). None: the footer looks every time."""
        return None

    def _publish_bindings(self) -> None:
        if not self._bindings_pending:
            return  # already published by draw_now
        self._bindings_pending = False
        super().refresh_bindings()

    def draw_now(self) -> bool:
        """Finish what the message just handled changed (lines, the footer's keys) and draw
        it at once, where the app's host can (:attr:`draw_screen_now`); False if Textual's
        next frame will."""
        repaint_changed_lines(self)
        self._publish_bindings()
        draw = GambitScreen.draw_screen_now
        return draw(self) if draw is not None else False

    def handle_now(self, handler: Callable[[Any], object], message: Any) -> bool:
        """Handle ``message`` with ``handler`` now and draw the result at once, where the app's
        host can (:attr:`run_as_screen`); False if it must be posted instead."""
        run = GambitScreen.run_as_screen
        if run is None:
            return False
        self.drawing_now = True
        try:
            run(self, functools.partial(handler, message))
        except BaseException:
            self.drawing_now = False
            self.call_next(self._catch_up)
            raise
        self.drawing_now = False
        self.draw_now()
        return True

    def _catch_up(self) -> None:
        """What :meth:`draw_now` would have done after a handler that failed."""
        repaint_changed_lines(self)
        self._publish_bindings()

    @property
    def gapp(self) -> GambitApp:
        return cast("GambitApp", self.app)

    def query_one(self, selector: Any, expect_type: Any = None) -> Any:
        """Textual's ``query_one``; a widget asked for by its class alone is remembered until
        the screen is composed again or the widget removed (a table asks for each of its
        widgets after every move, and each query walked the screen's widgets)."""
        if expect_type is not None or not isinstance(selector, type):
            return super().query_one(selector, expect_type)
        cache = self.__dict__.setdefault("_found", {})
        found = cache.get(selector)
        if found is None or found.parent is None:
            found = cache[selector] = super().query_one(selector)
        return found

    def compose(self) -> ComposeResult:
        self._found: dict[type, Widget] = {}  # the widgets are made again
        yield StatusBar()
        yield from self.compose_body()
        yield GambitFooter()
        yield TooSmall()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def status_context(self) -> str:
        return ""

    def on_mount(self) -> None:
        self.setup()
        self.refresh_status()
        self.refresh_view()

    def setup(self) -> None:
        """Prepare freshly composed widgets (border titles, table columns, focus)."""

    @while_composed
    def refresh_status(self) -> None:
        show_status(self.query_one(StatusBar), self.gapp, self.game, self.status_context())

    def refresh_view(self) -> None:
        """Set every widget's attributes from the model."""

    def on_you_changed(self, event: events.YouChanged) -> None:
        self.refresh_status()

    async def on_look_changed(self, event: events.LookChanged) -> None:
        await self.recompose()
        if not self.is_attached:
            # The app is ending (the server stopping just after the player chose a language):
            # Textual recomposed nothing, or only took the widgets away, and setting them up
            # again would crash the app and cost the player their goodbye.
            return
        self.setup()
        self.refresh_status()
        self.refresh_view()
        self.refresh_bindings()


class GambitModal(ModalScreen):
    """A dialog over another screen, with its own footer and the too-small notice.

    Its backdrop is opaque. Through a see-through one, Textual repaints the whole terminal,
    backdrop and dialog, whenever the screen below receives anything (its own repaint request
    comes back to it): a player who kept the result of a deal open while the next deal went on
    cost the server 15–35 ms per move (and 140 with more screens below), for a backdrop that at
    80×24 is two columns wide. Nothing below a dialog is drawn until it is on top again, so the
    dialog has its own status bar: the player's name, chips and rating stay in sight.
    """

    DEFAULT_CSS = """
    GambitModal {
        align: center middle;
        background: $background;
    }
    GambitModal > .dialog {
        width: 76;
        height: auto;
        max-height: 21;
        border: round $accent;
        border-title-color: $foreground;
        background: $surface;
        padding: 0 1;
    }
    """

    @property
    def gapp(self) -> GambitApp:
        return cast("GambitApp", self.app)

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield from self.compose_body()
        yield GambitFooter()
        yield TooSmall()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_mount(self) -> None:
        self.refresh_status()

    def on_you_changed(self, event: events.YouChanged) -> None:
        self.refresh_status()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        """A drop-down's list opens below its field, over the dialog's border and beyond
        when the field is near the dialog's bottom: there it opens above the field."""
        overlay = event.widget
        if isinstance(overlay.parent, Select) and overlay.parent.expanded:
            overlay.styles.offset = (0, 0)
            self.call_after_refresh(self._keep_in_dialog, overlay)

    def _keep_in_dialog(self, overlay: Widget) -> None:
        select = overlay.parent
        dialog = next((a for a in overlay.ancestors if a.has_class("dialog")), None)
        if not isinstance(select, Select) or not select.expanded or not isinstance(dialog, Widget):
            return
        inside = dialog.region.shrink(dialog.styles.border.spacing)  # within its border
        height = overlay.outer_size.height
        if overlay.region.bottom <= inside.bottom:
            return
        top = max(inside.y, select.region.y - height)
        overlay.styles.offset = (0, top - overlay.region.y)

    @while_composed
    def refresh_status(self) -> None:
        """The status bar of the screen below (its game and place), with the latest chips."""
        below = next(
            (s for s in reversed(self.app.screen_stack) if isinstance(s, GambitScreen)), None
        )
        game, context = (below.game, below.status_context()) if below is not None else (None, "")
        show_status(self.query_one(StatusBar), self.gapp, game, context)
