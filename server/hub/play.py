"""Games at a table: antes, actions, bots and timers, payouts, ratings, and recovery.

The order of every accepted action is fixed: check it against the engine, store it (with any
chips it moves) in one transaction, apply it, then tell the table. A server killed at any
moment therefore restarts at the last stored action, and replaying ``params`` + actions gives
the very same state.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import TYPE_CHECKING, Any

from protocol.actions import Action
from protocol.requests import Act, ResultRead
from server.bots import make_bot
from server.engine import get_game
from server.engine.base import Outcome
from server.engine.fairness import DealLog

from . import deals, ratings
from .bot_pool import SLOW_KINDS, BotPool
from .errors import HubError, said
from .money import Account, Money
from .results import game_results
from .session import need_player
from .table import Seat, Table
from .table_views import TableViews
from .you import you

if TYPE_CHECKING:  # for type hints only
    from .duplicate import Duplicate
    from .entropy import Entropy
    from .guests import Guests
    from .lobby import Lobby
    from .restart import Restart
    from .runtime import HubRuntime
    from .seating import Seating
    from .session import Player, Session

log = logging.getLogger(__name__)


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
    """Games at the tables: antes, actions, bots and turn timers, payouts, ratings, and
    recovery after a restart."""

    def __init__(
        self,
        run: HubRuntime,
        seating: Seating,
        lobby: Lobby,
        entropy: Entropy,
        duplicate: Duplicate,
        guests: Guests,
        restart: Restart,
        action_hooks: list[Any],
    ) -> None:
        # Collaborators: the store, the config, who is online, the tables and players'
        # names, timers and tasks; the parts a game concerns (seating, lobby, entropy,
        # duplicate sets, guests, watchers); a coming restart, and the action hooks.
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
        self.money = Money(run.store)
        #: (table id, seat) → loop time by which that human must decide (turn timer).
        self.deadlines: dict[tuple[int, int], float] = {}
        #: Sending tables' views (shows the deadlines above).
        self.views = TableViews(run, self.watchers, lobby, duplicate, self.deadlines)
        #: (table id, seat) → the decision its clock runs for (kind, the seat's moves so far).
        self._asked: dict[tuple[int, int], Any] = {}
        #: Seats whose strong bot is thinking in the pool now.
        self.thinking: set[tuple[int, int]] = set()
        #: (table id, player) → moves a stand-in made in their seat since they last acted
        #: there (their time ran out, or they were away): told when they are back.
        self.stood_in: dict[tuple[int, str], int] = {}
        #: Tables between games → the players there who have closed the last game's result.
        self.results_read: dict[int, set[str]] = {}
        self.bot_pool = BotPool(self.config.bot_workers, self.config.bot_think_ms)
        #: Told ``(table, outcome)`` once a game's end is stored (a game night counts it).
        self.game_end_hooks: list[Any] = []

    # --- starting a game --------------------------------------------------------------------

    def start_game(self, table: Table, *, waited: bool = False) -> None:
        """Collect the antes and deal. Players who cannot pay the stake are stood up. Unless
        ``waited``, the deal may first wait briefly for players' entropy (entropy.py)."""
        for i, seat in enumerate(table.seats):
            if seat.player is not None and self.money.balance(Account.of_seat(seat)) < table.stake:
                table.seats[i] = Seat()
                self.run.tell(
                    seat.player,
                    "chips",
                    said(
                        "You do not have the chips for this table's stake, "
                        "so you have been stood up."
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
        with self.store.transaction():
            self.money.collect_antes(table)
            table.state = state
            table.status = "playing"
            self.store.start_game(table.id, state.params)
            self.run.save(table)
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
        self.tell_stood_in(table.id, player.id)

    def stand_in_moves(self, table: Table, index: int, why: str | None) -> None:
        """A stand-in is about to move in a human's seat (``why``: ``"time"``, their turn
        timer ran out, or ``"away"``, they are not connected; None: a bot's own seat). The
        table's log says so before the move, which would otherwise read as the player's own,
        and the player is told when they are back (:meth:`tell_stood_in`)."""
        pid = table.seats[index].player
        if why is None or pid is None or table.state is None:
            return
        # (a line of the log only: the game's record and its replay hold the moves alone)
        table.state.events.append({"e": "stand_in", "seat": index, "why": why})
        key = (table.id, pid)
        self.stood_in[key] = self.stood_in.get(key, 0) + 1

    def tell_stood_in(self, table_id: int, pid: str) -> None:
        """Tell a player who is back (acting again, or connected again) that a stand-in made
        moves for them at this table meanwhile."""
        if self.stood_in.pop((table_id, pid), 0):
            player = self.players.get(pid)
            if player is not None:
                player.push(
                    {
                        "t": "notice",
                        "code": "stood_in",
                        **said(
                            "A bot moved for you at table {table} while you were away or out "
                            "of time: the table's log shows its moves.",
                            table=table_id,
                        ),
                    }
                )

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

    def affordable(self, table: Table, seat: int, action: Action) -> Action:
        """A stand-in's choice if the seat can pay for it, else the seat's cheapest legal action
        (in Fortunes: who cannot pay the ante must fold)."""
        state = table.state
        assert state is not None
        if self.can_pay(table.accounts[seat], state.stake_due(seat, action) * table.stake):
            return action
        return min(state.legal_actions(seat), key=lambda a: state.stake_due(seat, a))

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
            new: list[tuple[float, float]] = list(current)  # type: ignore[arg-type]  # the pairs cover every seat
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
    ) -> dict[str, Any]:
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
        self.arm(table)
        self.views.send(table, moved=moved)

    # --- bots, stand-ins and turn timers ----------------------------------------------------

    def arm(self, table: Table) -> None:
        """Schedule whoever must act next: bots soon, humans by their turn timer."""
        state = table.state
        key = ("table", table.id)
        if state is None or table.status != "playing" or state.is_over:
            self.timers.cancel(key)
            for index in range(len(table.seats)):
                self.deadlines.pop((table.id, index), None)
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        pending = state.pending()
        due: list[float] = []
        deadlines, asked, players = self.deadlines, self._asked, self.players
        moves: list[int] | None = None  # each seat's own moves so far, counted once if needed
        for index, seat in enumerate(table.seats):
            k = (table.id, index)
            ask = pending.get(index)
            if ask is None:
                deadlines.pop(k, None)
                asked.pop(k, None)
                continue
            human_here = seat.player is not None and seat.player in players
            if not human_here:
                deadlines.pop(k, None)
                asked.pop(k, None)
                due.append(now + self.bot_pause(table))
                continue
            if table.timer <= 0:  # no turn timer: no clock to restart
                continue
            # A new decision (another kind, or after this seat's own move) restarts its clock.
            if moves is None:
                moves = [0] * len(table.seats)
                for who, _ in state.history:
                    if 0 <= who < len(moves):
                        moves[who] += 1
            marker = (ask.kind, moves[index])
            if self._asked.get(k) != marker:
                self._asked[k] = marker
                self.deadlines.pop(k, None)
                if table.timer > 0:
                    self.deadlines[k] = now + table.timer
            if k in self.deadlines:
                due.append(self.deadlines[k])
        if due:
            self.timers.later(key, min(due) - now, self.autoplay, table.id)
        else:
            self.timers.cancel(key)

    def bot_pause(self, table: Table) -> float:
        """How long a bot thinks before this move: about ``bot_delay``, never exactly (bots that
        all wait the same second move in step, and a busy server then draws every table at
        once). Fixed by the seed and the move, so a seeded game replays the same."""
        moves = len(table.state.history) if table.state is not None else 0
        rng = random.Random(f"{self.config.seed}:{table.id}:{moves}")
        return self.config.bot_delay * rng.uniform(0.75, 1.25)

    def autoplay(self, table_id: int) -> None:
        """Bots, stand-ins for absent players and expired timers act (one round of them)."""
        table = self.tables.get(table_id)
        if table is None or table.state is None or table.status != "playing":
            return
        state = table.state
        now = asyncio.get_running_loop().time()
        for index in sorted(state.pending()):
            if state.is_over or index not in state.pending():
                continue
            seat = table.seats[index]
            human_here = seat.player is not None and seat.player in self.players
            # Why a stand-in moves for a human in their seat (a bot's own seat: None).
            why = "time" if human_here else ("away" if seat.player is not None else None)
            if human_here:
                deadline = self.deadlines.get((table.id, index))
                if deadline is None or deadline > now + 0.001:
                    continue
                self.deadlines.pop((table.id, index), None)
                kind = self.config.standin_bot
            else:
                kind = seat.bot or self.config.standin_bot
            seed = f"{table.id}:{index}:{len(state.history)}"
            if kind in SLOW_KINDS:
                self.think_off_loop(table, index, kind, seed, why)
                return
            bot = make_bot(table.game, kind, seed=seed)
            action = self.affordable(table, index, bot.choose(state.view(index)))
            self.stand_in_moves(table, index, why)
            self.apply_action(table, index, action)
            break  # one action per tick: the table sees every move
        else:
            self.arm(table)

    def think_off_loop(
        self, table: Table, index: int, kind: str, seed: str, why: str | None = None
    ) -> None:
        """A strong bot's move: its search runs in the bot pool, and the answer is applied
        only if the table is still at the same move (a player may have acted, or left);
        ``why``: see :meth:`stand_in_moves`."""
        key = (table.id, index)
        if key in self.thinking:
            return
        state = table.state
        assert state is not None
        moves = len(state.history)
        self.thinking.add(key)
        view = state.view(index)

        async def answer() -> None:
            try:
                action = await self.bot_pool.choose(table.game, kind, seed, view)
            except Exception:
                log.exception("a %s bot failed to think; the heuristic bot moves", kind)
                action = make_bot(table.game, "heuristic", seed=seed).choose(view)
            finally:
                self.thinking.discard(key)
            now = self.tables.get(table.id)
            if (
                now is not table
                or table.state is not state
                or len(state.history) != moves
                or index not in state.pending()
            ):
                if now is table:
                    self.arm(table)
                return
            try:
                action = self.affordable(table, index, action)
                self.stand_in_moves(table, index, why)
                self.apply_action(table, index, action)
            except Exception:
                log.exception("a %s bot's move was refused", kind)
                self.arm(table)

        self.timers.spawn(answer())

    # --- players who drop and come back -----------------------------------------------------

    def player_gone(self, player: Player) -> None:
        """A player's last connection closed: keep their seats for the grace period."""
        pid = player.id
        for table in self.tables.holding(pid):
            index = table.seat_of(pid)
            if index is None:  # (only reserved for them: a bot plays it already)
                continue
            if table.status == "waiting":
                table.seats[index] = Seat()
                self.seating.after_seat_change(table)
                continue
            self.timers.later(
                ("grace", table.id, player.id),
                self.config.grace,
                self.grace_over,
                table.id,
                player.id,
            )
            self.table_changed(table)

    def grace_over(self, table_id: int, player_id: str) -> None:
        table = self.tables.get(table_id)
        if table is None or player_id in self.players:
            return
        index = table.seat_of(player_id)
        if index is None:
            return
        table.seats[index] = Seat(bot=self.config.standin_bot, reserved=player_id)
        self.stood_in.pop((table.id, player_id), None)  # (``stand_in`` tells them, on joining)
        self.seating.after_seat_change(table)
        self.guests.guest_left(
            player_id, self.seating.after_seat_change
        )  # a guest cannot come back for the seat

    def player_back(self, player: Player) -> None:
        """A player connected within the grace period: their seats are theirs again.

        A seat a bot took over (after the grace period, or after standing up) is only
        reclaimed on purpose, with ``join``; the table still shows it reserved for them.
        """
        # Every hello comes here: only the tables holding a seat for them (the grace timers
        # are those of the tables where they sat).
        pid = player.id
        for table in self.tables.holding(pid):
            self.timers.cancel(("grace", table.id, pid))
            self.table_changed(table)
            self.tell_stood_in(table.id, pid)
