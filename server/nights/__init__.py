"""Game nights: events that seat everyone, round after round, and keep the standings.

The pure part of an event, no I/O and no clock: its rules (:mod:`.rules`), who sits where in
a round (:mod:`.pairing`), points and matchpoints (:mod:`.scoring`), the standings
(:mod:`.standings`) and the event as it goes (:mod:`.night`). The hub opens the tables and
stores the event (``server.hub.nights``).
"""
