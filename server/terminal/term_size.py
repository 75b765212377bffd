"""The terminal sizes a session may have: whatever a client claims, clamped.

A client chooses its own size (in the PTY request, in window changes, and in band when its
terminal reports it), and the app draws a screen of that many cells for every frame: a claim
of 65535×65535 made an app worker grow by gigabytes. No real terminal on a real screen is wider
than a few hundred cells, so a larger claim is drawn at the largest size we serve.
"""

from __future__ import annotations

#: The largest size served. 500×200 is wider and taller than a 4K monitor of small print.
MAX_WIDTH = 500
MAX_HEIGHT = 200
#: What a client that says 0 (unknown) gets: the classic terminal.
DEFAULT_SIZE = (80, 24)


def clamp_size(
    width: int, height: int, fallback: tuple[int, int] = DEFAULT_SIZE
) -> tuple[int, int]:
    """``(width, height)`` within 1..MAX; 0 or less (unknown) keeps ``fallback``'s value."""
    width = fallback[0] if width <= 0 else min(width, MAX_WIDTH)
    height = fallback[1] if height <= 0 else min(height, MAX_HEIGHT)
    return max(1, width), max(1, height)
