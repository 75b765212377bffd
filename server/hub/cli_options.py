"""The hub's settings as command-line options, shared by ``gambit serve`` and ``gambit hub``
(``serve`` embeds the same hub). Each option is declared once, on the setting it fills
(:class:`~.config.HubConfig`, see ``server/options.py``): this adds them and reads them back."""

from __future__ import annotations

import argparse

from server.options import add_options, settings_from

from .config import GROUPS, HubConfig, admin_keys

__all__ = ["add_hub_options", "admin_keys", "hub_config_from"]


def add_hub_options(
    parser: argparse.ArgumentParser, limits: argparse._ArgumentGroup | None = None
) -> None:
    """Every hub setting an owner may choose: chips, timers, pauses, chat and the limits (in
    ``limits``, a group the caller may share with limits of its own)."""
    add_options(parser, HubConfig, GROUPS, given={"limits": limits} if limits else None)


def hub_config_from(args: argparse.Namespace) -> HubConfig:
    """The hub's settings from the options :func:`add_hub_options` added."""
    return HubConfig(**settings_from(args, HubConfig))
