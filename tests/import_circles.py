"""One search for import circles, for the tests that draw a package's imports."""

from __future__ import annotations


def assert_no_circle(graph: dict[str, set[str]]) -> None:
    """Fail, naming the circle, if any module of ``graph`` (module -> modules it imports;
    those outside the graph are ignored) reaches itself again."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, f"an import circle: {' -> '.join([*path, module])}"
        if module in done or module not in graph:
            return
        for imported in sorted(graph[module]):
            visit(imported, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
