"""Admins (issue 21): ``gambit admin`` against a running ``gambit serve``, with real SSH clients
and the hub's own socket. A banned key and a banned address are refused at authentication; a
kicked player's seat goes to a bot; a muted player's chat is refused with a message; a
broadcast and the message of the day reach players; a restart counts down and stops the
server in order; every action is stored with who did it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from protocol.connection import open_unix
from tests.hub.harness import Client
from tests.security.clients import LOBBY, WELCOME, connect, shows
from tests.security.procs import serve

ROOT = Path(__file__).resolve().parents[1]


def admin(data: Path, *args: str) -> Any:
    """``gambit admin --json …``: its answer."""
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "admin", "--data-dir", str(data), "--json", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def local(data: Path, identity: str, name: str) -> Client:
    """A trusted client of the hub's socket, as a registered player (to look and to chat)."""
    client = Client(await open_unix(str(data / "hub.sock")))
    client.welcome = await client.hello(name, identity=identity)  # type: ignore[attr-defined]  # noted on the test's client
    return client


class KeyClient(asyncssh.SSHClient):
    pass


async def with_key(port: int, key: asyncssh.SSHKey, name: str, source: str | None = None):
    conn = await asyncssh.connect(
        "127.0.0.1",
        port,
        username=name,
        known_hosts=None,
        client_keys=[key],
        agent_path=None,
        preferred_auth=["publickey"],
        local_addr=(source, 0) if source else None,
    )
    return conn


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One ``gambit serve`` for the tests below (a server started and stopped for each took
    a worker seconds of waiting): none needs a fresh one, each has names, keys and addresses
    of its own, and what they look up is theirs alone (the newest admin action, their own
    reports and bans, their lines of the chat log)."""
    folder = tmp_path_factory.mktemp("admin")
    data = folder / "data"
    data.mkdir(mode=0o700)
    proc, port = serve(data, "--bot-delay", "0.05", "--chat-log", str(folder / "chat.log"))
    yield proc, port, data
    proc.stop()


async def test_sessions_kick_and_the_seat_goes_to_a_bot(server):
    _proc, port, data = server
    _conn, chan, screen = await connect(port, "Ada", source="127.0.0.21")
    assert await shows(screen, WELCOME)
    chan.write(b"\r")
    assert await shows(screen, LOBBY)
    # Each key once the screen shows what the last one did (fixed pauses of half a second
    # were too short on a loaded machine: the table never started).
    chan.write(b"n")
    assert await shows(screen, "New table")
    await asyncio.sleep(0.3)  # (the dialog drawn, its keys a moment later)
    chan.write(b"\x13")  # a Prophet's Gambit table
    assert await shows(screen, "· stake")
    for seat in (2, 3, 4):
        chan.write(b"b")
        assert await shows(screen, f"Bot {seat}")
    chan.write(b"s")
    watcher = await local(data, "SHA256:watcher", "Watcher")
    await watcher.until(
        lambda m: (
            m["t"] in ("lobby", "lobby_update")
            and any(t["status"] == "playing" for t in m["tables"])
        )
    )
    sessions = admin(data, "sessions")
    (ada,) = [s for s in sessions if s["name"] == "Ada"]
    assert ada["address"] == "127.0.0.21" and ada["tables"] and ada["idle"] is not None
    table = ada["tables"][0]
    assert admin(data, "kick", "Ada", "--reason", "testing") == {"kicked": 1}
    for _ in range(100):  # the player is told why, and their session ends
        if screen.closed:
            break
        await asyncio.sleep(0.1)
    assert screen.closed and b"testing" in bytes(screen.raw), bytes(screen.raw[-300:])
    row = await watcher.until(
        lambda m: (
            m["t"] == "lobby_update"
            and any(t["id"] == table and t["seats"][0]["bot"] for t in m["tables"])
        )
    )
    seat = next(t for t in row["tables"] if t["id"] == table)["seats"][0]
    assert seat["name"] is None and seat["reserved"] is None  # a bot's for good
    log = admin(data, "log")
    assert log[0]["action"] == "kick" and log[0]["by"] == "admin:local"
    assert log[0]["detail"] == {"who": "Ada", "reason": "testing"}


async def test_banned_keys_and_addresses_are_refused_at_authentication(server):
    _proc, port, data = server
    mallory = asyncssh.generate_private_key("ssh-ed25519")
    conn = await with_key(port, mallory, "Mallory", source="127.0.0.31")
    _chan, screen = await conn.create_session(
        lambda: __import__("tests.security.clients", fromlist=["Screen"]).Screen(80, 24),
        term_type="xterm-256color",
        term_size=(80, 24),
        encoding=None,
    )
    assert await shows(screen, WELCOME)
    fingerprint = mallory.get_fingerprint("sha256")
    answer = admin(data, "ban", fingerprint, "--for", "1h", "--reason", "cheating")
    assert answer["kicked"] == 1 and answer["until"] > time.time() + 3000
    with pytest.raises(asyncssh.DisconnectError, match="banned from this server until"):
        await with_key(port, mallory, "Mallory", source="127.0.0.32")
    # The address: anyone from there is refused before logging in; others come in.
    admin(data, "ban", "--address", "127.0.0.33", "--reason", "flood")
    with pytest.raises(asyncssh.DisconnectError, match="banned from this server for good"):
        await connect(port, "Eve", source="127.0.0.33")
    ok, _, _ = await connect(port, "Ben", source="127.0.0.34")
    ok.close()
    bans = admin(data, "bans")
    assert {b["reason"] for b in bans} == {"cheating", "flood"}
    assert admin(data, "unban", "--address", "127.0.0.33") == {"lifted": 1}
    back, _, _ = await connect(port, "Eve", source="127.0.0.33")
    back.close()


async def test_mute_broadcast_motd_and_the_chat_log(server):
    _proc, port, data = server
    admin(data, "motd", "Tournament at 8 pm!")
    conn, chan, screen = await connect(port, "Meg", source="127.0.0.41")
    assert await shows(screen, "Tournament at 8 pm!")  # on the welcome screen
    chan.write(b"\r")
    assert await shows(screen, LOBBY)
    assert admin(data, "broadcast", "Back in 5 minutes")["told"] >= 1
    assert await shows(screen, "Back in 5 minutes")
    bob = await local(data, "SHA256:bob", "Bob")
    await bob.send("chat", channel="lobby", text="hello all")
    await bob.expect("chat")
    admin(data, "mute", "Bob", "--for", "10m", "--reason", "shouting")
    refused = await bob.until(lambda m: m["t"] == "error" and m["code"] == "muted")
    assert "shouting" in refused["message"]
    await bob.send("chat", channel="lobby", text="still here")
    error = await bob.until(lambda m: m["t"] == "error" and m.get("ref") == "chat")
    assert error["code"] == "muted" and "until" in error["message"]
    admin(data, "unmute", "Bob")
    await bob.send("chat", channel="lobby", text="thank you")
    await bob.until(lambda m: m["t"] == "chat" and m["text"] == "thank you")
    chat_log = (data.parent / "chat.log").read_text()
    assert "lobby Bob (SHA256:bob): hello all" in chat_log and "still here" not in chat_log
    conn.close()


async def test_chips_close_table_and_audit(server):
    _proc, _port, data = server
    ada = await local(data, "SHA256:cid", "Cid")
    assert admin(data, "chips", "Cid", "250", "--reason", "prize")["balance"] == 1250
    you = await ada.until(lambda m: m["t"] == "you" and m["chips"] == 1250)
    assert you["chips"] == 1250
    await ada.send("create_table", game="prophet", players=3, stake=50)
    table = (await ada.until(lambda m: m["t"] == "table"))["table"]
    for seat in (1, 2):
        await ada.send("add_bot", table=table, seat=seat)
    await ada.until(
        lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
    )
    await ada.send("start", table=table)
    await ada.until(lambda m: m["t"] == "you" and m["chips"] == 1200)  # the ante
    assert admin(data, "close-table", str(table), "--reason", "stuck") == {"closed": table}
    note = await ada.until(lambda m: m["t"] == "error" and m["code"] == "table_closed")
    assert "stuck" in note["message"]
    assert admin(data, "audit") == {"problems": [], "ledger_total": 0}
    with pytest.raises(AssertionError):  # taking more than they have is refused
        admin(data, "chips", "Cid", "-999999", "--reason", "x")


async def test_ignore_and_report(server):
    _proc, _port, data = server
    ada = await local(data, "SHA256:ida", "Ida")
    eve = await local(data, "SHA256:una", "Una")
    await eve.send("chat", channel="lobby", text="rude words")
    await ada.until(lambda m: m["t"] == "chat" and m["text"] == "rude words")
    await ada.send("report", channel="lobby", **{"from": "Una"}, text="rude words")
    await ada.until(lambda m: m["t"] == "notice" and m["code"] == "reported")
    (report,) = admin(data, "reports")
    assert report["reporter"] == "SHA256:ida" and report["reported"] == "SHA256:una"
    assert report["line"]["text"] == "rude words" and report["context"]
    await ada.send("ignore", name="Una", on=True)
    await ada.until(lambda m: m["t"] == "notice" and m["code"] == "ignored")
    await eve.send("chat", channel="lobby", text="more rude words")
    await eve.until(lambda m: m["t"] == "chat" and m["text"] == "more rude words")
    await ada.send("ping", n=5)
    await ada.expect("pong", n=5)
    assert not any(m["t"] == "chat" and m["text"] == "more rude words" for m in ada.log)


def test_a_restart_counts_down_refuses_new_games_and_stops_in_order(tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    proc, _port = serve(data)
    try:
        answer = admin(data, "restart", "--in", "12s")
        assert answer == {"in_seconds": 12.0}

        async def look() -> dict[str, Any]:
            client = await local(data, "SHA256:ada", "Ada")
            await client.send("create_table", game="prophet", players=3)
            return await client.until(lambda m: m["t"] == "error", timeout=10)

        refused = asyncio.run(look())
        assert refused["code"] == "restarting"
        code = proc.wait(30)
        assert code == 75, proc.err  # not 0: a service manager starts it again
    finally:
        proc.stop()
    log = (data.parent / "data.log").read_text()
    assert "stopped for a restart" in log


def test_gambit_admin_without_a_server_says_so(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "admin", "--data-dir", str(tmp_path), "sessions"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 1 and "no running server" in done.stderr


def test_admin_keys_make_an_admin(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    keys = tmp_path / "admins"
    keys.write_text('no-pty,from="*" ' + key.export_public_key().decode() + "# a comment\n")
    from server.hub.cli_options import admin_keys

    fingerprint = key.get_fingerprint("sha256")
    assert admin_keys(str(keys)) == {fingerprint}
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    proc, _port = serve(data, "--admin-keys", str(keys))
    try:

        async def check() -> None:
            boss = await local(data, fingerprint, "Boss")
            player = await local(data, "SHA256:someone", "Someone")
            assert boss.welcome["you"]["admin"] is True  # type: ignore[attr-defined]  # noted on the test's client
            assert player.welcome["you"]["admin"] is False  # type: ignore[attr-defined]  # noted on the test's client
            await boss.send("admin", op="broadcast", text="from the admin screen")
            await boss.until(lambda m: m["t"] == "admin_reply" and m["data"]["told"] == 2)
            await player.until(lambda m: m["t"] == "notice" and m["code"] == "broadcast")
            await player.send("admin", op="kick", who="Boss")
            refused = await player.until(lambda m: m["t"] == "error")
            assert refused["code"] == "not_admin"

        asyncio.run(check())
    finally:
        proc.stop()
