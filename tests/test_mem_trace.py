"""GAMBIT_TRACEMALLOC: snapshots of a process, and the diff that names what grew."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from server import mem_trace


@pytest.fixture
def traced():
    tracemalloc.start(4)
    yield
    tracemalloc.stop()


def test_the_diff_names_the_line_that_grew(tmp_path, traced, capsys):
    trace = mem_trace.MemTrace(tmp_path, "serve", every=3600, collect=True)
    first = trace.write()
    kept = [bytes(1000) + str(i).encode() for i in range(2000)]  # the grower
    trace.started -= 120  # (two minutes later, as far as the rates go)
    second = trace.write()
    assert first != second
    info = json.loads(second.with_suffix(".json").read_text())
    assert info["role"] == "serve" and info["traced_mb"] > 1.9 and info["minute"] >= 2
    assert mem_trace.main(["diff", str(first), str(second), "--top", "3"]) == 0
    out = capsys.readouterr().out
    top = out.splitlines()[1:3]
    assert "tests/test_mem_trace.py" in top[1], out
    assert "KB/min" in top[0] and len(kept) == 2000


def test_nothing_is_traced_unless_asked(monkeypatch):
    monkeypatch.delenv(mem_trace.DIR_ENV, raising=False)
    assert mem_trace.start_from_env("serve") is None
    assert not tracemalloc.is_tracing()


def test_the_object_counts_that_grew(tmp_path, traced, capsys):
    trace = mem_trace.MemTrace(tmp_path, "worker", every=3600, collect=False)
    first = trace.write()

    class Grower:
        pass

    # (enough to be among the types a snapshot keeps, the most numerous, in a process that
    # has run many tests: a few hundred were not, beside 440,000 objects)
    kept = [Grower() for _ in range(50_000)]
    trace.started -= 60
    second = trace.write()
    assert (
        mem_trace.main(["types", str(first.with_suffix(".json")), str(second.with_suffix(".json"))])
        == 0
    )
    out = capsys.readouterr().out
    assert "+50000  test_the_object_counts_that_grew.<locals>.Grower" in out, out
    assert len(kept) == 50_000


def test_frozen_objects_are_counted_and_stay_frozen(tmp_path, traced):
    """An app worker freezes what is alive: a count of the unfrozen alone would miss it."""
    import gc

    trace = mem_trace.MemTrace(tmp_path, "worker", every=3600, collect=False)

    class FrozenGrower:
        pass

    kept = [FrozenGrower() for _ in range(50_000)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        path = trace.write()
        info = json.loads(path.with_suffix(".json").read_text())
        name = FrozenGrower.__qualname__
        assert info["types"].get(name) == 50_000, info["types"]
        assert gc.get_freeze_count() >= frozen  # frozen again after the count
    finally:
        gc.unfreeze()
    assert len(kept) == 50_000
