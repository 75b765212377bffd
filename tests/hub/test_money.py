"""Chips and ratings through many games, checked against first principles.

The hub's own hooks are wrapped only to *observe*: after every change a table announces, the
chips are audited (the ledger and all balances sum to 0, no account but the bank is negative,
a pot holds exactly the antes, stays and raises of the game in play and nothing between
games); every payout is compared with ``Outcome.payouts(stake)``. Ratings are recomputed with
openskill directly and compared with what the hub stored and shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

from openskill.models import PlackettLuce

from protocol.actions import Fold, Stay
from server.engine.base import Outcome
from server.hub import Hub, ratings

from .conftest import fast_config
from .harness import Client, connect

START = 1000


@contextlib.asynccontextmanager
async def running_hub(store, **config):
    hub = Hub(store, fast_config(**config))
    await hub.start()
    try:
        yield hub
    finally:
        await hub.stop()


async def player(hub: Hub, name: str) -> Client:
    client = await connect(hub)
    client.welcome = await client.hello(name, identity=f"key-{name}")  # type: ignore[attr-defined]  # noted on the test's client
    client.pid = f"key-{name}"  # type: ignore[attr-defined]  # noted on the test's client
    return client


async def new_table(client: Client, bots: dict[int, str] | None = None, **fields) -> int:
    """Create a table (the creator sits in seat 0) and put bots in the given seats."""
    fields.setdefault("game", "prophets_gambit")
    fields.setdefault("players", 3)
    known = set(client.tables)
    await client.send("create_table", **fields)
    msg = await client.until(lambda m: m["t"] == "table" and m["table"] not in known)
    table = msg["table"]
    for seat, kind in (bots or {}).items():
        await client.send("add_bot", table=table, seat=seat, kind=kind)
    if bots:
        await client.until(
            lambda m: (
                m["t"] == "table"
                and m["table"] == table
                and all(m["info"]["seats"][s]["bot"] for s in bots)
            )
        )
    return table


async def join(client: Client, table: int) -> None:
    await client.send("join", table=table)
    await client.until(
        lambda m: m["t"] == "table" and m["table"] == table and m["seat"] is not None
    )


async def start(client: Client, table: int) -> None:
    await client.send("start", table=table)
    await client.until(
        lambda m: m["t"] == "table" and m["table"] == table and m["view"] is not None
    )


class Humans:
    """Clients answer every ask at every table they sit at with ``choose(view)``."""

    def __init__(self, clients: list[Client], choose) -> None:
        self.clients = clients
        self.choose = choose
        self.answered: set[int] = set()

    async def play(self, done, timeout: float = 20.0) -> None:
        async def run() -> None:
            while not done():
                for client in self.clients:
                    for table, msg in list(client.tables.items()):
                        view = msg["view"]
                        if view and view["legal"] and id(msg) not in self.answered:
                            self.answered.add(id(msg))
                            await client.send("act", table=table, action=self.choose(view))
                await asyncio.sleep(0.002)

        await asyncio.wait_for(run(), timeout)


class ChipAuditor:
    """Checks the chips every time a table announces a change, and every payout."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.store = hub.store
        self.checks = 0
        self.settled: list[dict[str, Any]] = []
        self._table_changed = hub.play.table_changed
        self._settle = hub.play.settle
        hub.play.table_changed = self.table_changed  # type: ignore[method-assign]  # a stand-in that counts or records
        hub.play.settle = self.settle  # type: ignore[method-assign]  # a stand-in that counts or records

    def audit(self) -> None:
        store = self.store
        assert store.ledger_total() == 0
        assert store.audit() == []
        balances = store.balances()
        assert sum(balances.values()) == 0
        assert all(v >= 0 for account, v in balances.items() if account != "bank"), balances
        for table in self.hub.tables.values():
            pot = store.balance(f"pot:{table.id}")
            state = table.state
            if table.status == "playing" and state is not None and not state.is_over:
                assert pot == table.stake * sum(paid_in(state)), (table.id, pot)
            else:
                assert pot == 0, (table.id, table.status, pot)
        self.checks += 1

    def table_changed(self, table, **kw) -> None:
        self.audit()
        self._table_changed(table, **kw)

    def settle(self, table) -> None:
        """Compare each account's gain with the engine's payouts for this table's stake."""
        outcome = table.state.outcome()
        payouts = outcome.payouts(table.stake)
        accounts = list(table.accounts)  # who anted for each seat in this game
        assert len(accounts) == table.players
        pot = f"pot:{table.id}"
        before = {a: self.store.balance(a) for a in {*accounts, pot}}
        contributions = outcome.contributions or [1] * table.players
        assert before[pot] == table.stake * sum(contributions)
        assert sum(payouts) == before[pot]  # the pot is shared out to the last chip
        self._settle(table)
        gained: dict[str, int] = {}
        for account, amount in zip(accounts, payouts, strict=True):
            gained[account] = gained.get(account, 0) + amount
        for account, amount in gained.items():
            assert self.store.balance(account) - before[account] == amount, (account, payouts)
        assert self.store.balance(pot) == 0
        self.settled.append(
            {
                "table": table.id,
                "stake": table.stake,
                "outcome": outcome,
                "accounts": accounts,
            }
        )


