"""A crawler of the app's screens: from a populated hub, random keys each screen offers.

Most defects testers met came from routes between screens that no test walked (Your games'
``g``, then the leaderboards, ended the session). A crawl starts an app on a hub that holds
finished games, leaderboards with rows, friends, a friend request, an invitation, a running
table, a replay and player text written like markup; it then presses, step by step, a key the
screen's footer offers (most often one not yet pressed on that screen), now and then Esc,
Enter, Ctrl+C, Ctrl+R, Ctrl+Q, a resize or a typed line, and after every step checks:

- no exception in the app, nothing logged as an error by the app or the hub;
- the session is still open, unless the player quit (a quit in the middle of a game of
  theirs with nothing asked is reported: the player loses control of their seat);
- at 80×24, nothing on the screen is cut (``tests/tui/fit.py``);
- player text that reads as markup (``MARKED``) is shown as written.

``tests/tui/test_crawl.py`` runs a short crawl under hypothesis; ``bench/crawl.py`` a long one.
Both pass a :class:`Chooser`: the crawler's only source of randomness.
"""

from __future__ import annotations

import asyncio
import logging
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from textual.widgets import Input

from gambit_tui.screens.confirm import ConfirmScreen, QuitQuestion
from gambit_tui.widgets.footer import GambitFooter
from protocol.term import TermInfo
from server.hub import Hub, history
from server.store import Store
from tests.hub.harness import Client, connect, play_to_end, table_with_bots

from .conftest import make_app, screen_text, tui_config
from .fit import cuts

T = TypeVar("T")

#: The languages a crawl runs in (the ASCII forms are each language's longest: see test_fit).
LOCALES = {
    "en": "en_GB.UTF-8",
    "uk": "uk_UA.UTF-8",
    "de": "de_DE.UTF-8",
    "uk-ascii": "uk_UA.KOI8-U",
    "de-ascii": "de_DE.ISO-8859-1",
}

#: Player text written like markup; each holds a token that, shown as written, follows a "]".
MARKED = {
    # A name kept in the store (the hub's rules let no such name in now; an older one stays).
    "name": "[reverse]Qzm[/reverse]",
    "lobby_chat": "[reverse]Qzc[/reverse] says [bold red]Qzb[/]",
    "table_chat": "[reverse]Qzt[/reverse] at the table",
    "typed": "[reverse]Qzy[/reverse]",
}
#: A token drawn without the "]" before it: the text around it was read as markup.
_UNMARKED = re.compile(r"(?<!\])Qz[mcbty]")

#: The sizes a resize picks from (the first is where the fit is checked; 60×20 is too small).
SIZES = ((80, 24), (100, 30), (60, 20), (120, 40))
#: Keys pressed whatever the footer says (Ctrl+Q is a quit: drawn rarely, see ``_next``); Tab
#: and the arrows move through forms and open drop-downs (a Fortunes table is a choice away).
EXTRA_KEYS = ("escape", "enter", "ctrl+c", "ctrl+r", "tab", "down", "up")
QUIT_ACTIONS = ("quit", "app.quit")
TYPED = (MARKED["typed"], "hello", "/who", "")

ADA, BOB, MAL = "SHA256:ada", "SHA256:bob", "SHA256:mal"
GAMES = ("prophets_gambit", "prophet", "fortunes")


class Chooser(Protocol):
    """Where a crawl's choices come from (hypothesis' data, or a seeded random)."""

    def pick(self, options: Sequence[T]) -> T: ...

    def chance(self, one_in: int) -> bool: ...


@dataclass
class Failure:
    """One thing a check found, with the keys that led there."""

    kind: str
    step: int
    screen: str
    detail: str
    keys: list[str]
    text: str = ""

    def __str__(self) -> str:
        keys = " ".join(self.keys[-40:])
        return (
            f"[{self.kind}] step {self.step} on {self.screen}: {self.detail}\n"
            f"  keys: {keys}\n" + "\n".join("  | " + line for line in self.text.splitlines())
        )


