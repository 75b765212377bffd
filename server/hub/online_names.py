"""Who online is called what: a name is refused if someone online has it (ignoring case) or
one that looks like it (the same confusable skeleton).

Kept as an index, updated when a player arrives, renames or leaves: asking it once per
``hello`` by going through everyone online made ten thousand arrivals cost a hundred million
skeletons.
"""

from __future__ import annotations

from server.store import skeleton


class OnlineNames:
    def __init__(self) -> None:
        self._names: dict[str, tuple[str, str, str]] = {}  # player id -> name, folded, skeleton
        self._by: dict[tuple[str, str], dict[str, None]] = {}  # key -> player ids, in order

    def add(self, pid: str, name: str) -> None:
        """``pid`` is online under ``name`` (again, or renamed)."""
        self.remove(pid)
        entry = (name, name.casefold(), skeleton(name))
        self._names[pid] = entry
        for key in (("name", entry[1]), ("skeleton", entry[2])):
            self._by.setdefault(key, {})[pid] = None

    def remove(self, pid: str) -> None:
        entry = self._names.pop(pid, None)
        if entry is None:
            return
        for key in (("name", entry[1]), ("skeleton", entry[2])):
            ids = self._by.get(key)
            if ids is not None:
                ids.pop(pid, None)
                if not ids:
                    del self._by[key]

    def like(self, name: str, pid: str) -> str | None:
        """The name of another player online called ``name`` (ignoring case), else of one
        whose name looks like it; None if there is none."""
        for key in (("name", name.casefold()), ("skeleton", skeleton(name))):
            for other in self._by.get(key, ()):
                if other != pid:
                    return self._names[other][0]
        return None
