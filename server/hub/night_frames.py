"""Game nights' messages for many readers: made and encoded once per change.

Every follower of an event is sent its standings at each change (a table's end, a
registration, a round seated): all 400 players of a big night, 100 tables ending within a few
seconds. Most of a ``night`` message is the same for every reader (the event's rules and
state, the standings' rows); only a few fields are the reader's own (``you``, ``hosting``,
``table``, ``bye``, and the ``you`` mark on their own row). So the common part is worked out
and encoded once per change, and each reader's frame is joined from it and their own few
encodings (see frames.py): the very bytes ``encode`` would make of their whole message. The
list of events (``nights``) is made the same way, each event's entry encoded once for each
way of reading it (registered or not, hosting or not).
"""

from __future__ import annotations

from typing import Any

from .frames import Prepared, array_of, map_frame, map_of, packed

#: A summary's fields that depend on its reader (see ``Nights.summary``).
READER_FIELDS = ("you", "hosting")
_KEYS = {
    k: packed(k) for k in ("t", "night", "nights", "standings", "table", "bye", *READER_FIELDS)
}
_SMALL = {(type(v), v): packed(v) for v in (True, False, None)}


def _value(value: Any) -> bytes:
    """A reader's small value (a flag, a table id), its encoding kept when it is a flag."""
    done = _SMALL.get((type(value), value))
    return done if done is not None else packed(value)


def _pairs(fields: dict[str, Any]) -> bytes:
    return b"".join(packed(k) + packed(v) for k, v in fields.items())


class SharedNight:
    """One event's ``night`` message at one change, for any number of readers.

    ``common``: the event's summary without its reader's fields; ``rows``: its standings as
    ``Nights.standing_rows`` makes them (each with the player's ``id``, never sent)."""

    def __init__(self, common: dict[str, Any], rows: list[dict[str, Any]]) -> None:
        self.common = {k: v for k, v in common.items() if k not in READER_FIELDS}
        self.rows = [{**{k: v for k, v in r.items() if k != "id"}, "you": False} for r in rows]
        self.row_of = {r["id"]: i for i, r in enumerate(rows)}
        self.encoded_rows = [packed(r) for r in self.rows]
        self.encoded_common = _pairs(self.common)
        self.standings = array_of(self.encoded_rows)
        #: The round's players' tables (player key -> table id) and its byes, when a round
        #: is under way (the hub fills them in once per change).
        self.tables: dict[str, int | None] = {}
        self.byes: frozenset[str] = frozenset()
        #: Readers without a row of their own shown, by their own fields: most of a big
        #: night's followers (360 of 400), at 100 tables, read one of about 100 messages.
        self._made: dict[tuple[bool, bool, int | None, bool], Prepared] = {}

    def message(
        self, pid: str, *, you: bool, hosting: bool, table: int | None, bye: bool
    ) -> Prepared:
        """The message as ``pid`` reads it: only their own row (if shown) and their few
        fields are encoded here; a reader without a row shares it with every reader of the
        same fields."""
        index = self.row_of.get(pid)
        if index is None:
            key = (you, hosting, table, bye)
            made = self._made.get(key)
            if made is None:
                made = self._made[key] = self._message(
                    self.rows, self.standings, you=you, hosting=hosting, table=table, bye=bye
                )
            return made
        rows = list(self.rows)
        own = rows[index] = {**rows[index], "you": True}
        encoded = list(self.encoded_rows)
        encoded[index] = packed(own)
        return self._message(
            rows, array_of(encoded), you=you, hosting=hosting, table=table, bye=bye
        )

    def _message(
        self,
        rows: list[dict[str, Any]],
        standings: bytes,
        *,
        you: bool,
        hosting: bool,
        table: int | None,
        bye: bool,
    ) -> Prepared:
        own_fields = {"you": you, "hosting": hosting, "table": table, "bye": bye}
        k = _KEYS
        body = map_of(
            len(self.common) + len(own_fields) + 1,
            self.encoded_common
            + b"".join(k[key] + _value(v) for key, v in own_fields.items())
            + k["standings"]
            + standings,
        )
        frame = map_frame([(k["t"], k["night"]), (k["night"], body)])
        info = {**self.common, **own_fields, "standings": rows}
        return Prepared({"t": "night", "night": info}, frame)


class SharedList:
    """The ``nights`` message at one change, for any number of readers: each event's entry
    encoded once for each (``you``, ``hosting``) it is read with."""

    def __init__(self, summaries: list[dict[str, Any]]) -> None:
        self.common = [{k: v for k, v in s.items() if k not in READER_FIELDS} for s in summaries]
        self.encoded = [_pairs(c) for c in self.common]
        self.entries: dict[tuple[int, bool, bool], bytes] = {}

    def message(self, reading: list[tuple[bool, bool]]) -> Prepared:
        """The list as a reader reads it: ``reading`` is, event by event in order, whether
        they are registered and whether they host it."""
        k = _KEYS
        encoded = []
        listed = []
        for index, (you, hosting) in enumerate(reading):
            key = (index, you, hosting)
            entry = self.entries.get(key)
            if entry is None:
                entry = self.entries[key] = map_of(
                    len(self.common[index]) + 2,
                    self.encoded[index] + k["you"] + _value(you) + k["hosting"] + _value(hosting),
                )
            encoded.append(entry)
            listed.append({**self.common[index], "you": you, "hosting": hosting})
        frame = map_frame([(k["t"], k["nights"]), (k["nights"], array_of(encoded))])
        return Prepared({"t": "nights", "nights": listed}, frame)
