"""Each event's log line is made once, and made again when what it shows changes."""

from __future__ import annotations

from rich.text import Text

from gambit_tui.event_lines import EventLines


def test_lines_are_made_once_per_event_and_again_for_a_new_context() -> None:
    made: list[dict] = []

    def make(event: dict) -> Text | None:
        made.append(event)
        return None if event.get("quiet") else Text(f"{event['who']} {event['did']}")

    lines = EventLines()
    first = [{"who": "Ann", "did": "bids"}, {"quiet": True}]
    assert [t.plain for t in lines.lines(first, make, "en")] == ["Ann bids"]
    assert len(made) == 2

    second = [*first, {"who": "Bo", "did": "plays"}]
    assert [t.plain for t in lines.lines(second, make, "en")] == ["Ann bids", "Bo plays"]
    assert made[2:] == [{"who": "Bo", "did": "plays"}]  # only the new event was drawn

    assert [t.plain for t in lines.lines(second, make, "de")] == ["Ann bids", "Bo plays"]
    assert len(made) == 6  # a new language, style or names: every line drawn again
