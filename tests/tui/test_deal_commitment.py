"""The deal's commitment at the table: its hash's start and, in words, whether it is fair,
shown in the status line before the deal and while it is played, never the seed."""

from __future__ import annotations

from gambit_tui.screens.table_base import deal_text
from server.engine import fairness
from server.hub import Hub

from .conftest import enter_lobby, make_app, screen_text, tui_config, wait_for
from .test_prophet_table import open_prophet_table


def status_line(app) -> str:
    return screen_text(app).splitlines()[0]


async def test_a_fair_deal_s_commitment_is_shown_before_the_deal_and_revealed_after(store):
    hub = Hub(store, tui_config(seed=None))
    await hub.start()
    try:
        app = make_app(hub)
        async with app.run_test(size=(100, 30)) as pilot:
            await enter_lobby(pilot)
            table = await open_prophet_table(pilot, schedule="up_down", cap=1)
            hub_table = hub.tables[table.table_id]
            committed = hub_table.deal["commitment"]
            assert table.info["status"] == "waiting" and table.view is None
            # Before the deal, under the waiting room's prompt.
            await wait_for(pilot, lambda: committed[:12] in screen_text(app))
            assert f"before the deal: deal {committed[:12]} fair" in screen_text(app)
            assert committed[:13] not in screen_text(app)  # only the short form
            assert hub_table.deal["hub_seed"] not in str(app.model.views)  # never the seed
            await pilot.press("s")
            await wait_for(pilot, lambda: table.view is not None)
            # While it is played, in the status line.
            await wait_for(pilot, lambda: f"deal {committed[:12]} fair" in status_line(app))
            # The game in play is dealt from the seed committed to, mixed with the value the
            # app committed to and revealed by itself (players' entropy).
            deal = hub_table.deal
            assert fairness.commitment(deal["hub_seed"]) == committed
            ((seat, value),) = deal["contributions"]
            assert seat == 0 and value == app.entropy.values[(table.table_id, committed)]
            assert deal["commits"] == [[0, fairness.commitment(value)]]
            assert hub_table.state.params["seed"] == fairness.mix(deal["hub_seed"], [(0, value)])
    finally:
        await hub.stop()


async def test_a_fixed_seed_is_never_called_fair_at_the_table(hub):
    app = make_app(hub)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        table = await open_prophet_table(pilot)
        committed = hub.tables[table.table_id].deal["commitment"]
        await wait_for(pilot, lambda: committed[:12] in screen_text(app))
        # Before the deal the prompt says why.
        assert f"before the deal: deal {committed[:12]} not fair: fixed seed" in screen_text(app)
        await pilot.press("s")
        await wait_for(pilot, lambda: committed[:12] in status_line(app))
        assert f"deal {committed[:12]} not fair" in status_line(app)
        assert " fair" not in status_line(app).replace("not fair", "")


def test_the_words_for_each_kind_of_deal():
    c = "ab" * 32
    assert deal_text(None) == ""
    assert deal_text({"commitment": c, "fair": True}) == "deal abababababab fair"
    assert deal_text({"commitment": c, "fair": False, "reason": "stacked"}) == (
        "deal abababababab not fair"
    )
    assert deal_text({"commitment": c, "fair": False, "reason": "stacked"}, reason=True) == (
        "deal abababababab not fair: stacked"
    )
    assert deal_text({"commitment": c, "fair": False, "reason": "other"}) == (
        "deal abababababab not fair"
    )
