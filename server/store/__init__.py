"""Persistence for the hub: players, chips, ratings, friends, invites, finished games and
live tables in one SQLite file (see :mod:`server.store.store` for why it is built this way),
or in a PostgreSQL database shared by several machines (``--db``; :mod:`server.store.pg`).
"""

from .lock import DataDirInUse, DataDirLock, lock_data_dir
from .names import mixed_script, skeleton
from .schema import CURRENT_VERSION
from .store import (
    BANK,
    DB_NAME,
    InsufficientChips,
    NameTaken,
    Store,
    StoreError,
    default_data_dir,
    name_key,
    player_account,
    pot_account,
)

__all__ = [
    "BANK",
    "CURRENT_VERSION",
    "DB_NAME",
    "DataDirInUse",
    "DataDirLock",
    "InsufficientChips",
    "NameTaken",
    "Store",
    "StoreError",
    "default_data_dir",
    "lock_data_dir",
    "mixed_script",
    "name_key",
    "player_account",
    "pot_account",
    "skeleton",
]
