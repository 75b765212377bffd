"""Gambit's wire vocabulary: card codes, messages and the msgpack codec.

This package imports nothing else of Gambit's, so the app and the server can both rely on it
and it can be shipped to a client that has neither.
"""
