"""The reading of a Fortunes deal: every won trick in order, its top card and disposition,
the scores and, when the game is over, who takes the pot."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from ..fortunes_text import (
    card_text,
    compass_letter,
    compass_name,
    disposition_mark,
    disposition_short,
    disposition_word,
    team_at,
    team_style,
    team_text,
)
from ..i18n import N_, _, ngettext
from ..names import seat_name
from ..result_text import payouts
from ..widgets.fortunes_status import MULTI_DEAL, RUBBER_DEALS, signed
from .base import GambitModal

#: Tricks per column of the reading (19 tricks: two columns of up to ten).
PER_COLUMN = 10


class FortunesReadingScreen(GambitModal):
    """Shown over the table when a deal ends (and on its key at any time: the reading so
    far). It keeps the message it was opened with, so the next deal starting underneath does
    not change what it shows."""

    DEFAULT_CSS = """
    FortunesReadingScreen #reading Static {
        height: auto;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", N_("Close")),
        Binding("escape", "close", N_("Close"), show=False),
        Binding("v", "close", N_("Close"), show=False),
    ]

    def __init__(self, message: dict[str, Any]) -> None:
        super().__init__()
        #: The table message as it was when the reading was asked for.
        self.snapshot = message

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="reading"):
            yield Static(self.render_reading(), id="body")

    def on_mount(self) -> None:
        view = self.snapshot.get("view") or {}
        finished = view.get("over") or view.get("phase") == "next_deal"
        if not finished:
            title = _("The reading so far")
        elif (view.get("options") or {}).get("betting", "rubber") in MULTI_DEAL:
            title = _("The reading of deal {n}").format(n=view.get("deal", 1))
        else:
            title = _("The reading")
        self.query_one("#reading").border_title = title

    # --- drawing ---------------------------------------------------------------------------

    def name_of(self, seat: int) -> str:
        seats = self.snapshot.get("info", {}).get("seats", [])
        return seat_name(seats[seat]) if 0 <= seat < len(seats) else "?"

    def render_reading(self) -> Table:
        message = self.snapshot
        view = message.get("view") or {}
        style = self.gapp.card_style
        dealer = view.get("dealer", 0)
        out = Table.grid(padding=(0, 1))
        out.add_column()
        head = Text(_("{name} deals (East).").format(name=self.name_of(dealer)) + " ")
        teams = view.get("teams") or {}
        for team in ("High", "Low"):
            members = (teams.get(team) or {}).get("seats", [])
            head.append_text(team_text(team, style))
            head.append(" " + "+".join(compass_letter(s, dealer) for s in members) + " ")
            head.append(signed(int((teams.get(team) or {}).get("score", 0))), style="bold")
            head.append("  ")
        out.add_row(head)
        tricks = view.get("tricks") or (view.get("outcome") or {}).get("detail", {}).get(
            "reading", []
        )
        if not tricks:
            out.add_row(Text(_("No trick has been won yet."), style="dim"))
        else:
            out.add_row(self._columns(tricks, dealer))
            legend = disposition_mark("well", style)
            legend.append(" " + disposition_word("well") + "  ")
            legend.append_text(disposition_mark("ill", style))
            legend.append(" " + disposition_word("ill"))
            legend.append(" · " + _("in the order the tricks were won"), style="dim")
            out.add_row(legend)
        out.add_row(self._players(view, dealer))
        out.add_row(Text(_("Scores: the top card's strength in the trick's final direction (won "
                           "low: Ace 14 … Righ 1, a Star 21 minus its number), plus if "
                           "well-disposed, minus if ill-disposed (house rule)."),
                         style="dim italic"))  # fmt: skip
        for line in self._betting(view, dealer):
            out.add_row(line)
        if view.get("over") and view.get("outcome"):
            out.add_row(self._result(message, view["outcome"]))
        return out

    def _columns(self, tricks: list[dict[str, Any]], dealer: int) -> Table:
        """The won tricks in order, in columns of ten."""
        grid = Table.grid(padding=(0, 3))
        columns = [tricks[i : i + PER_COLUMN] for i in range(0, len(tricks), PER_COLUMN)]
        for _column in columns:
            grid.add_column(no_wrap=True)
        tables = [self._column(column, dealer) for column in columns]
        grid.add_row(*tables)
        return grid

    def _column(self, tricks: list[dict[str, Any]], dealer: int) -> Table:
        style = self.gapp.card_style
        table = Table(box=None, padding=(0, 1), show_edge=False, pad_edge=False)
        table.add_column("#", justify="right", style="dim")
        table.add_column(_("Winner"), no_wrap=True, max_width=11)
        table.add_column(_("Top"), no_wrap=True)
        table.add_column("", no_wrap=True, max_width=8)
        table.add_column(_("Pts"), justify="right")
        view = self.snapshot.get("view") or {}
        for record in tricks:
            winner = int(record["winner"])
            who = Text()
            who.append(compass_letter(winner, dealer) + " ", style="bold")
            who.append(self.name_of(winner)[:8], style=team_style(team_at(view, winner), style))
            disposition = disposition_mark(record["disposition"], style)
            disposition.append(" " + disposition_short(record["disposition"]))
            table.add_row(
                str(record["n"]),
                who,
                card_text(record["top"], style),
                disposition,
                Text(signed(int(record["points"])), style="bold"),
            )
        return table

    def _players(self, view: dict[str, Any], dealer: int) -> Text:
        """Each player's tricks and score this deal, East first."""
        out = Text()
        seats = view.get("seats") or []
        for point in range(4):
            seat = (dealer + point) % 4
            if seat >= len(seats):
                continue
            if out:
                out.append(" · ")
            out.append(compass_letter(seat, dealer) + " ", style="bold")
            out.append(
                self.name_of(seat)[:10],
                style=team_style(team_at(view, seat), self.gapp.card_style),
            )
            out.append(" " + signed(int(seats[seat].get("score", 0))), style="bold")
        return out

    def _betting(self, view: dict[str, Any], dealer: int) -> list[Text]:
        """What the betting option adds: made or missed bids, a fold, running totals."""
        options = view.get("options") or {}
        betting = options.get("betting", "rubber")
        lines: list[Text] = []
        detail = (view.get("outcome") or {}).get("detail") or {}
        folded = detail.get("folded_by")
        if folded is None:
            folded = next(
                (ev["seat"] for ev in view.get("events", []) if ev.get("e") == "fold"), None
            )
        if folded is not None:
            lines.append(
                Text(
                    _("{name} ({point}) folded: the highest score takes the pot.").format(
                        name=self.name_of(folded), point=compass_name(folded, dealer)
                    )
                )
            )
        bids = view.get("bids")
        if betting == "bid" and bids:
            line = Text(_("Bids (house rule: per player, a team's is the sum):") + " ")
            seats = view.get("seats") or []
            teams = view.get("teams") or {}
            for team in ("High", "Low"):
                members = (teams.get(team) or {}).get("seats", [])
                wanted = sum(int(bids[s] or 0) for s in members)
                won = sum(int(seats[s]["tricks"]) for s in members if s < len(seats))
                line.append_text(team_text(team, self.gapp.card_style))
                verdict = _("made") if won >= wanted else _("missed: loses the deal")
                line.append(
                    " "
                    + _("{won} of {bid}, {verdict}").format(won=won, bid=wanted, verdict=verdict)
                )
                if team == "High":
                    line.append(" · ")
            lines.append(line)
        partnerships = view.get("partnerships") or detail.get("partnerships")
        # Totals count finished deals: during a deal, the ones before it.
        finished = view.get("over") or view.get("phase") == "next_deal"
        counted = int(view.get("deal", 1)) - (0 if finished else 1)
        if betting in MULTI_DEAL and partnerships and counted:
            if betting == "rubber":
                heading = _("Rubber totals after deal {n} of {most}:").format(
                    n=counted, most=RUBBER_DEALS
                )
            else:
                heading = _("Totals (target {n}, house rule):").format(n=options.get("target", 100))
            line = Text(heading + " ")
            for i, pair in enumerate(partnerships):
                if i:
                    line.append(" · ")
                line.append("+".join(self.name_of(s) for s in pair["seats"]) + " ")
                line.append(signed(int(pair["total"])), style="bold")
            lines.append(line)
        return lines

    def _result(self, message: dict[str, Any], outcome: dict[str, Any]) -> Text:
        """Who takes the pot and what it means for the player."""
        info = message.get("info", {})
        stake = int(info.get("stake", 0))
        paid = payouts(outcome, stake)
        contributions = outcome.get("contributions") or [1] * len(paid)
        if outcome.get("refund"):
            out = Text(_("A draw: every player takes back what they put in."), style="bold")
        else:
            seats = outcome.get("winners", [])
            out = Text(
                ngettext(
                    "{names} takes the pot of {pot} chips.",
                    "{names} share the pot of {pot} chips.",
                    len(seats),
                ).format(names=", ".join(self.name_of(s) for s in seats), pot=sum(paid)),
                style="bold",
            )
        mine = message.get("seat")
        if mine is not None and mine < len(paid):
            won = paid[mine] - contributions[mine] * stake
            out.append(
                "  "
                + ngettext("You: {chips} chip.", "You: {chips} chips.", abs(won)).format(
                    chips=signed(won)
                )
            )
        return out

    def action_close(self) -> None:
        self.dismiss()
