"""The plain mode's history and replays: ``history`` lists the player's last finished games,
ten a page (``history 2``: the next ten), numbered from the newest on, ``replay N`` opens one
(whichever page it is on), ``next`` and ``back`` step through it, ``stop`` leaves it.

The hub does the work, as for the full-screen history and replay screens: ``History`` lists
the games, ``Record`` gives the verdict on a game's deal, ``Replay`` the table after a number
of moves (kept by the model under the game's own key). Each move is said by the live
narration (the client's ``_events``, the games' text modules): a move of a replay sounds as it
did at the table.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protocol.messages import HISTORY_PAGE
from protocol.requests import History, Record, Replay, Request

from ..cards import CardStyle
from ..i18n import N_, _, ngettext
from ..model import ClientModel, replay_key
from ..names import game_title
from .result import result_lines
from .words import is_number

#: Cards as the client says them (by name; no colour).
STYLE = CardStyle(ascii=True, theme="mono")

#: Moves ``next N`` (or ``back N``) may step at once.
MOST_STEPS = 50
#: The last page ``history N`` may ask for (the protocol's limit).
LAST_PAGE = 100_000

#: The verdict on a replayed game's deal, as the replay screen's status line says it.
VERDICTS = {
    "pass": N_("deal verified"),
    "fail": N_("deal FAILED verification"),
    "not fair": N_("deal not fair"),
    "unverifiable": N_("deal not verifiable"),
}

#: One sentence of help per command here (merged into the client's).
HISTORY_HELP: dict[str, str] = {
    "history": N_(
        "Lists your finished games, newest first, ten a page (history 2: the second page); "
        "replay and a number opens one."
    ),
    "replay": N_("Opens a game of your history to step through: replay and its number."),
    "next": N_("Steps a replay one move on, or more: next 5."),
    "back": N_("Steps a replay one move back, or more: back 5."),
    "stop": N_("Leaves the replay; lobby does too."),
}


@dataclass(slots=True)
class Replaying:
    """The finished game being stepped through."""

    game_id: int
    seat: int | None
    #: The step the player last asked for (the next ``next`` counts from it).
    asked: int = 0
    #: The game's moves in all (known once its first frame came).
    steps: int | None = None
    #: Frames asked for and not yet come: (step, how it is said: open, next or back).
    pending: deque[tuple[int, str]] = field(default_factory=deque)
    #: The events of each frame seen, by step (what the step after it adds is said).
    events: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


def history_line(number: int, game: dict[str, Any]) -> str:
    """One game of a history: "1. Prophet, 2026-12-06 18:30: place 1 of 3; chips +20."."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(game["finished"]))
    title = game_title(game["game"])
    if game.get("place") is None or game.get("chips") is None:
        return _("{n}. {game}, {date}.").format(n=number, game=title, date=when)
    return _("{n}. {game}, {date}: place {place} of {players}; chips {chips}.").format(
        n=number,
        game=title,
        date=when,
        place=game["place"],
        players=len(game["players"]),
        chips=f"{game['chips']:+d}",
    )


def _count(arg: str) -> int | None:
    """How many moves ``next``/``back`` asks for (1 without a number; None: not a number)."""
    word = arg.strip().split()[0] if arg.strip() else "1"
    if not is_number(word) or int(word) < 1:
        return None
    return min(int(word), MOST_STEPS)


