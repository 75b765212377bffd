"""docs/protocol.md keeps up with the protocol: every message type, field, option and action.

The doc has a "## Client → hub messages" part and a "## Hub → client messages" part, with one
"### `type`" heading per message type, and an "## Action vocabulary" part with one "###" heading
per game naming the game in backquotes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocol.messages import CLIENT_MESSAGES, SERVER_MESSAGES
from server.engine import all_games

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
CLIENT_PART = "Client → hub messages"
SERVER_PART = "Hub → client messages"
ACTIONS_PART = "Action vocabulary"


def doc_text() -> str:
    return DOC.read_text(encoding="utf-8")


def split(text: str, level: int) -> dict[str, str]:
    """Heading title → the text under it, up to the next heading of this level or higher."""
    marks = "#" * level
    out: dict[str, str] = {}
    title = None
    lines: list[str] = []
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        heading = re.match(r"^(#+) (.*)$", line) if not in_code else None
        if heading and len(heading.group(1)) <= level:
            if title is not None:
                out[title] = "\n".join(lines)
            title = heading.group(2).strip() if heading.group(1) == marks else None
            lines = []
        elif title is not None:
            lines.append(line)
    if title is not None:
        out[title] = "\n".join(lines)
    return out


def message_sections(part: str) -> dict[str, str]:
    """Message type → its section, for the "### `type`" headings of one part."""
    parts = split(doc_text(), 2)
    assert part in parts, f"docs/protocol.md has no '## {part}' section"
    sections = {}
    for title, body in split(parts[part], 3).items():
        named = re.match(r"^`([a-z_]+)`", title)
        if named:
            sections[named.group(1)] = body
    return sections


@pytest.mark.parametrize("kind", sorted(CLIENT_MESSAGES))
def test_every_client_message_and_field_is_documented(kind):
    sections = message_sections(CLIENT_PART)
    assert kind in sections, f"no '### `{kind}`' heading under '## {CLIENT_PART}'"
    body = sections[kind]
    for field in CLIENT_MESSAGES[kind]:
        assert f"`{field}`" in body, f"field {field!r} of client message {kind!r} is undocumented"
    assert f'"t": "{kind}"' in body, f"client message {kind!r} has no example"


@pytest.mark.parametrize("kind", sorted(SERVER_MESSAGES))
def test_every_server_message_and_field_is_documented(kind):
    sections = message_sections(SERVER_PART)
    assert kind in sections, f"no '### `{kind}`' heading under '## {SERVER_PART}'"
    body = sections[kind]
    for field in SERVER_MESSAGES[kind]:
        assert f"`{field}`" in body, f"field {field!r} of hub message {kind!r} is undocumented"
    assert f'"t": "{kind}"' in body, f"hub message {kind!r} has no example"


def test_no_message_is_documented_that_does_not_exist():
    stale = set(message_sections(CLIENT_PART)) - set(CLIENT_MESSAGES)
    assert not stale, f"documented client messages that do not exist: {sorted(stale)}"
    stale = set(message_sections(SERVER_PART)) - set(SERVER_MESSAGES)
    assert not stale, f"documented hub messages that do not exist: {sorted(stale)}"


@pytest.mark.parametrize("name", sorted(all_games()))
def test_every_table_option_is_documented(name):
    body = message_sections(CLIENT_PART)["create_table"]
    assert f"`{name}`" in body
    for option in all_games()[name].options:
        assert f"| `{name}` | `{option}` |" in body, f"option {option!r} of {name} is undocumented"


@pytest.mark.parametrize("name", sorted(all_games()))
def test_every_action_type_is_documented_with_an_example(name):
    games = split(split(doc_text(), 2)[ACTIONS_PART], 3)
    sections = [body for title, body in games.items() if f"`{name}`" in title]
    assert sections, f"no '###' heading naming `{name}` under '## {ACTIONS_PART}'"
    body = sections[0]
    for action in sorted(cls.TYPE for cls in all_games()[name].state_class.ACTIONS):
        assert f"`{action}`" in body, f"action {action!r} of {name} is undocumented"
        assert f'"type": "{action}"' in body, f"action {action!r} of {name} has no example"
