import pytest

from .harness import SSH, SSH_KEYGEN, ThreadServer, ssh_keygen
from .standin import make_standin

needs_openssh = pytest.mark.skipif(
    SSH is None or SSH_KEYGEN is None, reason="the OpenSSH client is not installed"
)


@pytest.fixture(scope="session")
def client_key(tmp_path_factory):
    """A throwaway ed25519 key, made once for the whole run."""
    if SSH_KEYGEN is None:
        pytest.skip("ssh-keygen is not installed")
    return ssh_keygen(tmp_path_factory.mktemp("keys") / "id_ed25519")


@pytest.fixture(scope="session")
def other_key(tmp_path_factory):
    if SSH_KEYGEN is None:
        pytest.skip("ssh-keygen is not installed")
    return ssh_keygen(tmp_path_factory.mktemp("keys") / "id_other")


@pytest.fixture
def standin_server(tmp_path):
    """An SSH host with the stand-in app, in a thread; yields a factory for options."""
    servers: list[ThreadServer] = []

    def start(**options) -> ThreadServer:
        server = ThreadServer(tmp_path / f"data{len(servers)}", make_standin, **options)
        servers.append(server.start())
        return server

    yield start
    for server in servers:
        server.stop()
