"""``gambit connect [user@]host [-p PORT] [-i KEY]``: log in as ``ssh`` would, open the
``gambit`` channel, and run the Gambit app in this terminal on it.

The login uses the player's SSH agent and ``~/.ssh`` keys (or the one ``-i`` names; none at
all is a guest, as with ``ssh``), and checks the server's host key against
``~/.ssh/known_hosts`` (:mod:`.known_hosts`): a first visit shows the fingerprint and asks, a
changed key is refused before anything is sent. The user name is the name the player would
like, as with ``ssh Ada@host`` (``play`` and ``guest``: none). With no host at all, the servers
announced on the local network are looked for (:mod:`.discover`).
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import asyncssh

from gambit_tui import connect_text as text
from protocol.connection import Connection
from protocol.ssh_channel import ChannelConnection, open_channel
from protocol.term import TermInfo, local_term

from .known_hosts import KnownHosts, Verdict, host_name, key_kind
from .lasting import GiveUp, LastingConnection

log = logging.getLogger(__name__)

DEFAULT_PORT = 2222
#: User names that wish for no name (the hub picks one, or remembers the key's).
NO_NAME = ("play", "guest", "")


def add_connect_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        metavar="[user@]host",
        nargs="?",
        help="the server (user: your name); none: look for servers on the local network",
    )
    parser.add_argument(
        "-p", "--port", type=int, default=DEFAULT_PORT, help="the server's SSH port"
    )
    parser.add_argument(
        "-i", "--identity", metavar="KEY", help="your private key (default: agent, ~/.ssh keys)"
    )
    parser.add_argument(
        "-C",
        "--compress",
        action="store_true",
        help="compress the link (as ssh -C), for slow links",
    )


@dataclass(frozen=True, slots=True)
class Target:
    user: str
    host: str
    port: int
    key: Path | None = None
    compress: bool = False

    @classmethod
    def parse(
        cls, target: str, port: int, key: str | None = None, compress: bool = False
    ) -> Target:
        user, at, host = target.rpartition("@")
        path = Path(key).expanduser() if key else None
        return cls(user if at else "play", host, port, path, compress)

    @property
    def wished_name(self) -> str | None:
        return None if self.user.lower() in NO_NAME else self.user


class HostKeyProblem(GiveUp):
    """The host key was refused (changed, or not trusted): the words say why."""


class _Client(asyncssh.SSHClient):
    """The login's callbacks: the host key against known_hosts; guests; a password asked."""

    def __init__(self, dialer: Dialer, interactive: bool) -> None:
        self.dialer = dialer
        self.interactive = interactive
        self.offered: tuple[Verdict, asyncssh.SSHKey] | None = None

    def validate_host_public_key(
        self, host: str, addr: str, port: int, key: asyncssh.SSHKey
    ) -> bool:
        verdict = self.dialer.known.verdict(host, addr, port, key)
        self.offered = (verdict, key)
        return verdict is Verdict.KNOWN

    def kbdint_auth_requested(self) -> str:
        return ""  # a guest: the server asks nothing

    def kbdint_challenge_received(
        self, name: str, instructions: str, lang: str, prompts: Any
    ) -> list[str] | None:
        return [] if not prompts else None

    async def password_auth_requested(self) -> str | None:
        return await self.dialer.password(self.interactive)


