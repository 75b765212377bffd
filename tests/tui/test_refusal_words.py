"""The hub's refusals and notices reach a player in the player's language (the hub sends each
sentence's English template and arguments; the app's catalogs translate it)."""

from __future__ import annotations

import pytest

from gambit_tui.app import GambitApp
from gambit_tui.i18n import translations
from gambit_tui.refusals import server_text
from protocol.connection import queue_pair
from protocol.term import TermInfo

from .conftest import enter_lobby, make_app, wait_for


@pytest.mark.parametrize("lang", ["uk", "de", "en"])
async def test_a_taken_name_is_refused_in_the_players_language(hub, lang):
    template = "Someone online is already called {name}."
    words = translations(lang).gettext(template).format(name="Ada")
    assert (words != template.format(name="Ada")) == (lang != "en")
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Ada", identity="SHA256:bob", term=TermInfo(lang=f"{lang}.UTF-8"))
    async with (
        ada.run_test(size=(80, 24), notifications=True) as ada_pilot,
        bob.run_test(size=(80, 24), notifications=True) as bob_pilot,
    ):
        await enter_lobby(ada_pilot)
        await wait_for(bob_pilot, lambda: [n for n in bob._notifications])
        assert [n.message for n in bob._notifications] == [words]


@pytest.mark.parametrize("lang", ["uk", "de"])
async def test_the_rules_engines_english_detail_becomes_general_words(lang):
    client_end, _hub_end = queue_pair(trusted=True)
    app = GambitApp(client_end, term=TermInfo(lang=f"{lang}.UTF-8"), identity=None, name="Ada")
    async with app.run_test(size=(80, 24)):
        refusal = {"t": "error", "code": "illegal", "message": "You must follow suit (Cups)."}
        general = translations(lang).gettext("That move is not allowed now.")
        assert server_text(refusal) == general != "That move is not allowed now."
        # A sentence of the hub's own, with its gaps, is translated whole.
        sentence = {
            "t": "error",
            "code": "chips",
            "message": "This table's stake is 50; you have 20.",
            "text": "This table's stake is {stake}; you have {chips}.",
            "args": {"stake": 50, "chips": 20},
        }
        said = server_text(sentence)
        assert "50" in said and "20" in said and said != sentence["message"]
