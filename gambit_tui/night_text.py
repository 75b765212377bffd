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
    if status == "registering":
        return _("Registering")
    if status == "finished":
        return _("Finished")
    if status == "cancelled":
        return _("Cancelled")
    text = _("Round {round} of {rounds}").format(round=night["round"], rounds=night["rounds"])
    if status == "between" and night.get("next_in") is not None:
        seconds = max(0, round(night["next_in"] - elapsed))
        text += " · " + _("next in {seconds} s").format(seconds=seconds)
    return text


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
