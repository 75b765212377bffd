"""A small Textual app standing in for the Gambit app, to test the SSH host on its own.

It shows what the host handed it (identity, wished name, terminal facts, size), what the hub
answered to its hello, and the last key pressed, so a test reading the screen through a real
``ssh`` client can check each of them. ``c`` starts a counter that redraws every 10 ms (the
slow-client test); ``q`` quits.
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import work
from textual.app import App, ComposeResult
from textual.widgets import Static

from protocol.connection import Connection, ConnectionClosed
from protocol.messages import PROTOCOL_VERSION
from protocol.term import TermInfo


class StandInApp(App[None]):
    CSS = """
    Static { height: 1; }
    #counter { height: 1fr; }
    """
    BINDINGS: ClassVar = [("q", "quit", "Quit"), ("c", "count", "Count")]

    def __init__(
        self, conn: Connection, *, term: TermInfo, identity: str | None, name: str | None
    ) -> None:
        super().__init__()
        self.conn = conn
        self.term = term
        self.identity = identity
        self.wished = name
        self.count = 0

    def compose(self) -> ComposeResult:
        yield Static(f"identity={self.identity or 'guest'}", id="identity")
        yield Static(f"wished={self.wished}", id="wished")
        yield Static(
            f"term={self.term.term} colors={self.term.color_system} "
            f"unicode={self.term.unicode} lang={self.term.lang}",
            id="term",
        )
        yield Static("size=?", id="size")
        yield Static("hub=...", id="hub")
        yield Static("key=none", id="key")
        yield Static("", id="counter")

    def on_mount(self) -> None:
        self.talk_to_hub()

    def on_resize(self, event: Any) -> None:
        self.query_one("#size", Static).update(f"size={event.size.width}x{event.size.height}")

    def on_key(self, event: Any) -> None:
        self.query_one("#key", Static).update(f"key={event.key}")

    def action_count(self) -> None:
        self.set_interval(0.01, self._tick)

    def _tick(self) -> None:
        self.count += 1
        self.query_one("#counter", Static).update(f"count={self.count} " + "#" * (self.count % 60))

    @work(exclusive=True)
    async def talk_to_hub(self) -> None:
        hello: dict[str, Any] = {"t": "hello", "v": PROTOCOL_VERSION}
        if self.identity:
            hello["identity"] = self.identity
        if self.wished:
            hello["name"] = self.wished
        if self.term.language:  # as the Gambit app says it: its client's locale's language
            hello["lang"] = self.term.language
        await self.conn.send(hello)
        try:
            while True:
                message = await self.conn.recv()
                if isinstance(message, dict) and message.get("t") == "welcome":
                    you = message["you"]
                    self.query_one("#hub", Static).update(
                        f"hub name={you['name']} guest={you['guest']}"
                    )
        except ConnectionClosed:
            pass


def make_standin(
    conn: Connection, term: TermInfo, identity: str | None, name: str | None
) -> StandInApp:
    return StandInApp(conn, term=term, identity=identity, name=name)