def paid_in(state) -> list[int]:
    """Each seat's payments into the pot so far, in stakes: the ante, and a Fortunes deal's
    stays and raises (which the view shows)."""
    return state.view(None).get("contributions") or [1] * state.num_players


def expected_balance(hub: Hub, auditor: ChipAuditor, pid: str) -> int:
    """The start, minus every ante, stay and raise, plus every payout the player's seats got."""
    balance = START
    for game in auditor.settled:
        if f"player:{pid}" in game["accounts"]:
            seat = game["accounts"].index(f"player:{pid}")
            outcome: Outcome = game["outcome"]
            contributions = outcome.contributions or [1] * len(outcome.scores)
            balance += outcome.payouts(game["stake"])[seat] - game["stake"] * contributions[seat]
    for table in hub.tables.values():
        if f"player:{pid}" not in table.accounts:
            continue
        seat = table.accounts.index(f"player:{pid}")
        if table.status == "playing" and not table.state.is_over:
            balance -= table.stake * paid_in(table.state)[seat]
    return balance


async def test_chips_are_conserved_over_many_games(store):
    rng = random.Random(7)
    async with running_hub(store) as hub:
        auditor = ChipAuditor(hub)
        ada, bob = await player(hub, "Ada"), await player(hub, "Bob")
        t1 = await new_table(ada, {2: "heuristic"}, stake=10)
        await join(bob, t1)
        t2 = await new_table(ada, {1: "random", 2: "heuristic"}, game="prophet", stake=3)
        t3 = await new_table(
            bob,
            {1: "random", 2: "random", 3: "random"},
            game="fortunes",
            players=4,
            options={"betting": "raise"},
            stake=5,
        )
        for client, table in ((ada, t1), (ada, t2), (bob, t3)):
            await start(client, table)
        humans = Humans([ada, bob], lambda view: rng.choice(view["legal"]))

        def played(table: int) -> int:
            return sum(1 for g in auditor.settled if g["table"] == table)

        await humans.play(lambda: all(played(t) >= 4 for t in (t1, t2, t3)), timeout=40)
        assert auditor.checks > 100
        raised = [g for g in auditor.settled if g["outcome"].contributions not in (None, [1] * 4)]
        assert raised, "no game with a raise: the raise path went untested"
        for client in (ada, bob):
            pid = client.pid  # type: ignore[attr-defined]  # noted on the test's client
            assert store.balance(f"player:{pid}") == expected_balance(hub, auditor, pid)
        # each player was told a fresh balance when every game they played started (the ante)
        # and when it ended (the payout)
        for client in (ada, bob):
            pid = client.pid  # type: ignore[attr-defined]  # noted on the test's client
            finished = sum(1 for g in auditor.settled if f"player:{pid}" in g["accounts"])
            await asyncio.wait_for(_until(lambda c=client, n=finished: len(yous(c)) >= 2 * n), 5)
            assert all(m["chips"] >= 0 for m in yous(client))


def yous(client: Client) -> list[dict[str, Any]]:
    return [m for m in client.log if m["t"] == "you"]


async def test_joining_needs_at_least_the_stake(store):
    async with running_hub(store) as hub:
        ada, bob = await player(hub, "Ada"), await player(hub, "Bob")
        await ada.send("create_table", game="prophets_gambit", players=3, stake=START + 1)
        assert (await ada.expect("error"))["code"] == "chips"
        assert not hub.tables
        table = await new_table(ada, {2: "heuristic"}, stake=50)
        assert store.balance("player:key-Ada") == START  # sitting costs nothing yet
        store.transfer("player:key-Bob", "bank", START - 49, "test")  # Bob keeps 49
        await bob.send("join", table=table)
        assert (await bob.expect("error"))["code"] == "chips"
        assert hub.tables[table].seats[1].empty
        store.transfer("bank", "player:key-Bob", 1, "test")  # exactly the stake is enough
        await join(bob, table)
        await start(bob, table)
        assert store.balance("player:key-Bob") == 0
        assert store.balance("player:key-Ada") == START - 50
        assert store.balance(f"pot:{table}") == 150
        assert store.audit() == []


