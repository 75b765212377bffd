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
