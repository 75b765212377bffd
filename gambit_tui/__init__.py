"""Gambit's Textual app. It imports ``protocol`` only: everything it knows arrives as messages."""
