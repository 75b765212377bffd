"""What the least a Textual app update costs here: the floor under ``table_updates.py``.

    python bench/textual_floor.py [--apps 20] [--updates 100]

``--apps`` apps of one full-screen widget drawn with the Line API, each on the real
``ChannelDriver`` over a terminal that only counts bytes (with the app's Textual patches, as
``gambit serve`` runs); every round, each app is sent one message that changes three of its
24 rows, and the round ends when every app has written its frame. No hub, no model, no
widgets of ours: what is left is Textual's message, refresh and compositor path and the
driver. Prints one JSON line last: ``cpu_ms_per_update`` (median over rounds: CPU time / app
updates).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from rich.segment import Segment
    from rich.style import Style
    from table_updates import CountingTerminal
    from textual.app import App, ComposeResult
    from textual.geometry import Region
    from textual.message import Message
    from textual.strip import Strip
    from textual.widget import Widget

    import gambit_tui.app  # noqa: F401  (the Textual patches, as gambit serve has them)
    from server.terminal.driver import bind

    class Changed(Message):
        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    class Canvas(Widget):
        DEFAULT_CSS = "Canvas { height: 1fr; }"

        def __init__(self) -> None:
            super().__init__()
            self.rows = [
                Strip([Segment(f"row {y} " + "x" * 60, Style(color="red"))]) for y in range(24)
            ]

        def render_line(self, y: int) -> Strip:
            return self.rows[y] if y < len(self.rows) else Strip.blank(80)

        def change(self, number: int) -> None:
            changed = sorted({number % 24, (number * 7) % 24, (number * 11) % 24})
            for y in changed:
                style = Style(color="green", bold=number % 2 == 0)
                self.rows[y] = Strip([Segment(f"row {y} move {number} " + "y" * 50, style)])
            self.refresh(*[Region(0, y, 80, 1) for y in changed])

    class Floor(App[None]):
        def compose(self) -> ComposeResult:
            yield Canvas()

        def on_changed(self, message: Changed) -> None:
            self.query_one(Canvas).change(message.number)

    apps: list[Floor] = []
    terminals: list[CountingTerminal] = []
    runs = []
    for _ in range(args.apps):
        app = Floor()
        terminal = CountingTerminal()
        bind(app, terminal, erase=True)
        apps.append(app)
        terminals.append(terminal)
        runs.append(asyncio.create_task(app.run_async(size=(80, 24))))
    await asyncio.sleep(2.0)
    cpu: list[float] = []
    for number in range(args.updates):
        before = [t.frames for t in terminals]
        start = time.process_time()
        for app in apps:
            app.post_message(Changed(number))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(
            t.frames == b for t, b in zip(terminals, before, strict=True)
        ):
            await asyncio.sleep(0.002)
        cpu.append((time.process_time() - start) * 1000 / args.apps)
    for app in apps:
        app.exit()
    await asyncio.gather(*runs, return_exceptions=True)
    return {
        "apps": args.apps,
        "updates": args.updates,
        "cpu_ms_per_update": round(statistics.median(cpu), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--apps", type=int, default=20)
    parser.add_argument("--updates", type=int, default=100)
    result = asyncio.run(run(parser.parse_args()))
    assert sys.__stdout__ is not None  # Textual points sys.stdout at its apps while they run
    print(json.dumps(result), file=sys.__stdout__)


if __name__ == "__main__":
    main()
