"""Where a server's settings come from: the command line, then ``GAMBIT_*`` environment
variables, then a ``gambit.toml`` file, then the defaults.

Every option of ``gambit serve`` (and ``gambit hub``) can be set in all four places, so that an
owner can keep a night's settings in a file, a service manager can set a few in the environment
(systemd ``Environment=``), and a quick try can override either on the command line. The file
is ``--config FILE`` (or ``GAMBIT_CONFIG``), else ``gambit.toml`` in the data folder if there is
one; its keys are the options' long names without the dashes (``max-sessions = 50`` or
``max_sessions = 50``); ``gambit gateway``, which has no data folder, reads only a file it is
given. The password is never read from the file or as ``GAMBIT_PASSWORD``
here: ``--password-file`` and ``GAMBIT_PASSWORD`` are read where the password is used.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_PREFIX = "GAMBIT_"
CONFIG_NAME = "gambit.toml"
#: Never from the file or the environment under their own names (see the module docstring).
NOT_FROM_SOURCES = {"password", "config", "print_config", "help"}


class SettingsError(Exception):
    """A setting that cannot be read; the message names it and where it came from."""


@dataclass(slots=True)
class Resolved:
    args: argparse.Namespace
    #: Where each option's value came from: "command line", "GAMBIT_X", "gambit.toml", "default".
    sources: dict[str, str] = field(default_factory=dict)
    config_file: Path | None = None


def _options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The parser's options by destination (positional arguments and help left out)."""
    return {
        action.dest: action
        for action in parser._actions  # argparse keeps its actions here (documented in help())
        if action.option_strings and action.dest not in NOT_FROM_SOURCES
    }


def _convert(action: argparse.Action, value: Any, where: str) -> Any:
    """A value from the file or the environment, as the command line would have made it."""
    if isinstance(action, argparse._StoreTrueAction | argparse.BooleanOptionalAction):
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("1", "true", "yes", "on"):
            return True
        if text in ("0", "false", "no", "off", ""):
            return False
        raise SettingsError(f"{where}: {value!r} is not true or false")
    kind = action.type
    assert not isinstance(kind, str | argparse.FileType)  # (the parser's types are callables)
    if isinstance(value, bool) and kind is not None:
        raise SettingsError(f"{where}: {value!r} is not a {kind.__name__}")
    try:
        converted = kind(value) if kind is not None else str(value)
    except (TypeError, ValueError) as err:
        raise SettingsError(f"{where}: {value!r}: {err}") from None
    if action.choices is not None and converted not in action.choices:
        raise SettingsError(f"{where}: {value!r} is not one of {list(action.choices)}")
    return converted


def _explicit(parser: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """The options given on the command line (parsed once with no defaults at all)."""
    saved = {a.dest: a.default for a in parser._actions}
    saved_defaults, parser._defaults = parser._defaults, {}
    try:
        for action in parser._actions:
            action.default = argparse.SUPPRESS
        namespace, _ = parser.parse_known_args(argv)
    finally:
        parser._defaults = saved_defaults
        for action in parser._actions:
            action.default = saved[action.dest]
    return set(vars(namespace))


def config_path(
    argv: list[str], env: Mapping[str, str], default_dir: Path, in_data_dir: bool = True
) -> Path | None:
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config")
    pre.add_argument("--data-dir")
    known, _ = pre.parse_known_args(argv)
    if known.config or env.get(ENV_PREFIX + "CONFIG"):
        return Path(known.config or env[ENV_PREFIX + "CONFIG"])
    if not in_data_dir:
        return None
    folder = Path(known.data_dir or env.get(ENV_PREFIX + "DATA_DIR") or default_dir)
    candidate = folder / CONFIG_NAME
    return candidate if candidate.is_file() else None


def resolve(
    parser: argparse.ArgumentParser,
    argv: list[str],
    env: Mapping[str, str] | None = None,
    default_dir: Path | None = None,
    in_data_dir: bool = True,
) -> Resolved:
    """Parse ``argv`` with the file's and the environment's values in place of defaults
    (``in_data_dir``: without ``--config``, look for ``gambit.toml`` in the data folder)."""
    env = os.environ if env is None else env
    if default_dir is None and in_data_dir:
        from server.store import default_data_dir

        default_dir = default_data_dir()
    options = _options(parser)
    sources = {dest: "default" for dest in options}
    layered: dict[str, Any] = {}
    path = config_path(argv, env, default_dir or Path(), in_data_dir)
    if path is not None:
        try:
            with open(path, "rb") as file:
                table = tomllib.load(file)
        except (OSError, tomllib.TOMLDecodeError) as err:
            raise SettingsError(f"cannot read {path}: {err}") from None
        for key, value in table.items():
            dest = key.replace("-", "_")
            if dest not in options:
                raise SettingsError(f"{path}: no option {key!r}")
            layered[dest] = _convert(options[dest], value, f"{path}: {key}")
            sources[dest] = str(path)
    for dest, action in options.items():
        name = ENV_PREFIX + dest.upper()
        if name in env:
            layered[dest] = _convert(action, env[name], name)
            sources[dest] = name
    try:
        for dest, value in layered.items():
            options[dest].default, layered[dest] = value, options[dest].default
        args = parser.parse_args(argv)
    finally:
        for dest, value in layered.items():
            options[dest].default = value  # the parser's own defaults again
    for dest in _explicit(parser, argv) & set(options):
        sources[dest] = "command line"
    return Resolved(args, sources, path)


def describe(resolved: Resolved) -> str:
    """Every setting, its value and where it came from (``--print-config``)."""
    lines = [f"# config file: {resolved.config_file or 'none'}"]
    for dest, source in sorted(resolved.sources.items()):
        value = getattr(resolved.args, dest, None)
        if ("password" in dest or "token" in dest) and value is not None:
            value = "(set)"
        elif dest == "db" and value:
            from server.store.urls import redact

            value = redact(value)
        lines.append(f"{dest.replace('_', '-')} = {value!r}  # {source}")
    return "\n".join(lines)
