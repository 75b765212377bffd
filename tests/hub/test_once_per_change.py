"""Work done once per change, not once per reader (issue 19): an action's legality is checked
once (the hub checks before it stores; the engine does not check again), and the table's
shared part and the game view's public part are made once for every seat and spectator they
are sent to."""

from __future__ import annotations

import asyncio

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


async def test_a_bot_is_given_the_public_part_its_tables_readers_were(hub, monkeypatch):
    """A bot's move builds no public part of its own: it is given the one the hub built for
    the table's last change, as a person in that seat is, and its view is the very view a
    person there would see (a fresh ``State.view`` of the seat)."""
    import server.hub.turns as turns

    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    public = State.public_view
    publics: list[int] = []
    changes: list[int] = []  # public parts built per table_changed (one while a game is on)
    given: list[tuple[dict, dict]] = []  # (the view a bot was given, the seat's fresh view)
    changed, make_bot = Play.table_changed, turns.make_bot

    def counted_public(self):
        publics.append(id(self))
        return public(self)

    def counted_changed(self, t, **kw):
        before = len(publics)
        changed(self, t, **kw)
        changes.append(len(publics) - before)

    def watched_bot(game, kind, seed):
        bot = make_bot(game, kind, seed=seed)
        table_id, index, _ = (int(part) for part in seed.split(":"))
        state = hub.tables[table_id].state
        choose = bot.choose

        def chooses(view):
            given.append((view, {**public(state), **state.private_view(index)}))
            return choose(view)

        bot.choose = chooses
        return bot

    monkeypatch.setattr(State, "public_view", counted_public)
    monkeypatch.setattr(Play, "table_changed", counted_changed)
    monkeypatch.setattr(turns, "make_bot", watched_bot)
    table = await start_table([ada], "prophet", 3, {"cap": 2})

    t = hub.tables[table]
    for _ in range(2000):  # (the deal's entropy first)
        if t.state is not None:
            break
        await asyncio.sleep(0.005)
    for _ in range(2000):  # (bounded: a game of two rounds asks Ada a few times)
        state = t.state
        if t.games_played or state is None or state.is_over:  # (None: between games)
            break
        if 0 in state.pending() and not ada.closed:
            moves = len(state.history)
            await ada.send("act", table=table, action=state.legal_actions(0)[0].to_wire())
            while t.state is state and len(state.history) == moves:
                await asyncio.sleep(0.001)
        await asyncio.sleep(0.005)
    assert t.games_played or (t.state is not None and t.state.is_over)
    assert len(given) >= 4  # two bots, two rounds: each bid and played
    assert all(bot_view == fresh for bot_view, fresh in given)
    # Every public part built was one table change's, none a bot's own.
    assert len(publics) == sum(changes)
