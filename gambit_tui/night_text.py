"""Game nights' words: formats, an event's state, points (the screens show these)."""

from __future__ import annotations

from typing import Any

from .i18n import N_, _

FORMATS = {
    "swiss": N_("Swiss"),
    "round_robin": N_("Round robin"),
    "duplicate": N_("Duplicate night"),
}
#: What becomes of the players left over when the tables do not divide.
FILLS = {"bots": N_("Bots fill the seats"), "byes": N_("Byes")}


def format_label(name: str) -> str:
    return _(FORMATS[name]) if name in FORMATS else name


def fill_label(name: str) -> str:
    return _(FILLS[name]) if name in FILLS else name


def points(value: float) -> str:
    """Points as players write them: 3, 1.5."""
    return f"{value:g}"


def state_label(night: dict[str, Any], elapsed: float = 0.0) -> str:
    """Registering, round k of n (and the countdown to the next, ``elapsed`` seconds after
    the hub said it), finished."""
    status = night["status"]
    if status == "finished":
        return _("Finished")
    if status == "cancelled":
        return _("Cancelled")
    due = night.get("next_in")
    left = countdown(max(0, round(due - elapsed))) if due is not None else ""
    if status == "registering":
        text = _("Registering")
        if left:
            text += " · " + _("starts in {time}").format(time=left)
    else:
        text = _("Round {round} of {rounds}").format(round=night["round"], rounds=night["rounds"])
        if status == "between" and left:
            text += " · " + _("next in {time}").format(time=left)
    if night.get("paused"):
        text += " · " + _("paused")
    return text


def countdown(seconds: int) -> str:
    """A time to wait as a clock shows it: 0:45, 12:05, 1:30:00."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def about(night: dict[str, Any]) -> str:
    """The line under the list: the rules, and where the reader stands."""
    parts = [
        format_label(night["format"]),
        _("tables of {size}").format(size=night["size"]),
        _("host: {name}").format(name=night["host"]),
    ]
    if night.get("table") is not None:
        parts.append(_("your table: {table} (o)").format(table=night["table"]))
    elif night.get("bye"):
        parts.append(_("you have a bye this round"))
    elif night.get("you"):
        parts.append(_("you are registered"))
    return " · ".join(parts)
