"""The ``gambit`` command."""

from __future__ import annotations

import argparse
import sys
import tomllib
from importlib import metadata
from pathlib import Path


class DefaultsShown(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's default after its help, except where there is nothing to show (no
    default, a flag that is off) or the help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        help_text = action.help or ""
        if (
            action.default is None
            or action.default is False
            or isinstance(action, argparse._StoreTrueAction)
            or "default" in help_text
        ):
            return help_text
        return super()._get_help_string(action)


def version() -> str:
    """The installed package's version (the source tree's, when run from it uninstalled)."""
    try:
        return metadata.version("gambit-tables")
    except metadata.PackageNotFoundError:
        pass
    try:
        with open(Path(__file__).resolve().parents[1] / "pyproject.toml", "rb") as file:
            return str(tomllib.load(file)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


class GambitParser(argparse.ArgumentParser):
    """The command line's parser, which keeps its subcommands' parsers by name."""

    subcommands: dict[str, GambitParser]


def build_parser() -> GambitParser:
    """The whole command line: every subcommand and its options, each with help."""
    from .demo import what_is_played

    parser = GambitParser(
        prog="gambit",
        description="Card games for friends in a terminal, served over SSH: Prophet's Gambit, "
        "Prophet and Fortunes.",
        epilog="Run 'gambit COMMAND --help' for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser(
        "demo",
        help="watch bots play a whole game of each kind, narrated",
        description="Bots play a whole game of each kind, narrated from a spectator's seat "
        f"({what_is_played()}).",
        formatter_class=DefaultsShown,
    )
    demo.add_argument(
        "--game",
        choices=["prophets_gambit", "prophet", "fortunes"],
        action="append",
        help="only this game (repeatable; default: all three)",
    )
    demo.add_argument("--seed", type=int, default=None, help="deal seed (default: random)")
    demo.add_argument(
        "--players", type=int, default=None, help="number of players (default: 4, within range)"
    )
    demo.add_argument(
        "--bot",
        default="heuristic",
        choices=["heuristic", "random"],
        help="which bots play every seat",
    )
    demo.add_argument(
        "--fast",
        action="store_true",
        help="no pause between moves (there is none anyway when the output is piped)",
    )
    hub = sub.add_parser(
        "hub",
        help="run the game hub on a local socket (no SSH)",
        description="The hub alone, on a unix socket (trusted) and optionally TCP (guests).",
        formatter_class=DefaultsShown,
    )
    from .hub.main import add_hub_arguments

    add_hub_arguments(hub)
    serve = sub.add_parser(
        "serve",
        help="serve the games over SSH (ssh -p 2222 play@host)",
        description="Serve every game over SSH: players connect with ssh alone.",
        formatter_class=DefaultsShown,
    )
    from .ssh.serve import add_serve_arguments

    add_serve_arguments(serve)
    gateway = sub.add_parser(
        "gateway",
        help="serve SSH for a hub on a NATS bus (gambit hub --bus …)",
        description="The SSH host and its app workers, with the hub across a NATS bus: run "
        "several behind one address, all with the same host key.",
        formatter_class=DefaultsShown,
    )
    from .gateway import add_gateway_arguments

    add_gateway_arguments(gateway)
    play = sub.add_parser(
        "play",
        help="play on this terminal against bots (no SSH)",
        description="The same app in this terminal, against bots, with no SSH in between.",
        formatter_class=DefaultsShown,
    )
    from .local_play import add_play_arguments

    add_play_arguments(play)
    connect = sub.add_parser(
        "connect",
        help="play on a server from this terminal (the app runs here, over one SSH channel)",
        description="The same app in this terminal, connected to a Gambit server over SSH "
        "(its 'gambit' subsystem): your SSH agent and keys, ~/.ssh/known_hosts, and a dropped "
        "connection that comes back by itself.",
        formatter_class=DefaultsShown,
    )
    from gambit_connect.launcher import add_connect_arguments

    add_connect_arguments(connect)
    backup = sub.add_parser(
        "backup",
        help="copy the database, even while the server runs",
        description="A consistent copy of the server's database, made online (SQLite's backup "
        "API).",
        formatter_class=DefaultsShown,
    )
    backup.add_argument("dest", help="a file, or a folder to put a dated copy in")
    backup.add_argument(
        "--data-dir", help="the server's data folder (default: per-user data folder)"
    )
    backup.add_argument(
        "--db",
        metavar="URL",
        help="the server's PostgreSQL database (default: $GAMBIT_DB; copied with pg_dump)",
    )
    admin = sub.add_parser(
        "admin",
        help="an admin's powers over the running server (kick, ban, broadcast…)",
        description="Talks to the running server over its trusted socket in the data folder.",
        formatter_class=DefaultsShown,
    )
    from .admin_cli import add_admin_arguments

    add_admin_arguments(admin)
    event = sub.add_parser(
        "event",
        help="game nights on the running server: create, list, start, pause, cancel…",
        description="The host's side of game nights, over the running server's trusted socket "
        "in the data folder, as its local admin (docs: README, Game nights).",
        formatter_class=DefaultsShown,
    )
    from .event_cli import add_event_arguments

    add_event_arguments(event)
    export = sub.add_parser(
        "export",
        help="write a finished game's record as JSON (docs/records.md)",
        description="Write a finished game's record (who played, the seed revealed after the "
        "end, every move, the result) as a versioned JSON file that 'gambit replay FILE' and "
        "'gambit verify FILE' read back. The format is in docs/records.md.",
        formatter_class=DefaultsShown,
    )
    verify = sub.add_parser(
        "verify",
        help="check that a finished game's deal was fair and really played",
        description="Recompute a finished game's deals from its revealed seed and check them "
        "against the commitment published before the deal, the cards dealt and every card "
        "played (docs/fair-deals.md). Exit status: 0 pass, 1 fail, 2 no such game or file, "
        "3 consistent but not a fair deal (a fixed seed or a stacked deck), 4 recorded "
        "without a commitment.",
        formatter_class=DefaultsShown,
    )
    replay = sub.add_parser(
        "replay",
        help="step through a finished game in this terminal",
        description="Step through a finished game, by its number in the data folder or from "
        "a file 'gambit export' wrote: right/n/space next move, left/p previous, Home/End "
        "start/end, a play/pause, q quit. Every hand is open unless --seat is given.",
        formatter_class=DefaultsShown,
    )
    from .records.commands import add_record_arguments

    add_record_arguments(export, verify, replay)
    for configurable in (serve, hub, gateway):
        configurable.add_argument(
            "--config",
            help="settings file (TOML; default: gambit.toml in the data folder, if there is one)"
            if configurable is not gateway
            else "settings file (TOML; a gateway has no data folder to find one in)",
        )
        configurable.add_argument(
            "--print-config",
            action="store_true",
            help="print every setting, its value and where it came from, then exit",
        )
    parser.subcommands = sub.choices
    return parser


def _parse(parser: GambitParser, argv: list[str]) -> argparse.Namespace | int:
    """The arguments, for serve, hub and gateway resolved as command line > GAMBIT_*
    environment > gambit.toml > defaults (see settings.py); an exit code where there is
    nothing to run."""
    if not argv or argv[0] not in ("serve", "hub", "gateway"):
        return parser.parse_args(argv)
    from .settings import SettingsError, describe, resolve

    subparser = parser.subcommands[argv[0]]
    try:
        # (A gateway has no data folder: only a file it is given, --config or GAMBIT_CONFIG.)
        resolved = resolve(subparser, argv[1:], in_data_dir=argv[0] != "gateway")
    except SettingsError as err:
        sys.stderr.write(f"gambit {argv[0]}: {err}\n")
        return 2
    args = resolved.args
    args.command = argv[0]
    if args.print_config:
        print(describe(resolved))
        return 0
    return args


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = _parse(parser, sys.argv[1:] if argv is None else list(argv))
    if isinstance(args, int):
        return args
    if args.command is None:  # `gambit` alone: what it can do
        parser.print_help()
        return 0
    if args.command == "admin":
        from .admin_cli import main_admin

        return main_admin(args)
    if args.command == "event":
        from .event_cli import main_event

        return main_event(args)
    if args.command == "backup":
        import os

        from .store import StoreError, default_data_dir
        from .store.backup import backup as make_backup

        source = Path(args.data_dir) if args.data_dir else default_data_dir()
        try:
            written = make_backup(args.db or os.environ.get("GAMBIT_DB") or source, args.dest)
        except (StoreError, OSError) as err:
            sys.stderr.write(f"gambit backup: {err}\n")
            return 1
        print(f"gambit backup: wrote {written}")
        return 0
    if args.command in ("export", "verify", "replay"):
        from .records import commands

        run = {
            "export": commands.main_export,
            "verify": commands.main_verify,
            "replay": commands.main_replay,
        }[args.command]
        return run(args)
    if args.command == "play":
        from .local_play import main_play

        return main_play(args)
    if args.command == "connect":
        from gambit_connect.launcher import main_connect

        return main_connect(args)
    if args.command == "serve":
        from .ssh.serve import main_serve

        return main_serve(args)
    if args.command == "gateway":
        from .gateway import main_gateway

        return main_gateway(args)
    if args.command == "hub":
        from .hub.main import main_hub

        return main_hub(args)
    if args.command == "demo":
        from .demo import run_demo

        try:
            return run_demo(
                args.game,
                seed=args.seed,
                players=args.players,
                bot=args.bot,
                out=sys.stdout,
                fast=args.fast,
            )
        except BrokenPipeError:  # `gambit demo | head` is fine
            sys.stderr.close()
            return 0
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
