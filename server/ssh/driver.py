"""A Textual driver that draws on one SSH channel instead of the server's own terminal.

Why a driver of our own: Textual's ``LinuxDriver`` is bound to the process's stdin/stderr,
termios, two threads and process-wide signal handlers (SIGTSTP, SIGCONT, SIGWINCH); with a
hundred apps in one server process none of that may happen. This driver lives on the event
loop: output goes to the channel through a small :class:`Terminal` interface, input arrives as
bytes from the session and is parsed with Textual's own ``XTermParser`` (with the ``tick`` a
lone ESC needs), and window changes become ``events.Resize``.

Output is held back in two cases, and the held frames are dropped rather than queued:

* **Congestion.** When the client reads slower than we draw, the bytes waiting for it grow
  past a threshold. Every frame Textual draws is complete in itself, and a full repaint makes
  all earlier frames irrelevant, so we skip frames until the backlog has drained and then ask
  the app for one full repaint: a slow client gets the latest screen, never a pile of stale
  ones, and the server's memory for it stays bounded.
* **Start-up.** Textual repaints the whole screen several times while an app starts (and
  again when the first hub messages arrive). Holding output until the app has been quiet for
  a moment and then sending one repaint makes the first paint several times smaller.

Small control sequences (bell, window title, clipboard) are never dropped: they are kept and
sent when output resumes.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual import constants, events
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.geometry import Size
from textual.messages import InBandWindowResize

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message

log = logging.getLogger(__name__)

#: Output waiting for a client beyond this many bytes means it is not keeping up.
CONGESTED_BYTES = 64 * 1024
#: ... and once the backlog is down to this, it gets the latest screen.
DRAINED_BYTES = 16 * 1024
#: How often to look at a congested client's backlog.
DRAIN_POLL = 0.05
#: Start-up: send the first screen once the app has drawn nothing new for this long ...
STARTUP_QUIET = 0.04
#: ... or this long after the app started, whichever comes first.
STARTUP_MAX = 0.6
#: At most this many control sequences are kept while output is held.
MAX_KEPT_CONTROLS = 16


class Terminal(Protocol):
    """What the driver needs from the SSH session it draws on."""

    def send(self, data: bytes) -> None:
        """Write bytes to the player's terminal (never blocks)."""

    def pending_output(self) -> int:
        """Bytes written but not yet taken by the client."""

    def attach(self, driver: ChannelDriver) -> None:
        """The driver is ready for input and resize events."""

    def detach(self, driver: ChannelDriver) -> None:
        """The driver takes no more input."""


_terminals: weakref.WeakKeyDictionary[App[Any], Terminal] = weakref.WeakKeyDictionary()


def bind(app: App[Any], terminal: Terminal) -> None:
    """Make ``app`` draw on ``terminal`` when it runs.

    Textual builds its driver itself, as ``driver_class(app, debug=, mouse=, size=)``, so the
    driver finds its terminal here, by its app.
    """
    app.driver_class = ChannelDriver
    _terminals[app] = terminal


def _is_control(data: str) -> bool:
    """Bell, OSC (title, clipboard) and pointer-shape writes: small, and not part of a frame."""
    return data == "\x07" or data.startswith("\x1b]")


