"""Work done once per change, not once per reader (issue 19): an action's legality is checked
once (the hub checks before it stores; the engine does not check again), and the table's
shared part and the game view's public part are made once for every seat and spectator they
are sent to."""

from __future__ import annotations

from server.engine.base import State
from server.hub.lobby import Lobby
from server.hub.play import Play

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
    publics: list[int] = []
    per_change: list[tuple[int, int]] = []  # table_info, public_view calls per table_changed
    check, info, changed = State.check_action, Lobby.table_info, Play.table_changed
    public = State.public_view

    def counted_check(self, seat, action):
        checks.append(seat)
        return check(self, seat, action)

    def counted_info(self, t):
        infos.append(t.id)
        return info(self, t)

    def counted_public(self):
        publics.append(id(self))
        return public(self)

    def counted_changed(self, t, **kw):
        before = len(infos), len(publics)
        changed(self, t, **kw)
        per_change.append((len(infos) - before[0], len(publics) - before[1]))

    monkeypatch.setattr(State, "check_action", counted_check)
    monkeypatch.setattr(Lobby, "table_info", counted_info)
    monkeypatch.setattr(Play, "table_changed", counted_changed)
    monkeypatch.setattr(State, "public_view", counted_public)
    # Whoever must decide first (a bid) decides; everyone at the table and the spectator hear.
    state = hub.tables[table].state
    (seat,) = state.pending()
    client = {0: ada, 1: bob}.get(seat)
    assert client is not None, "a bot starts: the table is dealt with a fixed seed"
    before = len(cy.log)
    await client.send("act", table=table, action=state.legal_actions(seat)[0].to_wire())
    await cy.until(lambda m: m["t"] == "table" and len(cy.log) > before)
    assert checks.count(seat) == 1  # (a bot may have acted since: another seat)
    # two players and a spectator: each part made once (the info not even that after a move
    # that follows a move: it is kept, see the test below)
    assert per_change and set(per_change) <= {(0, 1), (1, 1)}


async def test_the_info_is_kept_between_moves_and_made_anew_after_anything_else(hub):
    """Between two moves the table's info is the same object (not built and compared again);
    a change that is not a move (a second spectator here, which only the lobby is told of)
    shows in the next move's info."""
    ada, bob, cy, dee = [await connect(hub) for _ in range(4)]
    await ada.hello("Ada", identity="SHA256:ada")
    await bob.hello("Bob", identity="SHA256:bob")
    await cy.hello("Cy", identity="SHA256:cy")
    await dee.hello("Dee", identity="SHA256:dee")
    table = await start_table([ada, bob], "prophet", 3)
    await cy.send("spectate", table=table)
    await cy.until(lambda m: m["t"] == "table" and m["table"] == table)
    play, t = hub.play, hub.tables[table]

    def move() -> None:
        state = t.state
        seat = sorted(state.pending())[0]
        play.apply_action(t, seat, state.legal_actions(seat)[0])
        hub.commit()

    move()
    kept = t.shown_info
    move()
    assert t.shown_info is kept and t.shared.info is kept[1]
    assert kept[1]["spectators"] == 1
    await dee.send("spectate", table=table)
    await dee.until(lambda m: m["t"] == "table" and m["table"] == table)
    move()
    assert t.shown_info is not kept
    assert t.shared.info["spectators"] == 2
    await cy.until(lambda m: m["t"] == "table" and m["info"]["spectators"] == 2)
