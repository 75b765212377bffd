"""The Fortunes table seen from above: North at the top, East on the right, the trick between.

Seats are named from the dealer (East deals; South, West and North follow clockwise) and each
shows its team, its player and the card it put into the trick. The middle says which way the
trick goes now; the card winning it as it stands is drawn in reverse video, as the sample on
the bottom border shows.
"""

from __future__ import annotations

from rich.align import AlignMethod
from rich.text import Text

from ..fortunes_text import (
    STAR,
    STAR_SYMBOL,
    SUIT_SYMBOLS,
    card_text,
    compass_name,
    direction_text,
    favours,
    suit_style,
    team_at,
    team_style,
    team_text,
)
from ..i18n import _
from ..names import game_title, seat_label, seat_name
from .seats_panel import SeatsPanel

#: Where each compass point sits: index from the dealer → East, South, West, North.
EAST, SOUTH, WEST, NORTH = range(4)


def _fit(text: Text, width: int, justify: AlignMethod = "left") -> Text:
    """``text`` cut (with an ellipsis) or padded to exactly ``width`` cells."""
    out = text.copy()
    if out.cell_len > width:
        out.truncate(width, overflow="ellipsis")
    out.align(justify, width)
    return out


class FortunesCompass(SeatsPanel):
    """Four seats by compass point around the current trick."""

    DEFAULT_CSS = """
    FortunesCompass {
        border-subtitle-color: $text-muted;
        width: 44;
    }
    """

    def on_mount(self) -> None:
        self.border_title = game_title("fortunes")
        # A sample of how the winning card is drawn (in reverse video, seen without colour
        # too), then what it means: "inverted" alone told a new player nothing (issue 38).
        self.border_subtitle = Text.assemble(
            ("  ", "reverse"), " " + _("= the card winning the trick so far")
        )

    # --- pieces ----------------------------------------------------------------------------

    def _dealer(self) -> int:
        view = (self.message or {}).get("view") or {}
        return int(view.get("dealer", 0))

    def seat_at(self, point: int) -> int:
        """The seat at compass point ``point`` (0 East … 3 North) this deal."""
        return (self._dealer() + point) % 4

    def side_heading(self, seat: int, width: int) -> Text:
        """West's or East's heading in ``width`` cells: tighter ("▶ Захід·Висока") when
        the turn marker leaves no room for the spaces round the dot."""
        heading = self.seat_heading(seat)
        return heading if heading.cell_len <= width else self.seat_heading(seat, tight=True)

    def seat_heading(self, seat: int, *, tight: bool = False) -> Text:
        """A seat's first line, "▶ West · High": whose turn, the compass point and the team."""
        message = self.message or {}
        view = message.get("view") or {}
        style = self.style
        out = Text()
        if view and (view.get("turn") == seat or seat in view.get("waiting", [])):
            out.append(">" if style.ascii else "▶", style="bold")
            out.append(" ")
        if not view:
            out.append(_("Seat {n}").format(n=seat + 1), style="dim")
            return out
        dealer = self._dealer()
        out.append(compass_name(seat, dealer), style="bold")
        out.append("·" if tight else " · ")
        out.append_text(team_text(team_at(view, seat), style))
        return out

    def seat_player(self, seat: int, width: int | None = None) -> Text:
        """The player's name, "(you)" and the turn timer, in ``width`` cells if given: the
        timer is kept whole (a player beside the trick has some eleven cells), "(you)" goes
        first (the own name is bold), then the name is cut."""
        message = self.message or {}
        seats = message.get("info", {}).get("seats", [])
        view = message.get("view") or {}
        entry = seats[seat] if seat < len(seats) else {"seat": seat}
        mine = message.get("seat") == seat
        timer = Text()
        left = self.timers.get(seat)
        if left is not None:
            timer.append(f" {int(left + 0.999)}s", style="bold" if left > 10 else "bold red")
        out = seat_label(entry, mine)
        if width is not None and out.cell_len + timer.cell_len > width:
            out = seat_label(entry, mine, you=False)
            if out.cell_len + timer.cell_len > width:
                out.truncate(max(1, width - timer.cell_len), overflow="ellipsis")
        if view:  # the name (not what follows it) in its team's colour
            out.stylize(team_style(team_at(view, seat), self.style), 0, len(seat_name(entry)))
        return out + timer

    def seat_card(self, seat: int) -> Text:
        """The card ``seat`` put into the current trick ("··" while it has not played)."""
        view = (self.message or {}).get("view") or {}
        trick = view.get("trick") or {}
        cards = trick.get("cards") or []
        if not view or view.get("phase") not in ("play", "bet"):
            return Text("")
        for pair in cards:
            if pair[0] == seat:
                face = card_text(pair[1], self.style)
                if seat == trick.get("winning"):
                    face.stylize("reverse")
                return face
        return Text("··", style="dim")

    def trick_middle(self) -> Text:
        """Which way the trick goes now, "▲ HIGH" or "▼ LOW"."""
        message = self.message or {}
        view = message.get("view") or {}
        trick = view.get("trick") or {}
        if not view or view.get("phase") not in ("play", "bet"):
            return Text("")
        direction = trick.get("direction", "high")
        return direction_text(
            direction, self.style, favours=favours(view, message.get("seat")), short=True
        )

    def led_suit(self) -> Text:
        """The led suit ("led ♦") once the trick has a card."""
        view = (self.message or {}).get("view") or {}
        led = (view.get("trick") or {}).get("led")
        if not led or view.get("phase") not in ("play", "bet"):
            return Text("")
        out = Text()
        out.append(_("led") + " ", style="dim")
        symbol = led if self.style.ascii else (STAR_SYMBOL if led == STAR else SUIT_SYMBOLS[led])
        out.append(symbol, style=suit_style(led, self.style))
        return out

    # --- drawing ---------------------------------------------------------------------------

    def build(self) -> Text:
        width = max(30, self.content_size.width)
        # The middle takes ten cells ("Ausspiel ★", "▼ МОЛОДША"), each side the rest.
        side = (width - 10) // 2
        centre = width - 2 * side
        if not self.message:
            return Text("")
        north, south = self.seat_at(NORTH), self.seat_at(SOUTH)
        west, east = self.seat_at(WEST), self.seat_at(EAST)
        lines = [
            _fit(self.seat_heading(north), width, "center"),
            _fit(self.seat_player(north, width), width, "center"),
            _fit(self.seat_card(north), width, "center"),
            _fit(self.side_heading(west, side), side)
            + _fit(self.led_suit(), centre, "center")
            + _fit(self.side_heading(east, side), side, "right"),
            self._side_line(west, side, left=True)
            + _fit(self.trick_middle(), centre, "center")
            + self._side_line(east, side, left=False),
            _fit(self.seat_card(south), width, "center"),
            _fit(self.seat_heading(south), width, "center"),
            _fit(self.seat_player(south, width), width, "center"),
        ]
        spare = max(0, self.content_size.height - len(lines))
        top = spare // 2
        return Text("\n").join([Text("")] * top + lines)

    def _side_line(self, seat: int, side: int, *, left: bool) -> Text:
        """West's or East's name with its trick card on the side facing the middle."""
        card = self.seat_card(seat)
        if not card.cell_len:
            return _fit(self.seat_player(seat, side), side, "left" if left else "right")
        room = side - card.cell_len - 1
        if left:
            return _fit(self.seat_player(seat, room), room) + Text(" ") + card
        return card + Text(" ") + _fit(self.seat_player(seat, room), room, "right")
