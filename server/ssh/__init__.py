"""The SSH front end: ``gambit serve`` runs one asyncssh server in front of the in-memory hub.

It is a thin host (like ssh-chat's ``host.go``): it authenticates, sizes the terminal, runs
one Textual app per PTY session through a driver bound to the SSH channel, and hands that app
a trusted in-process connection to the hub. No game logic lives here.

Modules: :mod:`.keys` (host key), :mod:`.host` (server, auth, limits), :mod:`.session` (one
PTY session), :mod:`.driver` (Textual over a channel), :mod:`.serve` (the ``gambit serve``
process).
"""
