"""Which language a player is spoken to in: the hub's rule (``chosen_language``), applied at
hello and stored with the key, and the stored language the SSH host asks for before an app
has said hello (``Hub.stored_language``)."""

from __future__ import annotations

from protocol.messages import PROTOCOL_VERSION
from server.hub.session import chosen_language

from .harness import connect


def test_the_stored_language_first_then_the_clients_then_english():
    assert chosen_language("de", "uk") == "uk"
    assert chosen_language("de", None) == "de"
    assert chosen_language(None, "uk") == "uk"
    assert chosen_language(None, None) == "en"


async def test_a_choice_made_in_settings_outlives_the_clients_locale(hub):
    """Many clients send ``LANG=en_US.UTF-8`` whatever their player reads: a player who chose
    Ukrainian is spoken to in Ukrainian at the next visit, not reset to the locale."""
    ada = await connect(hub)
    welcome = await ada.hello("Ada", identity="SHA256:ada", lang="en")
    assert welcome["you"]["lang"] == "en"  # a first visit: the locale's language
    await ada.send("profile", lang="uk")  # Settings
    await ada.expect("you", lang="uk")
    await ada.close()
    again = await connect(hub)
    assert (await again.hello("Ada", identity="SHA256:ada", lang="en"))["you"]["lang"] == "uk"
    await again.close()
    # A key's first visit without a locale stores nothing: a later locale still counts.
    bo = await connect(hub)
    await bo.send("hello", v=PROTOCOL_VERSION, identity="SHA256:bo", name="Bo")  # no locale
    assert (await bo.expect("welcome"))["you"]["lang"] == "en"
    await bo.close()
    assert hub.stored_language("SHA256:bo") is None
    bo = await connect(hub)
    assert (await bo.hello("Bo", identity="SHA256:bo", lang="de"))["you"]["lang"] == "de"
    await bo.close()
    assert hub.stored_language("SHA256:bo") == "de"


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
