"""The footer's keys found with fewer questions than Textual's ``Screen.active_bindings``.

``active_bindings`` asks ``check_action`` about every binding along the screen's binding
chain, and a table's footer asks it after every move: the digits that choose a bid, keys no
footer shows, and bindings that could not replace a key's winner. With a hundred apps in one
process that was a large part of an app update. This asks only about bindings that can
matter, with the same answer: for each key some binding shows, the first binding along the
chain that is not disabled (a priority binding replaces one without).

Private Textual names read: ``Screen._modal_binding_chain`` and ``App._check_action_state``.
Guarded by ``test_the_footer_offers_what_textuals_active_bindings_offer`` in
``tests/tui/test_pg_table.py`` (every footer through a deal equals what ``active_bindings``
gives).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen


def shown_bindings(screen: Screen) -> list[tuple[Binding, bool]]:
    """For each key a shown binding uses, the binding that wins it and whether it is
    enabled, in ``Screen.active_bindings``' order."""
    app = screen.app
    chain = [(namespace, list(bindings)) for namespace, bindings in screen._modal_binding_chain]
    shown_keys = {key for _ns, bindings in chain for key, binding in bindings if binding.show}
    winners: dict[str, tuple[Binding, bool]] = {}
    for namespace, bindings in chain:
        for key, binding in bindings:
            if key not in shown_keys:
                continue
            winner = winners.get(key)
            if winner is not None and not (binding.priority and not winner[0].priority):
                continue
            state = app._check_action_state(binding.action, namespace)
            if state is not False:
                winners[key] = (binding, bool(state))
    return list(winners.values())
