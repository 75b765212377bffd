"""``bench/leak_audit.py``'s pure parts: a run cut into chunks (``--first``) covers the very
blocks, with the very seeds, that one run over the same games does, whatever ``--procs``;
and the chunks' JSON lines add up (``--add``) to what the one run's would say."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import leak_audit as bench


def test_a_chunked_pair_plans_the_blocks_of_the_one_run() -> None:
    whole = bench.plan(7, 0, 1_000, block=100)
    assert bench.plan(7, 0, 400, block=100) + bench.plan(7, 400, 600, block=100) == whole
    assert [b for b, _ in whole] == list(range(10))
    assert len({s for _, s in whole}) == 10  # each block its own seed
    assert bench.plan(8, 0, 1_000, block=100) != whole  # another sequence
    with pytest.raises(ValueError):
        bench.plan(7, 50, 100, block=100)  # not whole blocks


def block_counts(number: int) -> dict:
    """What one block's worker could count (made-up numbers that differ by block)."""
    out = bench.Worker(number, tables=6).out
    game = bench.GAMES[number % 3]
    out.update(games=100 + number, frames=60_000 + number, ledger_audit=0, blocks=1)
    out["leaks"] = 1 if number == 3 else 0
    out["leak_samples"] = [f"leak in block {number}"] if number == 3 else []
    out["per_game"][game].update(games=100 + number, frames=60_000 + number, tables=40)
    out["setups"][f"{game}/4/-/dup=False"] += 40
    out["setups"][f"{game}/{number}/-/dup=False"] += 1
    out["client_errors"]["out_of_turn"] += number
    out["hub_errors"], out["hub_error_samples"] = 0, []
    out["cpu_seconds"] = 20.0 + number
    return out


def test_the_chunks_json_lines_add_up_to_the_one_runs(tmp_path: Path) -> None:
    one = bench.finish([block_counts(n) for n in range(6)], 7, 0, 600, 100, 2, 90.0)
    first = bench.finish([block_counts(n) for n in range(2)], 7, 0, 200, 100, 1, 40.0)
    second = bench.finish([block_counts(n) for n in range(2, 6)], 7, 200, 400, 100, 2, 50.0)
    logs = []
    for name, run in (("first", first), ("second", second)):
        log = tmp_path / f"{name}.log"
        log.write_text(f"block 0: progress on stderr\n{json.dumps(run)}\n")
        logs.append(str(log))
    chunked = bench.add_runs([bench.last_json_line(log) for log in logs])
    alone = bench.add_runs([one])
    assert chunked["covered"] == alone["covered"] == [[0, 600]]
    assert chunked["chunks"] == 2 and not chunked["gaps"] and not chunked["overlaps"]
    for key in ("games", "frames", "leaks", "ledger_sum", "ledger_audit", "blocks"):
        assert chunked[key] == alone[key] == one[key], key
    assert chunked["per_game"] == alone["per_game"] == one["per_game"]
    assert chunked["client_errors"] == one["client_errors"]
    assert "setups_by_game" not in chunked  # (distinct setups: two chunks may share one)
    assert chunked["cpu_seconds"] == alone["cpu_seconds"] == one["cpu_seconds"]
    assert chunked["leak_samples"] == one["leak_samples"] == ["leak in block 3"]
    assert chunked["clean"] is alone["clean"] is False  # (block 3's leak)


def test_a_gap_or_an_overlap_between_chunks_is_said() -> None:
    def run(first: int, games: int) -> dict:
        blocks = range(first // 100, (first + games) // 100)
        return bench.finish([block_counts(n) for n in blocks], 7, first, games, 100, 1, 1.0)

    apart = bench.add_runs([run(0, 200), run(300, 100)])
    assert apart["covered"] == [[0, 200], [300, 400]] and apart["gaps"] == [[200, 300]]
    twice = bench.add_runs([run(0, 200), run(100, 200)])
    assert twice["overlaps"] == [[100, 200]] and twice["clean"] is False
    with pytest.raises(ValueError):
        bench.add_runs([run(0, 100), {**run(100, 100), "seed": 8}])


def test_a_block_plays_its_games_on_a_hub_of_its_own_and_audits_clean() -> None:
    """A smoke run of the wiring: one block of one game, one table at a time."""
    ((number, seed),) = bench.plan(7, 0, 1, block=1)
    thresholds = gc.get_threshold()
    out = bench.run_block((number, seed, 1, 1, 60.0, 120.0, None))
    assert out["games"] >= 1 and out["frames"] > 0 and out["blocks"] == 1
    assert (out["leaks"], out["audit_errors"], out["table_failures"]) == (0, 0, 0)
    assert (out["ledger_sum"], out["ledger_audit"]) == (0, 0)
    assert gc.get_threshold() == thresholds  # (its collector's setting was the block's own)
