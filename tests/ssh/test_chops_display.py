"""The driver takes the compositor's frames as pieces (``server/terminal/chops_display.py``):
the Textual internals it reads are there, and real table updates reach the terminal as the
same bytes as when the driver parsed Textual's own string."""

from __future__ import annotations

import inspect
from typing import Any

import pyte
from textual.app import App
from textual.geometry import Region

from server.terminal import chops_display, screen_diff
from server.terminal.chops_display import Frame
from server.terminal.driver import ChannelDriver, _is_control
from server.terminal.screen_diff import SYNC_END, SYNC_START, SentScreen
from server.terminal.sgr import compact_pieces


def test_the_textual_internals_chops_display_reads_are_there():
    from textual._compositor import ChopsUpdate, LayoutUpdate

    assert list(inspect.signature(App._display).parameters) == ["self", "screen", "renderable"]
    for name in ("_handle_exception", "post_display_hook", "_begin_update", "_end_update"):
        assert callable(getattr(App, name))
    app = App()
    for name in ("_batch_count", "_running", "_closed", "_driver", "_sync_available"):
        assert hasattr(app, name), name
    assert hasattr(app, "_previous_cursor_position")
    chops = ChopsUpdate([{0: None}], [(0, 0, 1)], [[1]])
    assert (chops.chops, chops.spans, chops.chop_ends) == ([{0: None}], [(0, 0, 1)], [[1]])
    layout = LayoutUpdate([], Region(0, 0, 1, 1))
    assert (layout.strips, layout.region) == ([], Region(0, 0, 1, 1))


async def test_table_updates_send_the_bytes_the_parsed_string_did(monkeypatch):
    """Five apps at a Prophet's Gambit table (two of them with synchronised output), ten
    actions: every frame's pieces are Textual's string without its line feeds, and every send
    is the bytes the driver sent when it parsed that string."""
    from bench.table_updates import TABLE_SIZE, seat_apps, settle

    wrong: list[tuple[Any, Any]] = []  # (the old path's, ours): asserted at the end
    strings: dict[int, str] = {}  # id(a frame's pieces) → Textual's render_segments
    pieces_of = chops_display.update_pieces

    def recording(update: Any, console: Any) -> list[tuple[int, int, str, int]]:
        pieces = pieces_of(update, console)
        textual = update.render_segments(console)
        ours = "".join(f"\x1b[{row};{column}H{text}" for row, column, text, _ in pieces)
        if textual.replace("\n", "") != ours:
            wrong.append((textual, ours))
        for _row, _column, text, cells in pieces:
            if cells != screen_diff._cells(text):
                wrong.append((text, cells))
        strings[id(pieces)] = textual
        return pieces

    synced: list[Frame] = []

    def old_string(frame: Frame) -> str:
        if frame.sync:
            synced.append(frame)
        row, column, _, _ = frame.pieces[-1]  # the cursor's move
        text = strings.pop(id(frame.pieces)) + f"\x1b[{row};{column}H"
        return f"{SYNC_START}{text}{SYNC_END}" if frame.sync else text

    shadows: dict[int, SentScreen] = {}  # by driver: its screen as the old path kept it
    checked_sends: list[bytes] = []
    send_text = ChannelDriver._send_text

    def checked(driver: ChannelDriver, parts: list[Any]) -> None:
        shadow = shadows.setdefault(id(driver), SentScreen())
        shadow.width = driver._screen.width
        controls = "".join(p for p in parts if isinstance(p, str) and _is_control(p))
        drawing = "".join(
            p if isinstance(p, str) else old_string(p) for p in parts if not _is_control(p)
        )
        drawing = compact_pieces(shadow.diff_pieces(driver._shown(drawing)), driver._erase)
        expected = (driver._shown(controls) + drawing).encode("utf-8", "replace")
        terminal = driver._terminal
        sent: list[bytes] = []
        terminal.send = sent.append  # type: ignore[method-assign]  # a stand-in that counts or records
        try:
            send_text(driver, parts)
        finally:
            del terminal.send
        for data in sent:
            terminal.send(data)
        if b"".join(sent) != expected:
            wrong.append((expected, b"".join(sent)))
        checked_sends.append(expected)

    monkeypatch.setattr(chops_display, "update_pieces", recording)
    monkeypatch.setattr(ChannelDriver, "_send_text", checked)
    seated = await seat_apps(TABLE_SIZE, "gambit-chops-")  # the apps' start checked too
    try:
        for app in seated.apps[:2]:
            app._sync_available = True
        for _ in range(10):
            assert seated.move(seated.tables[0], "chops")
            await settle(seated.terminals, quiet=0.1)
        assert wrong == []
        assert len([sent for sent in checked_sends if sent]) >= 10 * TABLE_SIZE
        assert len(synced) >= 10
        assert all(t.driver._screen.not_understood == 0 for t in seated.terminals)
    finally:
        monkeypatch.undo()
        await seated.close()


def _screen(data: str, cols: int = 20, rows: int = 4) -> list[str]:
    screen = pyte.Screen(cols, rows)
    pyte.Stream(screen).feed(data)
    return screen.display


def test_frames_held_together_with_sync_markers_are_one_synchronised_update():
    """A held repaint and the update after it (each with its markers) were one string the
    parse did not understand (a marker inside it), sent whole; as pieces they are one frame:
    diffed, within one pair of markers, the same screen."""
    first = Frame([(1, 1, "hello", 5), (2, 1, "world", 5), (1, 1, "", 0)], True)
    second = Frame([(2, 1, "wor1d", 5), (1, 1, "", 0)], True)
    old = SentScreen(width=20).diff(first.text() + second.text())
    assert old == first.text() + second.text()  # not understood
    sent = SentScreen(width=20)
    pieces = sent.diff_drawn(first.pieces + second.pieces, True, lambda: "")
    new = compact_pieces(pieces)
    assert new.startswith(SYNC_START) and new.endswith(SYNC_END)
    assert new.count(SYNC_START) == 1 and len(new) < len(old)
    assert _screen(new) == _screen(old)
    assert sent.not_understood == 0
