"""The plain mode's events (game nights): ``events`` lists them as numbered lines,
``register N`` and ``withdraw N`` enter and leave one, ``standings N`` says its standings.

The requests are the full-screen events screen's (``Night``: list, register, withdraw, watch);
the hub's answer is said when it comes. An event has no limit of places: its line says how
many are registered instead. The hub's refusals (an event over, a round under way) are said
by the client like any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.requests import Night

from ..i18n import N_, _, ngettext
from ..names import game_title
from ..night_text import format_label, points, state_label
from .parser import command_name
from .words import is_number

if TYPE_CHECKING:  # for type hints only
    from protocol.requests import Request

    from ..model import ClientModel

#: The hub's messages said here.
NIGHT_MESSAGES = ("nights", "night")

NIGHTS_HELP: dict[str, str] = {
    "events": N_("Lists the events (game nights), numbered, with their state."),
    "register": N_("Registers you for an event: register and its number."),
    "withdraw": N_("Takes you off an event: withdraw and its number."),
    "standings": N_("Says an event's standings: standings and its number."),
}


def _state(night: dict[str, Any]) -> str:
    """The event's state in words (the screen's, without its dots)."""
    return state_label(night).replace(" \u00b7 ", ", ")


class NightCommands:
    """Events for :class:`~gambit_tui.plain.client.PlainClient` (a mixin: it uses the
    client's model, ``say`` and ``send``)."""

    if TYPE_CHECKING:
        model: ClientModel

        def say(self, *lines: str, bell: bool = False) -> None: ...
        def send(self, request: Request) -> None: ...

    #: Whether the next ``nights`` message answers the player.
    nights_asked: bool = False
    #: What the player asked of an event whose answer is awaited: (command, event number).
    night_asked: tuple[str, int] | None = None

    def do_events(self, arg: str) -> None:
        self.nights_asked = True
        self.send(Night("list"))

    def _event_number(self, arg: str, command: str) -> int | None:
        word = arg.strip().split()[0] if arg.strip() else ""
        if not is_number(word) or int(word) < 1:
            self.say(
                _("Which event? Type its number, as in {command} 1; events lists them.").format(
                    command=command_name(command)
                )
            )
            return None
        return int(word)

    def do_register(self, arg: str) -> None:
        n = self._event_number(arg, "register")
        if n is not None:
            self.night_asked = ("register", n)
            self.send(Night("register", night=n))

    def do_withdraw(self, arg: str) -> None:
        n = self._event_number(arg, "withdraw")
        if n is not None:
            self.night_asked = ("withdraw", n)
            self.send(Night("withdraw", night=n))

    def do_standings(self, arg: str) -> None:
        n = self._event_number(arg, "standings")
        if n is not None:
            self.night_asked = ("standings", n)
            self.send(Night("watch", night=n))

    def _event_line(self, night: dict[str, Any]) -> str:
        line = _(
            "Event {n}: {name}, {game}, {format}, host {host}; {state}; {count} registered."
        ).format(
            n=night["id"],
            name=night["name"],
            game=game_title(night["game"]),
            format=format_label(night["format"]),
            host=night["host"],
            state=_state(night),
            count=night["registered"],
        )
        if night.get("you"):
            line += " " + _("You are registered.")
        return line

    def _standing_lines(self, night: dict[str, Any]) -> list[str]:
        lines = [
            _("Standings of event {n}, {name}: {state}.").format(
                n=night["id"], name=night["name"], state=_state(night)
            )
        ]
        for row in night.get("standings", []):
            lines.append(
                ngettext(
                    "{place}. {name}: {points} points, {games} game.",
                    "{place}. {name}: {points} points, {games} games.",
                    row["games"],
                ).format(
                    place=row["place"],
                    name=row["name"],
                    points=points(row["points"]),
                    games=row["games"],
                )
            )
        if len(lines) == 1:
            lines.append(_("No one is registered yet."))
        return lines

    def hear_nights(self, message: dict[str, Any]) -> None:
        """Say a ``nights`` or ``night`` message the player asked for."""
        if message["t"] == "nights":
            if self.nights_asked:
                self.nights_asked = False
                listed = message["nights"]
                self.say(*([self._event_line(n) for n in listed] or [_("No events yet.")]))
            return
        night = message["night"]
        asked = self.night_asked
        if asked is None or asked[1] != night["id"]:
            return
        op = asked[0]
        if op == "register" and night.get("you"):
            self.say(_("You are registered for event {n}.").format(n=night["id"]))
        elif op == "withdraw" and not night.get("you"):
            self.say(_("You are no longer registered for event {n}.").format(n=night["id"]))
        elif op == "standings":
            self.say(*self._standing_lines(night))
            if not night.get("you") and not night.get("hosting"):
                self.send(Night("unwatch", night=night["id"]))
        else:
            return
        self.night_asked = None
