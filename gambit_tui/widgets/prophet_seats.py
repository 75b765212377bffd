"""Every seat at a Prophet table: who, the dealer, the bid, tricks won against it, the total,
and the turn timer."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from rich.text import Text

from ..i18n import _
from ..names import seat_label
from .grid import grid_lines
from .seats_panel import SeatsPanel

#: The columns: turn mark, name, dealer mark, bid, won, total, timer.
_MIN_WIDTHS = (1, 0, 1)
_MAX_WIDTHS = (1, 14, 1)
_RIGHT = (False, False, False, True, True, True)


def won_text(won: int, bid: int | None) -> Text:
    """Tricks won, measured against the bid: exactly the bid is green, over it red."""
    text = Text(str(won))
    if bid is None:
        text.stylize("dim")
    elif won == bid:
        text.stylize("bold green")
    elif won > bid:
        text.stylize("bold red")
    return text


class ProphetSeats(SeatsPanel):
    """One line per seat under a header line."""

    def __init__(self) -> None:
        super().__init__()
        #: Each row's line and cell measures, by what the row is made of (this message's
        #: only): a move changes a seat or two, the others' lines are not made again.
        self._lines_made: dict[Hashable, Any] = {}

    def on_mount(self) -> None:
        if self.border_title is None:  # (the screen may have named it already: its game)
            self.border_title = _("Seats")

    def build(self) -> list[Text]:
        message = self.message
        if not message:
            return []
        info = message["info"]
        view = message.get("view") or {}
        mine = message.get("seat")
        rows: list[list[Text | str]] = []
        keys: list[Hashable] = []
        if view:
            rows.append(
                ["", "", "", Text(_("Bid"), style="dim"), Text(_("Won"), style="dim"),
                 Text(_("Total"), style="dim"), ""]
            )  # fmt: skip
            keys.append(("header", _("Bid"), _("Won"), _("Total")))
        bids = view.get("bids") or []
        tricks = view.get("tricks") or []
        totals = view.get("totals") or []
        turn_mark = ">" if self.style.ascii else "▶"
        dealer_seat = view.get("dealer", info.get("dealer")) if view else info.get("dealer")
        for seat in info["seats"]:
            s = seat["seat"]
            keys.append(
                (
                    tuple(seat.items()),
                    s == mine,
                    bool(view),
                    bool(view) and view.get("turn") == s,
                    dealer_seat == s,
                    bids[s] if s < len(bids) else None,
                    tricks[s] if s < len(tricks) else 0,
                    totals[s] if s < len(totals) else 0,
                    self.timers.get(s),
                    self.style.ascii,
                )
            )
            marker = Text(turn_mark, style="bold") if view and view.get("turn") == s else Text(" ")
            name = seat_label(seat, s == mine)
            dealer = Text(_("D"), style="bold") if dealer_seat == s else Text(" ")
            if not view:
                rows.append([marker, name, dealer, "", "", "", self.timer_text(s)])
                continue
            bid = bids[s] if s < len(bids) else None
            rows.append(
                [
                    marker,
                    name,
                    dealer,
                    Text("—" if bid is None else str(bid), style="dim" if bid is None else "bold"),
                    won_text(tricks[s] if s < len(tricks) else 0, bid),
                    Text(str(totals[s] if s < len(totals) else 0)),
                    self.timer_text(s),
                ]
            )
        return grid_lines(
            rows,
            min_widths=_MIN_WIDTHS,
            max_widths=_MAX_WIDTHS,
            right=_RIGHT,
            fit=self.content_size.width,
            keys=keys,
            made=self._lines_made,
        )
