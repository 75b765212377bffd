"""Settings from four places (issue 21): command line > GAMBIT_* environment > gambit.toml >
defaults, with --print-config saying where each came from."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from server.settings import SettingsError, describe, resolve
from server.ssh.serve import add_serve_arguments

ROOT = Path(__file__).resolve().parents[1]


def serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    add_serve_arguments(parser)
    parser.add_argument("--config")
    return parser


def test_command_line_beats_environment_beats_file_beats_default(tmp_path):
    (tmp_path / "gambit.toml").write_text(
        'port = 2400\nmax-sessions = 50\nmax_per_address = 4\nverbose = true\nhost = "0.0.0.0"\n'
    )
    env = {"GAMBIT_MAX_SESSIONS": "60", "GAMBIT_MAX_PER_ADDRESS": "5"}
    argv = ["--data-dir", str(tmp_path), "--max-per-address", "6"]
    resolved = resolve(serve_parser(), argv, env=env, default_dir=tmp_path / "nowhere")
    args, sources = resolved.args, resolved.sources
    assert (args.port, args.max_sessions, args.max_per_address) == (2400, 60, 6)
    assert args.verbose is True and args.host == "0.0.0.0" and args.idle_timeout == 1800.0
    assert sources["port"] == str(tmp_path / "gambit.toml")
    assert sources["max_sessions"] == "GAMBIT_MAX_SESSIONS"
    assert sources["max_per_address"] == "command line"
    assert sources["idle_timeout"] == "default"
    text = describe(resolved)
    assert "max-sessions = 60  # GAMBIT_MAX_SESSIONS" in text
    # The parser itself is left as it was: a second resolve without the file sees defaults.
    again = resolve(serve_parser(), [], env={}, default_dir=tmp_path / "nowhere")
    assert again.args.port == 2222 and again.config_file is None


@pytest.mark.parametrize(
    ("toml", "env", "says"),
    [
        ("prot = 1\n", {}, "no option 'prot'"),
        ('port = "many"\n', {}, "port"),
        ("", {"GAMBIT_VERBOSE": "perhaps"}, "not true or false"),
        ("", {"GAMBIT_MAX_SESSIONS": "lots"}, "GAMBIT_MAX_SESSIONS"),
        ("password = 'x'\n", {}, "no option 'password'"),
        ("port = [\n", {}, "cannot read"),
    ],
)
def test_a_bad_setting_says_which_and_where(tmp_path, toml, env, says):
    (tmp_path / "gambit.toml").write_text(toml)
    with pytest.raises(SettingsError, match=says):
        resolve(serve_parser(), ["--data-dir", str(tmp_path)], env=env)


def test_gambit_serve_reads_its_data_folders_file_and_prints_it(tmp_path):
    (tmp_path / "gambit.toml").write_text("max-sessions = 7\n")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "server.cli",
            "serve",
            "--data-dir",
            str(tmp_path),
            "--print-config",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "GAMBIT_IDLE_TIMEOUT": "60"},
    )
    assert out.returncode == 0, out.stderr
    assert f"# config file: {tmp_path / 'gambit.toml'}" in out.stdout
    assert "max-sessions = 7  # " + str(tmp_path / "gambit.toml") in out.stdout
    assert "idle-timeout = 60.0  # GAMBIT_IDLE_TIMEOUT" in out.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--config", str(tmp_path / "missing.toml")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert bad.returncode == 2 and "cannot read" in bad.stderr


async def test_a_running_server_keeps_to_its_files_settings(tmp_path):
    """A limit set only in gambit.toml holds for real clients."""
    import asyncssh

    from tests.security.clients import connect
    from tests.security.procs import serve

    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "gambit.toml").write_text("max-per-address = 1\n")
    proc, port = serve(data)
    try:
        first, _, _ = await connect(port, "Ada")
        with pytest.raises(asyncssh.DisconnectError, match="Too many connections"):
            await connect(port, "Bo")
        first.close()
    finally:
        proc.stop()


def test_gambit_gateway_reads_only_a_file_it_is_given_and_hides_the_token(tmp_path):
    """A gateway has no data folder: a gambit.toml there (serve's, perhaps, with options a
    gateway lacks) is not its file; --config is."""
    home = tmp_path / "home"
    (home / ".local/share/gambit").mkdir(parents=True)
    (home / ".local/share/gambit/gambit.toml").write_text("starting-chips = 5\n")
    mine = tmp_path / "gateway.toml"
    mine.write_text('max-sessions = 7\nbus = "nats://10.0.0.5:4222"\n')

    def gateway(*argv: str, command: str = "gateway") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "server.cli", command, *argv, "--print-config"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
            env={"PATH": "/usr/bin:/bin", "HOME": str(home), "GAMBIT_BUS_TOKEN": "hush"},
        )

    serve = gateway(command="serve")  # (serve, in the same home, reads that file)
    assert "starting-chips = 5  # " in serve.stdout, serve.stdout + serve.stderr
    alone = gateway()
    assert alone.returncode == 0, alone.stderr
    assert "# config file: none" in alone.stdout
    given = gateway("--config", str(mine))
    assert given.returncode == 0, given.stderr
    assert f"max-sessions = 7  # {mine}" in given.stdout
    assert f"bus = 'nats://10.0.0.5:4222'  # {mine}" in given.stdout
    assert "bus-token = '(set)'  # GAMBIT_BUS_TOKEN" in given.stdout
    assert "hush" not in given.stdout


def test_announcing_is_a_switch_in_the_file_and_the_environment_too(tmp_path):
    """``--announce``/``--no-announce`` (issue 42): ``announce = false`` in the file,
    ``GAMBIT_ANNOUNCE=yes`` in the environment; unset, the server decides by its address."""
    (tmp_path / "gambit.toml").write_text("announce = false\n")
    argv = ["--data-dir", str(tmp_path)]
    nowhere = tmp_path / "nowhere"
    assert resolve(serve_parser(), argv, env={}, default_dir=nowhere).args.announce is False
    env = {"GAMBIT_ANNOUNCE": "yes"}
    assert resolve(serve_parser(), argv, env=env, default_dir=nowhere).args.announce is True
    assert resolve(serve_parser(), [], env={}, default_dir=nowhere).args.announce is None
