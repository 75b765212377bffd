"""The changes the server makes to asyncssh's code, declared here and checked on install.

asyncssh sends an empty ``SSH_MSG_IGNORE`` packet before every packet it sends once keys are
exchanged (``SSHConnection.send_packet``): a countermeasure from the days of CBC ciphers,
whose next packet's IV an attacker could predict (RFC 4251, section 9.3.1). It doubles the
packets a terminal's output costs: each is encrypted, logged and written to the socket on its
own, and SSH output was about 30 % of the server's event loop under ``bench/soak.py`` (a
py-spy profile). With an AEAD cipher (chacha20-poly1305, AES-GCM: what OpenSSH clients pick)
nothing is predictable from a previous packet and OpenSSH sends no such packets; here, with
those ciphers, the empty ``SSH_MSG_IGNORE`` that asyncssh puts before a packet is not sent.
Every other cipher, and every other packet, is asyncssh's own.

asyncssh also describes every packet it sends or receives for its debug log (its name, its
size in words: ``SSHPacketLogger._log_packet``) before its logger checks whether packets are
logged at all (only at debug level 3): about 2 % of the server's CPU in the same profile.
Here the description is made only at that level.

A closed connection kept itself alive: asyncssh keeps the method that reads its next packet
header as the connection's ``_recv_handler``, a bound method of the connection, so the
connection, its options, ciphers, logger and socket's transport waited in a reference cycle
for the collector. The server process, whose collector sweeps only every few hundred sessions
ended (``server/gc_freeze.py``), gathered megabytes of them between sweeps (7.8 MB at one
sweep of a soak, most of the server's RSS slope). Here, once asyncssh has cleaned a connection
up, its ``_recv_handler`` is a plain function that reads nothing, as asyncssh's own
placeholder while a packet is handled; reference counting frees the rest at once.

:func:`install` installs each change only when the asyncssh code it replaces is the code it
was written against (:data:`PATCHES`: a hash of the original's source); otherwise it logs why
and leaves that code as it is (these save work, nothing depends on them).
``tests/ssh/test_asyncssh_layer.py`` fails on an asyncssh whose originals changed, and counts
the packets a real OpenSSH client receives. To update: read the new originals, then print
their fingerprints with ``python -m server.ssh.asyncssh_layer``.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from typing import Any

from asyncssh.connection import SSHConnection
from asyncssh.constants import MSG_IGNORE
from asyncssh.encryption import ChachaEncryption, GCMEncryption
from asyncssh.logging import SSHLogger
from asyncssh.packet import SSHPacketLogger, String

log = logging.getLogger(__name__)

#: asyncssh's own ``send_packet``, ``_log_packet`` and ``_cleanup``.
SEND_PACKET = SSHConnection.send_packet
LOG_PACKET = SSHPacketLogger._log_packet
CLEANUP = SSHConnection._cleanup
#: The payload of the packet asyncssh inserts.
_EMPTY = String(b"")
#: Ciphers with which the inserted packet protects nothing (see above).
_AEAD = (ChachaEncryption, GCMEncryption)
#: asyncssh's debug level from which it logs packets (``SSHLogger.packet``).
_PACKETS_LOGGED = 3


def fingerprint(function: Any) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]


def _send_packet(self: SSHConnection, pkttype: int, *args: bytes, handler: Any = None) -> None:
    """asyncssh's ``send_packet``, without the empty ``SSH_MSG_IGNORE`` before each packet
    under an AEAD cipher."""
    if (
        pkttype == MSG_IGNORE
        and args == (_EMPTY,)
        and isinstance(self._send_encryption, _AEAD)  # asyncssh's own attribute
    ):
        return
    SEND_PACKET(self, pkttype, *args, handler=handler)


def _log_packet(self: SSHPacketLogger, *args: Any) -> None:
    """asyncssh's ``_log_packet``, only where its logger logs packets."""
    if SSHLogger._debug_level >= _PACKETS_LOGGED:
        LOG_PACKET(self, *args)


def _read_nothing() -> bool:
    """A closed connection's packet reader: nothing more is read (see the module docstring)."""
    return False


def _cleanup(self: SSHConnection, exc: Exception | None) -> None:
    """asyncssh's ``_cleanup``, then the connection's reference to itself dropped."""
    CLEANUP(self, exc)
    self._recv_handler = _read_nothing


#: Each change: the class, the attribute, asyncssh's original, its fingerprint (asyncssh
#: 2.24) and what replaces it.
PATCHES: tuple[tuple[type, str, Any, str, Any], ...] = (
    (SSHConnection, "send_packet", SEND_PACKET, "fb9da7bec6dd395a", _send_packet),
    (SSHPacketLogger, "_log_packet", LOG_PACKET, "f3263d7da93663f1", _log_packet),
    (SSHConnection, "_cleanup", CLEANUP, "ea4cd2aed57194e5", _cleanup),
)


def changed() -> list[str]:
    """Each original that is not the one its change was written for."""
    return [
        f"{owner.__qualname__}.{name} (fingerprint {fingerprint(original)}, expected {expected})"
        for owner, name, original, expected, _ in PATCHES
        if fingerprint(original) != expected
    ]


def install() -> None:
    """Install each change whose original is the one it was written for (see the module
    docstring); log each that is not."""
    for owner, name, original, expected, replacement in PATCHES:
        if getattr(owner, name) is replacement:
            continue
        now = fingerprint(original)
        if now != expected:
            log.warning(
                "asyncssh's %s.%s is not the one server/ssh/asyncssh_layer.py was written "
                "for (fingerprint %s, expected %s): left as asyncssh has it",
                owner.__qualname__,
                name,
                now,
                expected,
            )
            continue
        setattr(owner, name, replacement)


def uninstall() -> None:
    """asyncssh's own code back (tests, benches measuring old against new)."""
    for owner, name, original, _, _ in PATCHES:
        setattr(owner, name, original)


if __name__ == "__main__":
    for owner, name, original, _, _ in PATCHES:
        print(f"{owner.__qualname__}.{name}: {fingerprint(original)}")
