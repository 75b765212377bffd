"""Announcing ``gambit serve`` on its local network with DNS-SD over multicast DNS (the
``zeroconf`` library), so that ``gambit connect`` with no host finds it, and so do other
DNS-SD browsers (the standard ``_ssh._tcp`` type too).

On by default when the server listens beyond loopback (``--announce``/``--no-announce`` say
otherwise). :class:`Announcer` is started once the SSH port is open and stopped with the
server: it runs on the server's own event loop (no thread), and after :meth:`Announcer.stop`
no socket or task of it is left. It is started in the background (:class:`Announcing`):
registering first probes the network for the name, about a second, and the start banner
need not wait for that.
"""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from typing import TYPE_CHECKING

from protocol.lan import SERVICE_TYPE, SSH_SERVICE_TYPE, TXT_USER, TXT_VERSION

if TYPE_CHECKING:  # for type hints only (zeroconf is imported when announcing)
    from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

log = logging.getLogger(__name__)

#: A DNS label (an instance name, a host name) is at most 63 bytes.
MAX_LABEL = 63
#: The SSH user a terminal session logs in as (any name works; this one asks for none).
SSH_USER = "play"


def wanted(announce: bool | None, host: str) -> bool:
    """``--announce`` or ``--no-announce`` as given; else on unless the server listens on
    loopback only (nobody else could connect)."""
    if announce is not None:
        return announce
    return not (host in ("localhost", "::1") or host.startswith("127."))


def _label(text: str, fallback: str) -> str:
    """``text`` cut to one DNS label (63 bytes, whole characters)."""
    return text.encode()[:MAX_LABEL].decode(errors="ignore").strip() or fallback


def instance_name(hostname: str | None = None) -> str:
    """The name the server is listed under: "Gambit on" the machine's name."""
    machine = (hostname or socket.gethostname()).split(".")[0]
    return _label(f"Gambit on {machine}", "Gambit")


def host_label(hostname: str | None = None) -> str:
    """The machine's name as an mDNS host name (``NAME.local.``): letters, digits, hyphens."""
    machine = (hostname or socket.gethostname()).split(".")[0]
    return _label(re.sub(r"[^A-Za-z0-9-]+", "-", machine).strip("-"), "gambit")


def addresses_for(host: str) -> list[str]:
    """The IPv4 addresses to announce for a server listening on ``host``: every address of
    this machine on its networks for a wildcard, else the one it listens on."""
    if host in ("0.0.0.0", "::", ""):
        from server.ssh.banner import lan_addresses

        return lan_addresses()
    try:
        socket.inet_aton(host)
    except OSError:
        try:
            return [socket.gethostbyname(host)]
        except OSError:
            return []
    return [host]


def service_infos(
    name: str, port: int, addresses: list[str], version: str, hostname: str | None = None
) -> list[AsyncServiceInfo]:
    """The records announced: the SSH port under Gambit's type and the standard SSH type,
    the instance ``name``, the addresses, and a TXT record with the version and user."""
    from zeroconf.asyncio import AsyncServiceInfo

    properties = {TXT_VERSION: version, TXT_USER: SSH_USER}
    return [
        AsyncServiceInfo(
            kind,
            f"{name}.{kind}",
            port=port,
            addresses=[socket.inet_aton(a) for a in addresses],
            properties=properties,
            server=f"{host_label(hostname)}.local.",
        )
        for kind in (SERVICE_TYPE, SSH_SERVICE_TYPE)
    ]


class Announcer:
    """The server's records on the network while it runs (``interfaces``: the addresses to
    announce on; None: every interface)."""

    def __init__(self, infos: list[AsyncServiceInfo], interfaces: list[str] | None = None) -> None:
        self.infos = infos
        self.interfaces = interfaces
        self._zc: AsyncZeroconf | None = None
        #: The first announcements, sent after the name was found free.
        self._broadcasts: list[asyncio.Future[object]] = []

    @property
    def name(self) -> str:
        """The instance name as announced (zeroconf adds " (2)" to a name taken already)."""
        info = self.infos[0]
        return info.name[: -len(info.type) - 1]

    async def start(self) -> None:
        """Probe for the names, then announce; raises OSError when multicast cannot be used
        (nothing is left open then)."""
        from zeroconf import InterfaceChoice, IPVersion
        from zeroconf.asyncio import AsyncZeroconf

        interfaces = self.interfaces or InterfaceChoice.All
        self._zc = AsyncZeroconf(interfaces=interfaces, ip_version=IPVersion.V4Only)
        try:
            # Each type's name is probed for (about a second), all at once.
            broadcasts = await asyncio.gather(
                *(self._zc.async_register_service(i, allow_name_change=True) for i in self.infos)
            )
            self._broadcasts = [asyncio.ensure_future(b) for b in broadcasts]
        except BaseException:
            await self.stop()
            raise

    async def stop(self) -> None:
        """Say goodbye on the network (the records are withdrawn) and close every socket."""
        zc, self._zc = self._zc, None
        broadcasts, self._broadcasts = self._broadcasts, []
        for task in broadcasts:
            task.cancel()
        await asyncio.gather(*broadcasts, return_exceptions=True)
        if zc is not None:
            await zc.async_close()  # (unregisters every service first: goodbye packets)


class Announcing:
    """An :class:`Announcer` registering in the background, from the moment it is made: the
    server goes on (its banner is shown at once) while the name is probed for. ``name`` is
    the name asked for (zeroconf may add " (2)" to one taken already: the log says so)."""

    def __init__(self, announcer: Announcer) -> None:
        self.announcer = announcer
        self.name = announcer.name
        self._task = asyncio.get_running_loop().create_task(self._start())

    async def _start(self) -> bool:
        try:
            await self.announcer.start()
        except (OSError, ImportError) as err:
            log.warning("not announced on the network (mDNS): %s", err)
            return False
        log.info("announced on the network as %r (%s)", self.announcer.name, SERVICE_TYPE)
        return True

    async def registered(self) -> bool:
        """Wait for the registration; whether the server is announced."""
        return await asyncio.shield(self._task)

    async def stop(self) -> None:
        """Stop registering if it is under way, then withdraw the records and close every
        socket (nothing is left either way)."""
        self._task.cancel()  # (nothing, once registered)
        await asyncio.gather(self._task, return_exceptions=True)
        await self.announcer.stop()


def announce_in_background(host: str, port: int, version: str) -> Announcing | None:
    """Start announcing a server listening on ``host``:``port``, in the background; None (and
    a warning in the log) if this machine has no network address to announce. No multicast
    to announce with is found out later, and said in the log."""
    addresses = addresses_for(host)
    if not addresses:
        log.warning("not announced on the network: no network address to announce")
        return None
    return Announcing(Announcer(service_infos(instance_name(), port, addresses, version)))
