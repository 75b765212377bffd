"""Which hub is the active one: a lease in NATS' key-value store (JetStream), with a TTL.

Every ``gambit hub --bus`` asks for the lease before it opens the store; the one that gets
it serves, and renews it every second. Another waits (a standby) until the entry expires —
its holder died or lost NATS for :data:`TTL` seconds — then takes it, opens the store and
restores every running table, as a restart does. A holder that cannot renew for the TTL
(NATS gone, or the lease taken) stops at once: two hubs must never write one store.

A lease that lapsed while its holder was held up (a long step on its event loop, a start
on a loaded machine, NATS restarting) is taken again if nobody holds it now: whoever held
it meanwhile did not serve, since a hub needs the store's own lock too (a PostgreSQL
database's, taken before the lease; the data folder's, after it), and that lock was the
holder's all along. And a lease found at a revision its holder does not know, still naming
it, is its own: a renewal whose answer never came (asked while NATS was away, the request
kept by the client and written once NATS was back, its wait over by then) moved it on. (A
hub that took that for a lease lost stopped right after a short NATS restart it had
weathered: a failover for nothing.)

A clean stop gives the lease up (:meth:`HubLease.release`): the renewing task is told to end
(``_released``) as well as cancelled, and waited for (bounded), before the entry is deleted.
Its waits are ``asyncio.timeout``, not ``wait_for``: on Python 3.11 ``wait_for`` returns an
answer that comes just as the cancel lands and drops the cancel, and a released lease was
renewed on (at a revision the delete no longer matched: the standby waited for the TTL, or
for ever while the stopped hub's process lived on). A renewal cancelled in flight may still
be written: the delete then finds the entry still naming this hub and deletes it anyway.

Without JetStream on the NATS server there is no lease: the hub runs alone (and says so).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

BUCKET = "gambit_hub"
KEY = "active"
#: Seconds an unrenewed lease lasts; the holder renews it every third of that.
TTL = 3.0
#: How often a standby asks.
POLL = 0.5
#: How often the holder renews, and how long it waits for each answer of NATS.
RENEW_EVERY = TTL / 3
ANSWER_WITHIN = TTL / 3
#: How long :meth:`HubLease.release` waits for the renewing task to end, and for the delete.
RELEASE_WITHIN = 2.0
DELETE_WITHIN = 1.0


class NoLease(Exception):
    """The NATS server has no JetStream: leases (and standbys) are not available."""


class HubLease:
    def __init__(self, nc: Any, instance: str) -> None:
        self.nc = nc
        self.instance = instance.encode()
        self.kv: Any = None
        self.revision = 0
        self.renewed = 0.0
        #: Set once the lease could not be kept (the holder must stop).
        self.lost = False
        self._lost: Callable[[], None] = lambda: None
        self._task: asyncio.Task[None] | None = None
        #: Set by :meth:`release`: the renewing task ends at its next turn, cancelled or not.
        self._released = False

    async def _bucket(self) -> Any:
        import nats.js.errors as jse

        js = self.nc.jetstream()
        try:
            return await js.key_value(BUCKET)
        except jse.BucketNotFoundError:
            pass
        except Exception as err:  # no JetStream at all
            raise NoLease(str(err) or type(err).__name__) from None
        try:
            return await js.create_key_value(bucket=BUCKET, ttl=TTL, history=1)
        except Exception as err:
            with contextlib.suppress(Exception):
                return await js.key_value(BUCKET)  # another hub made it meanwhile
            raise NoLease(str(err) or type(err).__name__) from None

    async def acquire(self, waiting: Callable[[], None] | None = None) -> None:
        """Wait until this hub holds the lease (``waiting`` is called once if it must)."""
        self.kv = await self._bucket()
        told = False
        while True:
            try:
                self.revision = await self.kv.create(KEY, self.instance)
                self.renewed = time.monotonic()
                return
            except Exception as err:
                if type(err).__name__ not in ("KeyWrongLastSequenceError", "APIError"):
                    log.warning("lease: %s", err)
            if not told and waiting is not None:
                waiting()
                told = True
            await asyncio.sleep(POLL)

    def keep(self, lost: Callable[[], None]) -> None:
        """Renew the lease until stopped; call ``lost`` if it cannot be kept. Called again
        (renewing already), only who is told changes; told at once if it is lost already."""
        self._lost = lost
        if self.lost:
            lost()
        elif self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._renew())

    async def _renew(self) -> None:
        while not self._released:
            await asyncio.sleep(RENEW_EVERY)
            if self._released:
                return
            try:
                # (asyncio.timeout, not wait_for: see the module's docstring)
                async with asyncio.timeout(ANSWER_WITHIN):
                    revision = await self.kv.update(KEY, self.instance, last=self.revision)
                self.revision = revision
                self.renewed = time.monotonic()
                continue
            except Exception as err:
                known = self.revision
                taken = type(err).__name__ == "KeyWrongLastSequenceError"
                if taken and (how := await self._take_again()):
                    log.warning("lease: not at revision %d (%s); taken again, %s", known, err, how)
                    continue
                if self._released:
                    return
                if taken or time.monotonic() - self.renewed >= TTL:
                    log.critical(
                        "lease: lost (%s; revision %d); stopping so that another hub may serve",
                        err,
                        known,
                    )
                    self.lost = True
                    self._lost()
                    return
                log.warning("lease: could not renew yet: %s", err)

    async def _take_again(self) -> str | None:
        """The lease is not at the revision this hub last knew: take it again if nobody holds
        it now (it lapsed: this hub's loop was held up past the TTL, a long start, NATS
        restarting; see the module's docstring), or if it still names this hub (a renewal
        of its own whose answer never came: sent while NATS was away and written once it
        was back, or answered after its wait had ended). How it was taken, or None if not
        (another hub holds it, or NATS did not answer)."""
        try:
            async with asyncio.timeout(ANSWER_WITHIN):
                revision = await self.kv.create(KEY, self.instance)
            how = "nobody held it"
        except Exception:
            try:
                async with asyncio.timeout(ANSWER_WITHIN):
                    entry = await self.kv.get(KEY)
                if entry.value != self.instance:  # (another hub's: only it writes its name)
                    return None
                async with asyncio.timeout(ANSWER_WITHIN):
                    revision = await self.kv.update(KEY, self.instance, last=entry.revision)
                how = f"it still named this hub (at revision {entry.revision})"
            except Exception:
                return None
        if self._released:
            return None
        self.revision = revision
        self.renewed = time.monotonic()
        return how

    async def release(self) -> None:
        """Give the lease up (a clean stop): a standby takes over at once. The renewing task
        is told to end (``_released``) as well as cancelled, and waited for at most
        :data:`RELEASE_WITHIN` s (a cancel lost on the way must not leave it renewing a
        lease given up; a cancel of the caller is not swallowed); then the entry goes."""
        self._released = True
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.wait({task}, timeout=RELEASE_WITHIN)
            if not task.done():
                log.warning("lease: its renewing did not end within %.0f s", RELEASE_WITHIN)
            elif not task.cancelled():
                task.exception()  # (taken: it ended, however, and the lease goes now)
        if self.kv is not None and self.revision:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(DELETE_WITHIN):
                    await self._delete()

    async def _delete(self) -> None:
        """Delete the entry at the revision this hub knows; at another still naming this hub
        (a renewal cancelled by :meth:`release` was written all the same), at that one."""
        try:
            await self.kv.delete(KEY, last=self.revision)
        except Exception as err:
            if type(err).__name__ != "KeyWrongLastSequenceError":
                raise
            entry = await self.kv.get(KEY)
            if entry.value != self.instance:  # (another hub's now: not ours to delete)
                return
            await self.kv.delete(KEY, last=entry.revision)
