"""Messages encoded once for many recipients.

A lobby update goes to every client in the lobby, and most get the very same one. Encoding
it for each would make a flush cost grow with the players online; instead its parts are
encoded once and each recipient's frame is joined from them (msgpack maps and arrays are a
header followed by their items' encodings, so the bytes are exactly what ``encode`` would
make of the whole). :class:`Prepared` carries the message with its frame, and
``Session.deliver`` writes the frame as it is.
"""

from __future__ import annotations

import struct
from typing import Any

from protocol.codec import HEADER, packb


class Prepared(dict):
    """A message with its frame already made (the dict is what the frame decodes to)."""

    __slots__ = ("frame",)

    def __init__(self, message: dict[str, Any], frame: bytes) -> None:
        super().__init__(message)
        self.frame = frame


#: One value's msgpack encoding, as ``protocol.codec.encode`` makes it.
packed = packb


def _header(n: int, fix: int, b16: int, b32: int) -> bytes:
    if n < 16:
        return bytes((fix | n,))
    if n < 0x10000:
        return struct.pack(">BH", b16, n)
    return struct.pack(">BI", b32, n)


def array_of(items: list[bytes]) -> bytes:
    """The encoding of an array whose items' encodings are ``items``."""
    return _header(len(items), 0x90, 0xDC, 0xDD) + b"".join(items)


def map_of(count: int, pairs: bytes) -> bytes:
    """The encoding of a map of ``count`` entries whose (key, value) encodings, joined in
    order, are ``pairs``."""
    return _header(count, 0x80, 0xDE, 0xDF) + pairs


def map_frame(pairs: list[tuple[bytes, bytes]]) -> bytes:
    """A whole frame for a map given as (encoded key, encoded value) pairs, in order."""
    body = map_of(len(pairs), b"".join(k + v for k, v in pairs))
    return HEADER.pack(len(body)) + body
