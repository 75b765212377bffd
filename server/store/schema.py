"""The database schema as numbered migrations.

The schema version lives in ``PRAGMA user_version`` (0 for a new, empty file). Migration *n*
upgrades a version ``n - 1`` file to version ``n``; :func:`migrate` applies the missing ones in
order, each in its own transaction together with the version bump, so an upgrade interrupted
by a crash leaves the file at the last complete version and the next start resumes from there.

Rules for changing the schema: never edit a migration that has shipped (files in the field were
made with it); append a new one instead, and give it a test that upgrades a file made at the
previous version with its data in place. Append its PostgreSQL twin to
:mod:`server.store.pg_schema` too: version *n* means the same tables on both.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import msgpack

from . import names

#: Version 1: everything the hub keeps. Kept verbatim so tests can build a genuine v1 file.
V1_SCHEMA = """
CREATE TABLE players (
    id       TEXT PRIMARY KEY,
    name     TEXT,
    name_key TEXT UNIQUE,           -- NFKC + casefold of name: names are unique ignoring case
    lang     TEXT,
    created  REAL NOT NULL
);

-- Double-entry chip ledger: every transfer writes two rows (src -amount, dst +amount) that
-- share a transfer number, so SUM(amount) over the whole table is always 0.
CREATE TABLE ledger (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    transfer INTEGER NOT NULL,
    account  TEXT NOT NULL,
    amount   INTEGER NOT NULL,
    reason   TEXT NOT NULL,
    ref,                            -- no type: an int stays an int, a str a str
    at       REAL NOT NULL
);
CREATE INDEX ledger_account ON ledger (account, id);
CREATE INDEX ledger_transfer ON ledger (transfer);

