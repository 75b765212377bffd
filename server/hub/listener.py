"""Serve the hub over a stream socket, so a client can live in another process.

A unix socket in the data directory is *trusted* (only local users with access to that
folder reach it, like the SSH front end); a TCP listener is not: its clients are guests.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from protocol.codec import MAX_CLIENT_FRAME
from protocol.connection import StreamConnection

from .hub import Hub


async def serve_unix(hub: Hub, path: str | Path, *, trusted: bool = True) -> asyncio.Server:
    path = str(path)
    if os.path.exists(path):
        os.unlink(path)

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = StreamConnection(
            reader, writer, max_frame=MAX_CLIENT_FRAME, trusted=trusted, peer="unix"
        )
        await hub.serve(conn)

    server = await asyncio.start_unix_server(on_client, path)
    os.chmod(path, 0o600)
    return server


async def serve_tcp(hub: Hub, host: str, port: int) -> asyncio.Server:
    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = StreamConnection(reader, writer, max_frame=MAX_CLIENT_FRAME, trusted=False)
        await hub.serve(conn)

    return await asyncio.start_server(on_client, host, port)
