"""Which language a player is spoken to in: the hub's rule (``chosen_language``), applied at
hello and stored with the key, and the stored language the SSH host asks for before an app
has said hello (``Hub.stored_language``)."""

from __future__ import annotations

from protocol.messages import PROTOCOL_VERSION
from server.hub.session import chosen_language

from .harness import connect


def test_the_clients_language_first_then_the_stored_one_then_english():
    assert chosen_language("de", "uk") == "de"
    assert chosen_language(None, "uk") == "uk"
    assert chosen_language(None, None) == "en"


async def test_the_language_of_a_hello_is_kept_with_the_key(hub):
    ada = await connect(hub)
    welcome = await ada.hello("Ada", identity="SHA256:ada", lang="uk")
    assert welcome["you"]["lang"] == "uk"
    assert hub.stored_language("SHA256:ada") == "uk"
    await ada.close()
    again = await connect(hub)
    await again.send("hello", v=PROTOCOL_VERSION, identity="SHA256:ada")  # no language
    assert (await again.expect("welcome"))["you"]["lang"] == "uk"
    await again.close()
    assert hub.stored_language("SHA256:nobody") is None
    assert hub.stored_language(None) is None
