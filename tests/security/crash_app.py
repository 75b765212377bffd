"""An app that crashes as soon as it starts, with a secret in a local variable: what a
server must log is the traceback, never the variables (``GAMBIT_TEST_APP_FACTORY``)."""

from __future__ import annotations

from typing import Any

from textual.app import App, ComposeResult
from textual.widgets import Static

SECRET_LOCAL = "local-secret-7f3a"
CRASH = "the test app crashed on purpose"


class CrashApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("about to crash")

    def on_mount(self) -> None:
        self.set_timer(0.2, self.crash)

    def crash(self) -> None:
        secret = SECRET_LOCAL  # what Rich's traceback would print beside the frame
        raise RuntimeError(f"{CRASH} ({len(secret)})")


def make_app(conn: Any, term: Any, identity: str | None, name: str | None) -> CrashApp:
    return CrashApp()
