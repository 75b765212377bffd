"""Whose turn it is, and who moves when a human does not: bots in their own seats, turn
timers that run out, and stand-ins for players who are away.

After every change at a table, :meth:`Turns.arm` schedules whoever must act next: a bot after
a short pause, a human by their turn timer. When that time comes, :meth:`Turns.autoplay`
makes one move through the :class:`Mover` (play: the same check, store, apply and tell as a
player's own move). A strong bot thinks in the bot pool, off the event loop."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import TYPE_CHECKING, Any, Protocol

from server.bots import make_bot

from .bot_pool import SLOW_KINDS, BotPool
from .errors import said
from .table_events import NotConnected

#: Seconds after a start on a store with games in play (a restart, a standby taking over)
#: during which no stand-in moves for a player who is away: none is connected yet, and their
#: sessions come back within seconds (the gateways move them to the hub that answers now;
#: apps reconnect). Bots in their own seats move as ever.
RETURN_AFTER_START = 10.0
#: Asks that only say "go on" (Fortunes' next deal, which every seat acknowledges): when a
#: player's time runs out on one, the table moves on; no stand-in moved for them.
GOING_ON = frozenset({"next_deal"})

if TYPE_CHECKING:  # for type hints only
    from protocol.actions import Action

    from .money import Money
    from .runtime import HubRuntime
    from .table import Table

log = logging.getLogger(__name__)


class Mover(Protocol):
    """What turns ask of play: make a move in a seat (:class:`~.play.Play` implements it)."""

    def apply_action(self, table: Table, seat: int, action: Action) -> None:
        """Check, store, apply, tell (raises, having changed nothing, if it is refused)."""


class Turns:
    """Turn timers, bots' moves and stand-ins' moves at every table."""

    def __init__(self, run: HubRuntime, money: Money) -> None:
        # Collaborators: the config, who is online, the tables, timers and tasks; money, to
        # know what a seat can pay; play (connected once built, :meth:`connect`) to move.
        self.timers = run.timers
        self.store = run.store
        self.config = run.config
        self.players = run.players
        self.tables = run.tables
        self.money = money
        self.play: Mover = NotConnected()  # (see connect)
        #: (table id, seat) → loop time by which that human must decide (turn timer).
        self.deadlines: dict[tuple[int, int], float] = {}
        #: (table id, seat) → the decision its clock runs for (kind, the seat's moves so far).
        self._asked: dict[tuple[int, int], Any] = {}
        #: Seats whose strong bot is thinking in the pool now.
        self.thinking: set[tuple[int, int]] = set()
        #: (table id, player) → moves a stand-in made in their seat since they last acted
        #: there (their time ran out, or they were away): told when they are back.
        self.stood_in: dict[tuple[int, str], int] = {}
        #: Loop time before which no stand-in moves for an away player (see
        #: :data:`RETURN_AFTER_START`; set by :meth:`wait_for_returns`).
        self.returns_until = 0.0
        self.bot_pool = BotPool(self.config.bot_workers, self.config.bot_think_ms)

    def connect(self, play: Mover) -> None:
        """Play, built after turns (it holds them), is what makes the moves."""
        self.play = play

    def wait_for_returns(self) -> None:
        """The hub starts with games in play: the away players' sessions are on their way."""
        self.returns_until = asyncio.get_running_loop().time() + RETURN_AFTER_START

    # --- scheduling -------------------------------------------------------------------------

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
                at = now + self.bot_pause(table)
                if seat.player is not None:  # (away: not before they can be back)
                    at = max(at, self.returns_until)
                due.append(at)
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
            if asked.get(k) != marker:
                asked[k] = marker
                deadlines.pop(k, None)
                if table.timer > 0:
                    deadlines[k] = now + table.timer
            if k in deadlines:
                due.append(deadlines[k])
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

    # --- moving for a seat ------------------------------------------------------------------

    def autoplay(self, table_id: int) -> None:
        """Bots, stand-ins for absent players and expired timers act (one round of them).
        While the database is away nobody moves and nothing changes: the StoreError says so
        to the timer, and the table is armed again once it is back (``Hub.database_back``)."""
        table = self.tables.get(table_id)
        if table is None or table.state is None or table.status != "playing":
            return
        self.store.need_writable()
        state = table.state
        now = asyncio.get_running_loop().time()
        for index in sorted(state.pending()):
            if state.is_over or index not in state.pending():
                continue
            seat = table.seats[index]
            human_here = seat.player is not None and seat.player in self.players
            # Why a stand-in moves for a human in their seat (a bot's own seat: None).
            why = "time" if human_here else ("away" if seat.player is not None else None)
            if why == "away" and now < self.returns_until:
                continue  # (they may be on their way back: see RETURN_AFTER_START)
            deadline = None  # (a human's clock that ran out: kept if the move is refused)
            if human_here:
                deadline = self.deadlines.get((table.id, index))
                if deadline is None or deadline > now + 0.001:
                    continue
                self.deadlines.pop((table.id, index), None)
                kind = self.config.standin_bot
                if state.pending()[index].kind in GOING_ON:
                    why = None  # (they were reading the deal: nothing to tell them of)
            else:
                kind = seat.bot or self.config.standin_bot
            seed = f"{table.id}:{index}:{len(state.history)}"
            if kind in SLOW_KINDS:
                self.think_off_loop(table, index, kind, seed, why, deadline)
                return
            bot = make_bot(table.game, kind, seed=seed)
            action = self.affordable(table, index, bot.choose(self.seat_view(table, index)))
            self.move_for(table, index, action, why, deadline)
            break  # one action per tick: the table sees every move
        else:
            self.arm(table)

    def think_off_loop(
        self,
        table: Table,
        index: int,
        kind: str,
        seed: str,
        why: str | None = None,
        deadline: float | None = None,
    ) -> None:
        """A strong bot's move: its search runs in the bot pool, and the answer is applied
        only if the table is still at the same move (a player may have acted, or left);
        ``why``, ``deadline``: see :meth:`move_for`."""
        key = (table.id, index)
        if key in self.thinking:
            return
        state = table.state
        assert state is not None
        moves = len(state.history)
        self.thinking.add(key)
        view = self.seat_view(table, index)

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
                self.store.need_writable()
                self.move_for(table, index, self.affordable(table, index, action), why, deadline)
            except Exception as err:
                if self.timers.away(err):  # (armed again once the database is back)
                    if deadline is not None:
                        self.deadlines.setdefault(key, deadline)
                    log.warning("a %s bot's move waits for the database: %s", kind, err)
                    return
                log.exception("a %s bot's move was refused", kind)
                self.arm(table)

        self.timers.spawn(answer())

    @staticmethod
    def seat_view(table: Table, index: int) -> dict[str, Any]:
        """What a person in seat ``index`` would be shown now: the public part the hub built
        for the table's last change when that was of the state as it is now (as a person's
        view is made of it), else one built now, and the seat's own part."""
        state = table.state
        assert state is not None
        made = table.public_of
        shared = table.shared
        if (
            made is not None
            and made[0] is state
            and made[1] == len(state.history)
            and shared is not None
            and shared.public is not None
        ):
            return state.view(index, shared.public)
        return state.view(index)

    def affordable(self, table: Table, seat: int, action: Action) -> Action:
        """A stand-in's choice if the seat can pay for it, else the seat's cheapest legal action
        (in Fortunes: who cannot pay the ante must fold)."""
        state = table.state
        assert state is not None
        if self.money.can_pay(table.accounts[seat], state.stake_due(seat, action) * table.stake):
            return action
        return min(state.legal_actions(seat), key=lambda a: state.stake_due(seat, a))

    def move_for(
        self, table: Table, index: int, action: Action, why: str | None, deadline: float | None
    ) -> None:
        """A bot or a stand-in makes ``action`` in seat ``index`` (``why``: see
        :meth:`stand_in_moves`; ``deadline``: the human's turn clock that ran out, None for a
        bot). As a player's own move it is stored before anything changes; if it is refused
        (the database found away as it writes) the stand-in's line in the log is taken back
        and the seat's clock set again as it was, so that it moves once the database is back."""
        key = (table.id, index)
        state = table.state
        assert state is not None
        moves, events = len(state.history), len(state.events)
        self.stand_in_moves(table, index, why)
        try:
            self.play.apply_action(table, index, action)
        except Exception:
            if len(state.history) == moves:  # (refused before it was applied)
                del state.events[events:]
                self.stand_in_undone(table, index, why)
                if deadline is not None:
                    self.deadlines[key] = deadline
            raise

    # --- stand-ins in players' seats --------------------------------------------------------

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
        # ... and one in the server's: a player whose decision a bot made (their time ran
        # out: a test's player that missed a decision; away, at every move while they are
        # gone: only when debugging).
        level = logging.INFO if why == "time" else logging.DEBUG
        log.log(level, "table %s: a stand-in moves in seat %s (%s)", table.id, index, why)
        key = (table.id, pid)
        self.stood_in[key] = self.stood_in.get(key, 0) + 1

    def stand_in_undone(self, table: Table, index: int, why: str | None) -> None:
        """The move :meth:`stand_in_moves` announced was refused: it is not counted."""
        pid = table.seats[index].player
        if why is None or pid is None:
            return
        key = (table.id, pid)
        left = self.stood_in.get(key, 0) - 1
        if left > 0:
            self.stood_in[key] = left
        else:
            self.stood_in.pop(key, None)

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
