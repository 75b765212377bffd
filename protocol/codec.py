"""msgpack frames with a length prefix, and strict checks of what comes in.

A frame is a 4-byte big-endian length followed by that many bytes of msgpack holding one map
with a ``"t"`` (message type). :class:`FrameDecoder` takes bytes as they arrive (any split)
and yields decoded maps or :class:`ProtocolError` values — never raises on bad input, so no
decoding exception can reach the code that handles messages.
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Iterator
from typing import Any

import msgpack

HEADER = struct.Struct(">I")
#: The largest frame a client may send to the hub (chat, actions and forms are small).
MAX_CLIENT_FRAME = 16 * 1024
#: The largest frame the hub sends (a table view with its event log).
MAX_SERVER_FRAME = 1024 * 1024


class ProtocolError(Exception):
    """A frame or message that breaks the protocol. ``code`` is stable, the text readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Packers(threading.local):
    """One msgpack packer per thread, kept: ``msgpack.packb`` makes a new one (and its
    buffer) for every value, which costs more than packing a small message (about 4x)."""

    def __init__(self) -> None:
        self.pack: Callable[[Any], bytes] = msgpack.Packer(use_bin_type=True).pack


_packers = _Packers()


def packb(value: Any) -> bytes:
    """``msgpack.packb(value, use_bin_type=True)``: the same bytes, without a new packer."""
    return _packers.pack(value)


def encode(message: dict[str, Any]) -> bytes:
    """One frame for one message."""
    body = _packers.pack(message)
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes) -> dict[str, Any]:
    """The map inside one frame's body; raises ProtocolError for anything else."""
    try:
        value = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            max_array_len=4096,
            max_map_len=256,
            max_str_len=len(body),
            max_bin_len=0,
            max_ext_len=0,
        )
    except Exception as err:  # msgpack raises several unrelated types for bad bytes
        reason = str(err) or type(err).__name__
        raise ProtocolError("bad_frame", f"The frame is not valid msgpack ({reason}).") from None
    if not isinstance(value, dict) or not isinstance(value.get("t"), str):
        raise ProtocolError("bad_message", "A message must be a map with a string 't'.")
    return value


class FrameDecoder:
    """Reassembles frames from a byte stream. Oversized frames are skipped, not buffered."""

    def __init__(self, max_frame: int = MAX_CLIENT_FRAME) -> None:
        self.max_frame = max_frame
        self._buf = bytearray()
        self._skip = 0

    def feed(self, data: bytes) -> Iterator[dict[str, Any] | ProtocolError]:
        self._buf += data
        while True:
            if self._skip:
                dropped = min(self._skip, len(self._buf))
                del self._buf[:dropped]
                self._skip -= dropped
                if self._skip:
                    return
            if len(self._buf) < HEADER.size:
                return
            (length,) = HEADER.unpack_from(self._buf)
            if length > self.max_frame:
                del self._buf[: HEADER.size]
                self._skip = length
                yield ProtocolError(
                    "frame_too_large",
                    f"A frame of {length} bytes is over the limit of {self.max_frame}.",
                )
                continue
            if len(self._buf) < HEADER.size + length:
                return
            body = bytes(self._buf[HEADER.size : HEADER.size + length])
            del self._buf[: HEADER.size + length]
            try:
                yield decode_body(body)
            except ProtocolError as err:
                yield err