-- The running balance of each account, kept in the same transaction as its ledger rows so a
-- balance is one lookup rather than a sum over a player's whole history.
CREATE TABLE balances (
    account TEXT PRIMARY KEY,
    balance INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE ratings (
    player_id TEXT NOT NULL,
    game      TEXT NOT NULL,
    mu        REAL NOT NULL,
    sigma     REAL NOT NULL,
    updated   REAL NOT NULL,
    PRIMARY KEY (player_id, game)
) WITHOUT ROWID;

CREATE TABLE friends (
    owner   TEXT NOT NULL,
    friend  TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (owner, friend)
);

CREATE TABLE invites (
    table_id INTEGER NOT NULL,
    invitee  TEXT NOT NULL,
    sender   TEXT NOT NULL,
    status   TEXT NOT NULL CHECK (status IN ('open', 'accepted', 'declined')),
    created  REAL NOT NULL,
    PRIMARY KEY (table_id, invitee)
);
CREATE INDEX invites_invitee ON invites (invitee, status);

-- Finished games: creation parameters plus actions (msgpack), enough to replay each one.
CREATE TABLE games (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id INTEGER,
    game     TEXT,
    params   BLOB NOT NULL,
    history  BLOB NOT NULL,
    outcome  BLOB NOT NULL,
    players  BLOB NOT NULL,
    finished REAL NOT NULL
);
CREATE TABLE game_players (
    game_id   INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_players_player ON game_players (player_id, game_id);

-- Named monotonic counters (the table id), persisted so ids are never reused after a restart.
CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);

-- Live tables: settings/seats/status, the running game's creation params and every action
-- accepted in it, so a killed hub restores each table at its last accepted action.
CREATE TABLE live_tables (
    id      INTEGER PRIMARY KEY,
    info    BLOB NOT NULL,
    params  BLOB,
    updated REAL NOT NULL
);
CREATE TABLE live_actions (
    table_id INTEGER NOT NULL REFERENCES live_tables (id) ON DELETE CASCADE,
    seq      INTEGER NOT NULL,
    seat     INTEGER NOT NULL,
    action   BLOB NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""

#: Version 2: per-player preferences (a msgpack map), backfilled as an empty map.
V2_SCHEMA = """
ALTER TABLE players ADD COLUMN prefs BLOB;
UPDATE players SET prefs = :empty WHERE prefs IS NULL;
"""

#: Version 3: each registered name's confusable skeleton (``names.skeleton``), indexed but not
#: unique (a file may already hold two lookalikes; new ones are refused by ``set_name``), and a
#: small key-value table for facts about the file itself: here which skeleton recipe and data
#: made the stored skeletons. The rows are filled in Python by :func:`fill_skeletons`.
V3_SCHEMA = """
ALTER TABLE players ADD COLUMN name_skeleton TEXT;
CREATE INDEX players_name_skeleton ON players (name_skeleton);
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value
) WITHOUT ROWID;
"""

#: Moderation: bans (by key and/or address), mutes, what players reported, whom they ignore,
#: and every admin action with who did it.
V4_SCHEMA = """
CREATE TABLE bans (
    id          INTEGER PRIMARY KEY,
    fingerprint TEXT,
    address     TEXT,
    until       REAL,
    reason      TEXT NOT NULL,
    by          TEXT NOT NULL,
    created     REAL NOT NULL,
    lifted      REAL
);
CREATE INDEX bans_fingerprint ON bans (fingerprint);
CREATE INDEX bans_address ON bans (address);
CREATE TABLE mutes (
    player_id TEXT PRIMARY KEY,
    until     REAL NOT NULL,
    reason    TEXT NOT NULL,
    by        TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE ignores (
    owner   TEXT NOT NULL,
    ignored TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (owner, ignored)
) WITHOUT ROWID;
CREATE TABLE reports (
    id       INTEGER PRIMARY KEY,
    at       REAL NOT NULL,
    reporter TEXT NOT NULL,
    reported TEXT,
    line     BLOB NOT NULL,
    context  BLOB NOT NULL
);
CREATE TABLE admin_log (
    id     INTEGER PRIMARY KEY,
    at     REAL NOT NULL,
    by     TEXT NOT NULL,
    action TEXT NOT NULL,
    detail BLOB NOT NULL
);
"""

#: Version 5: history and verifiable deals. Each finished game keeps its deal's commitment and
#: revealed seed (``deal``, msgpack; NULL for games finished before), and each player's row
#: what the game did for them (place, chips won or lost, rating change; NULL before). The
#: index serves a history filtered by game and the per-game leaderboards' game counts.
V5_SCHEMA = """
ALTER TABLE games ADD COLUMN deal BLOB;
ALTER TABLE game_players ADD COLUMN place INTEGER;
ALTER TABLE game_players ADD COLUMN chips INTEGER;
ALTER TABLE game_players ADD COLUMN rating_change INTEGER;
CREATE INDEX games_game ON games (game, id);
"""

#: Version 6: friendship is asked for and accepted. A request waits here until the other
#: player answers; accepting it puts each player on the other's list (``friends``).
V6_SCHEMA = """
CREATE TABLE friend_requests (
    sender   TEXT NOT NULL,
    receiver TEXT NOT NULL,
    created  REAL NOT NULL,
    PRIMARY KEY (sender, receiver)
) WITHOUT ROWID;
CREATE INDEX friend_requests_receiver ON friend_requests (receiver, created);
"""

#: Version 7: each finished game keeps its stake (chips each seat put in the pot per stake:
#: ``outcome.contributions``), so its replay shows the pot and every seat's chips (NULL before).
V7_SCHEMA = """
ALTER TABLE games ADD COLUMN stake INTEGER;
"""

#: Version 8: game nights (``server.nights``): each event's rules, entrants and rounds as the
#: hub's own map (msgpack), kept after the event ends (its standings stay readable).
V8_SCHEMA = """
CREATE TABLE nights (
    id      INTEGER PRIMARY KEY,
    info    BLOB NOT NULL,
    updated REAL NOT NULL
);
"""

EMPTY_MAP = msgpack.packb({}, use_bin_type=True)
SKELETON_VERSION_KEY = "skeleton_version"


def statements(script: str) -> list[str]:
    """Split a script into statements so they can run inside *our* transaction.

    ``executescript`` would commit first, which would break the all-or-nothing upgrade.
    """
    out: list[str] = []
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        raise ValueError(f"incomplete SQL statement: {buf.strip()!r}")
    return out


def _run(script: str, **params: object) -> Callable[[sqlite3.Connection], None]:
    def apply(conn: sqlite3.Connection) -> None:
        for stmt in statements(script):
            conn.execute(stmt, params)

    return apply


def fill_skeletons(conn: sqlite3.Connection) -> None:
    """(Re)compute every registered name's skeleton and note the version that made them; call
    inside a transaction. Skeletons come from Python (Unicode data), not from SQL."""
    rows = conn.execute("SELECT id, name FROM players WHERE name IS NOT NULL").fetchall()
    conn.executemany(
        "UPDATE players SET name_skeleton = ? WHERE id = ?",
        [(names.skeleton(name), pid) for pid, name in rows],
    )
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (SKELETON_VERSION_KEY, names.skeleton_version()),
    )


def _v3(conn: sqlite3.Connection) -> None:
    _run(V3_SCHEMA)(conn)
    fill_skeletons(conn)


#: MIGRATIONS[i] upgrades version i to version i + 1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _run(V1_SCHEMA),
    _run(V2_SCHEMA, empty=EMPTY_MAP),
    _v3,
    _run(V4_SCHEMA),
    _run(V5_SCHEMA),
    _run(V6_SCHEMA),
    _run(V7_SCHEMA),
    _run(V8_SCHEMA),
]

#: The version this code writes.
CURRENT_VERSION = len(MIGRATIONS)


def get_version(conn: sqlite3.Connection) -> int:
    return conn.execute("PRAGMA user_version").fetchone()[0]


def refresh_skeletons(conn: sqlite3.Connection) -> bool:
    """Recompute the stored skeletons if another recipe or table made them (a newer
    ``confusable-homoglyphs``); True if it did. For a file at :data:`CURRENT_VERSION`, in
    autocommit mode like :func:`migrate`."""

    def stored() -> object:
        row = conn.execute(
            "SELECT value FROM meta WHERE key = ?", (SKELETON_VERSION_KEY,)
        ).fetchone()
        return row[0] if row else None

    if stored() == names.skeleton_version():
        return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        if stored() == names.skeleton_version():  # another process did it meanwhile
            conn.execute("COMMIT")
            return False
        fill_skeletons(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return True


def migrate(conn: sqlite3.Connection, target: int | None = None) -> int:
    """Bring the file up to ``target`` (default: the latest) one version at a time; return
    the version reached.

    ``conn`` must be in autocommit mode (``isolation_level=None``) so that the explicit
    transactions here are the only ones. The caller checks for a too-new file beforehand.
    """
    if target is None:
        target = len(MIGRATIONS)
    version = get_version(conn)
    while version < target:
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-read under the write lock: another process may have upgraded meanwhile.
            version = get_version(conn)
            if version >= target:
                conn.execute("COMMIT")
                break
            MIGRATIONS[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        version += 1
    return version
