"""The hub: one in-memory instance serving every player through protocol messages."""

from .config import HubConfig
from .errors import HubError
from .hub import Hub

__all__ = ["Hub", "HubConfig", "HubError"]
