"""The plain mode's settings: ``set`` lists them, ``set language uk``, ``set bell off`` and
``set verbosity short`` change one.

They are the player's settings as the full-screen Settings screen keeps them: the language
(``Profile``'s ``lang``), the bell (the ``alert`` preference: bell and title on one's turn)
and the plain mode's own verbosity (``verbosity``), sent to the hub, which remembers them with
the player's key (a guest keeps them for the session). A setting, its values and ``set`` are
typed in the player's language or in English, by any unique start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol.requests import Profile

from ..i18n import LANGUAGES, N_, NC_, _
from ..prefs import Prefs
from .short import ShortTricks
from .words import english

if TYPE_CHECKING:  # for type hints only
    from protocol.requests import Request

    from ..model import ClientModel

#: Each setting and the word that types it.
SETTINGS: dict[str, str] = {
    "language": NC_("command", "language"),
    "bell": NC_("command", "bell"),
    "verbosity": NC_("command", "verbosity"),
}
#: The words of the bell's and the verbosity's values.
ON_OFF: dict[str, bool] = {NC_("command", "on"): True, NC_("command", "off"): False}
VERBOSITY: dict[str, str] = {NC_("command", "full"): "full", NC_("command", "short"): "short"}

SETTINGS_HELP: dict[str, str] = {
    "set": N_(
        "Says your settings; set language en, uk or de; set bell on or off (the bell on your "
        "turn and on an invitation); set verbosity full or short (short says a trick in one "
        "sentence when it is won, the cards so far when you must play into it, and leaves out "
        "other tables and spectators' chat). Kept with your key."
    ),
}


def _matching(word: str, words: dict[str, Any]) -> list[Any]:
    """The values of ``words`` whose word (player's language or English) ``word`` starts; an
    exact word alone if there is one."""
    typed = word.casefold()
    said = {key: {english(key).casefold(), _(key).casefold()} for key in words}
    exact = [words[k] for k, both in said.items() if typed in both]
    return exact or [words[k] for k, both in said.items() if any(w.startswith(typed) for w in both)]


def _language_of(word: str) -> list[str]:
    typed = word.casefold()
    names = {
        code: {code, title.casefold(), _(title).casefold()} for code, title in LANGUAGES.items()
    }
    names["en"].add("english")
    names["uk"].update({"ukrainian", "ukrainisch"})
    names["de"].update({"german", "deutsch"})
    exact = [code for code, said in names.items() if typed in said]
    return exact or [c for c, said in names.items() if any(w.startswith(typed) for w in said)]


class SettingsCommands:
    """``set`` for :class:`~gambit_tui.plain.client.PlainClient` (a mixin: it uses the
    client's model, ``say``, ``send`` and ``_use``)."""

    if TYPE_CHECKING:
        model: ClientModel
        lang: str
        table: int | None

        def say(self, *lines: str, bell: bool = False) -> None: ...
        def send(self, request: Request) -> None: ...
        def _use(self, lang: str) -> None: ...

    short_tricks: ShortTricks

    @property
    def prefs(self) -> Prefs:
        return Prefs.from_wire(self.model.you.get("prefs"))

    @property
    def short(self) -> bool:
        """Whether the short verbosity is chosen."""
        return self.prefs.verbosity == "short"

    @property
    def bell_on(self) -> bool:
        return self.prefs.alert

    def do_set(self, arg: str) -> None:
        words = arg.split()
        if not words:
            self._say_settings()
            return
        found = _matching(words[0], {word: key for key, word in SETTINGS.items()})
        if len(found) != 1:
            self.say(
                _("There is no setting {word}: type set and one of {settings}.").format(
                    word=words[0], settings=", ".join(_(w) for w in SETTINGS.values())
                )
            )
            return
        key = found[0]
        value = words[1] if len(words) > 1 else ""
        if key == "language":
            codes = _language_of(value) if value else []
            if len(codes) != 1:
                self._takes(key, ", ".join(LANGUAGES))
                return
            self._set_language(codes[0])
        elif key == "bell":
            on = _matching(value, ON_OFF) if value else []
            if len(on) != 1:
                self._takes(key, ", ".join(_(w) for w in ON_OFF))
                return
            self._save(alert=on[0])
        else:
            chosen = _matching(value, VERBOSITY) if value else []
            if len(chosen) != 1:
                self._takes(key, ", ".join(_(w) for w in VERBOSITY))
                return
            self._save(verbosity=chosen[0])
        self._say_settings(saved=True)

    def _takes(self, key: str, values: str) -> None:
        self.say(_("{option} takes {values}.").format(option=_(SETTINGS[key]), values=values))

    def _set_language(self, code: str) -> None:
        self.send(Profile(lang=code))
        self.model.you = {**self.model.you, "lang": code}
        self._use(code)  # (at once: the next line is in it)

    def _save(self, **changes: Any) -> None:
        prefs = self.prefs.with_(**changes).to_wire()
        prefs = {**(self.model.you.get("prefs") or {}), **prefs}
        self.send(Profile(prefs=prefs))
        self.model.you = {**self.model.you, "prefs": prefs}

    def _say_settings(self, saved: bool = False) -> None:
        prefs = self.prefs
        bell = next(w for w, on in ON_OFF.items() if on == prefs.alert)
        verbosity = next(w for w, v in VERBOSITY.items() if v == prefs.verbosity)
        lines = [
            f"{_(SETTINGS['language'])}: {LANGUAGES.get(self.lang, self.lang)}.",
            f"{_(SETTINGS['bell'])}: {_(bell)}.",
            f"{_(SETTINGS['verbosity'])}: {_(verbosity)}.",
        ]
        if saved and self.model.you.get("guest"):
            lines.append(_("Only a key is remembered: these settings last for this session."))
        elif saved:
            lines.append(_("Saved with your key."))
        else:
            lines.append(_("Type set, a setting and a value, as in set verbosity short."))
        self.say(*lines)

    # --- what the short verbosity leaves out ---------------------------------------------------

    def quiet_at(self, table_id: int) -> bool:
        """Whether what happens at ``table_id`` goes unsaid: in short, every table but the
        player's own."""
        return self.short and self.table is not None and table_id != self.table

    def chat_unsaid(self, message: dict[str, Any]) -> bool:
        """Whether a chat line goes unsaid: in short, a spectator's at a table, another
        table's, and the lobby's while the player sits at a table."""
        if not self.short:
            return False
        table = message.get("table")
        if message.get("channel") == "lobby":
            return self.table is not None and self.table in self.model.views
        if table is None or self.quiet_at(table):
            return True
        seats = (self.model.views.get(table) or {}).get("info", {}).get("seats", [])
        return message.get("from") not in {s.get("name") for s in seats}
