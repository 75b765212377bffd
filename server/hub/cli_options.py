"""The hub's limits as command-line options, shared by ``gambit serve`` and ``gambit hub``."""

from __future__ import annotations

import argparse
from typing import Any

from .config import HubConfig


def add_limit_arguments(group: argparse._ArgumentGroup | argparse.ArgumentParser) -> None:
    defaults = HubConfig()
    group.add_argument(
        "--messages-per-second",
        type=float,
        default=defaults.messages_per_second,
        help=f"messages of any kind one player may send, after a burst of "
        f"{defaults.messages_burst}",
    )
    group.add_argument(
        "--tables-per-player",
        type=int,
        default=defaults.tables_per_player,
        help="tables one player may own at once",
    )
    group.add_argument(
        "--max-tables", type=int, default=defaults.max_tables, help="tables on the server"
    )


def limits_from(args: argparse.Namespace) -> dict[str, Any]:
    """The HubConfig fields the options above set."""
    return {
        "messages_per_second": args.messages_per_second,
        "tables_per_player": args.tables_per_player,
        "max_tables": args.max_tables,
    }


def add_bot_arguments(parser: argparse.ArgumentParser) -> None:
    """How strong bots think: their time per move and the processes they think in."""
    defaults = HubConfig()
    parser.add_argument(
        "--bot-think-ms",
        type=float,
        default=defaults.bot_think_ms,
        help="milliseconds a strong bot (and a stand-in for an absent player) thinks per move",
    )
    parser.add_argument(
        "--bot-workers",
        type=int,
        default=defaults.bot_workers,
        help="processes strong bots think in, off the hub's loop (0: a thread of the hub)",
    )
