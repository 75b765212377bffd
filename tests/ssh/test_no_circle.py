"""The SSH side's files import each other in no circle, type hints included: a session knows
its host and its app's launcher through interfaces (``session_host.py``,
``apphost/launcher.py``), not their classes, and the door knows whom it asks through its own
``DoorKeeper``."""

from __future__ import annotations

import ast
from pathlib import Path

import server.apphost
import server.ssh
from tests.import_circles import assert_no_circle

PACKAGES = {
    "ssh": Path(server.ssh.__file__).parent,
    "apphost": Path(server.apphost.__file__).parent,
}


def _imports(package: str, path: Path) -> set[str]:
    """The ``package.module`` names of server/ssh and server/apphost that ``path`` imports,
    anywhere in it (in a function, or for type hints only, too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 1:
            names = [node.module] if node.module else [a.name for a in node.names]
            found.update(f"{package}.{name.split('.')[0]}" for name in names if name)
        elif node.level == 0 and node.module:
            for other in PACKAGES:
                prefix = f"server.{other}."
                if node.module.startswith(prefix):
                    found.add(f"{other}.{node.module[len(prefix) :].split('.')[0]}")
                elif node.module == f"server.{other}":
                    found.update(f"{other}.{a.name}" for a in node.names)
    return found


def _graph() -> dict[str, set[str]]:
    return {
        f"{package}.{path.stem}": _imports(package, path)
        for package, folder in PACKAGES.items()
        for path in folder.glob("*.py")
    }


def test_the_ssh_and_apphost_files_import_each_other_in_no_circle():
    graph = _graph()
    assert_no_circle(graph)


def test_the_apps_side_knows_nothing_of_ssh():
    graph = _graph()
    assert {m: i for m, i in graph.items() if m.startswith("apphost.") and "ssh." in str(i)} == {}


def test_every_import_for_type_hints_only_says_so():
    unlabelled = [
        f"{path.parent.name}/{path.name}:{number}"
        for folder in PACKAGES.values()
        for path in sorted(folder.glob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if line.startswith("if TYPE_CHECKING:") and "for type hints only" not in line
    ]
    assert unlabelled == []
