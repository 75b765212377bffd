"""Every seat around a Prophet's Gambit table: who, showing card, Fate, fronts, turn, timer."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, NamedTuple

from rich.text import Text

from gambit_tui.shared_memos import shared_memo

from ..cards import card_text, cards_text, face_down
from ..i18n import N_, _
from ..names import seat_label
from .grid import grid_lines
from .seats_panel import SeatsPanel

#: Short marks of the two High cards that stay in front of a player (Executioner, Innocent).
FRONT_MARKS = {"HEX": N_("Ex"), "HIN": N_("In")}


#: Seats' cells, measures and lines, for every app in the process, by what a row is made of
#: (see :meth:`PGSeats._row_key`): the players at a table see the same rows but their own.
#: At most ``MADE_ROWS`` (the oldest made go first); never changed once made.
_made_rows: dict[Hashable, Any] = shared_memo("seat rows", {})
MADE_ROWS = 2048


class _Table(NamedTuple):
    """What every seat's row reads of the table message."""

    view: dict[str, Any]
    mine: int | None
    waiting: set[int]
    committed: list[Any]
    reveal: list | None
    dealer: int | None

    def has_committed(self, s: int) -> bool:
        return bool(self.committed and s < len(self.committed) and self.committed[s])


class PGSeats(SeatsPanel):
    """One line per seat, the player's own seat marked."""

    def __init__(self) -> None:
        super().__init__()
        #: Each seat's cells and lines, by what they are made of (this message's only).
        self._cells_made: dict[Hashable, list[Text]] = {}
        self._lines_made: dict[Hashable, Text] = {}

    def on_mount(self) -> None:
        if self.border_title is None:  # (the screen may have named it already: its game)
            self.border_title = _("Seats")

    def build(self) -> list[Text]:
        message = self.message
        if not message:
            return []
        rows: list[list[Text]] = []
        keys: list[Hashable] = []
        info = message["info"]
        view = message.get("view") or {}
        table = _Table(
            view,
            message.get("seat"),
            set(view.get("waiting", [])),
            view.get("committed") or [],
            view.get("reveal"),
            view.get("dealer", info.get("dealer")) if view else info.get("dealer"),
        )
        # A move changes a seat or two: the others' cells (and lines) are made once.
        made, self._cells_made = self._cells_made, {}
        # (The catalog too: rows are shared with apps in other languages.)
        gapp: Any = self.app  # (the GambitApp, whose catalog it is)
        catalog = id(gapp.translations)
        for seat in info["seats"]:
            key = self._row_key(table, seat)
            if key is not None:
                key = (key, catalog)
            cells = made.get(key) if key is not None else None
            if cells is None and key is not None:
                cells = _made_rows.get(("cells", key))
            if cells is None:
                cells = self._row(table, seat)
                if key is not None:
                    _made_rows[("cells", key)] = cells
            if key is not None:
                self._cells_made[key] = cells
            rows.append(cells)
            keys.append(key)
        lines = grid_lines(rows, keys=keys, made=self._lines_made, shared=_made_rows)
        while len(_made_rows) > MADE_ROWS:
            del _made_rows[next(iter(_made_rows))]
        return lines

    def _row_key(self, table: _Table, seat: dict[str, Any]) -> Hashable | None:
        """Everything a seat's row is made of (None at the Reveal: made every time)."""
        view, s = table.view, seat["seat"]
        if table.reveal:
            return None

        def at(name: str) -> Any:
            values = view.get(name)
            return values[s] if values and s < len(values) else None

        return (
            tuple(seat.items()),
            bool(view),
            view.get("turn") == s,
            s in table.waiting,
            table.has_committed(s),
            s == table.mine,
            table.dealer == s,
            at("showing"),
            at("stacks"),
            at("hand_sizes"),
            tuple(at("fronts") or ()),
            view.get("fate") if s == table.mine else None,
            (view.get("open_fates") or {}).get(str(s)),
            (view.get("glimpse") or {}).get(str(s)),
            self.timers.get(s),
            self.style,
        )

    def _row(self, table: _Table, seat: dict[str, Any]) -> list[Text]:
        view, s, mine = table.view, seat["seat"], table.mine
        turn, choosing, done = (">", "?", "+") if self.style.ascii else ("▶", "…", "✓")
        marker = Text(" ")
        if view and view.get("turn") == s:
            marker = Text(turn, style="bold")
        elif s in table.waiting:
            marker = Text(choosing, style="bold")
        elif table.has_committed(s):
            marker = Text(done, style="green")
        name = seat_label(seat, s == mine, cut=14)
        dealer = Text(_("D"), style="bold") if table.dealer == s else Text(" ")
        return [marker, name, dealer, *self._cards(view, s, mine, table.reveal), self.timer_text(s)]

    def _cards(
        self, view: dict[str, Any], s: int, mine: int | None, reveal: list | None
    ) -> list[Text]:
        style = self.style
        if not view:
            return [Text(""), Text(""), Text(""), Text("")]
        showing = card_text((view.get("showing") or [None])[s], style, empty="··")
        stack = (view.get("stacks") or [0])[s]
        if stack > 1:
            showing.append(f" {'x' if style.ascii else '×'}{stack}", style="dim")
        if reveal:
            hand = cards_text(reveal[s].get("hand", []), style)
        else:
            hand = Text(_("hand {n}").format(n=(view.get("hand_sizes") or [0])[s]), style="dim")
        fate = self._fate(view, s, mine, reveal)
        fronts = Text()
        for code in (view.get("fronts") or [[]])[s]:
            fronts.append(("♛" if not style.ascii else "^") + _(FRONT_MARKS.get(code, "?")))
            fronts.stylize(style.high_style())
        return [showing, hand, fate, fronts]

    def _fate(self, view: dict[str, Any], s: int, mine: int | None, reveal: list | None) -> Text:
        style = self.style
        if reveal:
            return card_text(reveal[s].get("fate"), style)
        if s == mine and view.get("fate"):
            return card_text(view["fate"], style)
        open_fate = (view.get("open_fates") or {}).get(str(s))
        if open_fate:
            return card_text(open_fate, style)
        seen = (view.get("glimpse") or {}).get(str(s))
        if seen:
            text = card_text(seen, style)
            text.stylize("italic")
            return text
        return face_down(style)
