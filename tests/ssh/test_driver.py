"""The channel driver on its own: a Textual app drawing on a fake terminal, fed raw bytes."""

from __future__ import annotations

import asyncio
import re

import pyte
import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from server.terminal import driver as driver_mod
from server.terminal.driver import ChannelDriver, bind


class FakeTerminal:
    """Collects output; reports as much pending output as a test says."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.pending = 0
        self.unchanged = 0
        self.driver: ChannelDriver | None = None

    def send(self, data: bytes) -> None:
        self.out += data

    def pending_output(self) -> int:
        return self.pending

    def frame_unchanged(self) -> None:
        self.unchanged += 1

    def attach(self, driver: ChannelDriver) -> None:
        self.driver = driver

    def detach(self, driver: ChannelDriver) -> None:
        self.driver = None

    def screen(self, cols: int = 80, rows: int = 24) -> str:
        screen = pyte.Screen(cols, rows)
        pyte.ByteStream(screen).feed(bytes(self.out))
        return "\n".join(screen.display)


class KeysApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.keys: list[str] = []
        self.sizes: list[tuple[int, int]] = []

    def compose(self) -> ComposeResult:
        yield Static("hello", id="text")

    def on_key(self, event) -> None:
        self.keys.append(event.key)

    def on_resize(self, event) -> None:
        self.sizes.append((event.size.width, event.size.height))

    def show(self, text: str) -> None:
        self.query_one("#text", Static).update(text)


async def wait_until(check, timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.01)


@pytest.fixture
async def running():
    term = FakeTerminal()
    app = KeysApp()
    bind(app, term)
    task = asyncio.create_task(app.run_async(size=(80, 24)))
    await wait_until(lambda: term.driver is not None and app.is_running)
    await wait_until(lambda: b"hello" in term.out)
    yield app, term
    app.exit()
    await asyncio.wait_for(task, 10)


async def test_first_paint_is_one_screen_and_the_terminal_is_restored(running):
    app, term = running
    assert b"\x1b[?1049h" in term.out  # alternate screen
    assert b"\x1b[?1003h" not in term.out  # never any-motion mouse tracking
    assert b"\x1b[?1000h" in term.out
    assert "hello" in term.screen()
    driver = term.driver
    assert driver is not None
    # Start-up repaints were held back and replaced by one full screen.
    assert driver.frames_skipped >= 1
    app.exit()
    await wait_until(lambda: term.driver is None)
    assert term.out.endswith(b"\x1b[?1049l")


async def test_keys_split_utf8_and_a_lone_escape(running):
    app, term = running
    driver = term.driver
    data = "é".encode()
    driver.feed(b"a" + data[:1])
    driver.feed(data[1:])
    driver.feed(b"\x1b[A")  # up arrow
    await wait_until(lambda: len(app.keys) >= 3)
    assert app.keys[:3] == ["a", "é", "up"]
    driver.feed(b"\x1b")  # Escape alone: only known once nothing follows in time
    await wait_until(lambda: "escape" in app.keys)


async def test_window_change_resizes_the_app(running):
    app, term = running
    term.driver.resize(100, 30)
    await wait_until(lambda: (100, 30) in app.sizes)
    assert app.size == (100, 30)


async def test_congested_client_gets_the_latest_screen_not_every_frame(running, monkeypatch):
    app, term = running
    monkeypatch.setattr(driver_mod, "DRAIN_POLL", 0.01)
    driver = term.driver
    term.pending = driver_mod.CONGESTED_BYTES + 1  # the client stopped reading
    sent_before = len(term.out)
    for n in range(20):
        app.show(f"frame {n}")
        await asyncio.sleep(0.02)
    assert driver.frames_skipped >= 5
    assert len(term.out) - sent_before < 200  # nothing but (at most) kept controls
    term.pending = 0  # it caught up
    await wait_until(lambda: "frame 19" in term.screen())


async def test_bell_and_title_survive_congestion(running, monkeypatch):
    app, term = running
    monkeypatch.setattr(driver_mod, "DRAIN_POLL", 0.01)
    term.pending = driver_mod.CONGESTED_BYTES + 1
    app.show("busy")
    await asyncio.sleep(0.05)
    app.bell()
    term.driver.write("\x1b]2;Your turn\x07")
    app.show("busier")
    await asyncio.sleep(0.05)
    term.pending = 0
    await wait_until(lambda: "busier" in term.screen())
    assert b"\x1b]2;Your turn\x07" in term.out


async def test_what_the_player_sees_is_what_the_app_drew(running):
    """Whatever was skipped as unchanged, the terminal ends up showing the app's screen."""
    app, term = running
    import random

    rng = random.Random(7)
    for n in range(40):
        app.show(" ".join(rng.choice(["♠", "ab", "xyz", "  "]) for _ in range(rng.randint(1, 9))))
        if n == 20:
            term.driver.resize(60, 20)
        await asyncio.sleep(0.005 if n % 3 else 0.06)
    await asyncio.sleep(0.3)
    width, height = app.size
    drawn = app.screen._compositor.render_full_update().render_segments(app.console)
    expected = pyte.Screen(width, height)
    pyte.Stream(expected).feed(drawn)
    assert term.screen(width, height) == "\n".join(expected.display)


