"""A chat channel: what was said, and a line to say something."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, RichLog

from ..i18n import _
from ..model import ChatLine
from .line_input import LineInput


class ChatPanel(Vertical):
    """The lines of one channel and an input. The screen decides the channel and sends; the
    panel only shows lines and posts :class:`ChatPanel.Send` when the player presses Enter."""

    DEFAULT_CSS = """
    ChatPanel {
        border: round $primary 50%;
        border-title-color: $foreground;
        height: 1fr;
    }
    ChatPanel:focus-within {
        border: round $accent;
    }
    ChatPanel RichLog {
        height: 1fr;
        background: transparent;
        scrollbar-size-vertical: 1;
    }
    ChatPanel Input {
        height: 1;
    }
    """

    class Send(Message):
        """The player wants to say ``text`` on this panel's channel."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, title: str = "", max_length: int = 500, id: str | None = None) -> None:
        super().__init__(id=id)
        self._title = title
        self._max_length = max_length

    def compose(self) -> ComposeResult:
        yield RichLog(wrap=True, markup=False, highlight=False, auto_scroll=True)
        yield LineInput(
            placeholder=_("Say something (Enter sends, Esc leaves the chat)"),
            max_length=self._max_length,
            compact=True,
        )

    def on_mount(self) -> None:
        self.border_title = self._title or _("Chat")

    def show_lines(self, lines: Iterable[ChatLine]) -> None:
        """Replace what is shown with ``lines`` (the channel's history)."""
        log = self.query_one(RichLog)
        lines = list(lines)
        if not lines and not log.lines:
            return  # nothing to clear: a hidden log asked for a repaint for nothing
        log.clear()
        for line in lines:
            log.write(self._format(line))

    def add_line(self, line: ChatLine) -> None:
        self.query_one(RichLog).write(self._format(line))

    def focus_input(self) -> None:
        self.query_one(Input).focus()

    @staticmethod
    def _format(line: ChatLine) -> Text:
        out = Text()
        out.append(line.sender, style="bold")
        out.append(": ")
        out.append(line.text)
        return out

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        event.input.value = ""
        if text:
            self.post_message(self.Send(text))