@dataclass
class SessionReport:
    steps: int = 0
    screens: set[str] = field(default_factory=set)
    failures: list[Failure] = field(default_factory=list)
    quit: bool = False


# --- the populated hub ---------------------------------------------------------------------


async def _play_a_prophet_game(hub: Hub) -> None:
    """Ada (through the protocol) plays a short Prophet game against two bots: a real record,
    with a replay, in her games."""
    ada = await connect(hub)
    await ada.hello("Ada", identity=ADA)
    table = await table_with_bots(ada, "prophet", options={"cap": 2})
    await ada.send("start", table=table)
    await play_to_end({0: ada}, table)
    await ada.send("leave", table=table)
    await ada.expect("left", table=table)
    await ada.close()


def _seed_store(store: Store) -> None:
    """Leaderboards with rows in every game (Bob, Mal), friends and a friend request."""
    store.ensure_player(BOB, starting_chips=1000)
    store.set_name(BOB, "Bob")
    store.ensure_player(MAL, starting_chips=1000)
    store.set_name(MAL, MARKED["name"])
    for game in GAMES:
        for index in range(history.MIN_GAMES):
            store.record_game(
                1,
                {"game": game},
                [],
                {},
                [BOB, MAL, None],
                results=[
                    {"place": 1 + index % 2, "chips": 20, "rating_change": 4},
                    {"place": 2 - index % 2, "chips": -20, "rating_change": -4},
                    {},
                ],
            )
        store.set_ratings(game, {BOB: (30.0, 3.0), MAL: (27.0, 3.0)})
    store.add_friend(ADA, BOB)
    store.add_friend(BOB, ADA)
    store.request_friend(MAL, ADA)


async def build_template(folder: Path) -> Path:
    """A store holding the crawl's starting world; each session runs on a copy of it."""
    store = Store.open(folder)
    hub = Hub(store, tui_config())
    await hub.start()
    try:
        await _play_a_prophet_game(hub)
    finally:
        await hub.stop()
    _seed_store(store)
    store.close()
    return folder


async def stage_bob(hub: Hub) -> Client:
    """Bob, online: says markup-like things in the lobby and at a running table of his (he
    never plays his turn, so it stays running), invites Ada to a table waiting for her, and
    runs a Fortunes table with three bots (the crawl reaches a Fortunes screen by watching)."""
    bob = await connect(hub)
    await bob.hello("Bob", identity=BOB)
    await bob.send("chat", channel="lobby", text=MARKED["lobby_chat"])
    await bob.send("create_table", game="prophet", players=3)
    running = (await bob.expect("table"))["table"]
    for seat in (1, 2):
        await bob.send("add_bot", table=running, seat=seat)
    await bob.until(
        lambda m: (
            m["t"] == "table"
            and m["table"] == running
            and all(s["bot"] or s["name"] for s in m["info"]["seats"])
        )
    )
    await bob.send("start", table=running)
    await bob.send("chat", channel="table", table=running, text=MARKED["table_chat"])
    await bob.send("create_table", game="prophets_gambit", players=4, access="invited")
    waiting = (await bob.expect("table", table=running + 1))["table"]
    await bob.send("invite", op="send", table=waiting, name="Ada")
    await bob.expect("notice", code="invited")
    # A Fortunes table of Bob's with bots, running, for Ada to watch (`w` in the lobby).
    await bob.send("create_table", game="fortunes", players=4)
    fortunes = (await bob.expect("table", table=waiting + 1))["table"]
    for seat in (1, 2, 3):
        await bob.send("add_bot", table=fortunes, seat=seat)
    await bob.until(
        lambda m: (
            m["t"] == "table"
            and m["table"] == fortunes
            and all(s["bot"] or s["name"] for s in m["info"]["seats"])
        )
    )
    await bob.send("start", table=fortunes)
    return bob


# --- watching for trouble ----------------------------------------------------------------


