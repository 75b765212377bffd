"""Serve the hub over a stream socket, so a client can live in another process.

A unix socket in the data directory is *trusted* (only local users with access to that
folder reach it, like the SSH front end); a TCP listener is not: its clients are guests.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import stat
from pathlib import Path

from protocol.codec import MAX_CLIENT_FRAME, encode
from protocol.connection import StreamConnection
from server.admission import Admission, AdmissionLimits

from .hub import Hub

log = logging.getLogger(__name__)


class SocketInUse(OSError):
    """The socket path belongs to a process that still answers on it, or is no socket."""


def remove_stale_socket(path: str) -> None:
    """Unlink ``path`` if it is a socket nobody listens on (left by a killed hub).

    A live socket is another hub's: unlinking it would cut that hub off from every new
    client while it runs on, so that, and anything that is not a socket, is refused.
    """
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise SocketInUse(f"{path} exists and is not a socket; not replacing it")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)  # stale: its listener is gone
        return
    except OSError:
        pass  # e.g. a full backlog or a timeout: somebody is there
    finally:
        probe.close()
    raise SocketInUse(f"{path} is in use by a running hub")


async def serve_unix(hub: Hub, path: str | Path, *, trusted: bool = True) -> asyncio.Server:
    """Listen on a unix socket at ``path``, replacing only a stale one (see above)."""
    path = str(path)
    remove_stale_socket(path)

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = StreamConnection(
            reader, writer, max_frame=MAX_CLIENT_FRAME, trusted=trusted, peer="unix"
        )
        await hub.serve(conn)

    server = await asyncio.start_unix_server(on_client, path)
    os.chmod(path, 0o600)
    return server


async def serve_tcp(
    hub: Hub, host: str, port: int, limits: AdmissionLimits | None = None
) -> asyncio.Server:
    """Listen for guests on TCP. Each address may hold a few connections and open new ones at
    a bounded rate (see server/admission.py): every connection is a new guest with a fresh
    budget, so a client that hangs up and comes back must not be able to do so at will."""
    admission = Admission(limits or AdmissionLimits())

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        address = str(peer[0]) if peer else "?"
        refusal = admission.refusal(address)
        if refusal is not None:
            if admission.explain(address):  # the first few times a minute: said and logged
                log.info("refused a hub connection from %s: %s", address, refusal)
                with contextlib.suppress(Exception):
                    writer.write(encode({"t": "bye", "code": "refused", "message": refusal}))
            writer.close()
            return
        admission.opened(writer, address)
        admission.authenticated(writer)  # the hub's hello timeout bounds one that says nothing
        conn = StreamConnection(
            reader, writer, max_frame=MAX_CLIENT_FRAME, trusted=False, peer=address
        )
        try:
            await hub.serve(conn)
        finally:
            admission.closed(writer, address)

    return await asyncio.start_server(on_client, host, port)
