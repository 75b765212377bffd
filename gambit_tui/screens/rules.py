"""The rules of the games, as played here, in the player's language, with house rules marked."""

from __future__ import annotations

import functools
import logging
import re
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from ..ascii_text import asciify
from ..i18n import N_, _
from .base import GambitScreen

log = logging.getLogger(__name__)

#: How each language's rules file marks a house rule; the screen makes the marker stand out.
HOUSE_RULE = {"en": "House rule", "uk": "Домашнє правило", "de": "Hausregel"}
#: Section titles of the rules document, in order; keys 1–5 show them.
SECTIONS = (
    "About these rules",
    "Prophet's Gambit",
    "Prophet",
    "Fortunes",
    "Card codes and symbols",
)
GAME_SECTIONS = {"prophets_gambit": 1, "prophet": 2, "fortunes": 3}


CONTENT_DIR = Path(__file__).parent.parent / "content"
RULES_PATH = CONTENT_DIR / "rules.md"


#: The Fortunes suits' signs in the rules, as a terminal without UTF-8 shows them on the
#: table: by their letters (``asciify`` would make ♣ a "C", which is Cups there).
_SUIT_LETTERS = str.maketrans({"♣": "W", "♥": "C", "♠": "S", "♦": "P"})


def suit_letters(text: str) -> str:
    """``text`` with the Fortunes suits' signs as the letters ASCII cards show."""
    return text.translate(_SUIT_LETTERS)


def rules_language(lang: str) -> str:
    """``lang`` when its translation of the rules is shipped, else ``"en"``."""
    if lang != "en" and lang in HOUSE_RULE and (CONTENT_DIR / f"rules.{lang}.md").is_file():
        return lang
    return "en"


def rules_text(lang: str = "en") -> str:
    """The rules document in ``lang`` (English without a translation), shipped as package
    data so it works when installed (``rules.md``, ``rules.uk.md``, ``rules.de.md``)."""
    lang = rules_language(lang)
    path = RULES_PATH if lang == "en" else CONTENT_DIR / f"rules.{lang}.md"
    return path.read_text("utf-8")


def split_sections(text: str, marker: str) -> tuple[str, ...]:
    """``text`` split at its top-level headings, each ``**marker**`` (even one wrapped across
    lines) shown as ``**▲ marker**`` so house rules stand out on the screen."""
    pattern = r"\*\*" + r"\s+".join(map(re.escape, marker.split())) + r"\*\*"
    text = re.sub(pattern, f"**▲ {marker}**", text)
    parts: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("# ") or not parts:
            parts.append("")
        parts[-1] += line
    return tuple(parts)


@functools.cache
def sections(lang: str = "en") -> tuple[str, ...]:
    """The rules in ``lang`` by section (cached per process: the files never change while
    running). A translation whose sections do not match the English ones is not shown, so
    the digit keys always lead to the same game."""
    english = split_sections(rules_text("en"), HOUSE_RULE["en"])
    lang = rules_language(lang)
    if lang == "en":
        return english
    translated = split_sections(rules_text(lang), HOUSE_RULE[lang])
    if len(translated) != len(english):
        log.error("rules.%s.md has %d sections, not %d", lang, len(translated), len(english))
        return english
    return translated


class RulesScreen(GambitScreen):
    """One section of the rules at a time, in the player's language (``docs/rules.md`` is the
    English one), rendered by Textual's Markdown widget (the whole document is slow to lay out
    and long to scroll); digits switch sections. A language change recomposes the screen,
    which then shows the new language's text."""

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

    def _sections(self) -> tuple[str, ...]:
        """The rules in the player's language, in ASCII for a terminal without UTF-8."""
        parts = sections(self.gapp.lang)
        return parts if self.gapp.term.unicode else tuple(asciify(suit_letters(p)) for p in parts)

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="rules"):
            yield Markdown(self._sections()[self.section])

    def setup(self) -> None:
        self.query_one("#rules").focus()

    def status_context(self) -> str:
        return _("Rules")

    def action_close(self) -> None:
        self.dismiss()

    async def action_section(self, index: int) -> None:
        parts = self._sections()
        if 0 <= index < len(parts) and index != self.section:
            self.section = index
            await self.query_one(Markdown).update(parts[index])
            self.query_one("#rules", VerticalScroll).scroll_home(animate=False)

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#rules", VerticalScroll)
        if direction > 0:
            scroll.scroll_page_down()
        else:
            scroll.scroll_page_up()
