"""Give the C allocator's free memory back to the system (glibc's ``malloc_trim``).

Python frees its small objects into its own arenas, but everything over 512 bytes (a
channel's pending output, a frame being encoded, a lobby update's rows, a screen's lines) is
glibc's ``malloc``, and glibc returns a freed block to the system only when it lies at the
very top of its heap. Blocks freed in the middle stay resident, ready for reuse, for as long
as the process runs. How much that is depends on the load: in ``bench/soak.py`` (no tracing)
one ``malloc_trim(0)`` 7 minutes in gave back 0.4 MB of a ``gambit serve`` at 114 MB and
1.5-2.9 MB of app workers at 130-151 MB; with ``tracemalloc`` on (``server/mem_trace.py``:
it mallocs a record for every block Python allocates), 46 MB of 233 and 35 MB of 221; in
``bench/worker_churn.py``, a worker ran 5-10 MB lower with a trim after each sweep. Small,
but it is memory the soak's slopes count and, in a worker, its recycling does
(``server/apphost/recycling.py`` reads the memory right after a sweep). ``malloc_trim(0)``
releases the pages of every free block (``madvise``), in every arena; the blocks stay the
allocator's, so nothing else changes. It costs a walk of the free lists: about 0.4 ms when
there is little to give back, 23 ms for 230 MB.

Elsewhere (musl, macOS) there is no ``malloc_trim``, and :func:`trim` does nothing.
"""

from __future__ import annotations

import ctypes
import functools
import sys
from collections.abc import Callable


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # (the C library this process already uses)
    except OSError:
        return None
    trim = getattr(libc, "malloc_trim", None)  # glibc's own: absent from musl
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim  # (a ctypes function: called as declared above)


def trim() -> bool:
    """Release the C allocator's free pages to the system now; True if any were released
    (False where there is no ``malloc_trim``)."""
    function = _malloc_trim()
    return bool(function(0)) if function is not None else False


def available() -> bool:
    return _malloc_trim() is not None


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def heap_info() -> dict[str, int] | None:
    """glibc's own account (``mallinfo2``, every arena): ``heap`` bytes it has from the
    system (beside ``mmapped`` blocks), ``in_use`` by the program and ``free`` in its free
    blocks (resident or not: a trim releases their pages but keeps the blocks). None where
    there is no ``mallinfo2`` (glibc before 2.33, other C libraries)."""
    if _malloc_trim() is None:
        return None
    function = getattr(ctypes.CDLL(None), "mallinfo2", None)
    if function is None:
        return None
    function.restype = _Mallinfo2
    info = function()
    return {
        "heap": info.arena,
        "mmapped": info.hblkhd,
        "in_use": info.uordblks,
        "free": info.fordblks + info.fsmblks,
    }
