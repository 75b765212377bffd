"""The ``gambit`` command line: help when run bare, a version, help text for every option
(with its default), and ``serve`` taking every setting of the hub it embeds."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli import build_parser, main
from server.hub.cli_options import hub_config_from

ROOT = Path(__file__).resolve().parents[1]


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def options(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    return {
        action.option_strings[-1]: action
        for action in parser._actions
        if action.option_strings and not isinstance(action, argparse._HelpAction)
    }


def test_gambit_alone_prints_the_help(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: gambit")
    for command in ("serve", "play", "hub", "demo"):
        assert command in out


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    out = capsys.readouterr().out.split()
    assert out[0] == "gambit" and out[1][0].isdigit()


@pytest.mark.parametrize("command", ["serve", "hub", "play", "demo", "export", "verify", "replay"])
def test_every_option_has_help_and_shows_its_default(command):
    parser = subcommands()[command]
    text = parser.format_help()
    for name, action in options(parser).items():
        assert action.help, f"gambit {command} {name} has no help text"
        if action.default not in (None, False) and "default" not in action.help:
            assert f"(default: {action.default})" in " ".join(text.split()), (command, name)


def test_serve_takes_every_hub_setting():
    commands = subcommands()
    # Where the bare hub listens (serve listens for SSH, and embeds its hub: no bus).
    hub_only = {"--unix", "--tcp", "--bus", "--bus-token"}
    missing = set(options(commands["hub"])) - set(options(commands["serve"])) - hub_only
    assert not missing, f"gambit serve lacks {sorted(missing)}"
    args = build_parser().parse_args(
        [
            "serve",
            "--starting-chips",
            "250",
            "--turn-timer",
            "30",
            "--grace",
            "7",
            "--chat-burst",
            "2",
            "--no-chat-limit",
        ]
    )
    config = hub_config_from(args)
    assert (config.starting_chips, config.turn_timer, config.grace) == (250, 30.0, 7.0)
    assert config.chat_burst == 2 and config.chat_limit is False


@pytest.mark.parametrize("command", ["serve", "hub"])
def test_each_hub_option_fills_the_setting_it_is_declared_on(command, tmp_path):
    """An option is declared once, on its HubConfig field (server/options.py): given on the
    command line, it changes that setting and no other."""
    import dataclasses

    from server.hub.config import HubConfig
    from server.options import OPTION

    parser = subcommands()[command]
    declared = [f for f in dataclasses.fields(HubConfig) if OPTION in f.metadata]
    assert {f.metadata[OPTION].flag for f in declared} <= set(options(parser))
    keys = tmp_path / "admins"
    keys.write_text("")  # (no key: an empty set, read from the file all the same)
    values = {"--no-chat-limit": None, "--admin-keys": str(keys), "--db": "postgresql://h/d"}
    plain = hub_config_from(parser.parse_args([]))
    for field in declared:
        flag = field.metadata[OPTION].flag
        default = getattr(HubConfig(), field.name)
        given = values.get(flag, str(7 if isinstance(default, int | type(None)) else 0.375))
        argv = [flag] if given is None else [flag, given]
        config = hub_config_from(parser.parse_args(argv))
        changed = [
            f.name
            for f in dataclasses.fields(HubConfig)
            if getattr(config, f.name) != getattr(plain, f.name)
        ]
        expected = [] if flag == "--admin-keys" else [field.name]
        assert changed == expected, flag


@pytest.mark.parametrize("command", ["serve", "gateway"])
def test_each_ssh_option_fills_the_setting_it_is_declared_on(command, tmp_path):
    """The SSH side's options too are declared once, on their HostConfig field
    (server/ssh/config.py): given on the command line, each changes that setting and no
    other, in serve and in gateway alike."""
    import dataclasses

    from server.options import OPTION
    from server.ssh.config import HostConfig
    from server.ssh.serve import host_config_from

    parser = subcommands()[command]
    declared = [f for f in dataclasses.fields(HostConfig) if OPTION in f.metadata]
    flags = {f.metadata[OPTION].flag for f in declared}
    both = set(options(subcommands()["serve"])) | set(options(subcommands()["gateway"]))
    assert flags <= both, sorted(flags - both)
    keys = tmp_path / "authorized_keys"
    keys.write_text("")
    gateway_only = {"--reuse-port", "--proxy-protocol"}
    present = [f for f in declared if f.metadata[OPTION].flag in options(parser)]
    expected_absent = set() if command == "gateway" else gateway_only
    assert flags - {f.metadata[OPTION].flag for f in present} == expected_absent
    plain = host_config_from(parser.parse_args([]), {})
    for field in present:
        flag = field.metadata[OPTION].flag
        default = getattr(HostConfig(), field.name)
        if isinstance(default, bool):
            argv = [flag]
        elif flag == "--authorized-keys":
            argv = [flag, str(keys)]
        else:
            argv = [flag, "0.375" if isinstance(default, float) else "7"]
        config = host_config_from(parser.parse_args(argv), {})
        changed = [
            f.name
            for f in dataclasses.fields(HostConfig)
            if getattr(config, f.name) != getattr(plain, f.name)
        ]
        assert changed == [field.name], flag


def test_serve_and_the_bare_hub_need_no_nats():
    """Only ``gambit hub --bus`` and ``gambit gateway`` load nats-py (issue 20)."""
    code = (
        "import sys, server.cli, server.ssh.serve, server.ssh.host, server.hub.main, "
        "server.gateway; server.cli.build_parser(); "
        "print(sorted(m for m in sys.modules if m == 'nats' or m.startswith('nats.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]", out.stdout


def test_serve_greets_the_operator_without_warnings(tmp_path):
    """Issue 38: five ``CryptographyDeprecationWarning: DSA is deprecated`` lines (asyncssh
    still names DSA types) came before ``gambit serve``'s banner."""
    import signal

    cmd = [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--workers", "0"]
    cmd += ["--data-dir", str(tmp_path), "--log-file", str(tmp_path / "serve.log")]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        banner = ""
        assert proc.stdout is not None
        for _ in range(200):
            line = proc.stdout.readline()
            banner += line
            if not line or "Stop with Ctrl+C" in line:
                break
        assert "Stop with Ctrl+C" in banner, banner
    finally:
        proc.send_signal(signal.SIGTERM)
        _, errors = proc.communicate(timeout=30)
    assert "Warning" not in errors and "DSA" not in errors, errors
