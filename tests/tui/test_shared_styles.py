"""The CSS rules that apply to a widget, shared by every app of the process (``shared_styles``)."""

from __future__ import annotations

from textual.color import Color
from textual.css.stylesheet import Stylesheet

from gambit_tui.screens.pg_table import PGTableScreen
from gambit_tui.screens.welcome import WelcomeScreen
from server.apphost import shared_styles

from .conftest import enter_lobby, make_app, open_pg_table_with_bots, screen_text, wait_for


def _rules_of(app) -> list[tuple[str, dict, dict]]:
    """Each node's rules (and its parts' rules) on every screen of ``app``, as set now."""
    found = []
    for screen in app.screen_stack:
        for node in screen.walk_children(with_self=True):
            parts = {
                name: dict(styles.base._rules) for name, styles in node._component_styles.items()
            }
            found.append((repr(node), dict(node.styles.base._rules), parts))
    return found


def _as_textual_applies(app) -> list[tuple[str, dict, dict]]:
    """The same, with every node's rules worked out again by Textual's own ``apply``."""
    for screen in app.screen_stack:
        app.stylesheet.update_nodes(screen.walk_children(with_self=True))
    return _rules_of(app)


async def test_every_node_gets_the_rules_textual_would_give_it(hub, monkeypatch):
    ada = make_app(hub, name="Ada")
    bob = make_app(hub, name="Bob", identity="SHA256:bob")
    async with ada.run_test(size=(80, 24)) as ada_pilot, bob.run_test(size=(80, 24)) as bob_pilot:
        await enter_lobby(ada_pilot)
        await enter_lobby(bob_pilot)  # Bob's nodes get Ada's answers
        await open_pg_table_with_bots(ada_pilot, bots=1, players=3)
        await wait_for(bob_pilot, lambda: "2/3" in screen_text(bob))
        await bob_pilot.press("j")
        await wait_for(bob_pilot, lambda: isinstance(bob.screen, PGTableScreen))
        await bob_pilot.pause()
        for app in (ada, bob):
            shared = _rules_of(app)
            assert shared and any(rules for _, rules, _ in shared)
            monkeypatch.setattr(Stylesheet, "apply", shared_styles.TEXTUALS)
            assert _as_textual_applies(app) == shared
            monkeypatch.setattr(Stylesheet, "apply", shared_styles.apply_shared)


async def test_a_second_app_checks_no_selector_textual_checked_for_the_first(hub, monkeypatch):
    checked: list[int] = []
    check_rule = Stylesheet._check_rule.__func__

    def counting(cls, rule_set, css_path_nodes):
        checked.append(1)
        return check_rule(cls, rule_set, css_path_nodes)

    monkeypatch.setattr(Stylesheet, "_check_rule", classmethod(counting))
    # (the process's answers so far forgotten: an earlier test in this worker drew the same)
    monkeypatch.setattr(shared_styles, "_answers", {})
    first = make_app(hub, name="Ada")
    async with first.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(first.screen, WelcomeScreen))
        await pilot.pause()
    assert checked  # Textual worked the first app's rules out
    checked.clear()
    second = make_app(hub, name="Bob", identity="SHA256:bob")
    async with second.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(second.screen, WelcomeScreen))
        await pilot.pause()
        assert second.screen.query_one("#name").styles.width is not None
    assert len(checked) < 20, len(checked)  # the first app's answers served the second


async def test_a_parts_style_follows_a_pseudo_class_only_the_parts_rules_name():
    """``W:focus > .w--part`` names :focus, W's own rules do not: focus must still restyle
    the part (its key must tell a focused W from one without focus)."""
    from textual.app import App
    from textual.widget import Widget

    class W(Widget, can_focus=True):
        COMPONENT_CLASSES = frozenset({"w--part"})
        DEFAULT_CSS = """
        W { height: 1; }
        W > .w--part { color: blue; }
        W:focus > .w--part { color: red; }
        """

    class Other(Widget, can_focus=True):
        DEFAULT_CSS = "Other { height: 1; }"

    class Parts(App):
        def compose(self):
            yield W()
            yield Other()

    app = Parts()
    async with app.run_test(size=(20, 4)) as pilot:
        w = app.query_one(W)
        for focused in (w, app.query_one(Other), w, app.query_one(Other)):
            focused.focus()
            await pilot.pause()
            app.stylesheet.update_nodes([w])  # as a screen's restyle does
            wanted = "red" if focused is w else "blue"
            assert w.get_component_styles("w--part").color.hex == Color.parse(wanted).hex
