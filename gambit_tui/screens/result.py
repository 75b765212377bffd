"""The result of a deal: every hand and Fate, its category, the winner and the pot."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical

from ..cards import card_text, cards_text
from ..i18n import N_, _, ngettext
from ..names import category_name, seat_name
from ..widgets.grid import grid_text
from ..widgets.text_lines import TextPanel
from .base import GambitModal


class ResultScreen(GambitModal):
    """Shown over the table when a deal ends; it stays until the player closes it, so a
    result is never missed, even if the next deal has begun underneath."""

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
        body = TextPanel(id="body")
        body.text = self._render_result()
        # Line-drawn, at the height of its text: Rich tables in a ``Static`` were measured and
        # rendered again for each of the several layouts a new screen goes through (about
        # 100 ms of the server's time per player at the end of every deal).
        body.styles.height = len(body.text.plain.splitlines()) or 1
        with Vertical(classes="dialog", id="result"):
            yield body

    def on_mount(self) -> None:
        game = (self.snapshot.get("info") or {}).get("game")
        # The Reveal is Prophet's Gambit's own word for the end of a deal.
        title = _("The Reveal") if game == "prophets_gambit" else _("Result")
        self.query_one("#result").border_title = title

    def _render_result(self) -> Text:
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
        rows: list[list[Text | str]] = [
            [_header(h) for h in ("#", _("Player"), _("Hand"), _("Fate"), _("Best hand"))]
        ]
        won: list[int] = []
        seats = info["seats"]
        for place, seat in enumerate(outcome.get("ranking", [])):
            hand = (outcome.get("hands") or [])[seat] or {}
            best = Text(category_name(hand.get("category", "")))
            best.append(" ")
            best.append_text(cards_text(hand.get("cards", []), style))
            rows.append(
                [
                    str(place + 1),
                    self._player(message, outcome, seat),
                    cards_text(hand.get("hand", []), style),
                    card_text(hand.get("fate"), style),
                    best,
                ]
            )
            won.append(payouts[seat] - stake)
        _add_chips_column(rows, won)
        winners = [seat_name(seats[s]) for s in outcome.get("winners", [])]
        pot = sum(payouts)
        summary = Text(
            ngettext(
                "{names} wins the pot of {pot} chip.",
                "{names} wins the pot of {pot} chips.",
                pot,
            ).format(names=", ".join(winners), pot=pot),
            style="bold",
        )
        return Text("\n", end="").join([head, _table(rows), summary])

    def _render_scores(self, message: dict[str, Any], outcome: dict[str, Any]) -> Text:
        """Any other game's result: places, scores and chips won or lost."""
        info = message["info"]
        stake = info.get("stake", 0)
        payouts = self._payouts(outcome, stake)
        contrib = outcome.get("contributions") or [1] * len(payouts)
        rows: list[list[Text | str]] = [[_header("#"), _header(_("Player"))]]
        scores: list[str] = []
        won: list[int] = []
        for place, seat in enumerate(outcome.get("ranking", [])):
            rows.append([str(place + 1), self._player(message, outcome, seat)])
            scores.append(str(outcome["scores"][seat]))
            won.append(payouts[seat] - contrib[seat] * stake)
        _add_right_column(rows, _("Score"), scores)
        _add_chips_column(rows, won, bold_gains=False)
        return _table(rows)

    @staticmethod
    def _player(message: dict[str, Any], outcome: dict[str, Any], seat: int) -> Text:
        name = Text(seat_name(message["info"]["seats"][seat]))
        if seat in outcome.get("winners", []):
            name.stylize("bold")
        if seat == message.get("seat"):
            name.append(" " + _("(you)"), style="dim")
        return name

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


#: A player's name (with "(you)") in the result is cut to this many cells.
NAME_WIDTH = 14


def _header(text: str) -> Text:
    return Text(text, style="bold")


def _add_right_column(rows: list[list[Text | str]], title: str, cells: list[str]) -> None:
    """A right-aligned column (numbers): ``title`` above ``cells``, one per row below it."""
    width = max([len(title), *(len(c) for c in cells)])
    rows[0].append(_header(title.rjust(width)))
    for row, cell in zip(rows[1:], cells, strict=True):
        row.append(cell.rjust(width))


def _add_chips_column(
    rows: list[list[Text | str]], won: list[int], *, bold_gains: bool = True
) -> None:
    """Chips won (+) or lost (-) by each row's player, right-aligned."""
    _add_right_column(rows, _("Chips"), [f"{n:+d}" for n in won])
    for row, n in zip(rows[1:], won, strict=True):
        if bold_gains:
            row[-1] = Text(str(row[-1]), style="bold" if n > 0 else "dim")


def _table(rows: list[list[Text | str]]) -> Text:
    """Rows in columns two cells apart, names cut to fit."""
    widths: list[int | None] = [None, NAME_WIDTH]
    return grid_text(rows, gap=2, max_widths=widths)
