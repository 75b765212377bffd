"""A Textual driver that draws on one SSH channel instead of the server's own terminal.

Why a driver of our own: Textual's ``LinuxDriver`` is bound to the process's stdin/stderr,
termios, two threads and process-wide signal handlers (SIGTSTP, SIGCONT, SIGWINCH); with a
hundred apps in one server process none of that may happen. This driver lives on the event
loop: output goes to the channel through a small :class:`Terminal` interface, input arrives as
bytes from the session and is parsed with Textual's own ``XTermParser`` (with the ``tick`` a
lone ESC needs), and window changes become ``events.Resize``.

Bytes matter on a network, so output is shaped in two ways:

* **Full repaints are coalesced.** Textual often repaints the whole screen several times in a
  row (while an app starts, when a screen is pushed: layout, then CSS, then a resize of the
  new widgets...). A full repaint makes everything sent before it irrelevant, so one is held
  for a moment; if another follows, the first is dropped. Partial updates that follow a held
  repaint ride along with it; otherwise they go out at once (a keystroke's echo never waits).
  At start-up the hold is longer, so a player's first screen usually arrives as one frame.
* **A congested client gets the latest screen, not every frame.** When the bytes waiting for
  a client pass a threshold, frames are dropped until the backlog has drained; then the app
  is asked for one full repaint. Server memory per client stays bounded.

Small control sequences (bell, window title, clipboard) are never dropped: they are kept and
sent when output resumes.

What the client's terminal cannot show is never sent: to a terminal whose locale is not UTF-8,
every character goes out as ASCII (``gambit_tui/ascii_text.py``: the app chooses ASCII text
itself, this is the guarantee, borders included); to one without colour (or a player who sent
``NO_COLOR``), no colour codes (``no_colour.py``). Both happen before the screen diff, so what
the diff remembers is what the player sees; for every other terminal the output is as it was.

The compositor's frames arrive as their pieces (``chops_display.py``), each a cursor position
and its text, rather than as one string that the screen diff would split again; anything else
Textual writes arrives as a string, and a frame with such a string in it is diffed as one.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import time
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from textual import constants, events
from textual.driver import Driver
from textual.geometry import Size
from textual.messages import InBandWindowResize

from gambit_tui.ascii_text import ascii_cells
from server.apphost.textual_private import LayoutUpdate, XTermParser

from .chops_display import Frame, display_as_pieces
from .no_colour import strip_colour
from .screen_diff import SentScreen
from .sgr import compact_pieces
from .term_size import DEFAULT_SIZE, clamp_size

#: At most one new terminal size this often (seconds; a window dragged bigger is redrawn
#: twice a second, the last size within this): see ChannelDriver._want_size.
RESIZE_INTERVAL = 0.5

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.app import App
    from textual.message import Message
    from textual.screen import Screen

    from protocol.term import TermInfo

log = logging.getLogger(__name__)

#: Output waiting for a client beyond this many bytes means it is not keeping up.
CONGESTED_BYTES = 64 * 1024
#: ... and once the backlog is down to this, it gets the latest screen.
DRAINED_BYTES = 16 * 1024
#: How often to look at a congested client's backlog.
DRAIN_POLL = 0.05
#: A full repaint waits this long for a newer one to replace it ...
COALESCE_QUIET = 0.03
#: ... but is sent at the latest this long after the first one was held.
COALESCE_MAX = 0.1
#: While the app starts, the same, longer: its first screens follow the hub's first messages.
STARTUP_QUIET = 0.1
STARTUP_MAX = 0.6
#: At most this many control sequences are kept while output is held.
MAX_KEPT_CONTROLS = 16


class Terminal(Protocol):
    """What the driver needs from the SSH session it draws on."""

    def send(self, data: bytes) -> None:
        """Write bytes to the player's terminal (never blocks)."""

    def pending_output(self) -> int:
        """Bytes written but not yet taken by the client."""

    def frame_unchanged(self) -> None:
        """A frame was drawn that the player's screen already shows (nothing was sent)."""

    def attach(self, driver: ChannelDriver) -> None:
        """The driver is ready for input and resize events."""

    def detach(self, driver: ChannelDriver) -> None:
        """The driver takes no more input."""


