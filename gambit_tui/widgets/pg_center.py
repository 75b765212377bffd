"""The middle of a Prophet's Gambit table: Focus, your Fate, the decks, the discards."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from rich.text import Text

from gambit_tui.shared_memos import shared_memo

from ..cards import card_text
from ..i18n import _, pgettext
from ..names import seat_name
from .grid import grid_lines
from .pg_seats import FRONT_MARKS
from .seats_panel import TablePanel

#: What the middle of the table is made of but the player's own Fate (the same for everyone
#: at the table): its rows, by what they are made of and the catalog, and their lines and
#: measures (``grid_lines``' shared), for every app in the process. At most
#: ``MADE_CENTERS`` (the oldest made go first); never changed once made.
_made_centers: dict[Hashable, Any] = shared_memo("table centres", {})
MADE_CENTERS = 1024


class PGCenter(TablePanel):
    """What lies on the table for everyone, plus the player's own Fate (and the Seer's
    glimpse, which lasts only until their next action)."""

    # Wide enough for the longest label ("Letzte Hohe Karte") beside the longest values
    # ("17 · Hohe 13", "12 · oben M♠", a High card's name) in every language.
    DEFAULT_CSS = """
    PGCenter {
        width: 36;
    }
    """

    def __init__(self) -> None:
        super().__init__()
        #: What the lines were last made of, and the lines (most moves change nothing here).
        self._made: tuple[Hashable, list[Text]] | None = None
        #: The lines and measures of the last rows drawn (``grid_lines``' made).
        self._lines_made: dict[Hashable, Any] = {}

    def on_mount(self) -> None:
        self.border_title = _("Table")

    def build(self) -> list[Text]:
        message = self.message
        if not message:
            return []
        width = max(1, self.content_size.width)
        # (The catalog too: rows are shared with apps in other languages.)
        gapp: Any = self.app  # (the GambitApp, whose catalog it is)
        common = (self._key(message, width), id(gapp.translations))
        view = message.get("view") or {}
        fate = view.get("fate") if message.get("view") and message.get("seat") is not None else None
        key = (common, fate)
        if self._made is not None and self._made[0] == key:
            return self._made[1]
        # Everything but the player's Fate, made once for the players at the table.
        shared = _made_centers.get(("rows", common))
        if shared is None:
            shared = _made_centers[("rows", common)] = self._rows(message)
        rows: list[tuple[str, Text | str]] = list(shared)
        keys: list[Hashable] = [(common, index) for index in range(len(rows))]
        if message.get("view") and message.get("seat") is not None:
            rows.insert(1, (_("Your Fate"), card_text(fate, self.style)))
            keys.insert(1, ("fate", fate, self.style, common[1]))
        label_width = max([9, *(Text(label).cell_len for label, _ in rows)])
        lines = grid_lines(
            rows,
            min_widths=(9,),
            max_widths=(None, max(1, width - label_width - 1)),
            styles=("dim",),
            keys=keys,
            made=self._lines_made,
            shared=_made_centers,
        )
        while len(_made_centers) > MADE_CENTERS:
            del _made_centers[next(iter(_made_centers))]
        self._made = (key, lines)
        return lines

    def _key(self, message: dict[str, Any], width: int) -> Hashable:
        """Everything :meth:`_rows` reads (the player's Fate is not among them)."""
        info = message["info"]
        view = message.get("view") or {}
        high_discard = view.get("high_discard") or [None]
        return (
            width,
            self.style,
            info.get("stake"),
            info.get("players"),
            tuple(seat_name(seat) for seat in info["seats"]),
            bool(message.get("view")),
            message.get("seat") is not None,
            view.get("killed"),
            view.get("focus"),
            view.get("deck"),
            view.get("high_deck"),
            len(view.get("discard") or []),
            view.get("discard_top"),
            tuple(tuple(front) for front in view.get("fronts") or []),
            high_discard[-1],
            tuple(sorted((view.get("glimpse") or {}).items())),
        )

    def _rows(self, message: dict[str, Any]) -> list[tuple[str, Text | str]]:
        """(label, value) lines: what lies on the table now."""
        grid: list[tuple[str, Text | str]] = []
        info = message["info"]
        view = message.get("view")
        style = self.style
        pot = info.get("stake", 0) * info.get("players", 0)
        if not view:
            # No pot before the deal: nobody has put in a chip yet (each seat pays the stake
            # as the game is dealt).
            grid.append((_("Stake"), str(info.get("stake", 0))))
            return grid
        if view.get("killed"):
            focus = card_text(view["killed"], style)
            focus.stylize("strike")
            focus.append(" " + _("killed"), style="dim")
        else:
            focus = card_text(view.get("focus"), style)
        grid.append((_("Focus"), focus))
        # (The player's Fate comes second: build() puts it in, the rest is shared.)
        grid.append(
            (
                pgettext("the Common and High decks", "Deck"),
                Text(
                    _("{common} · High {high}").format(
                        common=view.get("deck", 0), high=view.get("high_deck", 0)
                    )
                ),
            )
        )
        discard = Text(str(len(view.get("discard") or [])))
        if view.get("discard_top"):
            discard.append(" · " + _("top") + " ")
            discard.append_text(card_text(view["discard_top"], style))
        grid.append((_("Discards"), discard))
        holders = self._holders(info, view)
        if holders:
            grid.append((_("Fronts"), holders))
        elif view.get("high_discard"):
            grid.append((_("Last High"), card_text(view["high_discard"][-1], style)))
        glimpse = view.get("glimpse")
        if glimpse:
            # The Seer's sight lasts until the next action: it takes the pot's line meanwhile.
            seen = Text()
            for seat, code in sorted(glimpse.items(), key=lambda item: int(item[0])):
                if seen:
                    seen.append(" ")
                seen.append(seat_name(info["seats"][int(seat)])[:6] + " ")
                seen.append_text(card_text(code, style))
            grid.append((_("Seer"), seen))
        else:
            grid.append((_("Pot"), str(pot)))
        return grid

    def _holders(self, info: dict[str, Any], view: dict[str, Any]) -> Text:
        out = Text()
        seats = info["seats"]
        for s, front in enumerate(view.get("fronts") or []):
            for code in front:
                if out:
                    out.append(" ")
                mark = ("^" if self.style.ascii else "♛") + _(FRONT_MARKS.get(code, "?"))
                out.append(mark, style=self.style.high_style())
                out.append(" " + seat_name(seats[s])[:8])
        return out
