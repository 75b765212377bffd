"""Gambit's screens: one per module."""
