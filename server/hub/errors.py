"""Refusals the hub sends back to a client as an ``error`` message, in words a client can
translate.

A refusal's text is an English template (``"There is no player called {name}."``) and its
arguments, kept apart: the wire carries both beside the English ``message``, so a client shows
the sentence in its player's language (the app's catalogs hold every template: ``python -m
gambit_tui.catalog`` collects them from the hub's ``HubError`` and :func:`said` calls, which
must therefore be written with the template as a literal, never an f-string).
"""

from __future__ import annotations

from protocol.server_messages import Sentence

#: What may fill a template's gaps: names, numbers, codes (never a sentence to translate).
Arg = str | int | float


def said(text: str, **args: Arg) -> Sentence:
    """The wire fields of a sentence the hub says: English ``message``, ``text`` and ``args``."""
    out: Sentence = {"message": text.format(**args) if args else text, "text": text}
    if args:
        out["args"] = args
    return out


class HubError(Exception):
    """A request the hub refuses; nothing has changed. ``code`` is stable for programs; ``text``
    with ``params`` is the sentence for people (see the module's docstring)."""

    def __init__(self, code: str, text: str, **params: Arg) -> None:
        self.code = code
        self.text: str | None = text
        self.params = params
        self.message = text.format(**params) if params else text
        super().__init__(self.message)

    @classmethod
    def untranslated(cls, code: str, message: str) -> HubError:
        """A refusal whose words come from elsewhere (the rules engine's own explanation): it
        is sent in English only, and a client may say something general for ``code`` instead."""
        err = cls(code, message)
        err.text = None
        return err

    def wire(self) -> Sentence:
        """The fields an ``error`` message carries for this refusal (besides ``t`` and ``code``)."""
        if self.text is None:
            return {"message": self.message}
        return said(self.text, **self.params)
