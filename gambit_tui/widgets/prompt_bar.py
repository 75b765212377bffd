"""The question the player must answer now, and what the keys do."""

from __future__ import annotations

from rich.text import Text

from .text_lines import TextLines, shown


class PromptBar(TextLines):
    """Two lines: the pending decision (or whom we wait for) and a hint about the picked card.
    It says exactly what is asked; the footer lists the keys that answer it."""

    WRAP = True

    DEFAULT_CSS = """
    PromptBar {
        height: 2;
        padding: 0 1;
        background: $boost;
    }
    PromptBar.-yours {
        background: $accent 30%;
    }
    """

    question: shown[Text] = shown(Text)
    """The first line (an equal text repaints nothing)."""
    hint: shown[Text] = shown(Text)
    """The second line."""
    yours: shown[bool] = shown(False)
    """Whether the decision is the player's (highlights the bar)."""

    def watch_yours(self, yours: bool) -> None:
        self.set_class(yours, "-yours")

    def build(self) -> Text:
        first = self.question.copy()
        if self.yours:
            first.stylize("bold")
        return Text("\n").join([first, self.hint])
