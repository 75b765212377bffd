"""Frames, validation and both transports of the protocol."""

from __future__ import annotations

import asyncio
import struct

import msgpack
import pytest

from protocol.codec import MAX_CLIENT_FRAME, FrameDecoder, ProtocolError, encode
from protocol.connection import ConnectionClosed, StreamConnection, open_unix, queue_pair
from protocol.messages import CLIENT_MESSAGES, validate_client


def test_frames_round_trip_across_any_split():
    messages = [{"t": "ping", "n": i} for i in range(5)] + [{"t": "chat", "text": "é" * 100}]
    data = b"".join(encode(m) for m in messages)
    for step in (1, 3, 7, len(data)):
        decoder = FrameDecoder()
        out = []
        for i in range(0, len(data), step):
            out.extend(decoder.feed(data[i : i + step]))
        assert out == messages


def test_bad_frames_become_errors_and_decoding_goes_on():
    decoder = FrameDecoder(max_frame=64)
    junk = struct.pack(">I", 3) + b"\xc1\xc1\xc1"  # 0xc1 is never valid msgpack
    not_a_map = struct.pack(">I", 2) + msgpack.packb([1])
    too_big = struct.pack(">I", 1000) + b"x" * 1000
    good = encode({"t": "ping", "n": 1})
    out = list(decoder.feed(junk + not_a_map + too_big + good))
    codes = [o.code if isinstance(o, ProtocolError) else o for o in out]
    assert codes == ["bad_frame", "bad_message", "frame_too_large", {"t": "ping", "n": 1}]


def test_validation_accepts_good_messages_and_names_what_is_wrong():
    assert validate_client({"t": "ping", "n": 3})
    assert validate_client(
        {"t": "create_table", "game": "prophet", "players": 4, "options": {"cap": 3}, "stake": 10}
    )
    cases = [
        ({"t": "nope"}, "unknown_type"),
        ({"t": "ping"}, "invalid"),
        ({"t": "ping", "n": "3"}, "invalid"),
        ({"t": "ping", "n": True}, "invalid"),
        ({"t": "ping", "n": 1, "extra": 1}, "invalid"),
        ({"t": "chat", "channel": "lobby", "text": "x" * 501}, "too_long"),
        ({"t": "chat", "channel": "moon", "text": "hi"}, "invalid"),
        ({"t": "create_table", "game": "chess", "players": 4}, "invalid"),
        ({"t": "act", "table": 1, "action": {"type": "play", "card": [1, 2]}}, "invalid"),
        ({"t": "act", "table": 1, "action": {"a": {"b": {"c": {"d": 1}}}}}, "invalid"),
    ]
    for message, code in cases:
        with pytest.raises(ProtocolError) as err:
            validate_client(message)
        assert err.value.code == code, message


def test_every_client_message_has_a_schema_with_types():
    for kind, fields in CLIENT_MESSAGES.items():
        for name, field in fields.items():
            assert field.types, (kind, name)


async def test_queue_transport_carries_frames_both_ways_and_closes():
    client, hub = queue_pair()
    await client.send({"t": "ping", "n": 1})
    assert await hub.recv() == {"t": "ping", "n": 1}
    await client.send_raw(b"\x00\x00\x00\x01\xc1")
    assert isinstance(await hub.recv(), ProtocolError)
    await hub.send({"t": "pong", "n": 1})
    assert await client.recv() == {"t": "pong", "n": 1}
    await hub.close()
    with pytest.raises(ConnectionClosed):
        await client.recv()
    with pytest.raises(ConnectionClosed):
        await hub.send({"t": "pong", "n": 2})


async def test_stream_transport_over_a_unix_socket(tmp_path):
    received = asyncio.Queue()

    async def on_client(reader, writer):
        conn = StreamConnection(reader, writer, max_frame=MAX_CLIENT_FRAME)
        try:
            while True:
                received.put_nowait(await conn.recv())
        except ConnectionClosed:
            received.put_nowait(None)

    path = str(tmp_path / "s.sock")
    server = await asyncio.start_unix_server(on_client, path)
    try:
        conn = await open_unix(path)
        await conn.send({"t": "ping", "n": 7})
        await conn.send_raw(struct.pack(">I", MAX_CLIENT_FRAME + 1) + b"z" * (MAX_CLIENT_FRAME + 1))
        await conn.send({"t": "ping", "n": 8})
        assert await received.get() == {"t": "ping", "n": 7}
        err = await received.get()
        assert isinstance(err, ProtocolError) and err.code == "frame_too_large"
        assert await received.get() == {"t": "ping", "n": 8}
        await conn.close()
        assert await asyncio.wait_for(received.get(), 2) is None
    finally:
        server.close()
        await server.wait_closed()
