"""The tricks each Fortunes player has won, in order, top card showing, each marked well- or
ill-disposed, with the player's trick count and score; under them, in the rows left, the
table's chat lines (the Fortunes table has no log of moves: its news are notices)."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message

from ..cards import CardStyle
from ..chat_in_log import CUT, cut
from ..fortunes_text import (
    card_text,
    compass_letter,
    disposition_mark,
    team_at,
    team_style,
)
from ..i18n import _
from ..names import seat_name
from .fortunes_status import signed
from .seats_panel import TablePanel
from .text_lines import shown

NAME_WIDTH = 12


class FortunesWon(TablePanel):
    """One row per seat, East first and clockwise: tricks won (against the bid, when the
    table bids), the score, then the tricks. A row keeps the newest tricks when they do not
    all fit (the reading at the end lists every one). Below, the newest chat lines that fit
    (at 80x24 one row: a longer line is cut there, after a word; the chat panel has it; with
    no row left, while a card is to be played, the line under the box carries the newest:
    see :meth:`chat_room`)."""

    DEFAULT_CSS = """
    FortunesWon {
        height: 6;
    }
    """

    chat: shown[list[Text]] = shown(list)
    """The table's chat lines, oldest first (gambit_tui/chat_in_log.py)."""

    class ChatRoomChanged(Message):
        """The rows left for chat lines changed (the layout gave the box another height)."""

    def on_mount(self) -> None:
        self.set_title()

    def on_resize(self, event: events.Resize) -> None:
        self.post_message(self.ChatRoomChanged())

    def chat_room(self) -> int:
        """The rows left under the players' rows for chat lines (0 or less: none)."""
        rows = 4 if (self.message or {}).get("view") else 1
        return self.content_size.height - rows

    def free_rows(self) -> int:
        """The rows under the players' rows and the chat lines shown: empty (notices may lie
        there)."""
        room = self.chat_room()
        if room <= 0:
            return 0
        return room - len(self.chat_rows(max(20, self.content_size.width), room))

    def set_title(self) -> None:
        well = disposition_mark("well", self.style).plain
        ill = disposition_mark("ill", self.style).plain
        self.border_title = _("Won tricks · {well} well-disposed · {ill} ill-disposed").format(
            well=well, ill=ill
        )

    def watch_style(self, style: CardStyle) -> None:
        self.set_title()

    def row(self, seat: int, width: int) -> Text:
        """``seat``'s row: compass point, name, tricks, score, then the tricks won."""
        message = self.message or {}
        view = message.get("view") or {}
        style = self.style
        dealer = view.get("dealer", 0)
        seats = message.get("info", {}).get("seats", [])
        entry = seats[seat] if seat < len(seats) else {"seat": seat}
        facts = (view.get("seats") or [{}] * 4)[seat]
        out = Text()
        out.append(compass_letter(seat, dealer) + " ", style="bold")
        name = Text(seat_name(entry), style=team_style(team_at(view, seat), style))
        if message.get("seat") == seat:
            name.stylize("bold underline")
        name.truncate(NAME_WIDTH, overflow="ellipsis")
        name.align("left", NAME_WIDTH)
        out.append_text(name)
        tricks = str(facts.get("tricks", 0))
        bids = view.get("bids")
        if bids and bids[seat] is not None:
            tricks += f"/{bids[seat]}"  # tricks won against the bid (option c)
        out.append(f"{tricks:>5}", style="dim")
        out.append(f"{signed(int(facts.get('score', 0))):>5}", style="bold")
        out.append(" │ " if not style.ascii else " | ", style="dim")
        room = width - out.cell_len
        pieces = []
        for won in (view.get("won") or [[], [], [], []])[seat]:
            piece = card_text(won["top"], style)
            piece.append_text(disposition_mark(won["disposition"], style))
            pieces.append(piece)
        shown: list[Text] = []
        used = 0
        for piece in reversed(pieces):
            need = piece.cell_len + (1 if shown else 0)
            more = len(pieces) - len(shown) - 1
            if used + need + (2 if more else 0) > room:
                break
            shown.append(piece)
            used += need
        if len(shown) < len(pieces):
            out.append("… ", style="dim")
        out.append_text(Text(" ").join(reversed(shown)))
        return out

    def build(self) -> list[Text]:
        message = self.message or {}
        view = message.get("view")
        width = max(20, self.content_size.width)
        if not view:
            rows = [Text(_("No tricks yet: the game has not started."), style="dim")]
        else:
            dealer = view.get("dealer", 0)
            rows = [self.row((dealer + point) % 4, width) for point in range(4)]
        return rows + self.chat_rows(width, self.chat_room())

    def chat_rows(self, width: int, room: int) -> list[Text]:
        """The newest chat lines that fit in ``room`` rows, wrapped at ``width``; when the
        newest alone does not, its first rows, cut after a word."""
        console = self.app.console
        out: list[Text] = []
        for line in reversed(self.chat):
            rows = list(line.wrap(console, width)) if line.cell_len > width else [line]
            if len(out) + len(rows) > room:
                if not out and room > 0:
                    last = Text.assemble(rows[room - 1], " ", rows[room])
                    kept = cut(last.plain, width)
                    if kept.endswith(CUT):
                        last = last[: len(kept) - len(CUT)]
                        last.append(CUT)
                    out = [*rows[: room - 1], last][::-1]
                break
            out.extend(reversed(rows))
        return out[::-1]
