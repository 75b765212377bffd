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
        return metadata.version("gambit")
    except metadata.PackageNotFoundError:
        pass
    try:
        with open(Path(__file__).resolve().parents[1] / "pyproject.toml", "rb") as file:
            return str(tomllib.load(file)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: every subcommand and its options, each with help."""
    parser = argparse.ArgumentParser(
        prog="gambit",
        description="Card games for friends in a terminal, served over SSH: Prophet's Gambit, "
        "Prophet and Fortunes.",
        epilog="Run 'gambit COMMAND --help' for the options of one command.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    demo = sub.add_parser(
        "demo",
        help="watch bots play one deal of each game, narrated",
        description="Bots play one game of each kind, narrated from a spectator's seat.",
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
    play = sub.add_parser(
        "play",
        help="play on this terminal against bots (no SSH)",
        description="The same app in this terminal, against bots, with no SSH in between.",
        formatter_class=DefaultsShown,
    )
    from .local_play import add_play_arguments

    add_play_arguments(play)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # `gambit` alone: what it can do
        parser.print_help()
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
