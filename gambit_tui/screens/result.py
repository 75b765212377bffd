"""The result of a deal: every hand and Fate, its category, the winner and the pot."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Static

from ..cards import card_text, cards_text
from ..i18n import N_, _, ngettext
from ..names import category_name, seat_name
from .base import GambitModal


class ResultScreen(GambitModal):
    """Shown over the table when a deal ends; it stays until the player closes it, so a
    result is never missed, even if the next deal has begun underneath."""

    DEFAULT_CSS = """
    ResultScreen #result Static {
        height: auto;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close", N_("Close")),
        Binding("escape", "close", N_("Close"), show=False),
    ]

    def __init__(self, table_id: int) -> None:
        super().__init__()
        self.table_id = table_id
        message = self.gapp.model.views.get(table_id) or {}
        #: The deal as it ended (the model moves on when the next deal starts).
        self.snapshot: dict[str, Any] = message

    def compose_body(self) -> ComposeResult:
        with Vertical(classes="dialog", id="result"):
            yield Static(self._render_result(), id="body")

    def on_mount(self) -> None:
        game = (self.snapshot.get("info") or {}).get("game")
        # The Reveal is Prophet's Gambit's own word for the end of a deal.
        title = _("The Reveal") if game == "prophets_gambit" else _("Result")
        self.query_one("#result").border_title = title

    def _render_result(self) -> Table | Text:
        message = self.snapshot
        view = message.get("view") or {}
        outcome = view.get("outcome")
        if not outcome:
            return Text(_("The deal is over."))
        info = message["info"]
        if info.get("game") != "prophets_gambit" or not outcome.get("hands"):
            return self._render_scores(message, outcome)
        style = self.gapp.card_style
        detail = outcome.get("detail") or {}
        stake = info.get("stake", 0)
        payouts = self._payouts(outcome, stake)
        out = Table.grid(padding=(0, 1))
        out.add_column()
        head = Text()
        focus = detail.get("focus")
        head.append(_("Focus") + " ")
        focus_text = card_text(focus, style)
        if detail.get("killed"):
            focus_text.stylize("strike")
            head.append_text(focus_text)
            head.append(" " + _("(killed: hands of four cards)"), style="dim")
        else:
            head.append_text(focus_text)
        if detail.get("donjon"):
            head.append(" · " + _("Donjon"), style="dim")
        out.add_row(head)
        hands = Table(box=None, padding=(0, 1), show_edge=False, expand=False)
        hands.add_column("#", justify="right")
        hands.add_column(_("Player"), no_wrap=True, max_width=14)
        hands.add_column(_("Hand"), no_wrap=True)
        hands.add_column(_("Fate"), no_wrap=True)
        hands.add_column(_("Best hand"), no_wrap=True)
        hands.add_column(_("Chips"), justify="right")
        seats = info["seats"]
        for place, seat in enumerate(outcome.get("ranking", [])):
            hand = (outcome.get("hands") or [])[seat] or {}
            name = Text(seat_name(seats[seat]))
            if seat in outcome.get("winners", []):
                name.stylize("bold")
            if seat == message.get("seat"):
                name.append(" " + _("(you)"), style="dim")
            best = Text(category_name(hand.get("category", "")))
            best.append(" ")
            best.append_text(cards_text(hand.get("cards", []), style))
            won = payouts[seat] - stake
            hands.add_row(
                str(place + 1),
                name,
                cards_text(hand.get("hand", []), style),
                card_text(hand.get("fate"), style),
                best,
                Text(f"{won:+d}", style="bold" if won > 0 else "dim"),
            )
        out.add_row(hands)
        winners = [seat_name(seats[s]) for s in outcome.get("winners", [])]
        pot = sum(payouts)
        out.add_row(
            Text(
                ngettext(
                    "{names} wins the pot of {pot} chip.",
                    "{names} wins the pot of {pot} chips.",
                    pot,
                ).format(names=", ".join(winners), pot=pot),
                style="bold",
            )
        )
        return out

    def _render_scores(self, message: dict[str, Any], outcome: dict[str, Any]) -> Table:
        """Any other game's result: places, scores and chips won or lost."""
        info = message["info"]
        seats = info["seats"]
        stake = info.get("stake", 0)
        payouts = self._payouts(outcome, stake)
        contrib = outcome.get("contributions") or [1] * len(payouts)
        out = Table(box=None, padding=(0, 1), show_edge=False)
        out.add_column("#", justify="right")
        out.add_column(_("Player"), no_wrap=True)
        out.add_column(_("Score"), justify="right")
        out.add_column(_("Chips"), justify="right")
        for place, seat in enumerate(outcome.get("ranking", [])):
            name = Text(seat_name(seats[seat]))
            if seat in outcome.get("winners", []):
                name.stylize("bold")
            if seat == message.get("seat"):
                name.append(" " + _("(you)"), style="dim")
            won = payouts[seat] - contrib[seat] * stake
            out.add_row(str(place + 1), name, str(outcome["scores"][seat]), Text(f"{won:+d}"))
        return out

    @staticmethod
    def _payouts(outcome: dict[str, Any], stake: int) -> list[int]:
        """Chips each seat takes from the pot (the hub's rule: winners share, remainder to the
        first listed), computed from the outcome so the result needs no extra message."""
        n = len(outcome.get("scores", []))
        contrib = outcome.get("contributions") or [1] * n
        if outcome.get("refund"):
            return [c * stake for c in contrib]
        pot = sum(contrib) * stake
        winners = outcome.get("winners") or []
        out = [0] * n
        if not winners:
            return out
        share, rest = divmod(pot, len(winners))
        for i, seat in enumerate(winners):
            out[seat] = share + (1 if i < rest else 0)
        return out

    def action_close(self) -> None:
        self.dismiss()
