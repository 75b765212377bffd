"""``gambit event …``: the host's side of a game night from the server's command line.

Like ``gambit admin`` it talks to the running server over the hub's trusted unix socket in
the data folder, as the local admin ``admin:local``, and asks the hub exactly what the Events
screen asks (``night`` requests): the hub checks and does the work, so an event made here is
hosted by the local admin, and an admin may act on anyone's event. Players see such an event
hosted by the name ``--host`` gives, else by the server's name (:func:`server_name`): the local
admin is a tool with no name of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any

from protocol.connection import Connection, ConnectionClosed, open_unix
from protocol.fields import ACCESS, MAX_NAME, NIGHT_FILLS, NIGHT_FORMATS
from protocol.messages import PROTOCOL_VERSION

from .admin_cli import LOCAL_ADMIN, SOCKET_NAME, duration

#: Seconds to wait for the hub's answer.
TIMEOUT = 30.0


def server_name(hostname: str | None = None) -> str:
    """The host players see for an event made here without ``--host``: the server's name as
    the local network lists it ("Gambit on box", server/announce.py), or just the machine's
    name when that is too long for a name (24 letters)."""
    machine = (hostname or socket.gethostname()).split(".")[0]
    machine = re.sub(r"[^\w .'-]+", "", machine).strip()
    listed = f"Gambit on {machine}"
    if not machine or len(listed) <= MAX_NAME:
        return listed if machine else "Gambit"
    return machine[:MAX_NAME].strip()


def add_event_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", help="the server's data folder (default: per-user)")
    ops = parser.add_subparsers(dest="op", required=True)
    ops.add_parser("list", help="the server's events: id, name, game, format, host, players, state")
    create = ops.add_parser("create", help="make an event (hosted by the local admin)")
    create.add_argument("name", help="the event's name (up to 24 letters)")
    create.add_argument(
        "--host", help="the name players see as its host (default: the server's name)"
    )
    create.add_argument("--game", default="prophets_gambit")
    create.add_argument("--players", type=int, default=3, help="players at each table")
    create.add_argument("--format", choices=NIGHT_FORMATS, default="swiss")
    create.add_argument("--rounds", type=int, default=3)
    create.add_argument("--fill", choices=NIGHT_FILLS, default="bots", help="players left over")
    create.add_argument(
        "--access", choices=ACCESS, default="everyone", help="who may register (invited: invite)"
    )
    create.add_argument("--bots", default="heuristic", help="the level of bots filling seats")
    create.add_argument("--timer", type=int, help="the turn timer, seconds (default: server's)")
    create.add_argument("--starts-in", type=duration, help="seat round 1 by itself, e.g. 20m")
    create.add_argument("--closes-in", type=duration, help="no round seated after, e.g. 3h")
    for op, text in (
        ("start", "seat the next round now (early)"),
        ("pause", "seat no next round by itself until resumed"),
        ("resume", "go on after a pause"),
        ("cancel", "call the event off (a round's tables close, stakes go back)"),
    ):
        ops.add_parser(op, help=text).add_argument("id", type=int)
    extend = ops.add_parser("extend", help="more rounds than planned")
    extend.add_argument("id", type=int)
    extend.add_argument("rounds", type=int, nargs="?", default=1)
    remove = ops.add_parser("remove", help="take a player out of the event")
    remove.add_argument("id", type=int)
    remove.add_argument("player", help="their name")
    for op, text in (
        ("invite", "let a player register (whatever the access); told if online"),
        ("uninvite", "take an invitation back"),
    ):
        invite = ops.add_parser(op, help=text)
        invite.add_argument("id", type=int)
        invite.add_argument("player", help="their name")


def request_of(args: argparse.Namespace, now: float) -> dict[str, Any]:
    """The ``night`` request the arguments ask for (``now``: wall-clock seconds)."""
    if args.op == "list":
        return {"t": "night", "op": "list"}
    if args.op == "create":
        message: dict[str, Any] = {
            "t": "night",
            "op": "create",
            "name": args.name,
            "game": args.game,
            "players": args.players,
            "format": args.format,
            "rounds": args.rounds,
            "fill": args.fill,
            "bots": args.bots,
            "access": args.access,
            "host": args.host if args.host is not None else server_name(),
        }
        if args.timer is not None:
            message["timer"] = args.timer
        if args.starts_in is not None:
            message["starts_at"] = int(now + args.starts_in)
        if args.closes_in is not None:
            message["closes_at"] = int(now + args.closes_in)
        return message
    message = {"t": "night", "op": args.op, "night": args.id}
    if args.op == "extend":
        message["rounds"] = args.rounds
    if args.op in ("remove", "invite", "uninvite"):
        message["player"] = args.player
    return message


def _done(request: dict[str, Any], reply: dict[str, Any]) -> bool:
    """Whether ``reply`` is the hub's answer to ``request`` (it says nothing else is)."""
    if reply.get("t") == "error" and reply.get("ref") == "night":
        return True
    op = request["op"]
    if op in ("invite", "uninvite"):  # the host is told in a notice
        return reply.get("t") == "notice" and reply.get("code") in ("invited", "night_uninvited")
    if op == "list":
        return reply.get("t") == "nights"
    if reply.get("t") != "night":
        return False
    night = reply["night"]
    if op == "create":
        return night["name"] == " ".join(request["name"].split())
    if night["id"] != request["night"]:
        return False
    return {
        "cancel": night["status"] == "cancelled",
        "pause": night.get("paused") is True,
        "resume": night.get("paused") is False,
        "start": night["status"] == "playing",
    }.get(op, True)


