"""Command-line options declared on the settings they fill.

A settings dataclass (``HubConfig``) gives a field an :func:`option` in its metadata: the
flag, its help, and how the value becomes the setting. :func:`add_options` adds those options
to a parser in the fields' order (their defaults are the fields' defaults), and
:func:`settings_from` reads them back into the fields' values: one declaration per setting,
so a command's options and the settings they fill cannot drift apart. ``server/settings.py``
then lets each option come from ``GAMBIT_*`` or a ``gambit.toml`` too.

A command that lists its options among others of its own (``HostConfig``'s, in ``gambit
serve`` and ``gambit gateway``) adds them a few at a time (``only``), and may word one's help
its own way (``helps``); :func:`settings_from` reads back the ones the parser has.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

OPTION = "option"
#: An option whose default is its field's (see :attr:`Option.default`).
FROM_FIELD: Any = object()

#: Where an option is listed in ``--help``: a group's title and description.
Groups = dict[str, tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Option:
    flag: str
    #: Its help; a callable is given the settings' defaults (a help that quotes another one).
    help: str | Callable[[Any], str]
    type: Callable[[str], Any] | None = None
    #: ``"store_true"`` for a switch.
    action: str | None = None
    metavar: str | None = None
    #: The ``--help`` group it is listed in (see :data:`Groups`); None: the command's own.
    group: str | None = None
    #: The setting from the option's value (None: the value as it is), and the option's
    #: default when not the field's (a switch, a file to read).
    to_setting: Callable[[Any], Any] | None = None
    default: Any = FROM_FIELD
    #: A short form of the flag (``-v``), listed before it.
    short: str | None = None

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")


def option(flag: str, help: str | Callable[[Any], str], **kw: Any) -> dict[str, Option]:
    """A field's metadata: the command-line option that sets it (see :class:`Option`)."""
    return {OPTION: Option(flag, help, **kw)}


def _options(settings: type) -> list[tuple[dataclasses.Field[Any], Option]]:
    return [(f, f.metadata[OPTION]) for f in dataclasses.fields(settings) if OPTION in f.metadata]


def add_options(
    parser: argparse.ArgumentParser,
    settings: type,
    groups: Groups,
    given: dict[str, argparse._ArgumentGroup] | None = None,
    only: tuple[str, ...] | None = None,
    helps: dict[str, str] | None = None,
) -> dict[str, argparse._ArgumentGroup]:
    """Add the options ``settings``' fields declare, in their order (only the fields named in
    ``only``, if given); a group is made when its first option comes (unless ``given``: a
    group the caller shares with options of its own). ``helps``: a command's own wording of
    a field's help. Returns the groups, given and made."""
    defaults = settings()
    made: dict[str, argparse._ArgumentGroup] = dict(given or {})
    for field, opt in _options(settings):
        if only is not None and field.name not in only:
            continue
        where: argparse._ArgumentGroup | argparse.ArgumentParser = parser
        if opt.group is not None:
            if opt.group not in made:
                made[opt.group] = parser.add_argument_group(*groups[opt.group])
            where = made[opt.group]
        kw: dict[str, Any] = {
            "help": (helps or {}).get(field.name)
            or (opt.help(defaults) if callable(opt.help) else opt.help),
        }
        if opt.action is not None:
            kw["action"] = opt.action
        else:
            kw["default"] = (
                getattr(defaults, field.name) if opt.default is FROM_FIELD else opt.default
            )
        if opt.type is not None:
            kw["type"] = opt.type
        if opt.metavar is not None:
            kw["metavar"] = opt.metavar
        flags = (opt.flag,) if opt.short is None else (opt.short, opt.flag)
        where.add_argument(*flags, **kw)
    return made


def settings_from(
    args: argparse.Namespace, settings: type, partial: bool = False
) -> dict[str, Any]:
    """The fields the options :func:`add_options` added set, from the parsed ``args``
    (``partial``: only those whose option the parser had)."""
    out = {}
    for field, opt in _options(settings):
        if partial and not hasattr(args, opt.dest):
            continue
        value = getattr(args, opt.dest)
        out[field.name] = opt.to_setting(value) if opt.to_setting is not None else value
    return out
