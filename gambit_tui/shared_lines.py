"""Lines made once for every app in the process that shows the same public thing.

An app worker (or the in-process host) holds the apps of a table's players together. What
those players have in common (the table's log, as it fits a panel of a given size) was built,
compared with what was shown and turned into strips by each app on its own, after every move.
Here it is made by the first app that needs it, under a key naming everything it depends on
(the lines it is made of, the width and height, the style), and the other apps take the very
same object. Because a :class:`SharedList` is one object for all of them, a widget's change
from one shared list to the next (which rows changed, their strips) is also worked out once:
see ``TextLines._sync_lines``.

Only what every reader sees alike goes in: a player's hand, prompt and own seat never do.
The caches are bounded: the oldest entries go first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from rich.text import Text
from textual.strip import Strip

V = TypeVar("V")


class SharedList(list[Text]):
    """Lines made once for every app (see the module): never changed once made, so its
    identity names its content."""


class SharedCache(Generic[V]):
    """A bounded map of made things, counting hits and misses (the tests read them)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._made: dict[Hashable, V] = {}
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._made)

    def get(self, key: Hashable) -> V | None:
        found = self._made.get(key)
        if found is not None:
            self.hits += 1
        return found

    def put(self, key: Hashable, value: V) -> V:
        self.misses += 1
        made = self._made
        made[key] = value
        while len(made) > self.limit:
            del made[next(iter(made))]
        return value

    def made(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value under ``key``, made by ``make`` if no app made it yet."""
        found = self.get(key)
        return found if found is not None else self.put(key, make())

    def clear(self) -> None:
        self._made.clear()
        self.hits = self.misses = 0


#: A log's shown tail, by the ids of the lines it may show, the size and the console's
#: ``id`` (wrapping reads it): the value keeps those lines, so their ids are not reused.
LOG_TAILS: SharedCache[tuple[tuple[Text, ...], SharedList]] = SharedCache(512)
#: A widget's change from one shared list to another: by the two lists' ids and what else
#: its strips depend on (width, base style, height), the rows that changed and the new
#: strips. The value keeps both lists, so their ids are not reused meanwhile.
TRANSITIONS: SharedCache[tuple[object, object, list[int], list[Strip]]] = SharedCache(1024)
