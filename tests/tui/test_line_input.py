"""Typing repaints the text box only; long text still scrolls to the cursor."""

from __future__ import annotations

import pytest
from textual.screen import Screen

from tests.tui.conftest import enter_lobby, make_app, screen_text


@pytest.fixture
def layouts(monkeypatch):
    """How many times a screen was laid out."""
    count = [0]
    original = Screen._refresh_layout

    def counted(self, size=None, scroll=False):
        count[0] += 1
        return original(self, size, scroll)

    monkeypatch.setattr(Screen, "_refresh_layout", counted)
    return count


async def test_typing_in_the_chat_lays_nothing_out_and_shows_the_end_of_long_text(hub, layouts):
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("c")
        await pilot.pause()
        before = layouts[0]
        text = "".join(f"w{n:02d} " for n in range(30))  # 120 characters, wider than the box
        await pilot.press(*text.replace(" ", "_"))
        await pilot.pause()
        assert layouts[0] == before
        shown = screen_text(app)
        assert "w29_" in shown  # the box scrolled with the cursor
        assert "w00_" not in shown
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert "w00_w01_" in screen_text(app)  # sent to the lobby chat, and wrapped there


async def test_a_typed_key_is_drawn_as_soon_as_the_box_has_it(hub, monkeypatch):
    """Not at Textual's next frame: the screen draws in the callback after the key."""
    from gambit_tui.screens.base import GambitScreen

    drawn: list[bool] = []
    original = GambitScreen.draw_screen_now
    assert original is not None  # as the server hosts apps (tests/tui/conftest.py)

    def counted(screen):
        drawn.append(original(screen))
        return drawn[-1]

    monkeypatch.setattr(GambitScreen, "draw_screen_now", counted)
    app = make_app(hub)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("c")
        await pilot.pause()
        drawn.clear()
        await pilot.press(*"hello")
        await pilot.pause()
        assert drawn.count(True) >= 5  # each key drew its frame at once
        assert "hello" in screen_text(app)