class ErrorLog(logging.Handler):
    """Every record logged at ERROR or above, by the app or the hub, while installed."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def __enter__(self) -> ErrorLog:
        logging.getLogger().addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().removeHandler(self)


def markup_read(text: str) -> list[str]:
    """Tokens of ``MARKED`` text shown without their markup (rows joined as wrapped)."""
    joined = "".join(line.rstrip() for line in text.splitlines())
    return sorted({m.group(0) for m in _UNMARKED.finditer(joined)})


def in_a_game(hub: Hub, player: str = ADA) -> bool:
    """Whether the player holds a seat in a game in progress, as the hub knows it (quitting
    leaves a bot in their seat). Not read from the app: a replay's moment looks like a game
    in progress there, and the app's own judgement is what the crawl checks."""
    for table in hub.tables.values():
        if (
            table.status == "playing"
            and table.state is not None
            and not table.state.is_over
            and any(seat.player == player for seat in table.seats)
        ):
            return True
    return False


# --- the crawl -----------------------------------------------------------------------------


class Crawl:
    """One app on ``hub``, driven step by step by ``chooser``."""

    def __init__(
        self,
        hub: Hub,
        app: Any,
        pilot: Any,
        chooser: Chooser,
        report: SessionReport,
        quit_one_in: int = 40,
    ) -> None:
        self.hub, self.app, self.pilot, self.chooser, self.report = hub, app, pilot, chooser, report
        #: A quit key is drawn once in this many steps (each session ends at one).
        self.quit_one_in = quit_one_in
        self.keys: list[str] = []
        self.tried: Counter[tuple[str, str]] = Counter()
        self.size = SIZES[0]
        self.seen: set[tuple[str, str, str]] = set()
        #: The screen the last step started on (the one a crash happened on).
        self.last_screen = ""

    @property
    def screen_name(self) -> str:
        return type(self.app.screen).__name__

    def _footer_keys(self) -> tuple[list[str], list[str]]:
        """The enabled keys the footer shows, and those of them that quit the app."""
        screen = self.app.screen
        footers = list(screen.query(GambitFooter))
        if not footers:
            return [], []
        keys, quits = [], []
        active = screen.active_bindings
        for item in footers[0].items:
            if not item.enabled:
                continue
            binding = active.get(item.key)
            if binding is not None and binding.binding.action in QUIT_ACTIONS:
                quits.append(item.key)
            else:
                keys.append(item.key)
        return keys, quits

    def _next(self, keys: list[str], quits: list[str]) -> str:
        """The next step: a footer key (most often one least pressed on this screen), an
        extra key, a resize, a typed line or (rarely) a quit."""
        chooser = self.chooser
        if chooser.chance(self.quit_one_in):
            return chooser.pick(["ctrl+q", *quits])
        if chooser.chance(8) or not keys:
            typing = isinstance(self.app.focused, Input)
            return chooser.pick([*EXTRA_KEYS, "resize", *(["type"] if typing else [])])
        if chooser.chance(4):
            return chooser.pick(keys)
        name = self.screen_name
        least = min(self.tried[(name, k)] for k in keys)
        return chooser.pick([k for k in keys if self.tried[(name, k)] == least])

    async def step(self) -> bool:
        """One step and its checks; False when the session is over."""
        app, pilot = self.app, self.pilot
        self.last_screen = self.screen_name
        self.report.screens.add(self.last_screen)
        keys, quits = self._footer_keys()
        move = self._next(keys, quits)
        # (a yes on the question Ctrl+Q asks during a game quits too: a quit, asked first)
        quitting = move == "ctrl+q" or move in quits or isinstance(app.screen, QuitQuestion)
        playing = in_a_game(self.hub)
        asked = isinstance(app.screen, ConfirmScreen)
        if move == "resize":
            self.size = self.chooser.pick(SIZES)
            shown = f"resize {self.size[0]}x{self.size[1]}"
            await pilot.resize_terminal(*self.size)
        elif move == "type":
            typed = self.chooser.pick(TYPED)
            shown = f"type {typed!r}"
            await pilot.press(*typed, "enter")
        else:
            shown = move
            self.tried[(self.screen_name, move)] += 1
            await pilot.press(move)
        self.keys.append(shown)
        self.report.steps += 1
        await self._settle()
        return self._check(move, quitting=quitting, playing=playing, asked=asked)

    async def _settle(self) -> None:
        """Let the hub answer and the app draw what it answered."""
        if not self.app.is_running:
            return
        await self.pilot.pause(0.03)
        if self.app.is_running:
            await self.pilot.pause()

    def _fail(self, kind: str, detail: str, *, once: bool = True) -> None:
        key = (kind, self.screen_name if self.app.is_running else self.last_screen, detail)
        if once and key in self.seen:
            return
        self.seen.add(key)
        text = screen_text(self.app) if self.app.is_running else ""
        self.report.failures.append(
            Failure(kind, self.report.steps, key[1], detail, list(self.keys), text)
        )

    def _check(self, move: str, *, quitting: bool, playing: bool, asked: bool) -> bool:
        app = self.app
        exception = getattr(app, "_exception", None)
        if exception is not None:
            self._fail("exception", f"{type(exception).__name__}: {exception}")
            return False
        if not app.is_running or app.closed_reason is not None:
            if not quitting:
                self._fail("closed", app.closed_reason or "the app stopped")
            elif playing and not asked:
                self._fail("quit mid-game without asking", f"{move} left a game in progress")
            self.report.quit = True
            return False
        return True

    def check_screen(self, errors: ErrorLog) -> None:
        """The checks of what is on screen (not fatal: the crawl goes on)."""
        app = self.app
        for record in errors.records:
            self._fail("logged error", f"{record.name}: {record.getMessage()[:300]}")
        errors.records.clear()
        if not app.is_running:
            return
        text = screen_text(app)
        for token in markup_read(text):
            self._fail("markup", f"player text read as markup ({token})")
        if self.size == SIZES[0]:
            for problem in cuts(app):
                self._fail("cut", problem)


