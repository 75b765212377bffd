"""An app handed over to a fresh one: what the new app needs to show the same screen.

The server may move a player's app to another process (the one that draws the rest of their
table: ``server/apphost/workers.py``). It keeps the hub's connection as it is, so the hub
never learns of the move; the old app gives :func:`snapshot` (plain data: what it was told,
its own answers to deals, which table screens were open) and the new one starts from it with
:func:`restore` instead of saying hello. Anything else on screen (a dialog, the cursor in a
hand) starts afresh, as after a reconnect.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

from .model import CHAT_HISTORY, ChatLine, ClientModel

if TYPE_CHECKING:  # for type hints only
    from .app import GambitApp

#: The model's fields carried over as they are (plain data the hub sent).
_PLAIN = (
    *("you", "server", "players", "online", "tables_total"),
    *("invites", "friends", "requests", "sent", "nights"),
)


def _pairs(mapping: dict[Any, Any]) -> list[list[Any]]:
    """A map as pairs (its keys are ints, which a msgpack map does not take back)."""
    return [[key, value] for key, value in mapping.items()]


def snapshot(app: GambitApp) -> dict[str, Any]:
    """What a new app needs to go on where ``app`` is: plain data (msgpack)."""
    model = app.model
    state: dict[str, Any] = {name: getattr(model, name) for name in _PLAIN}
    state["tables"] = _pairs(model.tables)
    state["views"] = _pairs(model.views)
    state["night"] = _pairs(model.night)
    state["chat"] = [
        [key, [[c.channel, c.sender, c.text, c.table] for c in lines]]
        for key, lines in model.chat.items()
    ]
    state["entropy"] = [[list(key), value] for key, value in app.entropy.values.items()]
    state["revealed"] = [list(key) for key in app.entropy.revealed]
    state["screens"] = [[t, _hand_over(app, t)] for t in app.table_screens()]
    state["events"] = _events_screen(app)
    state["notices"] = app.live_notices()
    state["watching"] = sorted(app.watching)
    state["dismissed"] = sorted(app.dismissed)
    return state


def restore(app: GambitApp, state: dict[str, Any]) -> None:
    """Take ``state`` (a :func:`snapshot`) into ``app``'s model, before its screens open."""
    model: ClientModel = app.model
    for name in _PLAIN:
        setattr(model, name, state.get(name))
    model.tables = {int(key): value for key, value in state.get("tables") or []}
    model.views = {int(key): value for key, value in state.get("views") or []}
    now = time.monotonic()
    model.received = dict.fromkeys(model.views, now)
    model.night = {int(key): value for key, value in state.get("night") or []}
    model.night_received = dict.fromkeys(
        [*model.night, *(n["id"] for n in model.nights or [])], now
    )
    model.chat = {
        key: deque((ChatLine(*line) for line in lines), maxlen=CHAT_HISTORY)
        for key, lines in state.get("chat") or []
    }
    for (table, commitment), value in state.get("entropy") or []:
        app.entropy.values[(int(table), str(commitment))] = value
    for table, commitment in state.get("revealed") or []:
        app.entropy.revealed.add((int(table), str(commitment)))
    app.watching.update(int(t) for t in state.get("watching") or [])
    app.dismissed.update(int(t) for t in state.get("dismissed") or [])


def _events_screen(app: GambitApp) -> dict[str, Any] | None:
    """Whether the Events screen is open under the tables (a round's table opens over it,
    and Esc goes back there), and the event it follows."""
    from .screens.nights import NightsScreen

    for screen in app.screen_stack:
        if isinstance(screen, NightsScreen):
            return {"follows": screen.followed}
    return None


def notices_of(state: dict[str, Any]) -> list[tuple[str, str, str, float]]:
    """The notices that were up (message, title, severity, seconds left): a notice that came
    just before a move (a round's table, an invitation) is still there after it."""
    return [(str(m), str(t), str(s), float(left)) for m, t, s, left in state.get("notices") or []]


def events_screen_of(state: dict[str, Any]) -> dict[str, Any] | None:
    """The Events screen as :func:`snapshot` saw it (None: it was not open)."""
    shown = state.get("events")
    return dict(shown) if isinstance(shown, dict) else None


def _hand_over(app: GambitApp, table_id: int) -> dict[str, Any]:
    hand_over = getattr(app.table_screen(table_id), "hand_over", None)
    return hand_over() if hand_over is not None else {}


def screens_of(state: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The table screens that were open, oldest first, and what each showed of its own
    (the chat, open or not, what was typed in it, and the chat lines in the table's log:
    ``TableScreen.hand_over``; a Prophet table's log of earlier rounds, which no view
    carries: ``ProphetTableScreen.hand_over``)."""
    return [(int(t), dict(shown or {})) for t, shown in state.get("screens") or []]