class Dialer:
    """Logs in and opens a ``gambit`` channel: first with the player at the keyboard (a
    host key to trust, a password to type), later (a reconnect) without asking anything."""

    def __init__(
        self,
        target: Target,
        lang: str,
        *,
        known: KnownHosts | None = None,
        ask: Callable[[str], str] = input,
        out: TextIO = sys.stderr,
    ) -> None:
        self.target = target
        self.lang = lang
        self.known = known or KnownHosts()
        self.ask = ask
        self.out = out
        self.ssh: asyncssh.SSHClientConnection | None = None
        self._password: str | None = None

    def say(self, sentence: str, **fields: object) -> str:
        return text.say(self.lang, sentence, **fields)

    async def password(self, interactive: bool) -> str | None:
        if self._password is None and interactive:
            prompt = self.say(text.PASSWORD, user=self.target.user, host=self.target.host)
            self._password = await asyncio.to_thread(getpass.getpass, prompt)
        return self._password

    async def login(self, interactive: bool) -> asyncssh.SSHClientConnection:
        target = self.target
        for _ in range(2):
            client = _Client(self, interactive)
            options: dict[str, Any] = {}
            if target.key is not None:
                options["client_keys"] = [str(target.key)]
            if target.compress:
                options["compression_algs"] = ["zlib@openssh.com", "none"]
            try:
                return await asyncssh.connect(
                    target.host,
                    target.port,
                    username=target.user,
                    known_hosts=([], [], []),  # every key goes to validate_host_public_key
                    client_factory=lambda client=client: client,
                    ignore_encrypted=True,
                    connect_timeout=10,
                    keepalive_interval=15,
                    keepalive_count_max=3,
                    **options,
                )
            except asyncssh.HostKeyNotVerifiable:
                if client.offered is None:
                    raise
                self._trust(*client.offered, interactive=interactive)
        raise HostKeyProblem(self.say(text.NOT_TRUSTED))

    def _trust(self, verdict: Verdict, key: asyncssh.SSHKey, *, interactive: bool) -> None:
        """Ask the player about a host key seen for the first time (and remember it), or
        refuse a changed one; raises HostKeyProblem when not trusted."""
        target = self.target
        name = host_name(target.host, target.port)
        fields = {"host": name, "kind": key_kind(key), "fingerprint": key.get_fingerprint()}
        if verdict is Verdict.CHANGED:
            raise HostKeyProblem(self.say(text.CHANGED, path=self.known.path, **fields))
        if not interactive:
            raise HostKeyProblem(self.say(text.NOT_TRUSTED))
        self.out.write(self.say(text.UNKNOWN_HOST, **fields) + "\n")
        self.out.flush()
        answer = self.ask(self.say(text.ASK_TRUST)).strip().lower()
        if answer not in ("yes", self.say(text.ANSWER_YES).lower()):
            raise HostKeyProblem(self.say(text.NOT_TRUSTED))
        self.known.remember(target.host, target.port, key)
        self.out.write(self.say(text.ADDED, host=name, path=self.known.path) + "\n")
        self.out.flush()

    async def dial(self, interactive: bool = False) -> ChannelConnection:
        """A new link: the SSH connection before it, if any, is dropped first."""
        self.close()
        ssh = await self.login(interactive)
        try:
            conn = await open_channel(ssh)
        except BaseException:
            ssh.close()
            raise
        self.ssh = ssh
        return conn

    def close(self) -> None:
        if self.ssh is not None:
            self.ssh.close()
            self.ssh = None


async def connect_lasting(dialer: Dialer) -> tuple[LastingConnection, ChannelConnection]:
    """The app's connection (and its first link), the player at the keyboard for the login."""
    first = await dialer.dial(interactive=True)

    async def again() -> Connection:
        return await dialer.dial()

    return LastingConnection(first, again), first


async def run_connect(dialer: Dialer, term: TermInfo) -> str | None:
    """Run the app until the player quits or the connection is gone for good; what to say
    when it has ended (None: nothing)."""
    from gambit_tui.app import GambitApp  # Textual loads once the login has worked

    conn, first = await connect_lasting(dialer)
    app = GambitApp(conn, term=term, identity=None, name=dialer.target.wished_name)
    try:
        await app.run_async()
    finally:
        await conn.close()
        dialer.close()
    if first.stderr and conn.hello is not None and not conn.reconnects:
        log.info("the server said: %s", first.stderr.decode("utf-8", "replace").strip())
        target = dialer.target
        return dialer.say(
            text.NO_SUBSYSTEM,
            host=target.host,
            command=f"ssh -p {target.port} play@{target.host}",
        )
    return conn.reason or (app.closed_reason if conn.closed and not app.return_code else None)


def setup_logging() -> None:
    """Warnings to a file: the terminal belongs to the app."""
    from platformdirs import user_state_path

    folder = user_state_path("gambit")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.FileHandler(folder / "connect.log")
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])


def found_target(args: argparse.Namespace, lang: str) -> Target | None:
    """``gambit connect`` with no host: a server announced on the local network, as the
    player chooses (None: none found or chosen; the player was told how to name one)."""
    from .discover import browse, choose

    sys.stderr.write(text.say(lang, text.LOOKING) + "\n")
    sys.stderr.flush()
    try:
        found = asyncio.run(browse())
    except (OSError, ImportError) as err:  # no network to ask on: as if none answered
        log.warning("cannot look for servers on the network: %s", err)
        found = []
    chosen = choose(found, lang)
    if chosen is None:
        return None
    key = Path(args.identity).expanduser() if args.identity else None
    return Target("play", chosen.host, chosen.port, key, args.compress)


def main_connect(args: argparse.Namespace) -> int:
    setup_logging()
    term = local_term()
    lang = term.language or "en"
    if args.target is None:
        found = found_target(args, lang)
        if found is None:
            return 1
        target = found
    else:
        target = Target.parse(args.target, args.port, args.identity, args.compress)
    dialer = Dialer(target, lang)
    try:
        said = asyncio.run(run_connect(dialer, term))
    except GiveUp as err:
        sys.stderr.write(f"{err}\n")
        return 1
    except (OSError, asyncssh.Error) as err:
        reason = getattr(err, "reason", None) or str(err) or type(err).__name__
        sys.stderr.write(dialer.say(text.CANNOT_CONNECT, host=target.host, reason=reason) + "\n")
        return 1
    except KeyboardInterrupt:
        return 130
    if said:
        sys.stderr.write(f"{said}\n")
    return 0
