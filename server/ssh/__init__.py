"""The SSH front end: ``gambit serve`` runs one asyncssh server in front of the in-memory hub.

It is a thin host (like ssh-chat's ``host.go``): it authenticates, sizes the terminal, runs
one Textual app per PTY session and hands that app a trusted in-process connection to the
hub. No game logic lives here; the apps' processes are :mod:`server.apphost`'s, and what they
draw reaches the channel through :mod:`server.terminal`.

Modules: :mod:`.keys` (host key), :mod:`.door` (who may connect), :mod:`.host` (server, auth,
limits), :mod:`.session` (one PTY session), :mod:`.banner` (what the start tells the host),
:mod:`.serve` (the ``gambit serve`` process).
"""
