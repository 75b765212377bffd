"""``gambit connect``: the Gambit app in the player's own terminal, talking to a server's hub
over one SSH channel (the ``gambit`` subsystem) instead of running on the server.

The app is the same :mod:`gambit_tui` app a terminal session runs; this package only makes
its connection: the SSH login (the player's agent and keys), the server's host key checked
against ``~/.ssh/known_hosts`` as OpenSSH checks it, and a connection that comes back by
itself after a drop. It imports the app and the protocol, never the server.
"""
