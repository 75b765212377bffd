"""The server's host key, checked as OpenSSH checks it: ``~/.ssh/known_hosts``, trust on
first use (the fingerprint shown, the player asked, the key remembered), and a loud refusal
when a remembered host offers another key."""

from __future__ import annotations

import enum
from pathlib import Path

import asyncssh


class Verdict(enum.Enum):
    KNOWN = "known"
    UNKNOWN = "unknown"
    CHANGED = "changed"


def default_path() -> Path:
    return Path.home() / ".ssh" / "known_hosts"


def host_name(host: str, port: int) -> str:
    """How known_hosts names a host: ``host``, or ``[host]:port`` off port 22."""
    return host if port == 22 else f"[{host}]:{port}"


def key_kind(key: asyncssh.SSHKey) -> str:
    """A key's type as OpenSSH prints it (ED25519, RSA, ECDSA)."""
    algorithm = key.get_algorithm()
    for prefix, kind in (("ssh-ed25519", "ED25519"), ("ssh-rsa", "RSA"), ("ecdsa", "ECDSA")):
        if algorithm.startswith(prefix):
            return kind
    return algorithm.upper()


class KnownHosts:
    """One known_hosts file: what it says of a host's key, and remembering a new one."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def verdict(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> Verdict:
        """KNOWN: the file holds this key for the host; CHANGED: it holds another key of the
        same type for it (or revokes this one); UNKNOWN: nothing of this type."""
        if not self.path.is_file():
            return Verdict.UNKNOWN
        try:
            known = asyncssh.read_known_hosts(str(self.path))
        except (OSError, ValueError, asyncssh.KeyImportError):
            return Verdict.UNKNOWN  # (OpenSSH skips what it cannot read, too)
        host_keys, _cas, revoked, *_ = known.match(host, addr, port)
        public = key.export_public_key("openssh").split()[:2]
        if any(k.export_public_key("openssh").split()[:2] == public for k in revoked):
            return Verdict.CHANGED
        if any(k.export_public_key("openssh").split()[:2] == public for k in host_keys):
            return Verdict.KNOWN
        if any(k.get_algorithm() == key.get_algorithm() for k in host_keys):
            return Verdict.CHANGED
        return Verdict.UNKNOWN

    def remember(self, host: str, port: int, key: asyncssh.SSHKey) -> None:
        """Add the host's key (as ``ssh`` does after a yes), making ``~/.ssh`` if need be."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        public = key.export_public_key("openssh").decode().split()
        line = f"{host_name(host, port)} {public[0]} {public[1]}\n"
        existing = self.path.read_bytes() if self.path.is_file() else b""
        with self.path.open("ab") as handle:
            if existing and not existing.endswith(b"\n"):
                handle.write(b"\n")
            handle.write(line.encode())
