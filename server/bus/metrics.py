"""A gateway's metrics (``gambit gateway --metrics HOST:PORT``): its SSH host's sessions,
connections, app workers and refusals, as ``gambit serve`` counts them, and the state of its
link to the hub: whether NATS is connected, whether a hub listens, how long it has been
silent, what is held for it. The tables, actions and store are the hub's to count."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from server.metrics import MetricsEndpoint, host_families

if TYPE_CHECKING:
    from server.ssh.host import SSHHost

    from .gateway import RemoteHub


class _GatewayState(Collector):
    def __init__(self, metrics: GatewayMetrics) -> None:
        self.m = metrics

    def collect(self) -> Iterator[Any]:
        remote, host = self.m.remote, self.m.host
        yield from host_families(host)
        nc = remote.nc
        yield GaugeMetricFamily(
            "gambit_bus_connected",
            "1 while this gateway is connected to NATS.",
            value=1 if nc is not None and nc.is_connected else 0,
        )
        yield GaugeMetricFamily(
            "gambit_bus_hub_listening",
            "1 while a hub is heard on the bus (else what sessions send is held for one).",
            value=1 if remote.ready else 0,
        )
        yield GaugeMetricFamily(
            "gambit_bus_hub_silence_seconds",
            "Seconds since the hub was last heard (by this gateway's own responsive clock).",
            value=max(0.0, remote.clock.now() - remote.hub_seen) if remote.hub_seen else 0.0,
        )
        yield GaugeMetricFamily(
            "gambit_bus_sessions", "Sessions relayed to the hub.", value=len(remote.conns)
        )
        yield GaugeMetricFamily(
            "gambit_bus_held_events",
            "Events held until a hub listens.",
            value=remote.held,
        )
        yield CounterMetricFamily(
            "gambit_bus_hub_changes",
            "Times another hub answered and every session moved to it.",
            value=remote.hub_changes,
        )
        yield CounterMetricFamily(
            "gambit_bus_replayed",
            "Messages sent again to the hub because NATS lost them (server/bus/replay.py).",
            value=remote.replayed,
        )
        yield CounterMetricFamily(
            "gambit_bus_link_restarts",
            "Times more was lost than is kept, and every session was opened again.",
            value=remote.restarts,
        )


class GatewayMetrics(MetricsEndpoint):
    def __init__(self, remote: RemoteHub, host: SSHHost) -> None:
        super().__init__()
        self.remote = remote
        self.host = host
        self.registry.register(_GatewayState(self))
