"""The ``gambit`` command."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gambit", description="Card games over SSH.")
    parser.add_argument("--version", action="version", version=f"gambit {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="watch bots play one deal of each game")
    demo.add_argument(
        "--game",
        choices=["prophets_gambit", "prophet", "fortunes"],
        action="append",
        help="only this game (repeatable)",
    )
    demo.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    demo.add_argument("--players", type=int, default=None, help="number of players")
    demo.add_argument("--bot", default="heuristic", choices=["heuristic", "random"])
    defaults_shown = argparse.ArgumentDefaultsHelpFormatter
    hub = sub.add_parser(
        "hub", help="run the game hub on a local socket (no SSH)", formatter_class=defaults_shown
    )
    from .hub.main import add_hub_arguments

    add_hub_arguments(hub)
    serve = sub.add_parser(
        "serve",
        help="serve the games over SSH (ssh -p 2222 play@host)",
        formatter_class=defaults_shown,
    )
    from .ssh.serve import add_serve_arguments

    add_serve_arguments(serve)
    play = sub.add_parser("play", help="play on this terminal against bots (no SSH)")
    from .local_play import add_play_arguments

    add_play_arguments(play)
    backup = sub.add_parser(
        "backup",
        help="copy the database, even while the server runs",
        formatter_class=defaults_shown,
    )
    backup.add_argument("dest", help="a file, or a folder to put a dated copy in")
    backup.add_argument(
        "--data-dir", help="the server's data folder (default: per-user data folder)"
    )
    admin = sub.add_parser(
        "admin",
        help="an admin's powers over the running server (kick, ban, broadcast…)",
        formatter_class=defaults_shown,
    )
    from .admin_cli import add_admin_arguments

    add_admin_arguments(admin)
    for configurable in (serve, hub):
        configurable.add_argument(
            "--config",
            help="settings file (TOML; default: gambit.toml in the data folder, if there is one)",
        )
        configurable.add_argument(
            "--print-config",
            action="store_true",
            help="print every setting, its value and where it came from, then exit",
        )
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("serve", "hub"):
        # Command line > GAMBIT_* environment > gambit.toml > defaults (see settings.py).
        from .settings import SettingsError, describe, resolve

        try:
            resolved = resolve(serve if argv[0] == "serve" else hub, argv[1:])
        except SettingsError as err:
            sys.stderr.write(f"gambit {argv[0]}: {err}\n")
            return 2
        args = resolved.args
        args.command = argv[0]
        if args.print_config:
            print(describe(resolved))
            return 0
    else:
        args = parser.parse_args(argv)
    if args.command == "admin":
        from .admin_cli import main_admin

        return main_admin(args)
    if args.command == "backup":
        from pathlib import Path

        from .store import StoreError, default_data_dir
        from .store.backup import backup as make_backup

        source = Path(args.data_dir) if args.data_dir else default_data_dir()
        try:
            written = make_backup(source, args.dest)
        except (StoreError, OSError) as err:
            sys.stderr.write(f"gambit backup: {err}\n")
            return 1
        print(f"gambit backup: wrote {written}")
        return 0
    if args.command == "play":
        from .local_play import main_play

        return main_play(args)
    if args.command == "serve":
        from .ssh.serve import main_serve

        return main_serve(args)
    if args.command == "hub":
        from .hub.main import main_hub

        return main_hub(args)
    if args.command == "demo":
        from .demo import run_demo

        try:
            return run_demo(
                args.game, seed=args.seed, players=args.players, bot=args.bot, out=sys.stdout
            )
        except BrokenPipeError:  # `gambit demo | head` is fine
            sys.stderr.close()
            return 0
    return 2


def _version() -> str:
    """The installed distribution's version (gambit-tables), or "unknown" from a bare tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gambit-tables")
    except PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    raise SystemExit(main())