class ReplayCommands:
    """The commands and hub messages of history and replays (mixed into the plain client)."""

    if TYPE_CHECKING:  # what the client it is mixed into has
        model: ClientModel
        said: list[str]
        _said: dict[int, list[dict[str, Any]]]

        def say(self, *lines: str, bell: bool = False) -> None: ...
        def send(self, request: Request) -> None: ...
        def _events(self, table_id: int, message: dict[str, Any], view: dict[str, Any]) -> None: ...

    #: The replay open (None: none).
    replay: Replaying | None = None
    #: The history was asked for by ``history`` (said when it comes), or by ``replay N``
    #: before any history was held (the game number to open when it comes).
    _history_said: bool = False
    _history_opens: int | None = None

    # --- commands ------------------------------------------------------------------------------

    def do_history(self, arg: str) -> None:
        word = arg.strip().split()[0] if arg.strip() else "1"
        if not is_number(word) or int(word) < 1:
            self.say(_("Type history, or history and a page number, as in history 2."))
            return
        self._history_said = True
        self.send(History(page=min(int(word), LAST_PAGE) - 1))

    def do_replay(self, arg: str) -> None:
        word = arg.strip().split()[0] if arg.strip() else ""
        if not is_number(word):
            self.say(_("Which game? Type replay and its number in your history, as in replay 1."))
            return
        self._open(int(word))

    def do_next(self, arg: str) -> None:
        replay = self._replaying()
        if replay is None:
            return
        count = _count(arg)
        if count is None:
            self.say(_("Type next, or next and a number of moves, as in next 5."))
            return
        last = replay.steps if replay.steps is not None else replay.asked + count
        if replay.asked >= last:
            self.say(_("This is the end of the game: type back to step back, or stop to leave."))
            return
        for step in range(replay.asked + 1, min(replay.asked + count, last) + 1):
            self._ask(replay, step, "next")

    def do_back(self, arg: str) -> None:
        replay = self._replaying()
        if replay is None:
            return
        count = _count(arg)
        if count is None:
            self.say(_("Type back, or back and a number of moves, as in back 5."))
            return
        if replay.asked <= 0:
            self.say(_("This is the start of the game: type next to step on."))
            return
        self._ask(replay, max(0, replay.asked - count), "back")

    def do_stop(self, arg: str) -> None:
        if self._replaying() is not None:
            self.leave_replay()

    def leave_replay(self) -> None:
        """Close the replay open, if any, and say so."""
        replay = self.replay
        if replay is None:
            return
        self.replay = None
        self.model.views.pop(replay_key(replay.game_id), None)
        self.say(_("You left the replay of game {id}.").format(id=replay.game_id))

    def _replaying(self) -> Replaying | None:
        if self.replay is None:
            self.say(_("No replay is open. Type history, then replay and a number."))
        return self.replay

    def _open(self, number: int, fetched: bool = False) -> None:
        """Open the game numbered ``number`` in the history (1: the newest); its page is
        asked for first if it is not the one held (``fetched``: it was just asked for)."""
        history = self.model.history
        if history is None and not fetched:
            self._fetch_for(number)
            return
        history = history or {}
        games = history.get("games") or []
        total = int(history.get("total", len(games)))
        if not games:
            self.say(_("No finished games yet."))
            return
        index = number - 1 - int(history.get("page", 0)) * HISTORY_PAGE
        if 1 <= number <= total and not 0 <= index < len(games) and not fetched:
            self._fetch_for(number)
            return
        if not 1 <= number <= total or not 0 <= index < len(games):
            self.say(
                _("There is no game {n} in your history: type a number from 1 to {max}.").format(
                    n=number, max=total
                )
            )
            return
        if self.replay is not None:
            self.model.views.pop(replay_key(self.replay.game_id), None)
        game = games[index]
        self.replay = Replaying(int(game["id"]), game.get("seat"))
        self.send(Record(self.replay.game_id))
        self._ask(self.replay, 0, "open")

    def _fetch_for(self, number: int) -> None:
        """Ask for the page of the history holding game ``number``, to open it then."""
        self._history_opens = number
        self.send(History(page=min(max(0, (number - 1) // HISTORY_PAGE), LAST_PAGE - 1)))

    def _ask(self, replay: Replaying, step: int, how: str) -> None:
        replay.asked = step
        replay.pending.append((step, how))
        self.send(Replay(replay.game_id, step, seat=replay.seat))

    # --- what the hub says ---------------------------------------------------------------------

    def replay_receive(self, kind: str, message: dict[str, Any]) -> None:
        """A history, a record or a replay's frame (the model holds it already)."""
        if kind == "history":
            opens, self._history_opens = self._history_opens, None
            if self._history_said:
                self._history_said = False
                self._say_history(message)
            if opens is not None:
                self._open(opens, fetched=True)
        elif kind == "replay":
            self._frame(message)

    def _say_history(self, message: dict[str, Any]) -> None:
        """One page of the history, numbered from the newest game on (page 2 from 11)."""
        games = message.get("games") or []
        if not games:
            self.say(_("No finished games yet."))
            return
        page, pages = int(message.get("page", 0)), int(message.get("pages", 1))
        first = page * HISTORY_PAGE + 1
        if pages == 1:
            header = _("Your last games, newest first:")
        else:
            header = _("Your games {first} to {last} of {total}, newest first:").format(
                first=first, last=first + len(games) - 1, total=message.get("total", len(games))
            )
        lines = [_("Type replay and a number to step through a game.")]
        if page + 1 < pages:
            lines.append(_("Type history {page} for older games.").format(page=page + 2))
        self.say(
            header,
            *(history_line(n, game) for n, game in enumerate(games, start=first)),
            *lines,
        )

    def _frame(self, message: dict[str, Any]) -> None:
        replay = self.replay
        if replay is None or message["game"] != replay.game_id:
            return
        key = replay_key(replay.game_id)
        frame = self.model.views.get(key)
        if frame is None:
            return
        how = "next"
        while replay.pending:
            asked, how = replay.pending.popleft()
            if asked == message["step"]:
                break
        step, steps = int(message["step"]), int(message["steps"])
        replay.steps = steps
        view = frame.get("view") or {}
        if how == "open":
            self.say(self._opening(replay, frame, steps))
        elif how == "back":
            self.say(_("Back to move {n} of {total}.").format(n=step, total=steps))
        before = len(self.said)
        # (the live narration says what this step adds to the one before it)
        self._said[key] = list(replay.events.get(step - 1, []))
        self._events(key, frame, view)
        replay.events[step] = list(view.get("events") or [])
        if step == steps and view.get("over"):
            self.say(_("Game over."), *result_lines(frame, STYLE))
        elif len(self.said) == before and how == "next":
            self.say(_("Move {n} of {total}.").format(n=step, total=steps))

    def _opening(self, replay: Replaying, frame: dict[str, Any], steps: int) -> str:
        title = game_title(frame["info"]["game"])
        moves = ngettext("{n} move", "{n} moves", steps).format(n=steps)
        record = self.model.records.get(replay.game_id)
        if record is None:
            line = _("Replay of game {id}: {game}, {moves}.").format(
                id=replay.game_id, game=title, moves=moves
            )
        else:
            verdict = record["verify"]["verdict"]
            line = _("Replay of game {id}: {game}, {moves}, {verdict}.").format(
                id=replay.game_id,
                game=title,
                moves=moves,
                verdict=_(VERDICTS.get(verdict, VERDICTS["unverifiable"])),
            )
        return line + " " + _("Type next to step on, back to step back, stop to leave.")
