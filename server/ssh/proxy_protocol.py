"""The PROXY protocol header a TCP balancer (HAProxy ``send-proxy-v2``) puts before SSH.

Behind a balancer every connection comes from the balancer's address, so per-address limits
and bans would see one "player". With ``--proxy-protocol`` each accepted socket must start
with a header naming the real client (version 2, binary; or version 1, one text line), read
here before anything reaches asyncssh. A connection without one is closed: only the balancer
may connect to a gateway that expects them.

Spec: https://www.haproxy.org/download/2.9/doc/proxy-protocol.txt
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket

V2_SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
V1_PREFIX = b"PROXY "
V1_MAX = 107  # the longest v1 line, CRLF included
V2_MAX_BODY = 4096  # addresses and TLVs; far above what a balancer sends
#: Seconds a new connection has to send its header.
HEADER_TIMEOUT = 5.0


class ProxyHeaderError(ValueError):
    """Not a PROXY protocol header, or a broken one."""


def parse_v2(header: bytes, body: bytes) -> str | None:
    """The client address in a v2 header (16 bytes) and its body; None for a LOCAL command
    (the balancer's own health check) or an address family it does not name."""
    if header[:12] != V2_SIGNATURE:
        raise ProxyHeaderError("no PROXY v2 signature")
    version, command = header[12] >> 4, header[12] & 0x0F
    if version != 2:
        raise ProxyHeaderError(f"PROXY version {version}")
    length = int.from_bytes(header[14:16], "big")
    if len(body) != length:
        raise ProxyHeaderError("PROXY v2 body of the wrong length")
    if command == 0:  # LOCAL
        return None
    if command != 1:
        raise ProxyHeaderError(f"PROXY v2 command {command}")
    family = header[13] >> 4
    if family == 1:  # AF_INET: src, dst (4 bytes each), ports
        if length < 12:
            raise ProxyHeaderError("PROXY v2 IPv4 addresses cut short")
        return str(ipaddress.IPv4Address(body[:4]))
    if family == 2:  # AF_INET6
        if length < 36:
            raise ProxyHeaderError("PROXY v2 IPv6 addresses cut short")
        return str(ipaddress.IPv6Address(body[:16]))
    return None  # AF_UNIX or UNSPEC: no address to use


def parse_v1(line: bytes) -> str | None:
    """The client address in a v1 line (``PROXY TCP4 src dst sport dport\\r\\n``)."""
    if not line.startswith(V1_PREFIX) or not line.endswith(b"\r\n") or len(line) > V1_MAX:
        raise ProxyHeaderError("not a PROXY v1 line")
    parts = line[:-2].decode("ascii", "replace").split(" ")
    if parts[1:2] == ["UNKNOWN"]:
        return None
    if len(parts) != 6 or parts[1] not in ("TCP4", "TCP6"):
        raise ProxyHeaderError("a PROXY v1 line of the wrong shape")
    try:
        address = ipaddress.ip_address(parts[2])
        ipaddress.ip_address(parts[3])
        if not all(0 <= int(port) <= 65535 for port in parts[4:6]):
            raise ValueError
    except ValueError:
        raise ProxyHeaderError("a PROXY v1 line with a bad address or port") from None
    if (address.version == 4) != (parts[1] == "TCP4"):
        raise ProxyHeaderError("a PROXY v1 address of the wrong family")
    return str(address)


async def _read_exactly(loop: asyncio.AbstractEventLoop, sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = await loop.sock_recv(sock, size - len(data))
        if not chunk:
            raise ProxyHeaderError("the connection ended inside its PROXY header")
        data += chunk
    return bytes(data)


async def read_header(sock: socket.socket) -> tuple[str | None, bytes]:
    """Read a PROXY header off a non-blocking socket: (client address or None, the bytes
    read after it, which belong to SSH). Reads no further than the header, but for a v1
    line shorter than 16 bytes."""
    loop = asyncio.get_running_loop()
    start = await _read_exactly(loop, sock, 16)
    if start[:12] == V2_SIGNATURE:
        length = int.from_bytes(start[14:16], "big")
        if length > V2_MAX_BODY:
            raise ProxyHeaderError("a PROXY v2 header too long")
        return parse_v2(start, await _read_exactly(loop, sock, length)), b""
    if not start.startswith(V1_PREFIX):
        raise ProxyHeaderError("the connection did not start with a PROXY header")
    line = bytearray(start)
    while b"\r\n" not in line:
        if len(line) >= V1_MAX:
            raise ProxyHeaderError("a PROXY v1 line too long")
        line += await _read_exactly(loop, sock, 1)
    end = line.index(b"\r\n") + 2
    return parse_v1(bytes(line[:end])), bytes(line[end:])


def v2_header(source: str, port: int, dest: str = "127.0.0.1", dest_port: int = 22) -> bytes:
    """A v2 PROXY header for a TCP client at ``source`` (tests and tools)."""
    src, dst = ipaddress.ip_address(source), ipaddress.ip_address(dest)
    family = 0x11 if src.version == 4 else 0x21
    body = src.packed + dst.packed + port.to_bytes(2, "big") + dest_port.to_bytes(2, "big")
    return V2_SIGNATURE + bytes([0x21, family]) + len(body).to_bytes(2, "big") + body
