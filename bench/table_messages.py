"""What the hub sends a seat and a spectator per action: the bytes of its table messages.

    python bench/table_messages.py [--games 3]

One hub in this process (a store in a temporary folder, bots acting at once). For each game a
table of one scripted player (who answers every ask with its first legal action), bots in the
other seats, and one spectator, plays ``--games`` whole games; every table message each of the
two receives is counted in bytes as the hub frames it for that connection (a delta where it
is one: protocol v2). Prints
one JSON line last: per game ``<game>_seat_bytes_per_action`` and
``<game>_spectator_bytes_per_action`` (all the table messages' bytes over the actions the game
took), and ``table_msg_bytes_per_action``, their mean over the games for the seat: the figure
protocol v2 (views sent as deltas, issue 19) is measured against.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from protocol.codec import encode  # noqa: E402
from protocol.connection import Connection  # noqa: E402
from server.hub import Hub  # noqa: E402
from server.store import Store  # noqa: E402
from tests.hub.conftest import fast_config  # noqa: E402
from tests.hub.harness import connect, play_to_end  # noqa: E402

GAMES = {"prophets_gambit": 4, "prophet": 4, "fortunes": 4}
#: Per table being measured: the bytes of the table messages sent to each seat (None: the
#: spectator), as framed on their connection.
SENT: dict[int, dict[int | None, int]] = {}
_send_nowait = Connection.send_nowait


def counted_send(self: Connection, message: dict[str, Any]) -> None:
    if message.get("t") == "table" and message.get("table") in SENT:
        tally = SENT[message["table"]]
        if message.get("seat") in tally:
            tally[message["seat"]] += len(encode(message))
    _send_nowait(self, message)


Connection.send_nowait = counted_send  # type: ignore[method-assign]  # counted or timed


async def one_game(hub: Hub, game: str, players: int, n: int) -> dict[str, float]:
    ada, cy = await connect(hub), await connect(hub)
    await ada.hello(f"Ada{game}{n}", identity=f"SHA256:ada:{game}:{n}")
    await cy.hello(f"Cy{game}{n}", identity=f"SHA256:cy:{game}:{n}")
    await ada.send("create_table", game=game, players=players, options={})
    table = (await ada.until(lambda m: m["t"] == "table" and m["seat"] == 0))["table"]
    for seat in range(1, players):
        await ada.send("add_bot", table=table, seat=seat)
    await ada.until(
        lambda m: m["t"] == "table" and all(s["bot"] or s["name"] for s in m["info"]["seats"])
    )
    await cy.send("spectate", table=table)
    await cy.until(lambda m: m["t"] == "table" and m["table"] == table)
    sent: dict[int | None, int] = {0: 0, None: 0}  # the table's frames' bytes, by seat
    SENT[table] = sent
    await ada.send("start", table=table)
    await play_to_end({0: ada}, table, timeout=300)
    await asyncio.sleep(0.2)  # the last messages
    actions = len(hub.store.game(hub.store.games_of(f"SHA256:ada:{game}:{n}")[0]["id"])["history"])

    result = {"seat": sent[0] / actions, "spectator": sent[None] / actions, "actions": actions}
    await ada.close()
    await cy.close()
    return result


async def run(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        store = Store.open(Path(folder))
        hub = Hub(store, fast_config(between_games=60.0))
        await hub.start()
        try:
            seat_figures = []
            for game, players in GAMES.items():
                games = [await one_game(hub, game, players, n) for n in range(args.games)]
                seat = statistics.median(g["seat"] for g in games)
                out[f"{game}_seat_bytes_per_action"] = round(seat)
                out[f"{game}_spectator_bytes_per_action"] = round(
                    statistics.median(g["spectator"] for g in games)
                )
                out[f"{game}_actions_per_game"] = round(
                    statistics.median(g["actions"] for g in games)
                )
                seat_figures.append(seat)
                print(game, json.dumps(games), file=sys.stderr)
            out["table_msg_bytes_per_action"] = round(statistics.mean(seat_figures))
        finally:
            await hub.stop()
            store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per game kind")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
