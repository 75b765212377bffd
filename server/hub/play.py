"""Games at a table: antes, actions, payouts, ratings, the pause between games.

The order of every accepted action is fixed: check it against the engine, store it (with any
chips it moves) in one transaction, apply it, then tell the table. A server killed at any
moment therefore restarts at the last stored action, and replaying ``params`` + actions gives
the very same state. Who moves when a human does not (bots, turn timers, stand-ins) is
:mod:`.turns`; seats kept for players who dropped, :mod:`.absence`; recovery, :mod:`.recovery`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from protocol.actions import Action
from protocol.requests import Act, ResultRead
from server.engine import get_game
from server.engine.base import Outcome
from server.engine.fairness import DealLog

from . import deals, ratings
from .errors import HubError, said
from .money import Account
from .results import game_results
from .session import need_player
from .table import Seat, Table
from .table_views import TableViews
from .you import you

if TYPE_CHECKING:  # for type hints only
    from protocol.server_messages import Table as TableMessage

    from .duplicate import Duplicate
    from .entropy import Entropy
    from .guests import Guests
    from .lobby import Lobby
    from .money import Money
    from .restart import Restart
    from .runtime import HubRuntime
    from .seating import Seating
    from .session import Session
    from .turns import Turns


def _cannot_pay(kind: str, chips: int) -> HubError:
    """Why a stay or a raise is refused: the player has not the chips it costs."""
    if kind == "raise":
        return HubError(
            "chips", "You do not have the {chips} chips a raise costs now.", chips=chips
        )
    return HubError(
        "chips",
        "You do not have the {chips} chips to pay the ante again, so you must fold.",
        chips=chips,
    )


class Play:
    """Games at the tables: antes, actions, payouts, ratings, and the next game."""

    def __init__(
        self,
        run: HubRuntime,
        seating: Seating,
        lobby: Lobby,
        entropy: Entropy,
        duplicate: Duplicate,
        guests: Guests,
        restart: Restart,
        money: Money,
        turns: Turns,
        action_hooks: list[Any],
    ) -> None:
        # Collaborators: the store, the config, who is online, the tables and players'
        # names, timers and tasks; the parts a game concerns (seating, lobby, entropy,
        # duplicate sets, guests, watchers); a coming restart; chips (money); who moves next
        # (turns), and the action hooks.
        self.run = run
        self.timers = run.timers
        self.store = run.store
        self.config = run.config
        self.players = run.players
        self.tables = run.tables
        self.names = run.names
        self.seating = seating
        self.watchers = seating.watchers
        self.lobby = lobby
        self.entropy = entropy
        self.duplicate = duplicate
        self.guests = guests
        self.restart = restart
        self.action_hooks = action_hooks
        self.money = money
        self.turns = turns
        #: Sending tables' views (they show the turn timers' deadlines).
        self.views = TableViews(run, self.watchers, lobby, duplicate, turns.deadlines)
        #: Tables between games → the players there who have closed the last game's result.
        self.results_read: dict[int, set[str]] = {}
        #: Told ``(table, outcome)`` once a game's end is stored (a game night counts it).
        self.game_end_hooks: list[Callable[[Table, Outcome], None]] = []

    # --- starting a game --------------------------------------------------------------------

    def start_game(self, table: Table, *, waited: bool = False) -> None:
        """Collect the antes and deal. Players who cannot pay the stake are stood up. Unless
        ``waited``, the deal may first wait briefly for players' entropy (entropy.py).
        While the database is away it is refused (StoreError) before anything changes: a
        timer that fired it sets it again once the database is back (``Timers.refused``)."""
        self.store.need_writable()
        # Every balance read before anyone is stood up: a read that finds the database gone
        # (Hub.database_error) then refuses the deal with nothing changed.
        short = [
            i
            for i, seat in enumerate(table.seats)
            if seat.player is not None and self.money.balance(Account.of_seat(seat)) < table.stake
        ]
        for i in short:
            seat = table.seats[i]
            table.seats[i] = Seat()
            assert seat.player is not None  # (short: a player's seat)
            self.run.tell(
                seat.player,
                "chips",
                said(
                    "You do not have the chips for this table's stake, so you have been stood up."
                ),
            )
        if not table.full:
            table.status = "waiting"
            self.seating.after_seat_change(table)
            return
        deal = self.duplicate.draw_deal(table)
        if not waited and self.entropy.wait(table):
            return
        self.entropy.stop_waiting(table.id)
        self.results_read.pop(table.id, None)
        self.duplicate.game_starts(table)  # seats turn, and who sees this game is noted
        deals.close(deal, [i for i, s in enumerate(table.seats) if s.player is not None])
        game = get_game(table.game)
        # The seed whose commitment the table has been showing, mixed with players' values.
        seed = deals.game_seed(deal)
        state = game.new_state(table.players, table.options, dealer=table.dealer, seed=seed)
        table.deal_log = DealLog(state)
        before = table.state, table.status
        try:
            with self.store.transaction():
                self.money.collect_antes(table)
                table.state = state
                table.status = "playing"
                self.store.start_game(table.id, state.params)
                self.run.save(table)
        except BaseException:  # (nothing of it stored: the table is as it was)
            table.state, table.status = before
            raise
        if table.stake:
            self.tell_balances(table)
        self.table_changed(table)

    # --- actions ----------------------------------------------------------------------------

    def on_act(self, session: Session, message: Act) -> None:
        player = need_player(session)
        table = self.seating.table_of(message.table)
        seat = table.seat_of(player.id)
        if seat is None:
            raise HubError("not_seated", "You do not sit at this table.")
        if table.state is None or table.status != "playing":
            raise HubError("no_game", "No game is being played at this table.")
        self.apply_action(table, seat, message.action)
        self.turns.tell_stood_in(table.id, player.id)

    def on_result_read(self, session: Session, message: ResultRead) -> None:
        """A player closed the last game's result: the next game starts soon after every
        player at the table (here now) has (``after_results_read``), without waiting out the
        pause between games, which is long enough to read the result (``between_games``)."""
        player = need_player(session)
        table = self.tables.get(message.table)
        if table is None or table.status != "between" or table.seat_of(player.id) is None:
            return  # (late, or not theirs: nothing to wait for)
        read = self.results_read.setdefault(table.id, set())
        read.add(player.id)
        here = {s.player for s in table.seats if s.player is not None and s.player in self.players}
        if here <= read:
            key = ("next", table.id)
            timer = self.timers.pending.get(key)
            loop = asyncio.get_running_loop()
            soon = self.config.after_results_read
            if timer is None or timer.when() - loop.time() > soon:  # (never later than due)
                self.timers.later(key, soon, self.next_game, table.id)

    def apply_action(self, table: Table, seat: int, action: Action) -> None:
        """Check, store, apply, tell. Raises RulesError/HubError having changed nothing.

        An action that puts stakes into the pot (a Fortunes stay or raise) moves its chips in
        the same transaction that stores it, before the engine applies it; a seat that cannot
        pay is refused (in Fortunes it must fold)."""
        state = table.state
        assert state is not None
        action = state.check_action(seat, action)  # the one legality check of this action
        due = state.stake_due(seat, action) * table.stake
        if due:
            with self.store.transaction():
                account = table.accounts[seat]
                if not self.can_pay(account, due):
                    raise _cannot_pay(action.TYPE, due)
                self.money.bet(table, seat, due, action.TYPE)
                self.store.append_action(table.id, seat, action.to_wire(), len(state.history))
        else:  # (one write: atomic by itself)
            self.store.append_action(table.id, seat, action.to_wire(), len(state.history))
        state.apply_checked(seat, action)
        if table.deal_log is not None:
            table.deal_log.note(state)
        if state.is_over:
            self.settle(table)
        elif due:
            self.tell_balances(table)
        self.table_changed(table, moved=not state.is_over)
        for hook in self.action_hooks:
            hook(table, seat, action)

    def can_pay(self, account: str, chips: int) -> bool:
        """The bank always can (bots play with its chips); a player needs the chips."""
        return self.money.can_pay(account, chips)

    def tell_balances(self, table: Table) -> None:
        """Chips moved into the pot: every human at the table sees their balance now."""
        for seat in table.seats:
            player = self.players.get(seat.player) if seat.player else None
            if player is not None:
                player.push({"t": "you", **you(self.store, player)})

    # --- the end of a game ------------------------------------------------------------------

    def settle(self, table: Table) -> None:
        """Pay the pot, rate the players, record the game — all in one transaction."""
        state = table.state
        assert state is not None
        outcome = state.outcome()
        assert outcome is not None
        payouts = outcome.payouts(table.stake)
        humans = [s.player for s in table.seats]
        with self.store.transaction():
            self.money.pay_out(table, payouts)
            self.note_stand_ins(table, payouts)
            self.rate(table, outcome)
            dealt = table.deal_log.deals if table.deal_log is not None else []
            deal = deals.revealed(table.deal, state.params, dealt) if table.deal else None
            results = game_results(table, outcome, payouts)
            self.store.record_game(
                table.id,
                state.params,
                state.history,
                outcome.to_wire(),
                self.players_of_game(table),
                deal=deal,
                results=results,
                stake=table.stake,
            )
            self.duplicate.note_result(table, outcome, results)
            table.status = "between"
            self.results_read.pop(table.id, None)
            table.games_played += 1
            # The next game's seed is drawn now, so its commitment shows before it is dealt.
            table.deal = None
            self.duplicate.draw_deal(table)
            table.dealer = get_game(table.game).next_dealer(table.dealer, table.players)
            # The pot is paid: seats kept for guests who are gone pass to their stand-ins.
            gone = self.guests.end_gone_guests_reservations(table)
            self.run.save(table)
            for pid in gone:
                self.guests.send_guest_chips_home(pid)
        for pid in filter(None, humans):
            if pid in self.players:
                self.players[pid].push({"t": "you", **you(self.store, self.players[pid])})
        self.timers.later(("next", table.id), self.config.between_games, self.next_game, table.id)
        for hook in self.game_end_hooks:
            hook(table, outcome)

    def players_of_game(self, table: Table) -> list[str | None]:
        """Whose game this was, seat by seat (None: a bot's): a player who left it to a
        stand-in played it with their chips, and it is in their history too."""
        players: list[str | None] = []
        for index, seat in enumerate(table.seats):
            away = seat.reserved
            if seat.player is None and away is not None and index < len(table.accounts):
                players.append(away if table.accounts[index] == Account.player(away) else None)
            else:
                players.append(seat.player)
        return players

    def note_stand_ins(self, table: Table, payouts: list[int]) -> None:
        """A bot that finished a game in an absent player's seat played with their chips:
        what it won or lost for them is kept until they sit down again (``stand_in``)."""
        for index, seat in enumerate(table.seats):
            pid = seat.reserved
            if seat.bot is None or pid is None or index >= len(table.accounts):
                continue
            if table.accounts[index] != Account.player(pid):
                continue  # a later game: the bot played with the bank's chips
            paid = table.paid[index] if index < len(table.paid) else table.stake
            record = table.away.setdefault(pid, {"games": 0, "chips": 0})
            record["games"] += 1
            record["chips"] += payouts[index] - paid

    def rate(self, table: Table, outcome: Outcome) -> None:
        """openskill update for the humans at the table; bots count at the default rating.
        Partnerships (Fortunes) are rated by their result: partners win or lose together.
        Each seat's change, as players see ratings, is kept for the result panel."""
        humans = [s.player for s in table.seats]
        table.rating_changes = [None] * len(humans)
        table.first_ratings = [None] * len(humans)
        if not any(humans):
            return
        memory = self.run.memory
        if memory is None:
            self._rate(table, outcome, humans)
        else:
            with memory.own_cycles_freed():  # (openskill makes cycles at every call)
                self._rate(table, outcome, humans)

    def _rate(self, table: Table, outcome: Outcome, humans: list[str | None]) -> None:
        scores = outcome.scores
        current = [self.store.rating(p, table.game) if p else None for p in humans]
        partnerships = get_game(table.game).partnerships
        if partnerships:
            # The partnership holding a winner wins; a refund (or no winner) is a tie.
            won: list[float] = [
                0 if not outcome.refund and any(s in outcome.winners for s in pair) else 1
                for pair in partnerships
            ]
            rated = ratings.update_teams([[current[s] for s in pair] for pair in partnerships], won)
            new = [ratings.DEFAULT] * len(current)  # (each filled in: the pairs cover every seat)
            for pair, team in zip(partnerships, rated, strict=True):
                for seat, rating in zip(pair, team, strict=True):
                    new[seat] = rating
        else:
            order = sorted(set(scores), reverse=True)
            new = ratings.update(current, [order.index(score) for score in scores])
        table.rating_changes = [
            ratings.display(after) - ratings.display(before) if pid else None
            for pid, before, after in zip(humans, current, new, strict=True)
        ]
        table.first_ratings = [
            ratings.display(after) if pid and before is None else None
            for pid, before, after in zip(humans, current, new, strict=True)
        ]
        self.store.set_ratings(
            table.game, {p: r for p, r in zip(humans, new, strict=True) if p is not None}
        )

    def refund_pot(self, table: Table) -> None:
        """A game abandoned before its end shares its pot back among the seats' accounts."""
        self.money.refund_pot(table)

    def next_game(self, table_id: int) -> None:
        table = self.tables.get(table_id)
        if table is None or table.status != "between" or table.night is not None:
            self.results_read.pop(table_id, None)  # (a game night's table plays one game)
            return
        if self.restart.at is not None:
            # A restart is coming: no new deal; the table waits for it (its seats are kept).
            self.timers.later(
                ("next", table.id), self.config.between_games, self.next_game, table.id
            )
            return
        self.store.need_writable()  # (the database away: nothing changes; again once back)
        for i, seat in enumerate(table.seats):
            if seat.reserved is not None and seat.player is None:
                continue  # a bot keeps an absent player's seat until they reclaim it
            if seat.player is None and seat.bot is None:
                table.seats[i] = Seat()
        if not table.humans():
            self.seating.close_table(table)
            return
        self.start_game(table)

    # --- telling the table ------------------------------------------------------------------

    def table_message(
        self,
        table: Table,
        seat: int | None,
        info: dict[str, Any] | None = None,
        public: dict[str, Any] | None = None,
    ) -> TableMessage:
        """What ``seat`` (None: a spectator) is sent of ``table`` (see :mod:`.table_views`)."""
        return self.views.table_message(table, seat, info, public)

    def table_updated(self, table: Table) -> None:
        """Save the table, then tell everyone what changed."""
        self.run.save(table)
        self.table_changed(table)

    def table_changed(self, table: Table, *, moved: bool = False) -> None:
        """Everyone at the table (and watching it) gets their own view; bots get their turn.
        ``moved``: only the game moved (an action that did not end it), which changes
        nothing the lobby shows (see :meth:`TableViews.shared_table_info`)."""
        if table.id not in self.tables:
            return
        self.turns.arm(table)
        self.views.send(table, moved=moved)
