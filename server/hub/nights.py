"""Game nights in the hub: making an event, registering, seating each round at its own tables
(bots in the seats left over, as the host chose), counting each table's game into the standings
when it ends, and the next round after a break, until the last.

The event itself (who plays, who sits where, the standings) is :mod:`server.nights`, pure;
this part opens its tables, keeps it in the store at every change (a restarted hub resumes it
where it was) and tells those who follow it. A table of an event plays one game: its
``night`` says which event, round and table it is (``Play.next_game`` deals no other), and it
closes a little after the game's end, when its players have seen the result. A duplicate
night's tables of one round form one duplicate set (``server.hub.duplicate``): the same cards.
A registered player who is not online when a round is seated is withdrawn (they may register
again); one who drops mid-game is played by the usual stand-in, and the game counts.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from typing import TYPE_CHECKING, Any

from protocol.fields import NIGHT_HOST_OPS
from protocol.requests import Night as NightRequest
from protocol.server_messages import Notice, Sentence
from server.engine import RulesError, get_game
from server.nights.night import Night, NightError
from server.nights.rules import NightRules, problems

from .errors import HubError, said
from .frames import Prepared
from .names import clean_name
from .night_frames import SharedList, SharedNight
from .session import need_player
from .table import Seat, Table

if TYPE_CHECKING:  # for type hints only
    from server.engine.base import Outcome

    from .duplicate import Duplicate
    from .runtime import HubRuntime
    from .seating import Seating
    from .session import Player, Session
    from .table_events import TableEvents

log = logging.getLogger(__name__)

#: Events a player may host at once (not yet finished).
HOSTED = 2
#: Rows of the standings sent (the screen shows a page of them).
SHOWN_ROWS = 40
#: Seconds within which an event's change reaches its followers (changes in between are sent
#: together: ``bench/event.py``'s 100 tables a round ending close together).
TELL_EVERY = 0.05


def _refusal(err: NightError) -> HubError:
    """The event's refusal in the hub's words (templates the catalogs collect)."""
    if err.code == "event_over":
        return HubError("event_over", "This event is over.")
    if err.code == "event_registered":
        return HubError("event_registered", "You are registered already.")
    if err.code == "event_not_registered":
        return HubError("event_not_registered", "You are not registered for this event.")
    if err.code == "event_playing":
        return HubError("event_playing", "A round is under way.")
    if err.code == "event_closed":
        return HubError("event_closed", "The event has closed: no more rounds.")
    if err.code == "event_too_few":
        return HubError(
            "event_too_few",
            "At least {count} players must be registered to start a round.",
            count=int(err.args_.get("count", 0)),
        )
    if err.code == "event_rounds":
        return HubError(
            "event_rounds",
            "An event has at most {count} rounds.",
            count=int(err.args_.get("count", 0)),
        )
    return HubError.untranslated(err.code, err.message)


class Nights:
    """Every event of the server, its tables and who follows it."""

    def __init__(
        self, run: HubRuntime, seating: Seating, play: TableEvents, duplicate: Duplicate
    ) -> None:
        # Collaborators: the store, the config, who is online, the tables, timers, names;
        # seating to close a table, play to deal a table's game, duplicate sets.
        self.run = run
        self.store = run.store
        self.config = run.config
        self.tables = run.tables
        self.timers = run.timers
        self.seating = seating
        self.play = play
        self.duplicate = duplicate
        self.nights: dict[int, Night] = {}
        #: Seconds between a round's end and the next round's seating.
        self.round_break = 30.0
        #: Seconds a finished table of an event stays open (its result on show).
        self.table_break = self.config.between_games
        #: Night id → loop time its next round is seated.
        self.next_at: dict[int, float] = {}
        #: Who follows an event's standings (night id) and who the list of events (0).
        self.following: dict[int, set[Session]] = {}
        #: Events changed while the store holds a batch of writes: each is written once, as
        #: it is then, just before that batch commits (:meth:`save_held`).
        self._unsaved: set[int] = set()
        #: Events changed in the open batch (written in it or to be): their standings wait
        #: for its commit like any message; an event's standings that show only what is
        #: committed go out at once (see :meth:`tell_now`).
        self._in_batch: set[int] = set()

    # --- requests ----------------------------------------------------------------------------

    def on_night(self, session: Session, message: NightRequest) -> None:
        player = need_player(session)
        op = message.op
        if op == "list":
            self.following.setdefault(0, set()).add(session)
            session.push(self.list_message(player))
            return
        if op == "create":
            self.create(session, player, message)
            return
        night = self._need(message.night)
        if op == "watch":
            self.following.setdefault(night.id, set()).add(session)
            session.push(self.night_message(night, player))
        elif op == "unwatch":
            self.following.get(night.id, set()).discard(session)
        elif op == "register":
            self._may_register(night, player)
            self.following.setdefault(night.id, set()).add(session)  # their standings too
            self._change(night, lambda: night.register(player.id))
        elif op == "withdraw":
            self._change(night, lambda: night.withdraw(player.id))
        elif op in NIGHT_HOST_OPS:
            if player.id != night.host and not player.admin:
                raise HubError("not_host", "Only the event's host may do that.")
            self.following.setdefault(night.id, set()).add(session)  # they see what it did
            self.host_op(night, op, message)
            if op in ("invite", "uninvite"):
                session.push(self._invitation_notice(night, op, message.player or ""))

    def _need(self, night_id: int | None) -> Night:
        night = self.nights.get(night_id or 0)
        if night is None:
            raise HubError("no_event", "There is no such event.")
        return night

    def _may_register(self, night: Night, player: Player) -> None:
        """By the event's access; a player the host invited may register whatever it is."""
        access = night.rules.access
        if player.id == night.host or access == "everyone" or player.id in night.invited:
            return
        if access == "friends":
            if player.id in self.store.friends(night.host):
                return
            raise HubError("not_allowed", "Only the host's friends may register for this event.")
        raise HubError("not_allowed", "Only invited players may register for this event.")

    def _change(self, night: Night, change: Any) -> None:
        try:
            change()
        except NightError as err:
            raise _refusal(err) from None
        self.save(night)
        self.tell(night)

    def host_op(self, night: Night, op: str, message: NightRequest) -> None:
        """The host's (or an admin's) ops: start a round early, pause before the next round,
        resume, extend by ``message.rounds``, cancel, remove a player by name, invite one by
        name (or take the invitation back)."""
        if op == "start":
            self.start_round(night.id, refuse=True)
        elif op == "pause":
            self._change(night, night.pause)
            self.timers.cancel(("night", f"n{night.id}"))
            self.next_at.pop(night.id, None)
            self.tell(night)
        elif op == "resume":
            self._change(night, night.resume)
            self.schedule(night)
            self.tell(night)
        elif op == "extend":
            self._change(night, lambda: night.extend(message.rounds or 1))
        elif op == "cancel":
            self._change(night, night.cancel)
            self.cancelled(night)
        elif op == "remove":
            pid = self._entrant_named(night, message.player or "")
            self._change(night, lambda: night.remove(pid))
            self._leave_event_table(night, pid)
            self._notice(
                pid,
                "night_removed",
                said("The host removed you from {night}.", night=night.rules.name),
            )
        elif op == "invite":
            self.invite(night, message.player or "")
        elif op == "uninvite":
            self.uninvite(night, message.player or "")

    def invite(self, night: Night, name: str) -> None:
        """``name`` may register (kept with the event); told now if online, and the host's
        followers see the event again (the ``night`` message is the answer)."""
        pid = self._player_named(name)
        self._change(night, lambda: night.invite(pid))
        invitee = self.run.players.get(pid)
        if invitee is not None and night.host not in invitee.ignores:
            self._notice(
                pid,
                "night_invited",
                said(
                    "{name} invites you to {night}: register in Events (v in the lobby).",
                    name=self.host_name(night),
                    night=night.rules.name,
                ),
            )

    def uninvite(self, night: Night, name: str) -> None:
        """The invitation taken back (a registration made with it stands: remove it too)."""
        pid = self._player_named(name)
        if pid not in night.invited:
            raise HubError("event_not_invited", "{name} is not invited to this event.", name=name)
        self._change(night, lambda: night.uninvite(pid))

    def _invitation_notice(self, night: Night, op: str, name: str) -> Notice:
        """What the host is told once an invitation is sent or taken back."""
        name = self.run.name_of(self._player_named(name))
        if op == "invite":
            return {"t": "notice", "code": "invited", **said("Invited {name}.", name=name)}
        sentence = said(
            "{name} is no longer invited to {night}.", name=name, night=night.rules.name
        )
        return {"t": "notice", "code": "night_uninvited", **sentence}

    def _player_named(self, name: str) -> str:
        """The player called ``name``: one online (a guest too), else a registered name."""
        online = {p.name.casefold(): p.id for p in self.run.players.values()}
        pid = online.get(name.casefold()) or self.store.name_owner(name)
        if pid is None:
            raise HubError("no_player", "There is no player called {name}.", name=name)
        return pid

    def _entrant_named(self, night: Night, name: str) -> str:
        for pid, entrant in night.entrants.items():
            if not entrant.withdrawn and self.run.name_of(pid).casefold() == name.casefold():
                return pid
        raise HubError("event_no_player", "{name} is not registered for this event.", name=name)

    def _leave_event_table(self, night: Night, pid: str) -> None:
        """A removed player's seat at the round under way: a stand-in finishes the game."""
        rnd = night.current
        player = self.run.players.get(pid)
        if rnd is None or player is None:
            return
        for table_id in rnd.table_ids:
            table = self.tables.get(table_id or 0)
            if table is not None and table.seat_of(pid) is not None:
                self.seating.vacate(table, player)

    def cancelled(self, night: Night) -> None:
        """The event is called off: no next round; its tables close (a pot in play goes back
        to who staked it, as when any table closes mid-game); everyone in it is told."""
        self.timers.cancel(("night", f"n{night.id}"))
        self.next_at.pop(night.id, None)
        for rnd in night.rounds:
            for table_id in rnd.table_ids:
                table = self.tables.get(table_id or 0)
                if table is not None:
                    for pid in table.humans():
                        self._push(pid, {"t": "left", "table": table.id})
                    self.seating.close_table(table)
        for pid in night.entrants:
            self._notice(
                pid,
                "night_cancelled",
                said("{night} was cancelled by its host.", night=night.rules.name),
            )

    def schedule(self, night: Night) -> None:
        """The next round's timer, as the event stands: after the break between rounds, or
        at the start time set for the first."""
        if night.paused or night.over:
            return
        if night.status == "between":
            self.next_round_after(night, self.round_break)
        elif night.status == "registering" and night.rules.starts_at is not None:
            self.next_round_after(night, max(0.0, night.rules.starts_at - time.time()))

    def create(self, session: Session, player: Player, message: NightRequest) -> None:
        if player.guest:
            raise HubError("guest", "Guests cannot host an event; choose a name first.")
        hosted = [n for n in self.nights.values() if n.host == player.id and not n.over]
        if len(hosted) >= HOSTED:
            raise HubError("too_many_events", "You host {count} events already.", count=len(hosted))
        if not (message.name and message.game and message.players and message.format):
            raise HubError(
                "bad_options", "An event needs a name, a game, a table size and a format."
            )
        name = " ".join(message.name.split())
        options = dict(message.options or {})
        try:
            options = get_game(message.game).resolve_options(message.players, options)
        except RulesError as err:
            raise HubError.untranslated("bad_options", err.message) from None
        rules = NightRules(
            name=name,
            game=message.game,
            table_size=message.players,
            format=message.format,
            rounds=message.rounds or 3,
            options=options,
            timer=int(self.config.turn_timer if message.timer is None else message.timer),
            access=message.access or "everyone",
            fill=message.fill or "bots",
            bots=message.bots or "heuristic",
            starts_at=None if message.starts_at is None else float(message.starts_at),
            closes_at=None if message.closes_at is None else float(message.closes_at),
        )
        found = problems(rules)
        if found:
            raise HubError.untranslated("bad_options", found[0])
        host_name = self._host_named(player, message)
        night = Night(self.store.next_night_id(), rules, player.id, host_name=host_name)
        self.nights[night.id] = night
        self.save(night)
        self.schedule(night)
        self.following.setdefault(night.id, set()).add(session)
        session.push(self.night_message(night, player))
        self.tell_list()

    @staticmethod
    def _host_named(player: Player, message: NightRequest) -> str | None:
        """The name an admin's event is hosted under (``gambit event create --host``, else the
        server's name, as that command sends it); None: the host's own name."""
        if message.host is None:
            return None
        if not player.admin:
            raise HubError("not_admin", "Only the server's admins may do that.")
        name = clean_name(message.host)
        if not name:
            raise HubError("bad_name", "A name needs 1 to 24 letters, digits or spaces.")
        return name

    def host_name(self, night: Night) -> str:
        """The name players see as the event's host: the one it was made under, else the
        host's own (the operator's tool has none of its own to show)."""
        return night.host_name or self.run.name_of(night.host)

    # --- rounds ------------------------------------------------------------------------------

    def start_round(self, night_id: int, *, refuse: bool = False) -> None:
        """Seat the event's next round and deal at every table (``refuse``: a host asked, and
        is told why not; from a timer a round that cannot be seated ends the event)."""
        night = self.nights.get(night_id)
        if night is None:
            return
        # While the database is away the round is refused before anything changes (nobody
        # withdrawn or moved, no table open): seated whole, from a timer, once it is back.
        # One transaction: a connection found gone as it begins refuses it the same way, and
        # one lost part-way keeps nothing of it (the hub then starts again from the disk).
        self.store.need_writable()
        with self.store.transaction():
            self._start_round(night, refuse)

    def _start_round(self, night: Night, refuse: bool) -> None:
        night_id = night.id
        self.timers.cancel(("night", f"n{night_id}"))
        self.next_at.pop(night_id, None)
        # Who is not here now is withdrawn (they may register again for a later round).
        for pid in night.active():
            if pid not in self.run.players:
                night.entrants[pid].withdrawn = True
        try:
            rnd = night.seat_next_round(time.time())
        except NightError as err:
            if refuse:
                self.save(night)
                raise _refusal(err) from None
            night.finish()
            self.save(night)
            self.tell(night)
            return
        self._move_from_other_tables(night, rnd.number, [p for t in rnd.tables for p in t if p])
        duplicate_set = f"night{night.id}r{rnd.number}" if night.rules.format == "duplicate" else ""
        opened: list[Table] = []
        for index, seats in enumerate(rnd.tables):
            table = self._open_table(night, rnd.number, index, seats, duplicate_set)
            rnd.table_ids[index] = table.id
            opened.append(table)
        self.save(night)
        for table in opened:
            self.play.start_game(table)
        for table in opened:
            for pid in table.humans():
                self._notice(
                    pid,
                    "night_round",
                    said(
                        "Round {round} of {night}: your table is {table}.",
                        round=rnd.number,
                        night=night.rules.name,
                        table=table.id,
                    ),
                )
        for pid in rnd.byes:
            self._notice(
                pid,
                "night_bye",
                said(
                    "Round {round} of {night}: you have a bye.",
                    round=rnd.number,
                    night=night.rules.name,
                ),
            )
        self.tell(night)

    def _move_from_other_tables(self, night: Night, number: int, seated: list[str]) -> None:
        """Players of the round who sit at another table leave it by that table's rules (mid-
        game a bot plays their seat, kept for them), told so, before their event table opens.
        Finished tables of this event close by themselves and are left alone."""
        for table in list(self.tables.values()):
            if table.night is not None and table.night["id"] == night.id:
                continue
            for pid in [p for p in table.humans() if p in seated]:
                player = self.run.players.get(pid)
                if player is None:
                    continue
                name = night.rules.name
                if table.status == "playing":
                    sentence = said(
                        "Round {round} of {night} has begun: you left table {table}, where a "
                        "bot plays your seat until its game ends.",
                        round=number,
                        night=name,
                        table=table.id,
                    )
                else:
                    sentence = said(
                        "Round {round} of {night} has begun: you left table {table}.",
                        round=number,
                        night=name,
                        table=table.id,
                    )
                self.seating.vacate(table, player)
                self._notice(pid, "night_moved", sentence)

    def _open_table(
        self, night: Night, number: int, index: int, seats: list[str | None], duplicate_set: str
    ) -> Table:
        rules = night.rules
        table_id = self.store.next_table_id()
        if self.config.seed is None:
            dealer = secrets.randbelow(rules.table_size)
        else:
            dealer = random.Random(f"{self.config.seed}:{table_id}").randrange(rules.table_size)
        table = Table(
            id=table_id,
            dealer=dealer,
            game=rules.game,
            players=rules.table_size,
            options=dict(rules.options),
            owner=night.host,
            timer=float(rules.timer),
            seats=[Seat(player=p) if p is not None else Seat(bot=rules.bots) for p in seats],
            # (``host``: what the lobby says opened it, when not the host's own name)
            night={"id": night.id, "round": number, "index": index}
            | ({"host": night.host_name} if night.host_name else {}),
        )
        if duplicate_set:
            self.duplicate.join(table, duplicate_set, None)
        self.duplicate.draw_deal(table)
        self.tables[table.id] = table
        self.run.save(table)
        for pid in seats:
            if pid is not None:
                self.run.names.setdefault(pid, self.run.name_of(pid))
        return table

    def game_ended(self, table: Table, outcome: Outcome) -> None:
        """A table's game has ended and is stored: count it, close the table after a while,
        and once the round is over seat the next after the break."""
        mark = table.night
        if mark is None:
            return
        self.timers.cancel(("next", table.id))  # (an event's table plays one game)
        self.timers.later(("night_close", table.id), self.table_break, self.close_table, table.id)
        night = self.nights.get(mark["id"])
        if night is None or night.status != "playing" or len(night.rounds) != mark["round"]:
            return
        if night.rounds[-1].scores[mark["index"]] is not None:
            return  # (counted already: a restart settled it again)
        try:
            done = night.record(mark["index"], [float(s) for s in outcome.scores])
        except NightError:
            return
        self.save(night)
        if done:
            self.round_over(night)
        self.tell(night)

    def round_over(self, night: Night) -> None:
        """The round's last table has counted: the next round after the break, or, after the
        last round, the final results to every player of the event still connected."""
        if night.status == "between":
            self.schedule(night)
            return
        podium = " · ".join(
            f"{row.place}. {self.run.name_of(row.player)}"
            for row in night.standings()
            if row.place <= 3
        )
        for pid in night.entrants:
            self._notice(
                pid,
                "night_over",
                said("{night} is over: {podium}.", night=night.rules.name, podium=podium),
            )

    def next_round_after(self, night: Night, delay: float) -> None:
        self.next_at[night.id] = asyncio.get_running_loop().time() + delay
        self.timers.later(("night", f"n{night.id}"), delay, self.start_round, night.id)

    def close_table(self, table_id: int) -> None:
        table = self.tables.get(table_id)
        if table is None or table.night is None or table.status == "playing":
            return
        for seat in table.seats:
            for pid in (seat.player, seat.reserved):
                if pid is not None and pid in self.run.players:
                    self.run.players[pid].push({"t": "left", "table": table.id})
        self.seating.close_table(table)

    # --- saving and restarting ---------------------------------------------------------------

    def save(self, night: Night) -> None:
        """Keep the event as it is now: in the store's open batch of writes, if one is open,
        written once just before it commits (so with what changed it: a game's record and its
        count in the standings are committed together or not at all). A round's tables end
        in bursts, and the whole event (every round's seats and scores) was written again at
        each: 2-4 times per batch at ``bench/event.py``'s night, 4 % of its loop."""
        if self.store.holding:
            self._unsaved.add(night.id)
        else:
            self.store.save_night(night.id, night.to_record())  # (this opens a batch)
        self._in_batch.add(night.id)

    def save_held(self) -> None:
        """Write every event changed in the open batch (the hub calls this before it commits
        the batch)."""
        unsaved, self._unsaved = self._unsaved, set()
        self._in_batch.clear()  # (committed next, or lost with the whole batch)
        for night_id in sorted(unsaved):
            night = self.nights.get(night_id)
            if night is not None:
                self.store.save_night(night.id, night.to_record())

    def restore(self) -> None:
        """After a restart, before the tables resume: every event kept, as it was."""
        for data in self.store.nights():
            night = Night.from_record(data)
            self.nights[night.id] = night

    def resume(self) -> None:
        """After the tables resumed: finished tables close, and a break between rounds
        starts again."""
        for table in list(self.tables.values()):
            if table.night is not None and table.status == "between":
                self.timers.cancel(("next", table.id))
                self.timers.later(
                    ("night_close", table.id), self.table_break, self.close_table, table.id
                )
        for night in self.nights.values():
            self._count_lost_tables(night)
            self.schedule(night)

    def _count_lost_tables(self, night: Night) -> bool:
        """A table of the round under way that is gone without a result (closed by an admin,
        left by everyone, its stored state lost) counts as a draw, so that the round can
        end; True if one did."""
        rnd = night.current
        if rnd is None or night.status != "playing":
            return False
        lost = False
        for index, table_id in enumerate(rnd.table_ids):
            gone = rnd.scores[index] is None and table_id not in self.tables
            if gone and night.status == "playing":
                log.warning("night %s: table %s is gone without a result", night.id, table_id)
                night.record(index, [0.0] * len(rnd.tables[index]))
                lost = True
        if lost:
            self.save(night)
        return lost

    def table_closed(self, table: Table) -> None:
        """A table has closed: one of a round under way whose game had not ended counts as a
        draw (and the round may be over)."""
        night = self.nights.get(table.night["id"]) if table.night is not None else None
        if night is None or not self._count_lost_tables(night):
            return
        if night.status != "playing":
            self.round_over(night)
        self.tell(night)

    # --- telling -----------------------------------------------------------------------------

    def _notice(self, pid: str, code: str, sentence: Sentence) -> None:
        self._push(pid, {"t": "notice", "code": code, **sentence})

    def _push(self, pid: str, message: Any) -> None:
        if pid in self.run.players:
            self.run.players[pid].push(message)

    def summary(self, night: Night, player: Player) -> dict[str, Any]:
        """One event as an entry of ``nights`` reads to ``player``."""
        you, hosting = self._reading(night, player)
        return {**self.common_summary(night), "you": you, "hosting": hosting}

    def common_summary(self, night: Night) -> dict[str, Any]:
        """An event's entry of ``nights`` but for its reader's fields (``READER_FIELDS``):
        the same for everyone, worked out once per change."""
        rules = night.rules
        due = self.next_at.get(night.id)
        return {
            "id": night.id,
            "name": rules.name,
            "game": rules.game,
            "format": rules.format,
            "size": rules.table_size,
            "rounds": rules.rounds,
            "round": len(night.rounds),
            "status": night.status,
            "registered": len(night.active()),
            "host": self.host_name(night),
            "paused": night.paused,
            "closes_at": night.rules.closes_at,
            "next_in": (
                max(0, round(due - asyncio.get_running_loop().time())) if due is not None else None
            ),
        }

    @staticmethod
    def _reading(night: Night, player: Player) -> tuple[bool, bool]:
        """The reader's fields of an event's summary: registered, hosting."""
        entrant = night.entrants.get(player.id)
        return (
            entrant is not None and not entrant.withdrawn,
            night.host == player.id or player.admin,
        )

    def standing_rows(self, night: Night) -> list[dict[str, Any]]:
        """The standings as sent, with each row's player key (``id``, never sent): worked out
        once per change, however many read them."""
        return [
            {
                "place": row.place,
                "name": self.run.name_of(row.player),
                "points": row.points,
                "tiebreak": row.tiebreak,
                "games": row.games,
                "byes": row.byes,
                "withdrawn": row.withdrawn,
                "id": row.player,
            }
            for row in night.standings()[:SHOWN_ROWS]
        ]

    def shared_night(self, night: Night) -> SharedNight:
        """The event's ``night`` message at this change, made once for all its readers."""
        shared = SharedNight(self.common_summary(night), self.standing_rows(night))
        current = night.current
        if current is not None and night.status == "playing":
            # Who sits at which table, looked up once, not in every table per follower.
            for index, seats in enumerate(current.tables):
                for pid in seats:
                    if pid is not None:
                        shared.tables.setdefault(pid, current.table_ids[index])
            shared.byes = frozenset(current.byes)
        return shared

    def night_message(
        self, night: Night, player: Player, shared: SharedNight | None = None
    ) -> Prepared:
        """One event as ``player`` sees it (``shared``: :meth:`shared_night`, if made)."""
        shared = shared or self.shared_night(night)
        you, hosting = self._reading(night, player)
        return shared.message(
            player.id,
            you=you,
            hosting=hosting,
            table=shared.tables.get(player.id),
            bye=player.id in shared.byes,
        )

    def _listed(self) -> list[Night]:
        return sorted(self.nights.values(), key=lambda n: (n.over, -n.id))[:SHOWN_ROWS]

    def shared_list(self) -> SharedList:
        """The ``nights`` message at this change, made once for all its readers."""
        return SharedList([self.common_summary(n) for n in self._listed()])

    def list_message(self, player: Player, shared: SharedList | None = None) -> Prepared:
        shared = shared or self.shared_list()
        return shared.message([self._reading(n, player) for n in self._listed()])

    def _followers(self, key: int) -> list[Session]:
        sessions = self.following.get(key, set())
        for session in [s for s in sessions if not s.alive or s.player is None]:
            sessions.discard(session)
        return list(sessions)

    def tell(self, night: Night) -> None:
        """Everyone following the event gets its standings, and the list's followers the list,
        within :data:`TELL_EVERY`: the changes in between (a round's tables ending together)
        go out as one message each, not one per change to every follower."""
        key = ("night_tell", f"n{night.id}")
        if key not in self.timers.pending:
            self.timers.later(key, TELL_EVERY, self.tell_now, night.id)

    def tell_now(self, night_id: int) -> None:
        """The event's standings to its followers. When the event has not changed since the
        store's last commit (the change told was committed with its batch, and none came in
        the batch open now), they show nothing uncommitted and go out at once: waiting for
        the open batch of other tables' moves cost a loop's turn more at a busy night."""
        night = self.nights.get(night_id)
        if night is None:
            return
        followers = self._followers(night.id)
        if followers:
            shared = self.shared_night(night)
            committed = night.id not in self._in_batch and self.run.outbox.on_disk
            for session in followers:
                assert session.player is not None
                message = self.night_message(night, session.player, shared)
                if committed:
                    session.deliver(message)
                else:
                    session.push(message)
        self.tell_list()

    def tell_list(self) -> None:
        followers = self._followers(0)
        if not followers:
            return
        shared = self.shared_list()
        listed = self._listed()
        for session in followers:
            player = session.player
            assert player is not None
            session.push(shared.message([self._reading(n, player) for n in listed]))
