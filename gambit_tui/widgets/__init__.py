"""Gambit's widgets: one per module, each with its DEFAULT_CSS beside it."""
