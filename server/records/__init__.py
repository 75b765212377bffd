"""Finished games as records: export to a versioned JSON file, verify a deal, replay a game.

Used by the ``gambit export``, ``gambit verify`` and ``gambit replay`` commands; the format is
in ``docs/records.md``, the deal checks in ``docs/fair-deals.md``.
"""
