"""``gambit serve`` with a fixed deal seed, for end-to-end tests that need the same deal.

``gambit serve`` has no ``--seed`` (``gambit play`` has), though the hub takes one
(:attr:`server.hub.config.HubConfig.seed`: the deals, the first dealer and the bots' choices
all follow from it). This runs the very same command with that one setting added::

    python -m tests.ssh.seeded_serve SEED serve --port 0 ...
"""

from __future__ import annotations

import functools
import sys

from server import cli
from server.hub.config import HubConfig
from server.ssh import serve


def main(argv: list[str]) -> int:
    """Run ``gambit`` with ``argv[1:]`` and every hub it makes seeded with ``argv[0]``."""
    seed = int(argv[0])
    serve.HubConfig = functools.partial(HubConfig, seed=seed)  # type: ignore[misc]
    return cli.main(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
