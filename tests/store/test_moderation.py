"""Bans, mutes, ignores, reports, the message of the day and the admins' log, as stored."""

from __future__ import annotations

import pytest

from server.store import Store


def test_bans_by_key_or_address_lapse_and_lift(store: Store):
    now = store._clock()
    key = store.add_ban(fingerprint="SHA256:m", address=None, until=None, reason="spam", by="A")
    addr = store.add_ban(
        fingerprint=None, address="203.0.113.9", until=now + 3600, reason="flood", by="A"
    )
    store.add_ban(fingerprint="SHA256:old", address=None, until=now - 1, reason="x", by="A")
    assert key != addr
    assert store.ban_on(fingerprint="SHA256:m") == {"id": key, "until": None, "reason": "spam"}
    assert store.ban_on(address="203.0.113.9")["id"] == addr
    assert store.ban_on(fingerprint="SHA256:m", address="203.0.113.9")["id"] == key  # for good
    assert store.ban_on(fingerprint="SHA256:old") is None  # lapsed
    assert store.ban_on(fingerprint=None, address=None) is None
    assert [b["id"] for b in store.bans()] == [addr, key]
    assert store.lift_bans(fingerprint="SHA256:m") == 1
    assert store.ban_on(fingerprint="SHA256:m") is None
    assert store.lift_bans(address="198.51.100.1") == 0
    with pytest.raises(ValueError):
        store.add_ban(fingerprint=None, address=None, until=None, reason="?", by="A")


def test_mutes_ignores_reports_motd_and_the_admin_log(store: Store):
    now = store._clock()
    store.set_mute("b", now + 60, "rude", "A")
    store.set_mute("b", now + 120, "very rude", "A")  # replaces
    assert store.mute_on("b") == {"until": now + 120, "reason": "very rude"}
    assert store.lift_mute("b") and not store.lift_mute("b")
    assert store.mute_on("b") is None
    store.set_ignore("a", "b", True)
    store.set_ignore("a", "b", True)  # idempotent
    store.set_ignore("a", "c", True)
    store.set_ignore("a", "c", False)
    assert store.ignored_by("a") == {"b"}
    first = store.add_report("a", "b", {"text": "hi"}, [{"text": "before"}])
    second = store.add_report("a", None, {"text": "?"}, [])
    assert second > first
    assert [(r["id"], r["reported"], r["line"]) for r in store.reports()] == [
        (second, None, {"text": "?"}),
        (first, "b", {"text": "hi"}),
    ]
    assert store.motd() == ""
    store.set_motd("Tournament at 8")
    store.set_motd("Tournament at 9")
    assert store.motd() == "Tournament at 9"
    entry = store.log_admin("A", "kick", {"who": "b"})
    assert store.admin_log() == [
        {
            "id": entry,
            "at": store.admin_log()[0]["at"],
            "by": "A",
            "action": "kick",
            "detail": {"who": "b"},
        }
    ]
