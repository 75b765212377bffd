"""Sentences with coloured parts: a translated template whose ``{name}`` fields are filled
with text that keeps its colours (a card, a team's marker), wherever a language puts them."""

from __future__ import annotations

from typing import Any

from rich.text import Text


def fill(template: str, **parts: Any) -> Text:
    """``template`` with its ``{name}`` fields filled; Text parts keep their styles, other
    values are shown as text, and a field with no part stays as written."""
    out = Text()
    rest = template
    while rest:
        start = rest.find("{")
        end = rest.find("}", start)
        if start < 0 or end < 0:
            out.append(rest)
            break
        out.append(rest[:start])
        key = rest[start + 1 : end]
        value = parts.get(key, "{" + key + "}")
        if isinstance(value, Text):
            out.append_text(value)
        else:
            out.append(str(value))
        rest = rest[end + 1 :]
    return out
