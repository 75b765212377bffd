"""The footer: every key the player can press now, in their language."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget

from ..i18n import N_, _

#: Footer keys of Textual's own widgets, so that the catalogs translate them too.
TEXTUAL_KEYS = (N_("Dismiss menu"),)

if TYPE_CHECKING:
    from textual.screen import Screen


class FooterItem(NamedTuple):
    key: str
    """The key to simulate when the item is clicked."""
    shown: str
    """How the key is written ("⏎", "←→", "q")."""
    description: str
    """What it does, translated."""
    enabled: bool


class GambitFooter(Widget):
    """One line of keys, drawn by one widget.

    Textual's own footer is a widget per key and is rebuilt (composed, mounted, styled) every
    time the screen's bindings are re-checked, which a table does after every move: with a
    hundred players in one server process that was a third of its CPU. This footer works out
    the same list, and repaints only when the list changed. Descriptions are translated as they
    are shown: bindings are class attributes written once in English (marked with ``N_``), so
    one footer works for every player's language in the same process.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {"footer--key"}
    DEFAULT_CSS = """
    GambitFooter {
        dock: bottom;
        height: 1;
        background: $panel;
        color: $foreground;
    }
    GambitFooter > .footer--key {
        color: $footer-key-foreground;
        text-style: bold;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.items: tuple[FooterItem, ...] = ()
        self._spans: list[tuple[int, int, FooterItem]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        if not self.is_attached or screen is not self.screen:
            return
        items = self.collect(screen)
        if items != self.items:
            self.items = items
            self.refresh()

    def collect(self, screen: Screen) -> tuple[FooterItem, ...]:
        """The shown bindings, one item per action (as Textual's footer groups them)."""
        by_action: dict[str, FooterItem] = {}
        for _node, binding, enabled, _tooltip in screen.active_bindings.values():
            if not binding.show or binding.action in by_action:
                continue
            by_action[binding.action] = FooterItem(
                binding.key,
                self.app.get_key_display(binding),
                _(binding.description) if binding.description else "",
                enabled,
            )
        return tuple(by_action.values())

    def render(self) -> Text:
        key_style = self.get_component_rich_style("footer--key", partial=True)
        dim = Style(dim=True)
        text = Text(no_wrap=True, overflow="crop", end="")
        self._spans = []
        for item in self.items:
            start = text.cell_len
            text.append(item.shown, key_style if item.enabled else key_style + dim)
            if item.description:
                text.append(" " + item.description, None if item.enabled else dim)
            self._spans.append((start, text.cell_len, item))
            text.append("  ")
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, item in self._spans:
            if start <= event.x < end:
                if item.enabled:
                    self.app.simulate_key(item.key)
                else:
                    self.app.bell()
                return