async def test_a_player_who_cannot_pay_the_stake_is_stood_up_before_the_next_deal(store):
    async with running_hub(store, starting_chips=20) as hub:
        auditor = ChipAuditor(hub)
        ada, bob = await player(hub, "Ada"), await player(hub, "Bob")
        table = await new_table(ada, {2: "heuristic"}, stake=20)
        await join(bob, table)
        await start(ada, table)
        humans = Humans([ada, bob], lambda view: view["legal"][0])
        await humans.play(lambda: auditor.settled, timeout=20)
        outcome = auditor.settled[0]["outcome"]
        assert len(outcome.winners) == 1  # one hand wins Prophet's Gambit: the pot is 60
        winner = outcome.winners[0]
        # the next deal comes (between_games is short) and stands up whoever has < 20 chips
        losers = [c for seat, c in enumerate((ada, bob)) if seat != winner]
        for client in losers:
            assert store.balance(f"player:{client.pid}") == 0  # type: ignore[attr-defined]  # noted on the test's client
            err = await client.expect("error", code="chips", timeout=5)
            assert "stake" in err["message"]
        if winner == 2:  # the bot won: no human can pay, the table closes
            await asyncio.wait_for(_until(lambda: table not in hub.tables), 5)
        else:
            stayer = (ada, bob)[winner]
            assert store.balance(f"player:{stayer.pid}") == 60  # type: ignore[attr-defined]  # noted on the test's client
            msg = await stayer.until(
                lambda m: (
                    m["t"] == "table"
                    and m["table"] == table
                    and m["info"]["status"] == "waiting"
                    and m["info"]["games_played"] == 1
                )
            )
            seats = msg["info"]["seats"]
            assert seats[winner]["name"] == ("Ada", "Bob")[winner]
            assert seats[1 - winner]["name"] is None and seats[1 - winner]["bot"] is None
            assert hub.tables[table].state.is_over  # no new deal, no new antes
        assert store.balance(f"pot:{table}") == 0
        assert store.audit() == [] and store.ledger_total() == 0
        assert len(auditor.settled) == 1


async def test_payouts_go_to_whoever_anted_for_the_seat(store):
    """Standing up mid-game leaves the ante in the pot and the seat's winnings to its player;
    reclaiming the seat in a game the bank anted for wins the player nothing from it."""
    stake = 10
    async with running_hub(store) as hub:
        auditor = ChipAuditor(hub)
        ada, bob = await player(hub, "Ada"), await player(hub, "Bob")
        table = await new_table(
            ada, {2: "heuristic"}, game="prophet", options={"cap": 1}, stake=stake
        )
        await join(bob, table)
        await start(ada, table)
        await ada.send("stand", table=table)  # the game waits for Bob: it is still on
        await ada.expect("left", table=table)
        assert hub.tables[table].seats[0].reserved == "key-Ada"
        humans = Humans([bob], lambda view: view["legal"][0])
        await humans.play(lambda: len(auditor.settled) == 1)
        first = auditor.settled[0]
        assert first["accounts"] == ["player:key-Ada", "player:key-Bob", "bank"]
        after_first = START - stake + first["outcome"].payouts(stake)[0]
        assert store.balance("player:key-Ada") == after_first
        # the next game: the bot keeps Ada's reserved seat with the bank's chips
        await asyncio.wait_for(
            _until(
                lambda: (
                    hub.tables[table].status == "playing" and hub.tables[table].games_played == 1
                )
            ),
            5,
        )
        assert hub.tables[table].accounts == ["bank", "player:key-Bob", "bank"]
        assert store.balance("player:key-Ada") == after_first
        await join(ada, table)  # reclaimed mid-game
        assert hub.tables[table].seats[0].player == "key-Ada"
        humans.clients.append(ada)
        await humans.play(lambda: len(auditor.settled) == 2)
        assert auditor.settled[1]["accounts"] == ["bank", "player:key-Bob", "bank"]
        assert store.balance("player:key-Ada") == after_first
        # from the next deal on, Ada antes (and may win) again
        await asyncio.wait_for(
            _until(
                lambda: (
                    hub.tables[table].status == "playing" and hub.tables[table].games_played == 2
                )
            ),
            5,
        )
        assert hub.tables[table].accounts[0] == "player:key-Ada"
        assert store.balance("player:key-Ada") == after_first - stake
        assert store.audit() == []


async def _until(predicate) -> None:
    while not predicate():
        await asyncio.sleep(0.01)


