"""The rules of the games, as played here, with house rules marked."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from ..i18n import N_, _
from .base import GambitScreen

HOUSE_RULE = "**House rule**"
#: Section titles of the rules document, in order; keys 1–5 show them.
SECTIONS = (
    "About these rules",
    "Prophet's Gambit",
    "Prophet",
    "Fortunes",
    "Card codes and symbols",
)
GAME_SECTIONS = {"prophets_gambit": 1, "prophet": 2, "fortunes": 3}


RULES_PATH = Path(__file__).parent.parent / "content" / "rules.md"


def rules_text() -> str:
    """The rules document shipped with the app (package data, so it works when installed)."""
    return RULES_PATH.read_text("utf-8")


@functools.cache
def sections() -> tuple[str, ...]:
    """The document split at its top-level headings, house rules made to stand out."""
    text = rules_text().replace(HOUSE_RULE, "**▲ House rule**")
    parts: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("# ") or not parts:
            parts.append("")
        parts[-1] += line
    return tuple(parts)


class RulesScreen(GambitScreen):
    """One section of ``docs/rules.md`` at a time, rendered by Textual's Markdown widget (the
    whole document is slow to lay out and long to scroll); digits switch sections."""

    DEFAULT_CSS = """
    RulesScreen VerticalScroll {
        height: 1fr;
        padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", N_("Back")),
        Binding("q", "close", N_("Back"), show=False),
        Binding("question_mark", "close", N_("Back"), show=False),
        Binding("1", "section(0)", N_("About"), key_display="1"),
        Binding("2", "section(1)", N_("Prophet's Gambit"), key_display="2"),
        Binding("3", "section(2)", N_("Prophet"), key_display="3"),
        Binding("4", "section(3)", N_("Fortunes"), key_display="4"),
        Binding("5", "section(4)", N_("Card codes"), key_display="5"),
        Binding("pagedown", "page(1)", N_("Page down"), show=False),
        Binding("pageup", "page(-1)", N_("Page up"), show=False),
    ]

    def __init__(self, game: str | None = None) -> None:
        super().__init__()
        self.section = GAME_SECTIONS.get(game or "", 1)

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="rules"):
            yield Markdown(sections()[self.section])

    def setup(self) -> None:
        self.query_one("#rules").focus()

    def status_context(self) -> str:
        return _("Rules")

    def action_close(self) -> None:
        self.dismiss()

    async def action_section(self, index: int) -> None:
        if 0 <= index < len(sections()) and index != self.section:
            self.section = index
            await self.query_one(Markdown).update(sections()[index])
            self.query_one("#rules", VerticalScroll).scroll_home(animate=False)

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#rules", VerticalScroll)
        if direction > 0:
            scroll.scroll_page_down()
        else:
            scroll.scroll_page_up()
