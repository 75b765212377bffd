"""``gambit connect`` with no host: the Gambit servers announced on this network (DNS-SD over
multicast DNS, as ``gambit serve --announce`` does), browsed for a couple of seconds, and the
player's choice among them (the only one found is taken; several are listed, numbered)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from gambit_tui import connect_text as text
from protocol.lan import SERVICE_TYPE, TXT_VERSION

if TYPE_CHECKING:  # for type hints only (zeroconf is imported when browsing)
    from zeroconf import ServiceStateChange, Zeroconf
    from zeroconf.asyncio import AsyncServiceInfo

#: Seconds to listen for servers' answers.
BROWSE_SECONDS = 2.0
#: Seconds to wait for one found server's address and port.
RESOLVE_SECONDS = 1.5
#: Wrong answers to "which one?" before giving up.
TRIES = 3


@dataclass(frozen=True, slots=True)
class Found:
    """A server that answered: its announced name, an address and port to reach it at."""

    name: str
    host: str
    port: int
    version: str = ""


def found_of(info: AsyncServiceInfo) -> Found | None:
    """A resolved answer as a server to connect to (None: it gave no IPv4 address)."""
    from zeroconf import IPVersion

    addresses = info.parsed_addresses(IPVersion.V4Only)
    if not addresses or not info.port:
        return None
    name = info.name[: -len(SERVICE_TYPE) - 1] if info.name.endswith(SERVICE_TYPE) else info.name
    version = info.decoded_properties.get(TXT_VERSION) or ""
    return Found(name, addresses[0], info.port, version)


async def browse(
    seconds: float = BROWSE_SECONDS, interfaces: list[str] | None = None
) -> list[Found]:
    """The servers that answer within ``seconds`` (``interfaces``: the addresses to ask on;
    None: every interface), by name. Raises OSError when multicast cannot be used."""
    from zeroconf import InterfaceChoice, IPVersion
    from zeroconf import ServiceStateChange as Change
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

    names: list[str] = []

    def changed(
        zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:  # (zeroconf calls it with these keywords)
        if state_change is Change.Added and name not in names:
            names.append(name)

    zc = AsyncZeroconf(interfaces=interfaces or InterfaceChoice.All, ip_version=IPVersion.V4Only)
    try:
        browser = AsyncServiceBrowser(zc.zeroconf, [SERVICE_TYPE], handlers=[changed])
        try:
            await asyncio.sleep(seconds)
        finally:
            await browser.async_cancel()
        infos = [AsyncServiceInfo(SERVICE_TYPE, name) for name in names]
        await asyncio.gather(
            *(info.async_request(zc.zeroconf, int(RESOLVE_SECONDS * 1000)) for info in infos)
        )
    finally:
        await zc.async_close()
    found = {(f.host, f.port): f for f in map(found_of, infos) if f is not None}
    return sorted(found.values(), key=lambda f: (f.name.casefold(), f.host, f.port))


def choose(
    found: list[Found], lang: str, ask: Callable[[str], str] = input, out: TextIO = sys.stderr
) -> Found | None:
    """The server to connect to: the only one found, or the one the player picks by number;
    None (and how to name one) when none answered or the player picks none."""

    def say(sentence: str, **fields: object) -> None:
        out.write(text.say(lang, sentence, **fields) + "\n")
        out.flush()

    if not found:
        say(text.NONE_FOUND)
        return None
    if len(found) == 1:
        chosen = found[0]
    else:
        say(text.FOUND)
        for number, server in enumerate(found, 1):
            fields = {"name": server.name, "host": server.host, "port": server.port}
            out.write("  " + text.say(lang, text.LISTED, number=number, **fields) + "\n")
        chosen = None
        for _ in range(TRIES):
            try:
                answer = ask(text.say(lang, text.ASK_WHICH, count=len(found))).strip()
            except EOFError:
                return None
            if not answer:
                return None
            if answer.isdigit() and 1 <= int(answer) <= len(found):
                chosen = found[int(answer) - 1]
                break
    if chosen is None:
        return None
    say(text.CONNECTING, name=chosen.name, host=chosen.host, port=chosen.port)
    return chosen
