"""The link's replay (server/bus/replay.py), no NATS needed: a receiver takes each number
once and in order whatever arrives, and a sender keeps what is unacknowledged, within its
bound."""

from __future__ import annotations

import random

from server.bus.replay import Inbox, Outbox


def test_whatever_is_lost_or_repeated_each_message_is_taken_once_in_order():
    rng = random.Random(7)
    outbox, inbox = Outbox(), Inbox()
    taken: list[int] = []
    wire: list[int] = []  # on their way to the receiver, in order
    now = 0.0
    for _ in range(3000):
        now += 0.1
        roll = rng.random()
        if roll < 0.5:
            seq = outbox.add("s", b"x")
            if rng.random() > 0.3:  # (lost otherwise)
                wire.append(seq)
        elif roll < 0.6:  # a heartbeat: the receiver asks for what it misses
            want = inbox.ask(now) if inbox.got < outbox.last else None
            wire += [seq for seq, _, _ in outbox.since(want) or []] if want else []
        elif roll < 0.7 and outbox.last:  # a copy of one sent before
            wire.append(rng.randint(1, outbox.last))
        elif wire:
            seq = wire.pop(0)
            if inbox.take(seq):
                taken.append(seq)
            elif seq > inbox.got + 1:  # a gap: asked for at once
                want = inbox.ask(now)
                wire += [seq for seq, _, _ in outbox.since(want) or []] if want else []
        if rng.random() < 0.1:
            outbox.acked(inbox.got)
    for seq in wire + [seq for seq, _, _ in outbox.since(inbox.got + 1) or []]:
        if inbox.take(seq):
            taken.append(seq)
    assert taken == list(range(1, outbox.last + 1))
    assert outbox.forgotten == 0


def test_a_receiver_asks_once_a_second_for_the_same_gap():
    inbox = Inbox()
    assert inbox.take(1) and not inbox.take(3)
    assert inbox.ask(10.0) == 2
    assert inbox.ask(10.5) is None
    assert inbox.ask(11.0) == 2
    assert inbox.take(2) and inbox.ask(11.1) == 3
    assert not inbox.take(2) and not inbox.take(1)  # copies
    assert inbox.take(9, reset=True) and inbox.got == 9  # the sender starts again there


def test_the_sender_keeps_what_is_unacknowledged_up_to_its_bound():
    outbox = Outbox(limit=10 * (100 + 64))
    for i in range(1, 21):
        assert outbox.add(f"s{i}", bytes(100)) == i
    assert outbox.first == 11  # the ten oldest forgotten, never acknowledged
    assert outbox.forgotten == 10
    assert outbox.since(10) is None  # asked for one forgotten: it cannot send it again
    assert [(seq, subject) for seq, subject, _ in outbox.since(19) or []] == [
        (19, "s19"),
        (20, "s20"),
    ]
    outbox.acked(18)
    assert outbox.first == 19 and outbox.since(21) == []
    outbox.clear()
    assert outbox.first == outbox.next == 21 and outbox.since(21) == []