async def test_a_terminal_that_erases_in_colour_gets_blank_runs_erased():
    """The same app on two terminals: one that erases in colour gets fewer bytes, same cells."""
    screens = []
    for erase in (False, True):
        term = FakeTerminal()
        app = KeysApp()
        bind(app, term, erase=erase)
        task = asyncio.create_task(app.run_async(size=(80, 24)))
        await wait_until(lambda term=term: b"hello" in term.out)
        app.show("a longer line, then the rest of the row blank")
        await wait_until(lambda term=term: b"blank" in term.out)
        app.exit()
        await asyncio.wait_for(task, 10)
        screen = pyte.Screen(80, 24)
        pyte.ByteStream(screen).feed(bytes(term.out).split(b"\x1b[?1049l")[0])
        rows = [screen.buffer[y] for y in range(24)]
        cells = [[(row[x].data, row[x].bg) for x in range(80)] for row in rows]
        screens.append((len(term.out), bytes(term.out).count(b"X\x1b["), cells))
    (plain_bytes, plain_erases, plain), (erased_bytes, erases, erased) = screens
    assert plain_erases == 0 and erases > 0
    assert erased_bytes < plain_bytes / 2
    assert erased == plain


class StyledApp(KeysApp):
    """Borders, a dot, a cut word, Cyrillic and a highlighted (light) line, in colour."""

    CSS = """
    #text { border: round red; color: #e4e4e4; background: #121212; }
    #cursor { background: #d0d0d0; color: #000000; }
    """

    def compose(self) -> ComposeResult:
        yield Static("hello · Стіл…", id="text")
        yield Static("the cursor line", id="cursor")


async def test_a_terminal_without_utf8_or_colour_gets_neither():
    """ASCII only and no colour codes, cell for cell where the UTF-8 screen has its glyphs;
    a light background under dark text comes out in reverse video."""
    term = FakeTerminal()
    app = StyledApp()
    bind(app, term, ascii=True, colour=False)
    task = asyncio.create_task(app.run_async(size=(80, 24)))
    await wait_until(lambda: b"cursor line" in term.out)
    app.exit()
    await asyncio.wait_for(task, 10)
    out = bytes(term.out)
    assert out.isascii()
    assert not re.search(rb"\x1b\[[0-9;]*\b(3[0-9]|4[0-9]|9[0-7]|10[0-7])\b[0-9;]*m", out)
    screen = term.screen()
    assert "+----" in screen and "|hello - Stil~" in screen
    rendered = pyte.Screen(80, 24)
    pyte.ByteStream(rendered).feed(out.split(b"\x1b[?1049l")[0])
    cursor_row = next(y for y, line in enumerate(rendered.display) if "cursor line" in line)
    assert rendered.buffer[cursor_row][4].reverse


async def test_a_utf8_colour_terminal_is_untouched():
    term = FakeTerminal()
    app = StyledApp()
    bind(app, term)
    task = asyncio.create_task(app.run_async(size=(80, 24)))
    await wait_until(lambda: b"cursor line" in term.out)
    app.exit()
    await asyncio.wait_for(task, 10)
    assert "╭─" in term.screen() and "Стіл…" in term.screen()
    assert b"\x1b[38;" in term.out or b"\x1b[3" in term.out
