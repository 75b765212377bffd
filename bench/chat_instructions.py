"""What typing in a table's chat costs the server, in machine instructions.

    python bench/chat_instructions.py [--keys 40] [--lines 4] [--profile]

At a human pace the load bench's players type a chat line a minute, a key at a time (as people
type), and at 1,000 players those keystrokes are more frames than the games' moves
(docs/benchmarks.md, "Capacity at both paces"). Like ``update_instructions.py``, this runs
Gambit apps on the real driver, seated at a Prophet's Gambit table of five, under valgrind's
callgrind (instruction counts, which the machine's noise cannot move), and counts only while one
player types: ``--keys`` letters into the open table chat (each echoed on their screen), then
``--lines`` lines sent (Enter: the line is shown in the typist's chat and in every app's
table log, which the others see while their chat is closed; until 2026-12-06 it was a
notification there, a toast). ``--profile`` runs the same without valgrind under cProfile
and prints the functions that took most time first.

Prints one JSON line last: ``instructions_per_key`` (millions: one key typed into the chat,
until its echo is drawn), ``instructions_per_line`` (millions: one line sent, until no app
at the table draws any more), ``keys``, ``lines``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "bench"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from callgrind import counted, instrument  # noqa: E402
from update_instructions import _settle  # noqa: E402


async def _quiet(terminals: list[Any], poll: float = 0.05) -> None:
    """Until no app has drawn for ``poll`` seconds (the others may draw a line, or nothing)."""
    last = -1
    for _ in range(400):
        total = sum(t.frames for t in terminals)
        if total == last:
            return
        last = total
        await asyncio.sleep(poll)


WORDS = "the next trick is mine unless someone holds the high cards"


async def _type(keys: int, lines: int, count: Callable[[bool], None]) -> dict[str, int]:
    """Seat five apps; the first opens the table chat and types; ``count(True)`` before each
    counted part, ``count(False)`` after."""
    from table_updates import seat_apps

    from server.gc_freeze import FrozenSessions

    seated = await seat_apps(5, "gambit-chat-")
    terminals = seated.terminals
    typist = terminals[0]
    memory = FrozenSessions()
    memory.started()
    typist.driver.feed(b"c")  # the table chat
    await _settle(terminals[:1])
    text = (WORDS * (keys // len(WORDS) + 1))[:keys]

    async def one_key(key: bytes) -> None:
        typist.driver.feed(key)
        await _settle(terminals[:1])

    count(True)
    for char in text:
        await one_key(char.encode())
    count(False)
    # Lines: each typed uncounted, then its Enter counted until every app has drawn it.
    sent = 0
    for number in range(lines):
        for char in f"line {number}":
            await one_key(char.encode())
        count(True)
        typist.driver.feed(b"\r")
        await _settle(terminals[:1])  # the typist's screen, then whatever the others draw
        await _quiet(terminals)
        count(False)
        sent += 1
    memory.close()
    await seated.close()
    return {"keys": keys, "lines": sent}


def _child(args: argparse.Namespace, phase: str) -> dict[str, int]:
    """One count: the keys only (``phase`` "keys") or the lines only ("lines")."""
    keys, lines = (args.keys, 0) if phase == "keys" else (0, args.lines)
    return asyncio.run(_type(keys, lines, instrument))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--keys", type=int, default=40, help="letters typed, counted")
    parser.add_argument("--lines", type=int, default=4, help="lines sent, counted")
    parser.add_argument("--profile", action="store_true", help="cProfile, no valgrind")
    parser.add_argument("--child", choices=("keys", "lines"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = _child(args, args.child)
        assert sys.__stdout__ is not None
        print(json.dumps(result), file=sys.__stdout__)
        return
    if args.profile:
        profile = cProfile.Profile()
        asyncio.run(
            _type(args.keys, args.lines, lambda on: profile.enable() if on else profile.disable())
        )
        pstats.Stats(profile, stream=sys.__stdout__).sort_stats("tottime").print_stats(25)
        return
    argv = [f"--keys={args.keys}", f"--lines={args.lines}"]
    _, key_instructions = counted(__file__, [*argv, "--child=keys"])
    _, line_instructions = counted(__file__, [*argv, "--child=lines"])
    result: dict[str, Any] = {
        "keys": args.keys,
        "lines": args.lines,
        "instructions_per_key": round(key_instructions / args.keys / 1e6, 3),
        "instructions_per_line": round(line_instructions / max(1, args.lines) / 1e6, 3),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
