"""What goes on the bus is split to fit NATS' message limit (no NATS needed here)."""

from server.bus import wire


def test_chunks_cover_the_bytes_in_order():
    data = bytes(range(256)) * 5000
    pieces = wire.chunks(data, 100_000)
    assert b"".join(pieces) == data
    assert all(0 < len(p) <= 100_000 for p in pieces)
    assert wire.chunks(b"") == [b""]  # an empty payload (a hang-up) stays one message


def test_batches_stay_under_the_limit_and_keep_the_order():
    items = [[1, b"a" * 300], [2, None], [3, b"b" * 1000], [1, b"c" * 10]]
    groups = wire.packed_batches(items, size=400)
    assert all(sum(len(i[-1] or b"") for i in g) <= 400 for g in groups)
    flat = [i for g in groups for i in g]
    joined: dict[int, bytes] = {}
    for session, data in flat:
        joined[session] = joined.get(session, b"") + (data or b"")
    assert joined == {1: b"a" * 300 + b"c" * 10, 2: b"", 3: b"b" * 1000}
    assert [s for s, _ in flat if s != 3] == [1, 2, 1]