class _Binding(NamedTuple):
    terminal: Terminal
    erase: bool
    ascii: bool
    colour: bool


_terminals: weakref.WeakKeyDictionary[App[Any], _Binding] = weakref.WeakKeyDictionary()


def bind(
    app: App[Any],
    terminal: Terminal,
    *,
    erase: bool = False,
    ascii: bool = False,
    colour: bool = True,
) -> None:
    """Make ``app`` draw on ``terminal`` when it runs (``erase``: the terminal erases in the
    current background colour, so blank runs can be erased instead of written; ``ascii``: it
    takes ASCII only; ``colour``: it may be sent colours).

    Textual builds its driver itself, as ``driver_class(app, debug=, mouse=, size=)``, so the
    driver finds its terminal here, by its app.
    """
    app.driver_class = ChannelDriver
    _terminals[app] = _Binding(terminal, erase, ascii, colour)


def bind_term(app: App[Any], terminal: Terminal, term: TermInfo) -> None:
    """:func:`bind` with what ``term`` says the player's terminal can show."""
    bind(
        app,
        terminal,
        erase=term.erases_in_colour,
        ascii=not term.unicode,
        colour=term.colour,
    )


def _is_control(data: str | Frame) -> bool:
    """Bell, OSC (title, clipboard) and pointer-shape writes: small, and not part of a frame."""
    return isinstance(data, str) and (data == "\x07" or data.startswith("\x1b]"))


