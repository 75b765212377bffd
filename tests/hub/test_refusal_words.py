"""The hub says its refusals and notices as English templates with their arguments, so that a
client can say them in its player's language (``server/hub/errors.py``)."""

from __future__ import annotations

import ast
import string
from pathlib import Path

from gambit_tui.catalog import extract

from .harness import connect

HUB = Path(__file__).resolve().parents[2] / "server" / "hub"


async def test_a_refusal_carries_its_template_and_arguments(hub):
    ada = await connect(hub)
    await ada.hello("Ada", identity="SHA256:ada")
    await ada.send("create_table", game="prophet", players=3, stake=10**6)
    refusal = await ada.expect("error", code="chips")
    assert refusal["text"] == "A stake of {stake} is more than your {chips} chips."
    assert refusal["args"]["stake"] == 10**6
    assert refusal["message"] == refusal["text"].format(**refusal["args"])
    await ada.send("join", table=999)
    refusal = await ada.expect("error", code="no_table")
    assert refusal["text"] == refusal["message"] == "There is no such table."
    assert "args" not in refusal
    await ada.send("ignore", name="Ada", on=True)
    assert (await ada.expect("error", code="self"))["text"] == "You cannot ignore yourself."


def _calls() -> list[tuple[str, int, ast.Call]]:
    found = []
    for path in sorted(HUB.glob("*.py")):
        if path.name == "errors.py":
            continue  # where templates are passed on, not written
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in ("HubError", "said"):
                    found.append((f"{path.name}:{node.lineno}", name, node))
    return found


def test_every_sentence_of_the_hub_is_a_template_the_catalog_holds():
    """A template written as an f-string would reach players in English only: every
    ``HubError`` and ``said`` names its words as a literal whose gaps are its keyword
    arguments, and the app's catalog holds it."""
    catalog = {message.id for message in extract() if message.id}
    sentences = 0
    for where, name, call in _calls():
        index = 1 if name == "HubError" else 0
        if name == "HubError" and len(call.args) < 2:
            continue  # the class's own definitions
        text = call.args[index]
        assert isinstance(text, ast.Constant) and isinstance(text.value, str), where
        gaps = {field for _, field, _, _ in string.Formatter().parse(text.value) if field}
        assert gaps == {k.arg for k in call.keywords}, where
        assert text.value in catalog, where
        sentences += 1
    assert sentences > 60
