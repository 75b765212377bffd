"""Who a ``gambit`` channel's client is: its SSH key says so, never its hello.

On a terminal session the server runs the app and writes its hello, so the hub may trust the
identity in it. On the ``gambit`` subsystem the player's own program writes the hello. The
hub's end of that channel is trusted the same way, so every frame up to and including the
first hello passes through :class:`HelloGate`, which puts the SSH login's identity into the
hello (the key's fingerprint, or none for a guest) whatever the client wrote there. After
that first hello the bytes pass untouched: the hub refuses any later hello
(``already_hello``), and a gateway relays them to the hub as they are.
"""

from __future__ import annotations

from protocol.codec import HEADER, MAX_CLIENT_FRAME, ProtocolError, decode_body, encode


class HelloGate:
    """Splits frames until the first hello has passed, and rewrites that hello."""

    def __init__(self, identity: str | None) -> None:
        self.identity = identity
        self.passed = False
        self._buffer = bytearray()

    def feed(self, data: bytes) -> bytes:
        """The bytes to hand the hub for ``data`` received. Raises :class:`ProtocolError`
        for a frame over the size limit before the hello (the channel is then ended: past
        it the gate could not tell where frames begin)."""
        if self.passed:
            return data
        buffer = self._buffer
        buffer += data
        out = bytearray()
        while len(buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(buffer)
            if length > MAX_CLIENT_FRAME:
                raise ProtocolError(
                    "frame_too_large",
                    f"A frame of {length} bytes is over the limit of {MAX_CLIENT_FRAME}.",
                )
            end = HEADER.size + length
            if len(buffer) < end:
                break
            frame = bytes(buffer[:end])
            del buffer[:end]
            try:
                message = decode_body(frame[HEADER.size :])
            except ProtocolError:
                out += frame  # the hub answers it as it answers any bad frame
                continue
            if message["t"] != "hello":
                out += frame  # the hub answers "Say hello first."
                continue
            message.pop("identity", None)
            if self.identity is not None:
                message["identity"] = self.identity
            out += encode(message)
            out += buffer
            buffer.clear()
            self.passed = True
            break
        return bytes(out)
