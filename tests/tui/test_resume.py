"""A session moved to another hub (a standby taking over, issue 20): the gateway tells the
app "Reconnecting to the tables…", and the new hub's welcome leaves the screens as they are."""

from __future__ import annotations

from protocol.messages import PROTOCOL_VERSION

from .conftest import enter_lobby, make_app, start_pg_deal


async def test_a_second_welcome_keeps_the_table_on_top(hub):
    app = make_app(hub)
    async with app.run_test(size=(100, 32)) as pilot:
        await enter_lobby(pilot)
        table = await start_pg_deal(pilot)
        stack = list(app.screen_stack)
        app.receive({"t": "notice", "code": "reconnecting", "message": "Reconnecting…"})
        welcome = {
            "t": "welcome",
            "v": PROTOCOL_VERSION,
            "you": dict(app.model.you),
            "server": dict(app.model.server),
            "returning": True,
        }
        app.receive(welcome)
        await pilot.pause()
        assert list(app.screen_stack) == stack and app.screen is table
        # (the notice that it was reconnecting is taken down once it is back: issue 43)
        told = [n.message for n in app._notifications]
        assert "Reconnecting to the tables…" not in told and "Back at the tables." in told
