"""The server's host key: made once, kept in the data directory, readable by its owner only.

Players' clients remember the host key on first connection and warn loudly if it ever
changes, so it must survive restarts; printing its fingerprint at start lets the owner tell
friends what to expect on that first connection.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import asyncssh

HOST_KEY_NAME = "ssh_host_ed25519_key"


def load_or_create_host_key(data_dir: Path) -> asyncssh.SSHKey:
    """The host key in ``data_dir``, generated (mode 0600) if it is not there yet."""
    path = Path(data_dir) / HOST_KEY_NAME
    if path.exists():
        return asyncssh.read_private_key(str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="gambit host key")
    data = key.export_private_key()
    # The mode is set at creation, so the secret is never readable by others, not even for
    # a moment; the rename makes the key appear whole or not at all.
    tmp = path.with_suffix(".tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()  # left by a start that died half-way
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    (path.with_suffix(".pub")).write_bytes(key.export_public_key())
    return key


def load_or_create_key_file(path: str | os.PathLike[str]) -> asyncssh.SSHKey:
    """The host key in ``path`` (``gambit gateway --host-key``), generated if missing.

    Every gateway must present the same key, so it is made once and copied to the others;
    two gateways starting together on one machine both end up with the one that got there
    first (the file is linked into place, never replaced).
    """
    path = Path(path)
    if path.exists():
        return asyncssh.read_private_key(str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="gambit host key")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, key.export_private_key())
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass  # another gateway made it first: use theirs
    finally:
        tmp.unlink()
    with contextlib.suppress(OSError):
        path.with_name(path.name + ".pub").write_bytes(key.export_public_key())
    return asyncssh.read_private_key(str(path))


def fingerprints_in(path: str | os.PathLike[str]) -> frozenset[str]:
    """The SHA256 fingerprints of the keys in an OpenSSH ``authorized_keys`` file (options
    before a key, comments and blank lines allowed)."""
    found = set()
    for line in Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        for start in range(len(line.split())):
            try:
                key = asyncssh.import_public_key(" ".join(line.split()[start:]))
            except (asyncssh.KeyImportError, ValueError):
                continue
            found.add(key.get_fingerprint("sha256"))
            break
    return frozenset(found)


def fingerprint(key: asyncssh.SSHKey) -> str:
    """OpenSSH's SHA256 fingerprint (``SHA256:…``), as ``ssh`` shows it to players."""
    return key.get_fingerprint("sha256")