class ChannelDriver(Driver):
    """Textual output to, and input from, one SSH channel; see the module docstring."""

    #: Instrumentation (the load benchmark): called after each frame is sent, with its size.
    on_frame: Callable[[ChannelDriver, int], None] | None = None

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._terminal = _terminals.pop(app)
        self._buffer: list[str] = []
        self._parser = XTermParser(debug=False)
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self._tick_handle: asyncio.TimerHandle | None = None
        self._input_enabled = False
        self._in_band_resize = False
        # Output holding: the reasons it is held; frames dropped meanwhile; controls kept.
        self._holds: set[str] = set()
        self._stale = False
        self._kept: list[str] = []
        self._startup_deadline = 0.0
        self._startup_handle: asyncio.TimerHandle | None = None
        self._drain_handle: asyncio.TimerHandle | None = None
        self.bytes_sent = 0
        self.frames_sent = 0
        self.frames_skipped = 0

    # --- output --------------------------------------------------------------------------

    def write(self, data: str) -> None:
        self._buffer.append(data)

    def flush(self) -> None:
        if not self._buffer:
            return
        if not self._holds and self._terminal.pending_output() > CONGESTED_BYTES:
            self._hold("congested")
            self._drain_handle = self._loop.call_later(DRAIN_POLL, self._check_drained)
        if self._holds:
            self._drop_frame()
            if "startup" in self._holds:
                self._startup_again()
            return
        self._send_buffer()

    def _send_buffer(self) -> None:
        data = "".join(self._buffer).encode("utf-8", "replace")
        self._buffer.clear()
        self._send(data)

    def _send(self, data: bytes) -> None:
        self._terminal.send(data)
        self.bytes_sent += len(data)
        self.frames_sent += 1
        observer = ChannelDriver.on_frame
        if observer is not None:
            observer(self, len(data))

    def _drop_frame(self) -> None:
        for data in self._buffer:
            if _is_control(data):
                self._kept.append(data)
        del self._kept[:-MAX_KEPT_CONTROLS]
        self._buffer.clear()
        self._stale = True
        self.frames_skipped += 1

    def _hold(self, reason: str) -> None:
        self._holds.add(reason)

    def _release(self, reason: str) -> None:
        """Stop holding for ``reason``; if frames were dropped, ask for one full repaint."""
        self._holds.discard(reason)
        if self._holds or not self._stale:
            return
        self._stale = False
        if self._kept:
            self._send("".join(self._kept).encode("utf-8", "replace"))
            self._kept.clear()
        # A message, not a direct call: the repaint must run in the app's own task and
        # context (``active_app``), never in the SSH connection's.
        self._app.call_later(self._app.refresh)

    def _check_drained(self) -> None:
        self._drain_handle = None
        if "congested" not in self._holds:
            return
        if self._terminal.pending_output() <= DRAINED_BYTES:
            self._release("congested")
        else:
            self._drain_handle = self._loop.call_later(DRAIN_POLL, self._check_drained)

    def _startup_again(self) -> None:
        """Another start-up frame: wait for a quiet moment again, up to the deadline."""
        if self._startup_handle is not None:
            self._startup_handle.cancel()
        delay = min(STARTUP_QUIET, max(0.0, self._startup_deadline - time.monotonic()))
        self._startup_handle = self._loop.call_later(delay, self._end_startup)

    def _end_startup(self) -> None:
        self._startup_handle = None
        self._release("startup")

    # --- modes ---------------------------------------------------------------------------

    def start_application_mode(self) -> None:
        self._terminal.attach(self)
        self._input_enabled = True
        self._startup_deadline = time.monotonic() + STARTUP_MAX
        self._hold("startup")
        self._startup_again()
        setup = [
            "\x1b[?1049h",  # alternate screen
            "\x1b[?25l",  # hide the cursor
            "\x1b[?7l",  # no line wrap
            "\x1b[?2004h",  # bracketed paste: a paste arrives as one event, not a key flood
            "\x1b[?2026$p",  # does the terminal have synchronised output?
            "\x1b[?2048$p",  # in-band resize reports (when window-change messages get lost)
        ]
        if self._mouse:
            # Clicks only (press/release, SGR coordinates); never any-motion tracking
            # (?1003h), which would send every mouse movement over the network.
            setup += ["\x1b[?1000h", "\x1b[?1006h"]
        self._send("".join(setup).encode())
        width, height = self._size or (80, 24)
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    def disable_input(self) -> None:
        self._input_enabled = False
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

    def stop_application_mode(self) -> None:
        self.disable_input()
        for handle in (self._startup_handle, self._drain_handle):
            if handle is not None:
                handle.cancel()
        self._buffer.clear()
        restore = ["\x1b[?2004l", "\x1b[?7h", "\x1b[?25h"]
        if self._mouse:
            restore += ["\x1b[?1000l", "\x1b[?1006l"]
        if self._in_band_resize:
            restore.append("\x1b[?2048l")
        restore.append("\x1b[?1049l")  # back to the player's own screen
        self._send("".join(restore).encode())

    def close(self) -> None:
        self.disable_input()
        self._terminal.detach(self)

    # --- input ---------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Bytes the player typed. SSH packets may split a UTF-8 character: decode as a stream."""
        if not self._input_enabled:
            return
        text = self._decode(data)
        if text:
            for event in self._parser.feed(text):
                self.process_message(event)
        # A lone ESC is only known to be the Escape key once nothing follows it in time.
        if self._tick_handle is not None:
            self._tick_handle.cancel()
        self._tick_handle = self._loop.call_later(constants.ESCAPE_DELAY + 0.01, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        if self._input_enabled:
            for event in self._parser.tick():
                self.process_message(event)

    def resize(self, width: int, height: int) -> None:
        """The client's window changed (an SSH window-change request)."""
        if self._in_band_resize or not self._input_enabled:
            return  # the terminal reports its size in band; that report wins
        self._size = (width, height)
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    def process_message(self, message: Message) -> None:
        if isinstance(message, InBandWindowResize) and message.supported:
            self._in_band_resize = True
            if not message.enabled:
                self._send(b"\x1b[?2048h")
                message = InBandWindowResize(True, True)
        super().process_message(message)

    def send_message(self, message: Message) -> None:
        # One event loop, no input thread: post to the app directly.
        self._app.post_message(message)
