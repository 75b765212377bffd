"""The question the player must answer now, and what the keys do."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text

from .text_lines import TextLines, shown, wrapped


class PromptBar(TextLines):
    """Two lines: the pending decision (or whom we wait for) and a hint about the picked card.
    It says exactly what is asked; the footer lists the keys that answer it.

    When the decision is the player's the bar is highlighted, drawn here (with its padding)
    rather than by a CSS class: a class toggled restyled the widget, for two players at
    every move."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"prompt-bar--yours"}

    DEFAULT_CSS = """
    PromptBar {
        height: 2;
        background: $boost;
    }
    PromptBar > .prompt-bar--yours {
        background: $accent 30%;
    }
    """

    question: shown[Text] = shown(Text)
    """The first line (an equal text repaints nothing)."""
    hint: shown[Text] = shown(Text)
    """The second line."""
    yours: shown[bool] = shown(False)
    """Whether the decision is the player's (highlights the bar)."""

    #: What joins the parts of a hint (card, keys, a reminder).
    HINT_SEP = "  ·  "

    #: The highlight's style, and the base style it was worked out with: Textual works a
    #: component's style out again after every repaint of the widget (most moves of the
    #: player's own turn), though it changes only with the styles, as the base style does.
    _highlight: tuple[Style, Style] | None = None

    def _highlight_style(self) -> Style:
        base = self.base_style
        known = self._highlight
        if known is None or known[0] is not base:
            known = self._highlight = (base, self.get_component_rich_style("prompt-bar--yours"))
        return known[1]

    def _fitting_hint(self, width: int) -> Text:
        """The hint on one line: when it is longer (a long card name in German), its last
        parts go, the first (the picked card) stays."""
        hint = self.hint
        if hint.cell_len <= width or self.HINT_SEP not in hint.plain:
            return hint
        parts = list(hint.split(self.HINT_SEP, allow_blank=True))
        while len(parts) > 1 and Text(self.HINT_SEP).join(parts).cell_len > width:
            parts.pop()
        return Text(self.HINT_SEP).join(parts)

    def build(self) -> list[Text]:
        width = self.content_size.width
        inner = max(1, width - 2)  # a cell of padding on each side
        first = self.question.copy()
        if self.yours:
            first.stylize("bold")
        lines = wrapped([first], self.app.console, inner)
        if len(lines) < 2:  # a question that takes both rows leaves no room for the hint
            lines = wrapped([first, self._fitting_hint(inner)], self.app.console, inner)
        highlight = self._highlight_style() if self.yours else None
        rows = []
        for line in lines:
            row = Text(" ", end="")
            row.append_text(line)
            if highlight is not None:
                row.pad_right(width - row.cell_len)
                row.style = highlight
            rows.append(row)
        return rows
