"""Settings: language, theme, card faces, suit colours and letters, the turn alert, how a
hand is sorted, whether a forced card plays itself and the plain mode for screen readers."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, Select, Static

from ..cards import CardStyle, cards_text
from ..i18n import LANGUAGES, N_, _
from ..prefs import Prefs
from .base import GambitScreen

SAMPLE = ["S7", "TM", "C3", "G9", "HSE"]


class SettingsScreen(GambitScreen):
    """Every choice is a one-line list, previewed on sample cards; saving sends them to the
    hub, which remembers them for this identity (guests keep them for the session)."""

    DEFAULT_CSS = """
    SettingsScreen #settings {
        padding: 1 2;
        height: 1fr;
    }
    SettingsScreen .row {
        height: 1;
        margin-bottom: 1;
    }
    SettingsScreen .row Label {
        width: 38;
    }
    SettingsScreen .row Select {
        width: 30;
    }
    SettingsScreen #sample {
        margin-top: 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", N_("Save"), priority=True),
        Binding("escape", "cancel", N_("Cancel")),
    ]

    def compose_body(self) -> ComposeResult:
        prefs = self.gapp.prefs
        yes_no = [(_("yes"), True), (_("no"), False)]
        with Vertical(id="settings"):
            yield from self._row(
                _("Language"),
                Select(
                    [(title, code) for code, title in LANGUAGES.items()],
                    value=self.gapp.lang if self.gapp.lang in LANGUAGES else "en",
                    allow_blank=False,
                    id="lang",
                    compact=True,
                ),
            )
            yield from self._row(
                _("Theme"),
                Select(
                    [(_("dark"), "dark"), (_("light"), "light"), (_("monochrome"), "mono")],
                    value=prefs.theme,
                    allow_blank=False,
                    id="theme",
                    compact=True,
                ),
            )
            yield from self._row(
                _("Card faces"),
                Select(
                    [
                        (_("as the terminal allows"), "auto"),
                        (_("Unicode"), "unicode"),
                        (_("ASCII"), "ascii"),
                    ],
                    value="auto"
                    if prefs.ascii is None
                    else ("ascii" if prefs.ascii else "unicode"),
                    allow_blank=False,
                    id="faces",
                    compact=True,
                ),
            )
            yield from self._row(
                _("Four-colour deck"),
                Select(yes_no, value=prefs.four_colour, allow_blank=False, id="four", compact=True),
            )
            yield from self._row(
                _("Suit letters beside symbols"),
                Select(
                    yes_no, value=prefs.suit_letters, allow_blank=False, id="letters", compact=True
                ),
            )
            yield from self._row(
                _("Bell and title on your turn"),
                Select(yes_no, value=prefs.alert, allow_blank=False, id="alert", compact=True),
            )
            yield from self._row(
                _("Sort your hand by"),
                Select(
                    [(_("suit"), "suit"), (_("rank"), "rank")],
                    value=prefs.sort,
                    allow_blank=False,
                    id="sort",
                    compact=True,
                ),
            )
            yield from self._row(
                _("Play a forced card for me"),
                Select(
                    yes_no,
                    value=prefs.autoplay_forced,
                    allow_blank=False,
                    id="autoplay",
                    compact=True,
                ),
            )
            yield from self._row(
                _("Plain mode for screen readers"),
                Select(yes_no, value=prefs.plain, allow_blank=False, id="plain", compact=True),
            )
            yield Static(id="sample")

    @staticmethod
    def _row(label: str, field: Select) -> ComposeResult:
        yield Horizontal(Label(label), field, classes="row")

    def setup(self) -> None:
        self.query_one("#lang", Select).focus()
        self._preview()

    def status_context(self) -> str:
        return _("Settings")

    def chosen(self) -> tuple[str, Prefs]:
        """The language and preferences the form shows now."""

        def value(widget_id: str) -> object:
            return self.query_one(f"#{widget_id}", Select).value

        faces = value("faces")
        prefs = Prefs(
            theme=str(value("theme")),
            ascii=None if faces == "auto" else faces == "ascii",
            four_colour=bool(value("four")),
            suit_letters=bool(value("letters")),
            alert=bool(value("alert")),
            sort=str(value("sort")),
            autoplay_forced=bool(value("autoplay")),
            plain=bool(value("plain")),
            verbosity=self.gapp.prefs.verbosity,  # (the plain mode's own: kept as it is)
        )
        return str(value("lang")), prefs

    def _preview(self) -> None:
        _lang, prefs = self.chosen()
        term = self.gapp.term
        ascii_cards = prefs.ascii if prefs.ascii is not None else not term.unicode
        theme = prefs.theme if term.colour else "mono"  # as the app shows it (app.card_style)
        style = CardStyle(
            ascii_cards or not term.unicode, prefs.four_colour, prefs.suit_letters, theme
        )
        sample = cards_text(SAMPLE, style, sep="  ")
        self.query_one("#sample", Static).update(sample)

    def on_select_changed(self, event: Select.Changed) -> None:
        self._preview()

    def action_save(self) -> None:
        lang, prefs = self.chosen()
        plain_now = prefs.plain and not self.gapp.prefs.plain
        self.dismiss()
        self.gapp.save_settings(lang, prefs)
        if plain_now:
            self.gapp.notify(
                _("Settings saved. The plain mode starts when you next connect with this key.")
            )
        else:
            self.gapp.notify(_("Settings saved."))

    def action_cancel(self) -> None:
        self.dismiss()