async def _answer(conn: Connection, request: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        reply = await asyncio.wait_for(conn.recv(), max(0.1, deadline - time.monotonic()))
        if isinstance(reply, dict) and (_done(request, reply) or reply.get("t") == "bye"):
            return reply


async def ask(socket_path: Path, request: dict[str, Any]) -> dict[str, Any]:
    """The hub's answer to one ``night`` request, as the local admin."""
    conn = await open_unix(str(socket_path))
    try:
        await conn.send({"t": "hello", "v": PROTOCOL_VERSION, "identity": LOCAL_ADMIN})
        if request["op"] not in ("list", "create"):  # its changes come to who follows it
            await conn.send({"t": "night", "op": "watch", "night": request["night"]})
            watched = await _answer(conn, {**request, "op": "watch"})
            if watched.get("t") != "night":
                return watched
        await conn.send(request)
        return await _answer(conn, request)
    finally:
        await conn.close()


def show(reply: dict[str, Any]) -> str:
    """The answer as lines for a person."""
    if reply.get("t") == "nights":
        rows = [
            f"{n['id']}  {n['name']}  {n['game']}  {n['format']}  host={n['host']}  "
            f"players={n['registered']}  "
            f"round={n['round']}/{n['rounds']}  {n['status']}"
            + ("  paused" if n.get("paused") else "")
            + (f"  next_in={n['next_in']}s" if n.get("next_in") is not None else "")
            for n in reply["nights"]
        ]
        return "\n".join(rows) or "(none)"
    night = reply["night"]
    return (
        f"event {night['id']} {night['name']}: {night['status']}, round "
        f"{night['round']} of {night['rounds']}, {night['registered']} registered"
        + (", paused" if night.get("paused") else "")
    )


def main_event(args: argparse.Namespace) -> int:
    from server.store import default_data_dir

    folder = Path(args.data_dir) if args.data_dir else default_data_dir()
    socket_path = folder / SOCKET_NAME
    try:
        reply = asyncio.run(ask(socket_path, request_of(args, time.time())))
    except (OSError, ConnectionClosed, TimeoutError) as err:
        sys.stderr.write(
            f"gambit event: no running server answers at {socket_path} ({err}); "
            "is it running with this --data-dir?\n"
        )
        return 1
    if reply.get("t") == "notice":
        print(reply["message"])
        return 0
    if reply.get("t") not in ("night", "nights"):
        sys.stderr.write(f"gambit event: {reply.get('message')}\n")
        return 1
    print(show(reply))
    return 0
