"""The hub's settings: what a server owner can tune for a night of play.

A setting an owner may choose on the command line (``gambit hub``, ``gambit serve``) declares
its option here, beside it (``server/options.py``): flag, help, and how the value becomes the
setting; ``cli_options.py`` adds them to a parser and reads them back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.options import Groups, option

#: The ``--help`` groups of the hub's options.
GROUPS: Groups = {
    "chat": ("chat", "how fast one player may chat"),
    "limits": ("limits", "what one client may cost the hub"),
}


def admin_keys(path: str | None) -> frozenset[str]:
    """The fingerprints of ``--admin-keys`` (asyncssh is imported only when there is a file)."""
    if not path:
        return frozenset()
    from server.ssh.keys import fingerprints_in

    return fingerprints_in(path)


def _burst_help(defaults: Any) -> str:
    return f"messages of any kind one player may send, after a burst of {defaults.messages_burst}"


@dataclass(slots=True)
class HubConfig:
    # (The options' order here is their order in ``--help`` and ``--print-config``.)
    starting_chips: int = field(
        default=1000,
        metadata=option("--starting-chips", "chips a new player starts with", type=int),
    )
    #: Pause before a bot (or a stand-in for an absent player) acts, so people can follow:
    #: 0.75–1.25 times this, drawn for each move.
    bot_delay: float = field(
        default=1.0,
        metadata=option(
            "--bot-delay",
            "about how many seconds bots (and stand-ins) wait before they act "
            "(0.75-1.25 times this, drawn per move)",
            type=float,
        ),
    )
    #: Default turn timer for new tables, in seconds (0 = off). Tables may set their own.
    turn_timer: float = field(
        default=60.0,
        metadata=option(
            "--turn-timer",
            "seconds a player has for a decision at a new table (0: no timer); "
            "the table's owner may choose another",
            type=float,
        ),
    )
    #: How long a dropped player keeps their seat before the bot takes it over.
    grace: float = field(
        default=120.0,
        metadata=option(
            "--grace",
            "seconds a dropped player keeps their seat before a bot takes it over",
            type=float,
        ),
    )
    #: How long the database keeps a guest who has gone (their player row and chips'
    #: history) before it forgets them: see :meth:`server.store.Store.forget_guest`. A guest
    #: never comes back (a new connection is a new guest), so this is only for the owner's
    #: eyes (``gambit admin``'s ledger); the records of the games they played stay.
    guest_retention: float = field(
        default=86400.0,
        metadata=option(
            "--guest-retention",
            "seconds the database keeps a guest who has gone (their chips' history) before "
            "it forgets them; the records of games they played stay (0: at once)",
            type=float,
        ),
    )
    #: Pause after a game ends before the next deal starts: the apps show its result about a
    #: second after the last move, and it stays up at least 8 s to be read, unless every
    #: player at the table has closed it sooner (``result_read``: the next deal starts then).
    between_games: float = field(
        default=9.0,
        metadata=option(
            "--between-games", "seconds between the end of a deal and the next one", type=float
        ),
    )
    #: How long a strong bot thinks per move (ms), and the processes strong bots think in
    #: (0: a thread of the hub's process; see bot_pool.py).
    bot_think_ms: float = field(
        default=50.0,  # (strong bots' DEFAULT_THINK_MS: measured, see its comment)
        metadata=option(
            "--bot-think-ms",
            "milliseconds a strong bot (and a stand-in for an absent player) thinks per move",
            type=float,
        ),
    )
    bot_workers: int = field(
        default=1,
        metadata=option(
            "--bot-workers",
            "processes strong bots think in, off the hub's loop (0: a thread of the hub)",
            type=int,
        ),
    )
    #: A ``postgresql://`` URL (``--db``): the store lives there, shared by hubs on several
    #: machines; None keeps it in the SQLite file in the data folder (the default).
    db: str | None = field(
        default=None,
        metadata=option(
            "--db",
            "keep the store in this PostgreSQL database (postgresql://USER@HOST/DB; "
            "needs 'pip install gambit-tables[cluster]') instead of the SQLite file in the data "
            "folder",
            metavar="URL",
            to_setting=lambda url: url or None,
        ),
    )
    #: Fixed seed for deals (tests and snapshots); None deals from the system's randomness.
    seed: int | None = field(
        default=None,
        metadata=option(
            "--seed",
            "fixed deal seed, for repeatable games (tests; default: random deals)",
            type=int,
        ),
    )
    #: Chat rate limit: a burst of this many messages, refilled at this many per second.
    chat_burst: int = field(
        default=5,
        metadata=option(
            "--chat-burst", "chat lines one player may send at once", type=int, group="chat"
        ),
    )
    chat_per_second: float = field(
        default=0.5,
        metadata=option(
            "--chat-per-second", "chat lines a second after the burst", type=float, group="chat"
        ),
    )
    chat_limit: bool = field(
        default=True,
        metadata=option(
            "--no-chat-limit",
            "switch off the chat rate limit (a LAN night)",
            action="store_true",
            group="chat",
            to_setting=lambda off: not off,
        ),
    )
    #: Every chat line goes to this file too, if set (``--chat-log``; off by default).
    chat_log: str | None = field(
        default=None,
        metadata=option(
            "--chat-log",
            "write every chat line here too (off by default)",
            metavar="FILE",
            group="chat",
        ),
    )
    #: Key fingerprints of the server's admins (``--admin-keys``; see admin.py).
    admins: frozenset[str] = field(
        default=frozenset(),
        metadata=option(
            "--admin-keys",
            "the admins' keys (authorized_keys format): they get the admin screen and "
            "'gambit admin'",
            metavar="FILE",
            default=None,
            to_setting=admin_keys,
        ),
    )
    #: What one player may cost the hub (see limits.py): messages of any kind (a burst, then so
    #: many a second), seat and bot changes, tables opened (a burst, then so many a minute),
    #: tables owned at once; tables on the server; refused messages in a row before the
    #: client is cut off.
    messages_per_second: float = field(
        default=20.0,
        metadata=option("--messages-per-second", _burst_help, type=float, group="limits"),
    )
    tables_per_player: int = field(
        default=3,
        metadata=option(
            "--tables-per-player", "tables one player may own at once", type=int, group="limits"
        ),
    )
    max_tables: int = field(
        default=500,
        metadata=option("--max-tables", "tables on the server", type=int, group="limits"),
    )
    messages_burst: int = 60
    seat_changes_burst: int = 12
    seat_changes_per_second: float = 2.0
    tables_burst: int = 5
    tables_per_minute: float = 10.0
    max_refused: int = 50
    #: The bot that plays for a player who is away or whose turn timer ran out.
    standin_bot: str = "strong"
    #: ... and once every player there has closed the result, the next deal starts after this
    #: pause, a glance at the table as the game ended (its log, the seats) before it is dealt
    #: anew (``between_games``).
    after_results_read: float = 2.0
    #: Lobby updates to one client are coalesced to at most one per this many seconds.
    lobby_interval: float = 0.25
    #: ... and players coming and going (the number online, the players list) are sent at
    #: most once per this many of those: every lobby on the server shows them, and a stream
    #: of arrivals redrew every lobby four times a second (see lobby.py).
    lobby_players_every: int = 4
    #: The lobby shows each client at most this many tables (theirs first, then tables with a
    #: free seat, newest first) and this many players online (them, their friends, then by
    #: name), whatever others do: its messages stay small by design (see lobby.py).
    lobby_tables: int = 50
    lobby_players: int = 50
    #: A connection that sends this many bad frames in a row is disconnected.
    max_bad_frames: int = 10
    #: Seconds a new connection has to say hello.
    hello_timeout: float = 10.0
    #: Longest a due deal waits for players' entropy reveals (apps answer in milliseconds;
    #: a player whose app has not revealed by then is left out of the deal's seed).
    entropy_wait: float = 2.0
