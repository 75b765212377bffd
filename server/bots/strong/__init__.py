"""Strong bots: determinized Monte Carlo search over worlds sampled from a seat's view.

Importing this package registers a ``strong`` bot for each game (see :mod:`.search`).
"""

from __future__ import annotations

from . import fortunes, prophet, prophets_gambit  # noqa: F401
from .search import DEFAULT_THINK_MS, StrongBot

__all__ = ["DEFAULT_THINK_MS", "StrongBot"]
