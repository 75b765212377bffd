"""Gambit's server side: the rules engines, bots, and (later) the hub and the SSH host."""
