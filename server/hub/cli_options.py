"""The hub's settings as command-line options, shared by ``gambit serve`` and ``gambit hub``:
one list, so the two commands cannot drift apart (``serve`` embeds the same hub)."""

from __future__ import annotations

import argparse
from typing import Any

from .config import HubConfig


def add_hub_options(
    parser: argparse.ArgumentParser, limits: argparse._ArgumentGroup | None = None
) -> None:
    """Every hub setting an owner may choose: chips, timers, pauses, chat and the limits (in
    ``limits``, a group the caller may share with limits of its own)."""
    defaults = HubConfig()
    parser.add_argument(
        "--starting-chips",
        type=int,
        default=defaults.starting_chips,
        help="chips a new player starts with",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        default=defaults.bot_delay,
        help="about how many seconds bots (and stand-ins) wait before they act "
        "(0.75-1.25 times this, drawn per move)",
    )
    parser.add_argument(
        "--turn-timer",
        type=float,
        default=defaults.turn_timer,
        help="seconds a player has for a decision at a new table (0: no timer); "
        "the table's owner may choose another",
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=defaults.grace,
        help="seconds a dropped player keeps their seat before a bot takes it over",
    )
    parser.add_argument(
        "--between-games",
        type=float,
        default=defaults.between_games,
        help="seconds between the end of a deal and the next one",
    )
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
    parser.add_argument(
        "--db",
        metavar="URL",
        default=None,
        help="keep the store in this PostgreSQL database (postgresql://USER@HOST/DB; "
        "needs 'pip install gambit-tables[cluster]') instead of the SQLite file in the data "
        "folder",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="fixed deal seed, for repeatable games (tests; default: random deals)",
    )
    chat = parser.add_argument_group("chat", "how fast one player may chat")
    chat.add_argument(
        "--chat-burst",
        type=int,
        default=defaults.chat_burst,
        help="chat lines one player may send at once",
    )
    chat.add_argument(
        "--chat-per-second",
        type=float,
        default=defaults.chat_per_second,
        help="chat lines a second after the burst",
    )
    chat.add_argument(
        "--no-chat-limit", action="store_true", help="switch off the chat rate limit (a LAN night)"
    )
    chat.add_argument(
        "--chat-log", metavar="FILE", help="write every chat line here too (off by default)"
    )
    parser.add_argument(
        "--admin-keys",
        metavar="FILE",
        help="the admins' keys (authorized_keys format): they get the admin screen and "
        "'gambit admin'",
    )
    if limits is None:
        limits = parser.add_argument_group("limits", "what one client may cost the hub")
    add_limit_arguments(limits)


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
    """The HubConfig fields the limit options set."""
    return {
        "messages_per_second": args.messages_per_second,
        "tables_per_player": args.tables_per_player,
        "max_tables": args.max_tables,
    }


def hub_config_from(args: argparse.Namespace) -> HubConfig:
    """The hub's settings from the options :func:`add_hub_options` added."""
    return HubConfig(
        starting_chips=args.starting_chips,
        bot_delay=args.bot_delay,
        bot_think_ms=args.bot_think_ms,
        bot_workers=args.bot_workers,
        turn_timer=args.turn_timer,
        grace=args.grace,
        between_games=args.between_games,
        seed=args.seed,
        chat_burst=args.chat_burst,
        chat_per_second=args.chat_per_second,
        chat_limit=not args.no_chat_limit,
        chat_log=args.chat_log,
        admins=admin_keys(args.admin_keys),
        db=args.db or None,
        **limits_from(args),
    )


def admin_keys(path: str | None) -> frozenset[str]:
    """The fingerprints of ``--admin-keys`` (asyncssh is imported only when there is a file)."""
    if not path:
        return frozenset()
    from server.ssh.keys import fingerprints_in

    return fingerprints_in(path)