async def test_fortunes_stays_and_raises_pay_the_ante_and_who_cannot_pay_must_fold(store):
    """Ruling 10 (b) through the ledger: a stay pays the current ante again, a raise lifts it
    by one stake and pays the new one, each moved into the pot before the action is applied;
    a stay the player cannot pay is refused, changing nothing, and the player folds."""
    stake = 10
    async with running_hub(store, between_games=30) as hub:
        auditor = ChipAuditor(hub)
        ada, cy = await player(hub, "Ada"), await player(hub, "Cy")
        # Cy can pay the ante and one stay at two stakes, and nothing more
        store.transfer("player:key-Cy", "bank", START - 3 * stake, "test")
        table = await new_table(
            ada,
            {2: "heuristic", 3: "heuristic"},
            game="fortunes",
            players=4,
            options={"betting": "raise"},
            stake=stake,
        )
        await join(cy, table)
        hub.tables[table].dealer = 0  # Ada deals: she bets first, then Cy
        await start(ada, table)
        pot = f"pot:{table}"
        seen: set[int] = set()

        async def turn(client: Client) -> dict[str, Any]:
            async def asked() -> dict[str, Any]:
                while True:
                    msg = client.tables[table]
                    view = msg["view"]
                    if view["legal"] and id(msg) not in seen:
                        seen.add(id(msg))
                        return view
                    await asyncio.sleep(0.002)

            return await asyncio.wait_for(asked(), 10)

        def last_row(account: str) -> tuple[str, int]:
            row = store.ledger(account, limit=1)[0]
            return row["reason"], row["amount"]

        view = await turn(ada)  # before trick 1, Ada raises: the ante is 2 stakes now
        assert view["ask"]["kind"] == "bet" and view["ask"]["ante"] == 1
        await ada.send("act", table=table, action={"type": "raise"})
        view = await turn(cy)
        assert view["ante"] == 2 and view["contributions"][0] == 3
        assert last_row("player:key-Ada") == ("raise", -2 * stake)
        assert store.balance("player:key-Ada") == START - 3 * stake
        assert store.balance(pot) == 4 * stake + 2 * stake
        await cy.send("act", table=table, action={"type": "stay"})  # Cy pays 2 stakes
        view = await turn(ada)  # the bots stayed too (2 stakes each); Ada leads trick 1
        assert view["ask"]["kind"] == "play" and view["contributions"] == [3, 3, 3, 3]
        assert last_row("player:key-Cy") == ("stay", -2 * stake)
        assert store.balance("player:key-Cy") == 0
        assert store.balance(pot) == 12 * stake
        await ada.send("act", table=table, action=view["legal"][0])
        view = await turn(cy)
        await cy.send("act", table=table, action=view["legal"][0])
        view = await turn(cy)  # trick 2 is Cy's: she bets first, and cannot pay the ante
        assert view["ask"]["kind"] == "bet" and view["ask"]["trick"] == 2
        history = len(hub.tables[table].state.history)
        await cy.send("act", table=table, action={"type": "stay"})
        err = await cy.expect("error", code="chips")
        assert err["ref"] == "act" and "must fold" in err["message"]
        assert len(hub.tables[table].state.history) == history  # nothing changed
        assert store.balance("player:key-Cy") == 0 and store.balance(pot) == 12 * stake
        await cy.send("act", table=table, action={"type": "fold"})
        await asyncio.wait_for(_until(lambda: auditor.settled), 10)
        outcome = auditor.settled[0]["outcome"]
        assert outcome.detail["folded_by"] == 1
        assert outcome.contributions == [3, 3, 3, 3]
        payouts = outcome.payouts(stake)
        assert sum(payouts) == 12 * stake
        assert store.balance("player:key-Ada") == START - 3 * stake + payouts[0]
        assert store.balance("player:key-Cy") == payouts[1]
        assert store.audit() == []


async def test_a_stand_in_that_cannot_pay_the_ante_folds(store):
    """An absent player's stand-in plays with the player's chips, so it folds when it cannot
    pay the ante again (ruling 10 b), instead of being refused."""
    stake = 10
    async with running_hub(store, between_games=30) as hub:
        auditor = ChipAuditor(hub)
        ada = await player(hub, "Ada")
        store.transfer("player:key-Ada", "bank", START - stake, "test")  # the ante, no more
        table = await new_table(
            ada,
            {1: "heuristic", 2: "heuristic", 3: "heuristic"},
            game="fortunes",
            players=4,
            options={"betting": "raise"},
            stake=stake,
        )
        hub.tables[table].dealer = 0  # Ada decides first
        await start(ada, table)
        state = hub.tables[table].state
        assert state.pending()[0].kind == "bet"
        assert hub.turns.affordable(hub.tables[table], 0, Stay()) == Fold()
        assert hub.turns.affordable(hub.tables[table], 1, Stay()) == Stay()
        await ada.close()  # gone: after the grace period a bot keeps her seat
        await asyncio.wait_for(_until(lambda: auditor.settled), 10)
        outcome = auditor.settled[0]["outcome"]
        assert outcome.detail["folded_by"] == 0 and outcome.refund  # before any trick
        assert store.balance("player:key-Ada") == stake


