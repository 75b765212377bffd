"""One server per data directory: ``gambit serve`` and ``gambit hub`` hold an exclusive lock
on ``DATA_DIR/gambit.lock`` while they run.

Two hubs on one database would each restore the same tables and drive one ledger; a second
``gambit hub`` would also take over the first one's socket. The lock is ``flock``: the kernel
drops it when its holder exits in any way (even SIGKILL), so a stale lock file never blocks a
restart. The file holds a line naming its holder, so a second instance can say who runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

LOCK_NAME = "gambit.lock"


class DataDirInUse(Exception):
    """Another process holds the data directory's lock."""

    def __init__(self, data_dir: Path, holder: str) -> None:
        self.data_dir = data_dir
        self.holder = holder
        super().__init__(
            f"{data_dir} is in use by {holder or 'another Gambit process'}; "
            "stop it first, or choose another --data-dir"
        )


class DataDirLock:
    """The held lock; :meth:`describe` says what runs, :meth:`release` lets go."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    def describe(self, what: str) -> None:
        """Write ``pid N: what`` into the lock file (what a second instance will print).

        Written over the old text, then cut to length, so a reader never sees it empty.
        """
        if self._fd is None:
            return
        data = f"pid {os.getpid()}: {what}\n".encode()
        os.pwrite(self._fd, data, 0)
        os.ftruncate(self._fd, len(data))

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing the only descriptor drops the flock

    def __enter__(self) -> DataDirLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_data_dir(data_dir: str | os.PathLike[str], what: str) -> DataDirLock:
    """Take ``data_dir``'s lock (creating the folder, mode 0700, if needed) or raise
    :class:`DataDirInUse` at once, naming the holder.

    The descriptor is not inherited by child processes (app workers), so the lock ends
    with this process.
    """
    folder = Path(data_dir)
    if not folder.is_dir():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder.chmod(0o700)
    path = folder / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            holder = os.pread(fd, 1024, 0).decode("utf-8", "replace").strip()
        finally:
            os.close(fd)
        raise DataDirInUse(folder, holder) from None
    except BaseException:
        os.close(fd)
        raise
    lock = DataDirLock(path, fd)
    lock.describe(what)
    return lock
