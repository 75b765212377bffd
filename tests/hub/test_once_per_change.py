"""Work done once per change, not once per reader (issue 19): an action's legality is checked
once (the hub checks before it stores; the engine does not check again), and the table's
shared part is made once for every seat and spectator it is sent to."""

from __future__ import annotations

from server.engine.base import State
from server.hub import Hub

from .harness import connect
from .test_ratings import start_table


async def test_an_action_is_checked_once_and_the_tables_part_made_once(hub, monkeypatch):
    ada, bob, cy = await connect(hub), await connect(hub), await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    await bob.hello("Bob", identity="SHA256:bob")
    await cy.hello("Cy", identity="SHA256:cy")
    table = await start_table([ada, bob], "prophet", 3)
    await cy.send("spectate", table=table)
    await cy.until(lambda m: m["t"] == "table" and m["table"] == table)
    checks: list[int] = []
    infos: list[int] = []
    per_change: list[int] = []  # table_info calls in each table_changed
    check, info, changed = State.check_action, Hub.table_info, Hub.table_changed

    def counted_check(self, seat, action):
        checks.append(seat)
        return check(self, seat, action)

    def counted_info(self, t):
        infos.append(t.id)
        return info(self, t)

    def counted_changed(self, t):
        before = len(infos)
        changed(self, t)
        per_change.append(len(infos) - before)

    monkeypatch.setattr(State, "check_action", counted_check)
    monkeypatch.setattr(Hub, "table_info", counted_info)
    monkeypatch.setattr(Hub, "table_changed", counted_changed)
    # Whoever must decide first (a bid) decides; everyone at the table and the spectator hear.
    state = hub.tables[table].state
    (seat,) = state.pending()
    client = {0: ada, 1: bob}.get(seat)
    assert client is not None, "a bot starts: the table is dealt with a fixed seed"
    before = len(cy.log)
    await client.send("act", table=table, action=state.legal_actions(seat)[0])
    await cy.until(lambda m: m["t"] == "table" and len(cy.log) > before)
    assert checks.count(seat) == 1  # (a bot may have acted since: another seat)
    assert per_change and set(per_change) == {1}  # two players and a spectator: made once
