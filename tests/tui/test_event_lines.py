"""Each event's log line is made once, and made again when what it shows changes."""

from __future__ import annotations

from rich.text import Text

from gambit_tui import event_lines
from gambit_tui.event_lines import EventLines


def test_lines_are_made_once_per_event_and_again_for_a_new_context() -> None:
    event_lines._shared.clear()  # (lines other tests made in this process)
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


def test_apps_share_lines_by_context_and_a_changed_event_gets_its_own() -> None:
    """The players at a table (one worker process) get each event's line made once; another
    language, style or names has its own; an event that changed (a delta copies what it
    changes) is drawn anew, one copied unchanged is not."""
    event_lines._shared.clear()
    made: list[dict] = []

    def make(event: dict) -> Text:
        made.append(event)
        return Text(f"{event['who']} {event['did']}")

    ann, bo = EventLines(), EventLines()
    events = [{"who": "Ann", "did": "bids"}, {"who": "Bo", "did": "plays"}]
    shown = [t.plain for t in ann.lines(events, make, ("en", "Ann", "Bo"))]
    # Bo's app has its own copies of the same events (decoded from its own messages).
    copies = [dict(e) for e in events]
    assert [t.plain for t in bo.lines(copies, make, ("en", "Ann", "Bo"))] == shown
    assert len(made) == 2
    assert [t.plain for t in bo.lines(copies, make, ("de", "Ann", "Bo"))] == shown
    assert len(made) == 4
    # The second event changed: a new object with new content, drawn anew.
    changed = [copies[0], {"who": "Bo", "did": "risks"}]
    assert [t.plain for t in bo.lines(changed, make, ("de", "Ann", "Bo"))] == [
        "Ann bids",
        "Bo risks",
    ]
    assert made[-1] == {"who": "Bo", "did": "risks"} and len(made) == 5
