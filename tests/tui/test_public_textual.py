"""``gambit_tui`` is a plain Textual app: it imports nothing private of Textual's, reads no
private attribute of Textual's objects and overrides none of their private methods, so it
runs unchanged as a local app (and a new Textual cannot break it through its internals). What
hosting many apps in one process needs of Textual's internals lives on the server side
(``server/apphost/``, ``server/terminal/``), each module guarded by its own test."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

import textual

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


def textual_private_names() -> set[str]:
    """Every ``_name`` (not a dunder) Textual's own source defines or reads as an attribute."""
    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                name = node.attr
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = node.name
            else:
                continue
            if name.startswith("_") and not name.startswith("__"):
                names.add(name)
    return names


def private_textual_attributes(source: str, private: set[str]) -> list[str]:
    """Every ``x._name`` in ``source`` where ``_name`` is one of Textual's private names and
    ``x`` is not ``self`` or ``cls`` (an object's own attributes: ours, or a subclass's
    override, which :func:`textual_overrides` finds). ``super()._name`` counts."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or node.attr not in private:
            continue
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            continue
        found.append((node.lineno, f"{node.lineno}: {ast.unparse(node)}"))
    return [text for _line, text in sorted(found)]


def textual_overrides(module: ModuleType) -> list[str]:
    """Methods that ``module``'s classes define with the name of a private method of a
    Textual class they inherit from (an override of Textual's internals). A method the app's
    host installed in a class would be the host's, not the app's (it installs none: our
    widgets' fast paths are their own, switched on by flags, server/apphost/textual_layer.py)."""
    found = []
    for cls in vars(module).values():
        if not isinstance(cls, type) or cls.__module__ != module.__name__:
            continue
        for name, value in vars(cls).items():
            if not name.startswith("_") or name.startswith("__") or not callable(value):
                continue
            if getattr(value, "__module__", None) != module.__name__:
                continue
            for base in cls.__mro__[1:]:
                if base.__module__.split(".")[0] == "textual" and name in vars(base):
                    found.append(f"{cls.__name__}.{name} overrides {base.__name__}.{name}")
                    break
    return found


def test_the_check_finds_private_textual_attributes():
    private = {"_context", "_filters", "_size_updated"}
    source = """
self._context = None
screen._context()
with app._context(): pass
app._filters.append(1)
super()._size_updated(1)
widget._our_own = 1
cls._filters
"""
    assert private_textual_attributes(source, private) == [
        "3: screen._context",
        "4: app._context",
        "5: app._filters",
        "6: super()._size_updated",
    ]


def test_the_check_finds_an_override_of_textual_internals():
    module = ModuleType("example")
    source = """
from textual.widget import Widget

class Panel(Widget):
    def _size_updated(self, *args):
        return True

    def _ours(self):
        pass
"""
    exec(source, module.__dict__)
    assert textual_overrides(module) == ["Panel._size_updated overrides Widget._size_updated"]


def test_gambit_tui_reads_no_private_attribute_of_textual():
    private = textual_private_names()
    found = {
        str(path.relative_to(PACKAGE)): attributes
        for path in sorted(PACKAGE.rglob("*.py"))
        if (attributes := private_textual_attributes(path.read_text(encoding="utf-8"), private))
    }
    assert found == {}


def test_gambit_tui_overrides_no_private_method_of_textual():
    found = {}
    for info in pkgutil.walk_packages(gambit_tui.__path__, "gambit_tui."):
        if overrides := textual_overrides(importlib.import_module(info.name)):
            found[info.name] = overrides
    assert found == {}
