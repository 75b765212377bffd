"""The hub's settings: what a server owner can tune for a night of play."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class HubConfig:
    starting_chips: int = 1000
    #: Default turn timer for new tables, in seconds (0 = off). Tables may set their own.
    turn_timer: float = 60.0
    #: How long a dropped player keeps their seat before the bot takes it over.
    grace: float = 120.0
    #: Pause before a bot (or a stand-in for an absent player) acts, so people can follow:
    #: 0.75–1.25 times this, drawn for each move.
    bot_delay: float = 1.0
    #: How long a strong bot thinks per move (ms), and the processes strong bots think in
    #: (0: a thread of the hub's process; see bot_pool.py).
    bot_think_ms: float = 200.0
    bot_workers: int = 1
    #: The bot that plays for a player who is away or whose turn timer ran out.
    standin_bot: str = "strong"
    #: Pause after a game ends before the next deal starts: the apps show its result about a
    #: second after the last move, and it stays up at least 8 s to be read, unless every
    #: player at the table has closed it sooner (``result_read``: the next deal starts then).
    between_games: float = 9.0
    #: ... and once every player there has closed it, the next deal starts after this pause,
    #: a glance at the table as the game ended (its log, the seats) before it is dealt anew.
    after_results_read: float = 2.0
    #: Chat rate limit: a burst of this many messages, refilled at this many per second.
    chat_burst: int = 5
    chat_per_second: float = 0.5
    chat_limit: bool = True
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
    #: What one player may cost the hub (see limits.py): messages of any kind (a burst, then so
    #: many a second), seat and bot changes, tables opened (a burst, then so many a minute),
    #: tables owned at once; tables on the server; refused messages in a row before the
    #: client is cut off.
    messages_burst: int = 60
    messages_per_second: float = 20.0
    seat_changes_burst: int = 12
    seat_changes_per_second: float = 2.0
    tables_burst: int = 5
    tables_per_minute: float = 10.0
    tables_per_player: int = 3
    max_tables: int = 500
    max_refused: int = 50
    #: A connection that sends this many bad frames in a row is disconnected.
    max_bad_frames: int = 10
    #: Seconds a new connection has to say hello.
    hello_timeout: float = 10.0
    #: Longest a due deal waits for players' entropy reveals (apps answer in milliseconds;
    #: a player whose app has not revealed by then is left out of the deal's seed).
    entropy_wait: float = 2.0
    #: Fixed seed for deals (tests and snapshots); None deals from the system's randomness.
    seed: int | None = None
    #: Key fingerprints of the server's admins (``--admin-keys``; see admin.py).
    admins: frozenset[str] = frozenset()
    #: Every chat line goes to this file too, if set (``--chat-log``; off by default).
    chat_log: str | None = None
    #: A ``postgresql://`` URL (``--db``): the store lives there, shared by hubs on several
    #: machines; None keeps it in the SQLite file in the data folder (the default).
    db: str | None = None
