"""``gambit gateway``: the SSH host and its app workers, with the hub across a NATS bus.

Run any number of them (on one machine, on the same port with ``--reuse-port``; on several,
behind a TCP balancer with ``--proxy-protocol``), all with the same ``--host-key`` so that
players see one server, and one ``gambit hub --bus`` holding the tables. See README
"Scaling out" and docs/architecture.md.

A gateway is a public front door like ``gambit serve``'s and takes the same options for it,
from the same code (server/ssh/serve.py): who may log in (``--password-file``,
``--authorized-keys``), the limits, ``--metrics``, and a settings file (``--config``).
``--admin-keys`` is the hub's: the gateway vouches for the key, the hub decides.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
import sys
from typing import Any

log = logging.getLogger(__name__)

TOKEN_ENV = "GAMBIT_BUS_TOKEN"


def add_gateway_arguments(parser: argparse.ArgumentParser) -> None:
    from server.hub.main import add_bus_arguments
    from server.options import add_options
    from server.ssh.config import ADDRESS, FRONT, GROUPS, LIMITS, LOGGING, VERBOSE, WORKERS
    from server.ssh.config import HostConfig as Host
    from server.ssh.serve import add_login_arguments, add_metrics_argument

    add_options(parser, Host, GROUPS, only=ADDRESS)
    parser.add_argument(
        "--host-key",
        metavar="FILE",
        help="the SSH host key every gateway shares (made here if missing; copy it to the "
        "other gateways)",
    )
    add_bus_arguments(parser)
    add_options(
        parser,
        Host,
        GROUPS,
        only=FRONT + WORKERS,
        helps={"app_workers": "app worker processes (default: one per core)"},
    )
    # Who may log in: the gateway checks it, and vouches for the key over the bus (the hub
    # believes it of a gateway with the token); a password's players are guests, as in serve.
    add_login_arguments(parser)
    add_options(parser, Host, GROUPS, only=LIMITS)
    add_options(
        parser,
        Host,
        GROUPS,
        only=LOGGING,
        helps={
            "log_file": "log here instead of stderr",
            "log_json": "log one JSON object per line",
        },
    )
    add_metrics_argument(parser)
    add_options(parser, Host, GROUPS, only=VERBOSE)


async def run_gateway(
    args: argparse.Namespace, token: str | None, login: dict[str, Any] | None = None
) -> None:
    """Serve until stopped. ``login``: :func:`~server.ssh.serve.login_from`'s fields (the
    password read once, before anything starts). Raises
    :class:`~server.ssh.config.ConfigError` for a setting that cannot be used."""
    from server.bus.gateway import RemoteHub
    from server.hub.main import bus_url_shown
    from server.metrics import parse_address
    from server.ssh.banner import banner
    from server.ssh.host import SSHHost
    from server.ssh.keys import load_or_create_key_file
    from server.ssh.live_sessions import LiveSessions
    from server.ssh.serve import host_config_from, stop_host
    from server.task_dump import install as install_task_dump

    config = host_config_from(args, login or {})
    key = load_or_create_key_file(args.host_key)
    # The SSH host's sessions, made first: the hub's admins see each player's address.
    sessions = LiveSessions()
    hub = RemoteHub(args.bus, token, describe_connection=sessions.describe)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    install_task_dump(loop)  # (kill -USR1: what each task waits for, in the log)
    await hub.start()
    host = SSHHost(hub, config, key, sessions=sessions)
    metrics = None
    try:
        port = await host.start()
        text = f"gambit gateway {hub.gateway} on the bus at {bus_url_shown(args.bus)}\n"
        text += banner(args.host, port, key)
        if args.metrics:
            from server.bus.metrics import GatewayMetrics

            at = parse_address(args.metrics)
            metrics = GatewayMetrics(hub, host)
            text += f"Metrics: http://{at[0]}:{await metrics.start(*at)}/metrics and /healthz\n"
        sys.stdout.write(text)
        sys.stdout.flush()
        log.info("gateway %s serving on %s:%s", hub.gateway, args.host, port)
        await stop.wait()
    finally:
        if metrics is not None:
            await metrics.close()
        await stop_host(host)
        await hub.stop()


def main_gateway(args: argparse.Namespace) -> int:
    from server.logs import setup_logging
    from server.ssh.serve import ConfigError, login_from, use_app_fps

    setup_logging(args.log_file, args.verbose, args.log_json)
    for option, value, what in (
        ("--bus", args.bus, "nats://HOST:PORT"),
        ("--host-key", args.host_key, "FILE"),
    ):
        if not value:
            sys.stderr.write(f"gambit gateway: {option} {what} is required\n")
            return 2
    environ_token = os.environ.pop(TOKEN_ENV, None)  # the workers need not inherit it
    token = args.bus_token or environ_token
    try:
        login = login_from(args, "gateway")
    except ConfigError as err:
        sys.stderr.write(f"gambit gateway: {err}\n")
        return 2
    use_app_fps()
    try:
        asyncio.run(run_gateway(args, token, login))
    except ConfigError as err:
        sys.stderr.write(f"gambit gateway: {err}\n")
        return 2
    except OSError as err:  # the port is taken, the key cannot be read
        sys.stderr.write(f"gambit gateway: {err}\n")
        return 1
    except Exception as err:  # nats-py's own (a login NATS refuses, say)
        if type(err).__module__.startswith("nats"):
            sys.stderr.write(f"gambit gateway: the bus: {err or type(err).__name__}\n")
            return 1
        raise
    return 0
