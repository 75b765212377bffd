"""``gambit admin …``: an admin's powers from the command line of the server's machine.

It talks to the running server (``gambit serve`` or ``gambit hub``) over the hub's unix socket
in the data folder, which only the server's owner can open, as the admin ``admin:local``; the
hub does the work and logs it (server/hub/admin.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from protocol.connection import ConnectionClosed, open_unix
from protocol.messages import PROTOCOL_VERSION

SOCKET_NAME = "hub.sock"
LOCAL_ADMIN = "admin:local"


def duration(text: str) -> int:
    """Seconds, from ``90``, ``30s``, ``5m``, ``2h`` or ``7d``."""
    match = re.fullmatch(r"\s*(\d+)\s*([smhd]?)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (say 30s, 5m, 2h or 7d)")
    number, unit = int(match.group(1)), match.group(2) or "s"
    return number * {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit]


def add_admin_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", help="the server's data folder (default: per-user)")
    parser.add_argument("--json", action="store_true", help="print the hub's answer as JSON")
    ops = parser.add_subparsers(dest="op", required=True)
    ops.add_parser("sessions", help="who is connected: name, key, address, tables, idle time")
    who = ops.add_parser("kick", help="end a player's sessions; their seats pass to bots")
    who.add_argument("who", help="a name or a key fingerprint")
    who.add_argument("--reason")
    ban = ops.add_parser("ban", help="ban a player's key and/or an address")
    ban.add_argument("who", nargs="?", help="a name or a key fingerprint")
    ban.add_argument("--address", help="an IP address")
    ban.add_argument("--for", dest="seconds", type=duration, help="how long (default: for good)")
    ban.add_argument("--reason")
    unban = ops.add_parser("unban", help="lift the bans on a key and/or an address")
    unban.add_argument("who", nargs="?")
    unban.add_argument("--address")
    ops.add_parser("bans", help="the bans in force")
    mute = ops.add_parser("mute", help="stop a player's chat for a while")
    mute.add_argument("who")
    mute.add_argument("--for", dest="seconds", type=duration, help="how long (default: 1h)")
    mute.add_argument("--reason")
    unmute = ops.add_parser("unmute", help="let a muted player chat again")
    unmute.add_argument("who")
    say = ops.add_parser("broadcast", help="a notice to everyone connected")
    say.add_argument("text")
    motd = ops.add_parser("motd", help="the message of the day on the welcome screen")
    motd.add_argument("text", help='the message ("" for none)')
    close = ops.add_parser("close-table", help="close a table, refunding a pot in play")
    close.add_argument("table", type=int)
    close.add_argument("--reason")
    chips = ops.add_parser("chips", help="give a player chips from the bank (negative: take)")
    chips.add_argument("who")
    chips.add_argument("amount", type=int)
    chips.add_argument("--reason", required=True)
    ops.add_parser("audit", help="check the chips' ledger")
    ops.add_parser("reports", help="chat lines players reported")
    ops.add_parser("log", help="what admins did, newest first")
    restart = ops.add_parser(
        "restart", help="count down, let no new game start, then stop the server in order"
    )
    restart.add_argument("--in", dest="seconds", type=duration, default=0, help="e.g. 5m")
    ops.add_parser("cancel-restart", help="call an announced restart off")


def request_of(args: argparse.Namespace) -> dict[str, Any]:
    message: dict[str, Any] = {"t": "admin", "op": args.op.replace("-", "_")}
    for field in ("who", "address", "seconds", "reason", "text", "table", "amount"):
        value = getattr(args, field, None)
        if value is not None:
            message[field] = value
    return message


async def ask(socket_path: Path, message: dict[str, Any], timeout: float = 30.0) -> dict:
    conn = await open_unix(str(socket_path))
    try:
        await conn.send({"t": "hello", "v": PROTOCOL_VERSION, "identity": LOCAL_ADMIN})
        await conn.send(message)
        deadline = time.monotonic() + timeout
        while True:
            reply = await asyncio.wait_for(conn.recv(), max(0.1, deadline - time.monotonic()))
            if not isinstance(reply, dict):
                continue
            if reply.get("t") in ("admin_reply", "bye"):
                return reply
            if reply.get("t") == "error" and reply.get("ref") == "admin":
                return reply
    finally:
        await conn.close()


def show(reply: dict[str, Any]) -> str:
    data = reply.get("data")
    if isinstance(data, list):
        if not data:
            return "(none)"
        return "\n".join(
            "  ".join(f"{k}={v}" for k, v in item.items() if v not in (None, "", []))
            for item in data
        )
    if isinstance(data, dict):
        return "  ".join(f"{k}={v}" for k, v in data.items())
    return str(data)


def main_admin(args: argparse.Namespace) -> int:
    from server.store import default_data_dir

    folder = Path(args.data_dir) if args.data_dir else default_data_dir()
    socket_path = folder / SOCKET_NAME
    try:
        reply = asyncio.run(ask(socket_path, request_of(args)))
    except (OSError, ConnectionClosed, TimeoutError) as err:
        sys.stderr.write(
            f"gambit admin: no running server answers at {socket_path} ({err}); "
            "is it running with this --data-dir?\n"
        )
        return 1
    if reply["t"] != "admin_reply":
        sys.stderr.write(f"gambit admin: {reply.get('message')}\n")
        return 1
    print(json.dumps(reply["data"]) if args.json else show(reply))
    return 0
