"""A move sent while the hub's database is away (its PostgreSQL restarts: Store.fence,
tests/hub/test_database_away.py) is refused: the player reads why, in their language, and
makes the move again once the database is back."""

from __future__ import annotations

import pytest

from protocol.actions import action_from_wire
from protocol.requests import Act
from protocol.term import TermInfo

from .conftest import enter_lobby, make_app, start_pg_deal, wait_for

#: What each language's player reads.
NOT_SAVED = {
    "en_GB.UTF-8": "The server could not save that just now; try again in a moment.",
    "uk_UA.UTF-8": "Сервер не зміг це зберегти саме зараз; спробуйте ще раз за мить.",
    "de_DE.UTF-8": (
        "Der Server konnte das gerade nicht speichern; versuchen Sie es gleich noch einmal."
    ),
}


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


@pytest.mark.parametrize("lang", list(NOT_SAVED))
async def test_a_move_while_the_database_is_away_says_so_and_is_taken_after(hub, lang):
    app = make_app(hub, term=TermInfo(lang=lang))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        action = action_from_wire(table.view["legal"][0])
        events = len(table.view["events"])
        hub.database_away("the test's database restarts")
        app.send(Act(table.table_id, action))
        await wait_for(pilot, lambda: NOT_SAVED[lang] in notices(app))
        assert not any("went wrong" in n or "schiefgegangen" in n for n in notices(app))
        assert table.ask is not None and len(table.view["events"]) == events
        assert await hub.database_back()
        app.send(Act(table.table_id, action))
        await wait_for(pilot, lambda: len(table.view["events"]) > events)
