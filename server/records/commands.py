"""``gambit export``, ``gambit verify`` and ``gambit replay``: records from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .event_record import event_from_store, is_event, verify_event
from .record import RecordError, dumps, from_store, load
from .verify import EXIT_CODES, verify


def add_record_arguments(
    export: argparse.ArgumentParser,
    verify_: argparse.ArgumentParser,
    replay: argparse.ArgumentParser,
) -> None:
    """The three commands' arguments, each with help."""
    data_help = "the server's data folder (default: per-user data folder)"
    export.add_argument("id", type=int, help="the finished game's number (--event: the event's)")
    export.add_argument(
        "--event",
        action="store_true",
        help="export a whole game night: its rounds, pairings, seats and every game",
    )
    export.add_argument(
        "-o", "--output", help="write the record to this file (default: standard output)"
    )
    export.add_argument("--data-dir", help=data_help)
    verify_.add_argument("game", help="a finished game's number, or a file 'gambit export' wrote")
    verify_.add_argument("--data-dir", help=data_help)
    verify_.add_argument(
        "--event", action="store_true", help="GAME is an event's number: check all its deals"
    )
    replay.add_argument("game", help="a finished game's number, or a file 'gambit export' wrote")
    replay.add_argument("--data-dir", help=data_help)
    replay.add_argument(
        "--seat",
        type=int,
        default=None,
        help="show the game as this seat saw it (default: every hand open)",
    )
    replay.add_argument(
        "--text",
        action="store_true",
        help="print every step instead of stepping through them with keys",
    )


def main_export(args: argparse.Namespace) -> int:
    try:
        if args.event:
            text = dumps(event_from_store(args.data_dir, args.id))
        else:
            text = dumps(from_store(args.data_dir, args.id))
    except RecordError as err:
        sys.stderr.write(f"gambit export: {err}\n")
        return 1
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        what = "event" if args.event else "game"
        print(f"gambit export: wrote {what} {args.id} to {args.output}")
    else:
        sys.stdout.write(text)
    return 0


def main_verify(args: argparse.Namespace) -> int:
    try:
        if args.event and args.game.isdigit():
            record = event_from_store(args.data_dir, int(args.game))
        else:
            record = load(args.game, args.data_dir)
        if is_event(record):
            lines, status = verify_event(record)
            print("\n".join(lines))
            return status
    except RecordError as err:
        sys.stderr.write(f"gambit verify: {err}\n")
        return 2
    report = verify(record)
    print(f"Game {record.get('id', '?')} ({record.get('title', record['game'])}):")
    *checks, verdict = report.lines()
    for line in checks:
        print("  " + line)
    print(verdict)
    return EXIT_CODES[report.verdict]


def main_replay(args: argparse.Namespace) -> int:
    from .replay import ReplayError, frames

    try:
        record = load(args.game, args.data_dir)
        if is_event(record):
            raise RecordError("this is a whole event's record: replay one of its games")
        steps = frames(record, seat=args.seat)
    except (RecordError, ReplayError) as err:
        sys.stderr.write(f"gambit replay: {err}\n")
        return 1
    if args.text or not sys.stdout.isatty():
        for number, frame in enumerate(steps):
            print(f"--- {number}/{len(steps) - 1} ---")
            print(frame)
        return 0
    from .replay_app import ReplayApp

    ReplayApp(record, steps).run()
    return 0
