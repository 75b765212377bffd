"""The plain mode: a hub client for screen readers and braille displays (issue 44).

It writes lines, in order, and never redraws; the player types short commands. It speaks the
same protocol messages as the Textual app, through the same kind of connection, and reads
every rule (whose turn, the legal actions, refusals) from what the hub sends.
"""