async def crawl_session(
    template: Path,
    chooser: Chooser,
    lang: str,
    steps: int,
    *,
    progress: Callable[[SessionReport], None] | None = None,
    configure: Callable[[Hub], None] | None = None,
    quit_one_in: int = 40,
) -> SessionReport:
    """Up to ``steps`` steps of one player (Ada, in ``lang``) on a hub started from a copy of
    ``template``; ends early when the session does (a quit, a crash)."""
    report = SessionReport()
    with tempfile.TemporaryDirectory(prefix="crawl-") as tmp:
        folder = Path(tmp) / "data"
        shutil.copytree(template, folder)
        store = Store.open(folder)
        hub = Hub(store, tui_config())
        if configure is not None:
            configure(hub)
        await hub.start()
        try:
            await _crawl_app(hub, chooser, lang, steps, report, progress, quit_one_in)
        finally:
            await hub.stop()
            store.close()
    return report


async def _crawl_app(
    hub: Hub,
    chooser: Chooser,
    lang: str,
    steps: int,
    report: SessionReport,
    progress: Callable[[SessionReport], None] | None,
    quit_one_in: int,
) -> None:
    from gambit_tui.screens.lobby import LobbyScreen

    bob = await stage_bob(hub)
    app = make_app(hub, name="Ada", identity=ADA, term=TermInfo(lang=LOCALES[lang]))
    crawl: Crawl | None = None
    with ErrorLog() as errors:
        try:
            async with app.run_test(size=SIZES[0]) as pilot:
                for _ in range(500):  # a known key goes straight to the lobby
                    if isinstance(app.screen, LobbyScreen):
                        break
                    await pilot.pause(0.02)
                crawl = Crawl(hub, app, pilot, chooser, report, quit_one_in)
                crawl.check_screen(errors)
                for _ in range(steps):
                    going = await crawl.step()
                    crawl.check_screen(errors)
                    if progress is not None:
                        progress(report)
                    if not going:
                        break
        except Exception as exc:  # the app's exception, raised again as run_test ends
            if crawl is not None and not any(f.kind == "exception" for f in report.failures):
                crawl._fail("exception", f"{type(exc).__name__}: {exc}")
            elif crawl is None:
                report.failures.append(Failure("exception", 0, "", repr(exc), []))
        if crawl is not None:
            crawl.check_screen(errors)
    await bob.close()
    await asyncio.sleep(0)
