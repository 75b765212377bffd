"""The suite's files handed to the two workers longest first (``--dist loadfile``).

pytest-xdist hands out whole files in the order it holds them: by default the files with the
most tests first, so the files of one long test (the 80x24 walks, the wheel, the chaos run)
came last, and the run ended with one worker still on such a file while the other had nothing
left. Handing the longest files out first (the classic longest-first rule for two machines)
leaves the short ones for the end, where they fill the gaps.

``SECONDS`` holds the files measured as the longest (a whole run's ``--durations``, loaded
machine); a file missing from it keeps xdist's order after them. Nothing else changes: each
file still runs whole, on one worker, its tests in their order.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The longest files of a whole run (seconds of setup, call and teardown on a loaded machine;
#: only their order matters). A file not listed comes after these, in xdist's own order.
SECONDS = {
    "tests/tui/test_fit_de.py": 95,
    "tests/tui/test_fit_uk.py": 89,
    "tests/tui/test_pg_table.py": 85,
    "tests/tui/test_lobby.py": 71,
    "tests/tui/test_fit.py": 68,
    "tests/test_wheel.py": 67,
    "tests/tui/test_crawl.py": 66,
    "tests/ssh/test_e2e.py": 61,
    "tests/cluster/test_cluster.py": 53,
    "tests/cluster/test_chaos.py": 50,
    "tests/ssh/test_e2e_terminals.py": 50,
    "tests/engine/test_conformance_targets.py": 45,
    "tests/hub/test_guest_chips_property.py": 38,
    "tests/engine/test_conformance_rubber.py": 33,
    "tests/hub/test_recovery.py": 26,
    "tests/ssh/test_app_moves.py": 25,
    "tests/bots/test_strong_fortunes_beats_heuristic.py": 22,
    "tests/cluster/test_readme_scaling_out.py": 21,
}


def longest_first(collection: Sequence[str]) -> list[str]:
    """``collection`` (test ids) with the files in ``SECONDS`` first, longest first, then the
    other files with the most tests first (xdist's own order); a file's tests stay together
    and in their order."""
    files: dict[str, list[str]] = {}
    for nodeid in collection:
        files.setdefault(nodeid.split("::", 1)[0], []).append(nodeid)
    order = sorted(files, key=lambda f: (-SECONDS.get(f, 0), -len(files[f])))
    return [nodeid for name in order for nodeid in files[name]]


def scheduler(config, log):
    """xdist's file-by-file scheduling, the files in :func:`longest_first`'s order."""
    from xdist.scheduler import LoadFileScheduling

    class LongestFirst(LoadFileScheduling):
        def schedule(self) -> None:
            if self.collection is None:
                # Every worker's collection reordered alike: xdist checks they are equal.
                for node, collection in self.registered_collections.items():
                    self.registered_collections[node] = longest_first(collection)
            super().schedule()

    config.option.loadscopereorder = False  # (the order above is kept as it is)
    return LongestFirst(config, log)
