"""The admin screen: who is connected, and an admin's powers over them (the hub decides who
is an admin and does the work; ``gambit admin`` on the server's machine has the rest)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable

from protocol.requests import Admin

from .. import events
from ..i18n import N_, _
from ..widgets.text_lines import TextPanel
from .base import GambitScreen, while_composed

#: How long a ban and a mute from this screen last (seconds); the command line takes any.
BAN_FOR = 24 * 3600
MUTE_FOR = 3600


class AdminScreen(GambitScreen):
    """One row per connected player; the keys act on the selected one, or on everyone."""

    DEFAULT_CSS = """
    AdminScreen #sessions {
        height: 1fr;
        border: round $primary 50%;
        border-title-color: $foreground;
    }
    AdminScreen #sessions:focus {
        border: round $accent;
    }
    AdminScreen #said {
        height: 3;
        padding: 0 1;
        color: $text-muted;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("k", "kick", N_("Kick")),
        Binding("b", "ban", N_("Ban 1 day")),
        Binding("m", "mute", N_("Mute 1 h")),
        Binding("u", "unmute", N_("Unmute")),
        Binding("n", "unban", N_("Unban")),
        Binding("a", "broadcast", N_("Tell all")),
        Binding("t", "motd", N_("Message of the day")),
        Binding("c", "close_table", N_("Close table")),
        Binding("g", "chips", N_("Chips")),
        Binding("v", "audit", N_("Audit")),
        Binding("p", "reports", N_("Reports")),
        Binding("R", "restart", N_("Restart in 5 min")),
        Binding("x", "cancel_restart", N_("Cancel restart")),
        Binding("r", "refresh", N_("Refresh")),
        Binding("escape", "close", N_("Back")),
    ]

    def compose_body(self) -> ComposeResult:
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=False)
        yield TextPanel(id="said", wrap=True)

    def setup(self) -> None:
        table = self.query_one("#sessions", DataTable)
        table.border_title = _("Connected")
        table.add_column(_("Name"), key="name")
        table.add_column(_("Address"), key="address")
        table.add_column(_("Tables"), key="tables")
        table.add_column(_("Idle"), key="idle")
        table.add_column(_("Key"), key="key")
        table.focus()
        self.action_refresh()

    def status_context(self) -> str:
        return _("Admin")

    # --- what the hub said -------------------------------------------------------------------

    def on_admin_replied(self, event: events.AdminReplied) -> None:
        if event.op == "sessions":
            self.refresh_view()
            return
        data = self.gapp.model.admin.get(event.op)
        if event.op == "reports":
            lines = [f"{r['line'].get('from')}: {r['line'].get('text')}" for r in (data or [])[:3]]
            text = "\n".join(lines) or _("No reports.")
        elif event.op == "audit":
            problems = (data or {}).get("problems") or []
            text = "\n".join(problems) or _("The ledger is in order.")
        else:
            text = _("Done: {op} {data}").format(op=event.op, data=data)
        self.query_one("#said", TextPanel).text = text
        self.action_refresh()

    @while_composed
    def refresh_view(self) -> None:
        table = self.query_one("#sessions", DataTable)
        keep = self.selected
        table.clear()
        for row in self.gapp.model.admin.get("sessions") or []:
            key = "" if row.get("guest") else str(row["id"]).removeprefix("SHA256:")[:12]
            idle = "" if row.get("idle") is None else f"{row['idle']}s"
            tables = ", ".join(str(t) for t in row.get("tables") or [])
            table.add_row(  # (a DataTable reads a str cell as markup; a name is player text)
                Text(row["name"]), row.get("address") or "", tables, idle, key, key=str(row["id"])
            )
        if keep is not None and keep in table.rows:
            table.move_cursor(row=table.get_row_index(keep))
        self.refresh_bindings()

    @property
    def selected(self) -> str | None:
        """The selected player's id (a key fingerprint, or a guest's id)."""
        table = self.query("#sessions").results(DataTable)
        widget = next(iter(table), None)
        if widget is None or not widget.rows:
            return None
        try:
            key = widget.coordinate_to_cell_key(widget.cursor_coordinate).row_key
        except Exception:
            return None
        return str(key.value) if key.value is not None else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("kick", "ban", "mute", "unmute", "chips"):
            return self.selected is not None
        return True

    # --- the keys ------------------------------------------------------------------------------

    def send(self, op: str, **fields: Any) -> None:
        self.gapp.send(Admin(op, **fields))

    def action_refresh(self) -> None:
        self.send("sessions")

    def _with_reason(self, title: str, then: Any) -> None:
        from .ask_name import AskNameScreen

        def answered(reason: str | None) -> None:
            if reason:
                then(reason)

        self.app.push_screen(AskNameScreen(title, _("Reason"), max_length=200), answered)

    def action_kick(self) -> None:
        who = self.selected
        if who:
            self._with_reason(_("Kick"), lambda reason: self.send("kick", who=who, reason=reason))

    def action_ban(self) -> None:
        who = self.selected
        if who:
            self._with_reason(
                _("Ban 1 day"),
                lambda reason: self.send("ban", who=who, seconds=BAN_FOR, reason=reason),
            )

    def action_mute(self) -> None:
        who = self.selected
        if who:
            self._with_reason(
                _("Mute 1 h"),
                lambda reason: self.send("mute", who=who, seconds=MUTE_FOR, reason=reason),
            )

    def action_unmute(self) -> None:
        who = self.selected
        if who:
            self.send("unmute", who=who)

    def _with_text(self, title: str, op: str) -> None:
        from .ask_name import AskNameScreen

        def answered(text: str | None) -> None:
            if text is not None:
                self.send(op, text=text)

        self.app.push_screen(AskNameScreen(title, _("Text"), max_length=500), answered)

    def action_broadcast(self) -> None:
        self._with_text(_("Tell all"), "broadcast")

    def action_motd(self) -> None:
        self._with_text(_("Message of the day"), "motd")

    def _ask(self, title: str, label: str, then: Any, max_length: int = 200) -> None:
        from .ask_name import AskNameScreen

        def answered(text: str | None) -> None:
            if text:
                then(text)

        self.app.push_screen(AskNameScreen(title, label, max_length=max_length), answered)

    def action_unban(self) -> None:
        def unban(text: str) -> None:
            if text.replace(".", "").replace(":", "").isdigit():  # an address
                self.send("unban", address=text)
            else:
                self.send("unban", who=text)

        self._ask(_("Unban"), _("Name, key or address"), unban)

    def action_close_table(self) -> None:
        def close(text: str) -> None:
            if text.isdigit():
                self._with_reason(
                    _("Close table"),
                    lambda reason: self.send("close_table", table=int(text), reason=reason),
                )

        self._ask(_("Close table"), _("Table number"), close, max_length=10)

    def action_chips(self) -> None:
        who = self.selected

        def give(text: str) -> None:
            amount = text.strip()
            if who and amount.lstrip("-").isdigit() and int(amount):
                self._with_reason(
                    _("Chips"),
                    lambda reason: self.send("chips", who=who, amount=int(amount), reason=reason),
                )

        self._ask(_("Chips"), _("How many (negative to take)"), give, max_length=10)

    def action_audit(self) -> None:
        self.send("audit")

    def action_reports(self) -> None:
        self.send("reports")

    def action_restart(self) -> None:
        self.send("restart", seconds=300)

    def action_cancel_restart(self) -> None:
        self.send("cancel_restart")

    def action_close(self) -> None:
        self.dismiss()
