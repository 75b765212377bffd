"""``gambit_tui`` is a plain Textual app: it imports nothing private of Textual's, so it runs
unchanged as a local app. What hosting many apps in one process needs of Textual's internals
lives on the server side (``server/apphost/``, ``server/terminal/``), each module guarded by
its own test."""

from __future__ import annotations

import ast
from pathlib import Path

import gambit_tui

PACKAGE = Path(gambit_tui.__file__).parent


def private_textual_imports(source: str) -> list[str]:
    """Every ``textual._x`` module or private name ``source`` imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
            names: list[str] = []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
            names = [alias.name for alias in node.names]
        else:
            continue
        for module in modules:
            parts = module.split(".")
            if parts[0] != "textual":
                continue
            if any(part.startswith("_") for part in parts[1:]):
                found.append(module)
            found += [f"{module}.{name}" for name in names if name.startswith("_")]
    return found


def test_the_check_finds_a_private_import():
    assert private_textual_imports("from textual._context import active_app") == [
        "textual._context"
    ]
    assert private_textual_imports("import textual._callback") == ["textual._callback"]
    assert private_textual_imports("from textual.app import _x") == ["textual.app._x"]
    assert private_textual_imports("from textual import active_app") == []


def test_gambit_tui_imports_nothing_private_of_textual():
    found = {
        str(path.relative_to(PACKAGE)): imports
        for path in sorted(PACKAGE.rglob("*.py"))
        if (imports := private_textual_imports(path.read_text(encoding="utf-8")))
    }
    assert found == {}
