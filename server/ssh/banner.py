"""What ``gambit serve`` says when it starts: how to connect, from this machine and from the
others on its network, and the host key to expect (a ``known_hosts`` line to check it by)."""

from __future__ import annotations

import contextlib
import fcntl
import socket
import struct

import asyncssh

from .keys import fingerprint

SIOCGIFADDR = 0x8915  # Linux: an interface's IPv4 address


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, as others on its networks reach it.

    Asked of each network interface (Linux); elsewhere, the address of the way out (a UDP
    socket "connected" to a private address sends nothing but learns its source address).
    """
    found: list[str] = []
    with (
        contextlib.suppress(OSError, AttributeError),
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock,
    ):
        for _, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            with contextlib.suppress(OSError):
                reply = fcntl.ioctl(sock.fileno(), SIOCGIFADDR, request)
                address = socket.inet_ntoa(reply[20:24])
                if not address.startswith("127.") and address not in found:
                    found.append(address)
    if not found:
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            address = s.getsockname()[0]
            if not address.startswith("127."):
                found.append(address)
    return found


def ssh_command(where: str, port: int) -> str:
    return f"ssh -p {port} play@{where}" if port != 22 else f"ssh play@{where}"


def banner(host: str, port: int, key: asyncssh.SSHKey, announced: str | None = None) -> str:
    """The start banner's lines (``announced``: the name the server is announced under on
    the local network, if it is)."""
    everywhere = host in ("0.0.0.0", "::", "")
    local = host in ("127.0.0.1", "::1", "localhost")
    lines = [f"Gambit is serving on {host or '*'} port {port}."]
    if local or everywhere:
        lines.append(f"Connect with:  {ssh_command('localhost', port)}")
    if everywhere:
        addresses = lan_addresses()
        for address in addresses:
            lines.append(f"  from the network:  {ssh_command(address, port)}")
        if not addresses:
            lines.append(f"  from the network:  {ssh_command('THIS-MACHINE', port)}")
    elif not local:
        lines.append(f"Connect with:  {ssh_command(host, port)}")
    if announced is not None:
        lines.append(
            f'Announcing on the local network as "{announced}" (mDNS): '
            "'gambit connect' with no host finds it."
        )
    lines.append(f"(slow link? add -C:  ssh -C -p {port} ...)")
    lines.append(
        f"(the app on a player's own machine:  pipx install gambit-tables, then "
        f"gambit connect{'' if port == 2222 else f' -p {port}'} HOST)"
    )
    lines.append(f"Host key fingerprint: {fingerprint(key)}")
    public = key.export_public_key("openssh").decode().split()
    names = ",".join(
        f"[{a}]:{port}" if port != 22 else a
        for a in ("localhost", *(lan_addresses() if everywhere else ([] if local else [host])))
    )
    lines.append(f"known_hosts line:  {names} {public[0]} {public[1]}")
    lines.append("Stop with Ctrl+C.")
    return "\n".join(lines) + "\n"
