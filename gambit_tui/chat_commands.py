"""Chat's own commands, as in ssh-chat and IRC: a line that starts with ``/``.

``/ignore NAME`` and ``/unignore NAME`` hide (or show again) a player's chat and invitations;
``/report NAME`` sends that player's last line in this chat to the server's admins; ``/name
NAME`` changes one's own name (a returning player does not pass the welcome screen); ``/help``
says so. The hub does the work (``ignore`` and ``report`` messages); this only reads the line.
"""

from __future__ import annotations

from protocol.requests import Ignore, Profile, Report, Request

from .i18n import _
from .model import ClientModel


def command(text: str, key: str | int, model: ClientModel) -> tuple[Request | None, str | None]:
    """What a ``/`` line asks: a message for the hub (or None) and something to tell the
    player (or None). ``key``: the chat it was typed in ("lobby" or a table id)."""
    word, _space, rest = text[1:].partition(" ")
    name = rest.strip()
    word = word.lower()
    if word in ("ignore", "unignore"):
        if not name:
            return None, _("Say whom: /{command} NAME").format(command=word)
        return Ignore(name[:24], word == "ignore"), None
    if word == "name":
        if not name:
            return None, _("Say which: /name NAME")
        return Profile(name=name[:24]), None
    if word == "report":
        if not name:
            return None, _("Say whom: /{command} NAME").format(command=word)
        for line in reversed(model.chat_lines(key)):
            if line.sender.casefold() == name.casefold():
                report = Report(line.channel, line.sender, line.text, table=line.table)
                return report, None
        return None, _("{name} has said nothing here to report.").format(name=name)
    return None, _(
        "Chat commands: /name NAME (yours) · /ignore NAME · /unignore NAME · /report NAME "
        "(their last line here, to the admins)"
    )
