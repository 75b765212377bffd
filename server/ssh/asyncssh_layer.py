"""The one change the server makes to asyncssh's code, declared here and checked on install.

asyncssh sends an empty ``SSH_MSG_IGNORE`` packet before every packet it sends once keys are
exchanged (``SSHConnection.send_packet``): a countermeasure from the days of CBC ciphers,
whose next packet's IV an attacker could predict (RFC 4251, section 9.3.1). It doubles the
packets a terminal's output costs: each is encrypted, logged and written to the socket on its
own, and SSH output was about 30 % of the server's event loop under ``bench/soak.py`` (a
py-spy profile). With an AEAD cipher (chacha20-poly1305, AES-GCM: what OpenSSH clients pick)
nothing is predictable from a previous packet and OpenSSH sends no such packets; here, with
those ciphers, the empty ``SSH_MSG_IGNORE`` that asyncssh puts before a packet is not sent.
Every other cipher, and every other packet, is asyncssh's own.

:func:`install` installs it only when asyncssh's ``send_packet`` is the code it was written
against (:data:`FINGERPRINT`, a hash of its source); otherwise it logs why and leaves asyncssh
as it is (this saves work, nothing depends on it). ``tests/ssh/test_asyncssh_layer.py`` fails
on an asyncssh whose ``send_packet`` changed, and counts the packets a real OpenSSH client
receives. To update: read the new ``send_packet``, then print its fingerprint with
``python -m server.ssh.asyncssh_layer``.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from typing import Any

from asyncssh.connection import SSHConnection
from asyncssh.constants import MSG_IGNORE
from asyncssh.encryption import ChachaEncryption, GCMEncryption
from asyncssh.packet import String

log = logging.getLogger(__name__)

#: ``fingerprint(SSHConnection.send_packet)`` of the asyncssh this was written against (2.24).
FINGERPRINT = "fb9da7bec6dd395a"
#: asyncssh's own ``send_packet``.
ORIGINAL = SSHConnection.send_packet
#: The payload of the packet asyncssh inserts.
_EMPTY = String(b"")
#: Ciphers with which the inserted packet protects nothing (see above).
_AEAD = (ChachaEncryption, GCMEncryption)


def fingerprint(function: Any) -> str:
    return hashlib.sha256(inspect.getsource(function).encode()).hexdigest()[:16]


def _send_packet(self: SSHConnection, pkttype: int, *args: bytes, handler: Any = None) -> None:
    """asyncssh's ``send_packet``, without the empty ``SSH_MSG_IGNORE`` before each packet
    under an AEAD cipher."""
    if (
        pkttype == MSG_IGNORE
        and args == (_EMPTY,)
        and isinstance(self._send_encryption, _AEAD)  # asyncssh's own attribute (see install)
    ):
        return
    ORIGINAL(self, pkttype, *args, handler=handler)


def installed() -> bool:
    return SSHConnection.send_packet is _send_packet


def install() -> bool:
    """Install the change if asyncssh's ``send_packet`` is the one it was written for (see the
    module docstring); whether it is installed."""
    if installed():
        return True
    now = fingerprint(ORIGINAL)
    if now != FINGERPRINT:
        log.warning(
            "asyncssh's SSHConnection.send_packet is not the one server/ssh/asyncssh_layer.py "
            "was written for (fingerprint %s, expected %s): every packet is sent with an "
            "empty SSH_MSG_IGNORE before it, as asyncssh does",
            now,
            FINGERPRINT,
        )
        return False
    SSHConnection.send_packet = _send_packet  # type: ignore[method-assign]  # the declared change
    return True


def uninstall() -> None:
    """asyncssh's own ``send_packet`` back (tests, benches measuring old against new)."""
    SSHConnection.send_packet = ORIGINAL  # type: ignore[method-assign]  # (see install)


if __name__ == "__main__":
    print(fingerprint(ORIGINAL))
