"""The app's pieces that need no screen: the model, preferences, cards, catalogs."""

from __future__ import annotations

from babel.messages.pofile import read_po
from rich.cells import cell_len

from gambit_tui.cards import CardStyle, card_label, card_text
from gambit_tui.catalog import catalog_path, extract
from gambit_tui.i18n import translations
from gambit_tui.model import ClientModel
from gambit_tui.names import tarokka_card_name
from gambit_tui.pg_text import event_text
from gambit_tui.prefs import Prefs
from protocol.cards import TAROKKA_DECK
from protocol.term import TermInfo


def test_the_model_follows_lobby_updates_and_chat():
    model = ClientModel()
    table = {"id": 3, "game": "prophet", "seats": [], "status": "waiting"}
    assert model.apply({"t": "lobby", "tables": [table], "players": [{"name": "Ada"}]}) == "lobby"
    update = {"t": "lobby_update", "tables": [], "removed": [3], "players": None}
    assert model.apply(update) == "lobby"
    assert model.tables == {} and model.players == [{"name": "Ada"}]
    model.apply({"t": "chat", "channel": "table", "table": 7, "from": "Bob", "text": "hi"})
    model.apply({"t": "chat", "channel": "lobby", "from": "Cy", "text": "yo"})
    assert [line.text for line in model.chat_lines(7)] == ["hi"]
    assert [line.sender for line in model.chat_lines("lobby")] == ["Cy"]
    model.apply({"t": "invite", "table": 4, "from": "Bob", "game": "prophets_gambit"})
    model.apply({"t": "invite", "table": 4, "from": "Bob", "game": "prophets_gambit"})
    assert len(model.invites) == 1
    model.forget_invite(4)
    assert model.invites == []


def test_turn_timers_count_down_from_arrival():
    model = ClientModel()
    info = {"id": 1, "seats": [], "deadlines": {"2": 30.0}}
    model.apply({"t": "table", "table": 1, "info": info, "seat": 0, "view": None})
    model.received[1] -= 10  # as if it arrived ten seconds ago
    assert 19.5 < model.deadline_left(1, 2) <= 20.0
    assert model.deadline_left(1, 0) is None
    assert "deadlines" not in model.tables[1]  # the lobby copy carries no clock


def test_prefs_keep_known_values_and_ignore_the_rest():
    prefs = Prefs.from_wire({"theme": "mono", "ascii": True, "alert": "loud", "junk": 1})
    assert prefs == Prefs(theme="mono", ascii=True)
    assert Prefs.from_wire(prefs.to_wire()) == prefs
    assert Prefs.from_wire({"theme": "neon"}) == Prefs()


def test_card_faces_are_one_cell_per_character_in_every_style():
    styles = [
        CardStyle(),
        CardStyle(ascii=True),
        CardStyle(suit_letters=True, four_colour=True),
        CardStyle(theme="mono"),
        CardStyle(theme="light", four_colour=True),
    ]
    for style in styles:
        for code in TAROKKA_DECK:
            label = card_label(code, style)
            assert cell_len(label) == len(label), label
            if style.ascii:
                assert label.isascii()
    assert card_label("S7", CardStyle()) == "7♠"
    assert card_label("GM", CardStyle(suit_letters=True)) == "M♦G"
    assert card_label("C3", CardStyle(ascii=True)) == "3C"
    assert card_text("T5", CardStyle(theme="mono")).style == "bold"


def test_card_names_are_full_and_translatable():
    assert tarokka_card_name("S7") == "7 of Swords (Hooded One)"
    assert tarokka_card_name("CM") == "Master of Coins (Rogue)"
    assert tarokka_card_name("HSE") == "Seer"


