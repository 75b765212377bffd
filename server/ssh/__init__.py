"""The SSH front end: ``gambit serve`` runs one asyncssh server in front of the in-memory hub.

It is a thin host (like ssh-chat's ``host.go``): it authenticates, sizes the terminal, runs
one Textual app per PTY session and hands that app a trusted in-process connection to the
hub. No game logic lives here; the apps' processes are :mod:`server.apphost`'s, and what they
draw reaches the channel through :mod:`server.terminal`.

Modules: :mod:`.keys` (host key), :mod:`.door` (who may connect), :mod:`.host` (server, auth,
limits), :mod:`.session` (one PTY session), :mod:`.session_host` (what a session asks of the
host: an interface), :mod:`.live_sessions` (the running sessions, by address and hub
connection), :mod:`.banner` (what the start tells the host), :mod:`.serve` (the ``gambit
serve`` process).
"""

import warnings

# asyncssh still names cryptography's DSA types (and reads DSA keys): importing it made
# cryptography warn five times, on the operator's terminal before ``gambit serve``'s banner.
# The warning says nothing the operator can act on.
warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"asyncssh(\.|$)")
