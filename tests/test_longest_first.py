"""The order the suite's files are handed to the workers in (tests/longest_first.py)."""

from __future__ import annotations

from tests.longest_first import SECONDS, longest_first


def test_the_longest_files_go_first_and_the_rest_keep_xdists_order():
    collection = [
        "tests/a.py::test_one",
        "tests/b.py::test_one",
        "tests/b.py::test_two",
        "tests/tui/test_crawl.py::test_a_short_crawl_finds_nothing_wrong",
        "tests/c.py::test_one",
        "tests/tui/test_fit_de.py::test_nothing_is_cut_at_80x24",
        "tests/tui/test_crawl.py::test_in_a_game_is_the_hubs_word_not_a_replays_moment",
    ]
    assert SECONDS["tests/tui/test_fit_de.py"] > SECONDS["tests/tui/test_crawl.py"]
    assert longest_first(collection) == [
        "tests/tui/test_fit_de.py::test_nothing_is_cut_at_80x24",
        # A file's tests together, in their order.
        "tests/tui/test_crawl.py::test_a_short_crawl_finds_nothing_wrong",
        "tests/tui/test_crawl.py::test_in_a_game_is_the_hubs_word_not_a_replays_moment",
        # Then the most tests first, as xdist orders them; ties as collected.
        "tests/b.py::test_one",
        "tests/b.py::test_two",
        "tests/a.py::test_one",
        "tests/c.py::test_one",
    ]


def test_every_file_named_is_in_the_suite():
    """A file renamed or removed leaves the list (else it would silently order nothing)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert [name for name in SECONDS if not (root / name).is_file()] == []