def test_events_read_as_sentences():
    names = ["Ada", "Bob", "Cy"].__getitem__
    line = event_text({"e": "play", "seat": 1, "card": "S2", "bonus": True}, names, CardStyle())
    assert line.plain == "Bob plays 2♠ and may draw and discard."
    line = event_text({"e": "draw", "seat": 0, "n": 2}, names, CardStyle())
    assert line.plain == "Ada draws 2 cards."
    assert event_text({"e": "something_new"}, names, CardStyle()) is None


def test_the_english_catalog_is_complete():
    """Every string the code can show is in the English catalog, translated (as itself)."""
    with catalog_path("en").open("rb") as handle:
        english = read_po(handle, locale="en")
    for message in extract():
        if not message.id:
            continue
        entry = english.get(message.id, message.context)
        assert entry is not None, f"run python -m gambit_tui.catalog: {message.id!r} is missing"
        assert entry.string and not entry.fuzzy
    singular = ("{name} draws a card.", "{name} draws {n} cards.")
    assert translations("en").ngettext(*singular, 2) == singular[1]


def test_terminal_info_drives_defaults():
    assert TermInfo(term="xterm-256color").color_system == "256"
    assert TermInfo(colorterm="truecolor").color_system == "truecolor"
    assert TermInfo(no_color=True).color_system is None
    # Terminals that have no colour get none (terminfo's monochrome entries, the DEC ones).
    for mono in ("xterm-mono", "ansi-mono", "linux-m", "vt100", "vt220", "dumb", ""):
        assert TermInfo(term=mono).color_system is None and not TermInfo(term=mono).colour
    assert TermInfo(term="xterm").color_system == "standard"
    assert TermInfo(term="screen").colour
    assert not TermInfo(lang="C").unicode
    assert TermInfo(lang="uk_UA.UTF-8").language == "uk"
    # Blank runs are erased only where erasing keeps the background colour.
    assert TermInfo(term="xterm-256color").erases_in_colour
    assert TermInfo(term="tmux-256color").erases_in_colour
    assert not TermInfo(term="screen-256color").erases_in_colour
    assert not TermInfo(term="vt100").erases_in_colour


def test_colour_depth_comes_from_the_players_terminal():
    """The app host sets each app's colour depth from its player's terminal; the Gambit app
    itself draws greys only where the terminal has no colour."""
    from rich.console import ColorSystem
    from textual.filter import Monochrome

    from gambit_tui.app import GambitApp
    from protocol.connection import queue_pair
    from server.apphost.colour_depth import set_colour_depth

    client, _hub = queue_pair()
    for term, system in (
        (TermInfo(term="xterm"), ColorSystem.STANDARD),
        (TermInfo(colorterm="truecolor"), ColorSystem.TRUECOLOR),
        (TermInfo(no_color=True), None),
    ):
        app = GambitApp(client, term=term)
        set_colour_depth(app, term)
        assert app.console._color_system == system
    plain = GambitApp(client, term=TermInfo(no_color=True))
    assert [type(f) for f in plain.get_line_filters()].count(Monochrome) == 1
    set_colour_depth(plain, TermInfo(no_color=True))
    assert [type(f) for f in plain.get_line_filters()].count(Monochrome) == 1
    coloured = GambitApp(client, term=TermInfo())
    assert not any(isinstance(f, Monochrome) for f in coloured.get_line_filters())


async def test_only_screens_under_a_see_through_screen_show_through():
    """The app host's ``_background_screens`` (server/apphost/hidden_screens.py): nothing
    under an opaque screen, the screen under a dialog's translucent backdrop."""
    from textual.app import App
    from textual.screen import ModalScreen, Screen

    from server.apphost.textual_layer import install_all

    install_all()  # as the app host does (idempotent)

    class Dialog(ModalScreen[None]):
        pass

    app = App[None]()
    async with app.run_test() as pilot:
        lobby, table = Screen(), Screen()
        await app.push_screen(lobby)
        await app.push_screen(table)
        await pilot.pause()
        assert app._background_screens == []
        await app.push_screen(Dialog())
        await pilot.pause()
        assert app._background_screens == [table]