class ChannelDriver(Driver):
    """Textual output to, and input from, one SSH channel; see the module docstring."""

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._terminal, self._erase, self._ascii, self._colour = _terminals.pop(app)
        # What Textual wrote (strings) and the frames it drew (``chops_display.py``).
        self._buffer: list[str | Frame] = []
        self._screen = SentScreen(width=(size or (0, 0))[0])
        self._parser = XTermParser(debug=False)
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self._tick_handle: asyncio.TimerHandle | None = None
        self._input_enabled = False
        self._in_band_resize = False
        # Sizes the client claims: the latest not yet applied, when one was, and its timer.
        self._wanted: tuple[int, int] | None = None
        self._resized_at = 0.0
        self._resize_handle: asyncio.TimerHandle | None = None
        # Coalescing: output held behind a full repaint, and when it must go.
        self._next_is_full = False
        self._held: list[str | Frame] = []
        self._held_since = 0.0
        self._quiet, self._max_hold = STARTUP_QUIET, STARTUP_MAX
        self._send_handle: asyncio.TimerHandle | None = None
        # Congestion: frames dropped meanwhile, controls kept.
        self._congested = False
        self._stale = False
        self._kept: list[str] = []
        self._drain_handle: asyncio.TimerHandle | None = None
        self.bytes_sent = 0
        self.frames_sent = 0
        self.frames_full = 0
        self.frames_skipped = 0
        self._watch_full_repaints()

    def _watch_full_repaints(self) -> None:
        """Learn, for each frame, whether Textual is writing the whole screen, and take the
        compositor's frames as pieces (``chops_display.py``).

        Only the app knows (it renders a ``LayoutUpdate`` for a full repaint); its
        ``_display`` is wrapped on this one instance for as long as the driver lives.
        """
        app = self._app
        display = app._display

        def watched_display(screen: Screen, renderable: RenderableType | None) -> None:
            self._next_is_full = isinstance(renderable, LayoutUpdate)
            display(screen, renderable)

        from server.apphost.textual_layer import on_instance

        on_instance("driver.full_repaints", app, watched_display)
        display_as_pieces(app, self.write_frame)

    # --- output --------------------------------------------------------------------------

    def write(self, data: str) -> None:
        self._buffer.append(data)

    def write_frame(self, frame: Frame, full: bool) -> None:
        """A frame the compositor drew (``full``: all of the screen), as its pieces."""
        self._buffer.append(frame)
        self._next_is_full = full
        self.flush()

    def flush(self) -> None:
        if not self._buffer:
            return
        full, self._next_is_full = self._next_is_full, False
        frame, self._buffer = self._buffer, []
        if not self._congested and self._terminal.pending_output() > CONGESTED_BYTES:
            self._congested = True
            self._drain_handle = self._loop.call_later(DRAIN_POLL, self._check_drained)
        if self._congested:
            self._drop(frame)
            self._stale = True  # the player must get the latest screen once it drains
            return
        if full:
            self.frames_full += 1
            if self._held:
                self._drop(self._held)
                self._held = [*self._kept, *frame]
                self._kept = []
            else:
                self._held = frame
                self._held_since = time.monotonic()
            self._schedule_send()
        elif self._held:
            self._held.extend(frame)  # on top of the held repaint
        else:
            self._send_text(frame)

    def _schedule_send(self) -> None:
        if self._send_handle is not None:
            self._send_handle.cancel()
        deadline = self._held_since + self._max_hold
        delay = min(self._quiet, max(0.0, deadline - time.monotonic()))
        self._send_handle = self._loop.call_later(delay, self._send_held)

    def _send_held(self) -> None:
        self._send_handle = None
        self._quiet, self._max_hold = COALESCE_QUIET, COALESCE_MAX
        held, self._held = self._held, []
        if held and not self._congested:
            self._send_text(held)
        elif held:
            self._drop(held)
            self._stale = True

    def _send_text(self, parts: list[str | Frame]) -> None:
        """Send frames (only what the player's screen does not show yet) and controls."""
        controls = self._shown("".join(p for p in parts if isinstance(p, str) and _is_control(p)))
        frames = [part for part in parts if not _is_control(part)]
        drawn = [part for part in frames if isinstance(part, Frame)]
        pieces: Sequence[str | tuple[str, str]]
        if frames and len(drawn) == len(frames):
            pieces = self._screen.diff_drawn(
                self._shown_pieces(drawn),
                any(frame.sync for frame in drawn),
                lambda: self._shown("".join(f.text() for f in drawn)),
            )
        else:
            text = "".join(p if isinstance(p, str) else p.text() for p in frames)
            pieces = self._screen.diff_pieces(self._shown(text))
        drawing = compact_pieces(pieces, erase=self._erase)
        if controls or drawing:
            self._send((controls + drawing).encode("utf-8", "replace"))
        else:
            self._terminal.frame_unchanged()

    def _shown(self, text: str) -> str:
        """``text`` as this terminal can show it: ASCII only, no colour (when it must be)."""
        if self._ascii:
            text = ascii_cells(text)
        if not self._colour:
            text = strip_colour(text)
        return text

    def _shown_pieces(self, frames: list[Frame]) -> Sequence[tuple[int, int, str, int | None]]:
        """The frames' pieces, in order, each as :meth:`_shown` has it (its cells measured
        again if its text was changed)."""
        if not self._ascii and self._colour:
            if len(frames) == 1:
                return frames[0].pieces
            return [piece for frame in frames for piece in frame.pieces]
        shown = self._shown
        return [(row, col, shown(text), None) for f in frames for row, col, text, _ in f.pieces]

    def _send(self, data: bytes) -> None:
        self._terminal.send(data)
        self.bytes_sent += len(data)
        self.frames_sent += 1

    def _drop(self, parts: list[str | Frame]) -> None:
        """Drop frames that a later full repaint will replace, keeping control sequences."""
        self._kept.extend(part for part in parts if isinstance(part, str) and _is_control(part))
        del self._kept[:-MAX_KEPT_CONTROLS]
        self.frames_skipped += 1

    def _check_drained(self) -> None:
        self._drain_handle = None
        if self._terminal.pending_output() > DRAINED_BYTES:
            self._drain_handle = self._loop.call_later(DRAIN_POLL, self._check_drained)
            return
        self._congested = False
        if self._kept:
            self._send(self._shown("".join(self._kept)).encode("utf-8", "replace"))
            self._kept = []
        if self._stale:
            self._stale = False
            # A message, not a direct call: the repaint must run in the app's own task and
            # context (``active_app``), never in the SSH connection's.
            self._app.call_later(self._app.refresh)

    # --- modes ---------------------------------------------------------------------------

    def start_application_mode(self) -> None:
        self._terminal.attach(self)
        self._input_enabled = True
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
        if self._resize_handle is not None:
            self._resize_handle.cancel()
            self._resize_handle = None

    def stop_application_mode(self) -> None:
        self.disable_input()
        for handle in (self._send_handle, self._drain_handle):
            if handle is not None:
                handle.cancel()
        self._buffer.clear()
        self._held = []  # the player is leaving this screen anyway
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
        self._release_parser()
        with contextlib.suppress(AttributeError):
            del self._app._display  # the class's own method again; no cycle through us

    def _release_parser(self) -> None:
        """Let go of everything the parser still holds that points at the app.

        The parser's generator keeps its last key event (whose sender is the app), and
        Textual caches parsed key sequences in one class-wide LRU cache keyed by parser, so
        up to 1024 finished sessions' apps would stay alive through it.
        """
        with contextlib.suppress(Exception):
            for _ in self._parser.feed(""):
                pass
        XTermParser._parse_extended_key.cache_clear()

    # --- input ---------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Bytes the player typed. SSH packets may split a UTF-8 character: decode as a stream."""
        if not self._input_enabled:
            return
        if b"\x0c" in data:  # Ctrl+L: the player's screen is garbled, draw all of it again
            self.redraw()
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

    def redraw(self) -> None:
        """Forget what the player's screen shows and repaint all of it."""
        self._screen.reset()
        self._app.call_later(self._app.refresh)

    def resize(self, width: int, height: int) -> None:
        """The client's window changed (an SSH window-change request)."""
        if self._in_band_resize or not self._input_enabled:
            return  # the terminal reports its size in band; that report wins
        self._want_size(width, height)

    def _want_size(self, width: int, height: int) -> None:
        """Take a size the client claims: clamped (see term_size.py), and at most one new size
        every ``RESIZE_INTERVAL`` (the latest one wins): each is a whole repaint, and a client
        can claim sizes far faster than anyone drags a window's corner."""
        self._wanted = clamp_size(width, height, fallback=self._size or DEFAULT_SIZE)
        if self._resize_handle is not None:
            return  # the latest size goes when the interval is over
        wait = self._resized_at + RESIZE_INTERVAL - time.monotonic()
        if wait > 0:
            self._resize_handle = self._loop.call_later(wait, self._apply_size)
        else:
            self._apply_size()

    def _apply_size(self) -> None:
        self._resize_handle = None
        if self._wanted is None or not self._input_enabled:
            return
        (width, height), self._wanted = self._wanted, None
        self._resized_at = time.monotonic()
        self._size = (width, height)
        self._screen.reset()  # a resized terminal may have reflowed or cleared its cells
        self._screen.width = width
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    def process_message(self, message: Message) -> None:
        if isinstance(message, events.Resize):
            # An in-band size report: the client's claim too, taken as a window change is.
            self._want_size(*message.size)
            return
        if isinstance(message, InBandWindowResize) and message.supported:
            self._in_band_resize = True
            if not message.enabled:
                self._send(b"\x1b[?2048h")
                message = InBandWindowResize(True, True)
        super().process_message(message)

    def send_message(self, message: Message) -> None:
        # One event loop, no input thread: post to the app directly.
        self._app.post_message(message)
