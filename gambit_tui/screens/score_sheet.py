"""Prophet's score sheet: every round's points per player, the round in play, the totals."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from .. import events
from ..i18n import N_, _
from ..names import seat_name
from .base import GambitModal


def score_sheet(message: dict[str, Any] | None) -> Table | Text:
    """The sheet as a table: one row per round of the schedule (played rounds with their
    points, the current one with each bid and tricks so far, later ones with their cards
    only) and the totals last."""
    view = (message or {}).get("view")
    if not view:
        return Text(_("The game has not started yet."), style="dim")
    seats = message["info"]["seats"] if message else []
    mine = message.get("seat") if message else None
    sheet: list[list[int]] = view.get("sheet") or []
    schedule: list[int] = view.get("schedule") or []
    current = view.get("round", 0)
    over = bool(view.get("over"))
    table = Table(box=None, padding=(0, 1), show_edge=False, pad_edge=False)
    table.add_column(_("Round"), justify="right", no_wrap=True)
    table.add_column(_("Cards"), justify="right", no_wrap=True)
    for seat in seats:
        head = seat_name(seat)[:9]
        table.add_column(
            Text(head, style="bold underline" if seat["seat"] == mine else "bold"),
            justify="right",
            no_wrap=True,
        )
    for index, cards in enumerate(schedule):
        round_no = index + 1
        cells: list[Text] = []
        if index < len(sheet):
            for points in sheet[index]:
                cells.append(Text(str(points), style="bold green" if points else "dim"))
        elif round_no == current and not over:
            bids = view.get("bids") or []
            tricks = view.get("tricks") or []
            for s in range(len(seats)):
                bid = bids[s] if s < len(bids) else None
                won = tricks[s] if s < len(tricks) else 0
                cells.append(Text("…" if bid is None else f"{won}/{bid}", style="italic"))
        else:
            cells = [Text("") for _s in seats]
        label = Text(str(round_no), style="bold" if round_no == current and not over else "dim")
        table.add_row(label, Text(str(cards), style="dim"), *cells)
    totals = view.get("totals") or [0] * len(seats)
    best = max(totals) if totals else 0
    table.add_row(
        Text(_("Total"), style="bold"),
        Text(""),
        *[Text(str(t), style="bold reverse" if t == best and t else "bold") for t in totals],
        end_section=True,
    )
    return table


class ScoreSheetScreen(GambitModal):
    """The score sheet over the table (``t`` opens and closes it). It follows the game while
    open; the round in play shows tricks won / bid."""

    DEFAULT_CSS = """
    ScoreSheetScreen #sheet {
        max-height: 21;
    }
    ScoreSheetScreen #sheet Static {
        height: auto;
    }
    ScoreSheetScreen #legend {
        color: $text-muted;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "close", N_("Close")),
        Binding("escape", "close", N_("Close"), show=False),
    ]

    def __init__(self, table_id: int) -> None:
        super().__init__()
        self.table_id = table_id

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="sheet"):
            yield Static(self._sheet(), id="body")
            yield Static(
                _("Taking exactly the tricks you bid scores 10 plus the bid; otherwise 0."),
                id="legend",
            )

    def _sheet(self) -> Table | Text:
        return score_sheet(self.gapp.model.views.get(self.table_id))

    def on_mount(self) -> None:
        sheet = self.query_one("#sheet", VerticalScroll)
        sheet.border_title = _("Score sheet")
        sheet.focus()  # ↑↓ scroll a long schedule
        view = (self.gapp.model.views.get(self.table_id) or {}).get("view") or {}
        # Keep the round in play in sight: a long schedule has more rounds than lines.
        self.call_after_refresh(sheet.scroll_to, y=max(0, view.get("round", 0) - 10), animate=False)

    def on_table_updated(self, event: events.TableUpdated) -> None:
        if event.table_id == self.table_id and self.is_mounted:
            self.query_one("#body", Static).update(self._sheet())

    def action_close(self) -> None:
        self.dismiss()
