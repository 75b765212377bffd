"""The one line that changes: what the player is typing after the prompt.

Bytes come in as the terminal sends them; printable characters are added (and echoed; no
control or format character, C1's CSI included, is ever echoed),
Backspace takes the last one back, Enter gives the line, Ctrl+C and Ctrl+D ask to leave, Tab
asks for completion, and escape sequences (arrow keys, function keys) are dropped. Nothing is
drawn but the prompt line itself, redrawn after a carriage return and never with cursor
addressing.
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass

PROMPT = "> "
#: The longest line kept (a paste beyond it is cut).
MAX_LINE = 600


@dataclass(frozen=True, slots=True)
class Key:
    """What a key press meant: a line entered, a request to leave, or Tab."""

    kind: str  # "line", "quit", "tab"
    text: str = ""


class LineEditor:
    def __init__(self) -> None:
        self.text = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")("ignore")
        #: In an escape sequence: 1 after ESC, 2 inside CSI/SS3 parameters.
        self._escape = 0
        #: What to echo (taken by :meth:`echo`).
        self._echo: list[str] = []
        self._after_cr = False

    def feed(self, data: bytes) -> list[Key]:
        """Take bytes the player typed; returns the keys that mean more than an edit."""
        out: list[Key] = []
        for ch in self._decoder.decode(data):
            after_cr, self._after_cr = self._after_cr, ch == "\r"
            if self._escape == 1:
                self._escape = 2 if ch in "[O" else 0
                continue
            if self._escape == 2:
                if "@" <= ch <= "~":
                    self._escape = 0
                continue
            if ch == "\x1b":
                self._escape = 1
            elif ch in "\r\n":
                if ch == "\n" and after_cr:
                    continue  # (CR LF from one Enter)
                out.append(Key("line", self.text))
                self.text = ""
                self._echo.append("\r\n")
            elif ch in "\x03\x04":
                out.append(Key("quit"))
            elif ch == "\t":
                out.append(Key("tab", self.text))
            elif ch in "\x7f\x08":
                if self.text:
                    self.text = self.text[:-1]
                    self._echo.append("\r" + PROMPT + self.text + " \r" + PROMPT + self.text)
            elif ch >= " " and unicodedata.category(ch) not in ("Cc", "Cf"):
                if len(self.text) >= MAX_LINE:
                    continue
                self.text += ch
                self._echo.append(ch)
        return out

    def echo(self) -> str:
        """What to write back for the keys fed so far."""
        out = "".join(self._echo)
        self._echo.clear()
        return out

    def replace(self, text: str) -> str:
        """Set the line to ``text`` (a completion); returns what redraws it."""
        old = len(self.text)
        self.text = text[:MAX_LINE]
        pad = " " * max(0, old - len(self.text))
        return "\r" + PROMPT + self.text + pad + "\r" + PROMPT + self.text

    def around(self, lines: str) -> str:
        """``lines`` (each ending in CR LF) written above the prompt line: the typed text is
        blanked out with spaces, the lines written, then the prompt and the text again."""
        blank = "\r" + " " * (len(PROMPT) + len(self.text)) + "\r"
        return blank + lines + PROMPT + self.text