async def test_ratings_follow_each_game_and_max_rating_keeps_strong_players_out(store):
    model = PlackettLuce()
    game = "prophets_gambit"
    async with running_hub(store, between_games=30) as hub:
        auditor = ChipAuditor(hub)
        ada, bob = await player(hub, "Ada"), await player(hub, "Bob")
        for client in (ada, bob):
            assert game not in client.welcome["you"]["ratings"]  # type: ignore[attr-defined]  # noted on the test's client
        humans = Humans([ada, bob], lambda view: view["legal"][-1])
        seats = ["key-Ada", "key-Bob", None]  # seat 2: a bot
        for number in range(3):
            table = await new_table(ada, {2: "heuristic"})
            await join(bob, table)
            before = {pid: store.rating(pid, game) for pid in seats[:2]}
            await start(bob, table)
            await humans.play(lambda n=number: len(auditor.settled) > n, timeout=20)
            outcome: Outcome = auditor.settled[number]["outcome"]
            # openskill, computed here: seats ranked as the engine ranked them, the bot as a
            # newcomer at the default rating every time
            teams = [
                [model.rating(*(before[pid] or (model.mu, model.sigma)) if pid else ())]
                for pid in seats
            ]
            ranks = [outcome.ranking.index(seat) for seat in range(3)]
            rated = model.rate(teams, ranks=ranks)
            for seat, pid in enumerate(seats[:2]):
                mu, sigma = store.rating(pid, game)
                assert abs(mu - rated[seat][0].mu) < 1e-9, (number, seat)
                assert abs(sigma - rated[seat][0].sigma) < 1e-9, (number, seat)
                old_mu = (before[pid] or ratings.DEFAULT)[0]
                shown_before, shown = ratings.display(before[pid]), ratings.display((mu, sigma))
                if ranks[seat] == 0:  # the winner goes up, in mu and in the number shown
                    assert mu > old_mu and shown > shown_before
                if ranks[seat] == 2:  # last of three goes down
                    assert mu < old_mu
                    if before[pid] is None:
                        assert shown < shown_before
                client = (ada, bob)[seat]
                await asyncio.wait_for(_until(lambda c=client, n=number: len(yous(c)) > n), 5)
                assert yous(client)[number]["ratings"][game] == shown
            await ada.send("leave", table=table)
            await bob.send("leave", table=table)
            await asyncio.wait_for(_until(lambda t=table: t not in hub.tables), 5)
        assert len(auditor.settled) == 3
        # max_rating: a limit one below a player's shown rating keeps them out, a limit at it
        # lets them in; a newcomer shows 1000
        cy = await player(hub, "Cy")
        for client in (ada, bob):
            pid = client.pid  # type: ignore[attr-defined]  # noted on the test's client
            shown = yous(client)[-1]["ratings"][game]
            assert shown == hub.seating.rating_of(pid, game)
            low = await new_table(cy, max_rating=shown - 1)
            await client.send("join", table=low)
            err = await client.expect("error", code="rating_too_high")
            assert str(shown) in err["message"]
            assert hub.tables[low].seat_of(pid) is None
            at = await new_table(cy, max_rating=shown)
            await join(client, at)
            assert hub.tables[at].seat_of(pid) == 1
        newcomer = await player(hub, "Dee")
        low = await new_table(cy, max_rating=999)
        await newcomer.send("join", table=low)
        assert (await newcomer.expect("error", code="rating_too_high"))["ref"] == "join"
        at = await new_table(cy, max_rating=1000)
        await join(newcomer, at)
        assert hub.tables[at].seat_of("key-Dee") == 1


async def test_players_see_their_ante_leave_at_once(store):
    """The balance in a player's header drops by the stake when the game starts, not only
    when it is settled."""
    async with running_hub(store, bot_delay=30.0) as hub:
        ada, bo = await player(hub, "ada"), await player(hub, "bo")
        table = await new_table(ada, bots={2: "random"}, stake=25)
        await join(bo, table)
        await start(ada, table)
        for client in (ada, bo):
            you = await client.until(lambda m: m["t"] == "you" and m["chips"] == START - 25)
            assert you["chips"] == hub.store.balance(f"player:{you['id']}") == START - 25
