"""Name claiming: which display name a player may take.

A name is unique among players online and not registered to another key, nor looks like such
a name (same skeleton: ``Аlice`` with a Cyrillic А is ``Alice``). Kept apart from the hub so
the rule reads in one place; the hub asks it at each hello and rename."""

from __future__ import annotations

import secrets
import unicodedata

from protocol.messages import MAX_NAME
from server.store import NameTaken, Store, mixed_script
from server.store.names import scripts

from .errors import HubError
from .online_names import OnlineNames


def clean_name(name: str) -> str:
    """Letters, digits, spaces and a little punctuation; no control or wide tricks."""
    name = unicodedata.normalize("NFC", name).strip()
    allowed = all(ch.isalnum() or ch in " -_.'" for ch in name) and not any(
        unicodedata.category(ch).startswith("C") for ch in name
    )
    if not allowed or not 1 <= len(name) <= MAX_NAME:
        return ""
    return " ".join(name.split())


class NameClaims:
    """Says whether a player may take a name (and registers it to their key if so)."""

    def __init__(self, store: Store, online_names: OnlineNames) -> None:
        self.store = store
        self.online_names = online_names

    def claim(self, pid: str, guest: bool, wished: str | None, strict: bool = False) -> str:
        """The name ``pid`` gets: ``wished`` if they may have it (else :class:`HubError`);
        with none wished, a fresh ``Guest-1234`` or ``Player-1234`` (refused if ``strict``)."""
        if wished is not None:
            name = clean_name(wished)
            if not name:
                raise HubError("bad_name", "A name needs 1 to 24 letters, digits or spaces.")
            if mixed_script(name):
                alphabets = ", ".join(sorted(s.title() for s in scripts(name)))
                raise HubError(
                    "bad_name",
                    "{name} mixes letters of different alphabets ({alphabets}); "
                    "write a name in one alphabet.",
                    name=name,
                    alphabets=alphabets,
                )
            like = self.online_names.like(name, pid)
            if like is not None:
                if like.casefold() == name.casefold():
                    raise HubError(
                        "name_taken", "Someone online is already called {name}.", name=name
                    )
                raise HubError(
                    "name_taken",
                    "{name} looks too much like {like}, who is online.",
                    name=name,
                    like=like,
                )
            owner = self.store.name_owner(name)
            if owner is not None and owner != pid:
                raise HubError(
                    "name_taken", "The name {name} belongs to another player.", name=name
                )
            owner = self.store.skeleton_owner(name, other_than=pid)
            if owner is not None:
                like = (self.store.get_player(owner) or {}).get("name") or "another name"
                raise HubError(
                    "name_taken",
                    "{name} looks too much like {like}, another player's name.",
                    name=name,
                    like=like,
                )
            if not guest:
                try:
                    self.store.set_name(pid, name)
                except NameTaken as err:  # set_name checks again, inside its transaction
                    if err.like is None:
                        raise HubError(
                            "name_taken", "The name {name} belongs to another player.", name=name
                        ) from None
                    raise HubError(
                        "name_taken",
                        "{name} looks too much like {like}, another player's name.",
                        name=name,
                        like=err.like,
                    ) from None
            return name
        if strict:
            raise HubError("bad_name", "Choose a name.")
        base = "Guest" if guest else "Player"
        while True:
            name = f"{base}-{secrets.randbelow(10000):04d}"
            if (
                self.online_names.like(name, pid) is None
                and self.store.name_owner(name) is None
                and self.store.skeleton_owner(name) is None
            ):
                return name
