"""How a Gambit server is found on its local network (DNS-SD over multicast DNS): the service
type ``gambit serve`` announces its SSH port under and ``gambit connect`` browses for, and the
keys of its TXT record. Shared here so that the two sides cannot drift apart."""

from __future__ import annotations

#: Gambit's own service type (RFC 6763 names; ``_gambit`` is ours, under 15 letters).
SERVICE_TYPE = "_gambit._tcp.local."
#: The standard type of an SSH server, so that any DNS-SD browser lists the server too.
SSH_SERVICE_TYPE = "_ssh._tcp.local."
#: TXT keys: the server's version, and the SSH user to log in as.
TXT_VERSION = "version"
TXT_USER = "user"
