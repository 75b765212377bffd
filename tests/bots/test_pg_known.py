"""What a Prophet's Gambit seat knows of hidden cards from its view's events (pg_known)."""

from __future__ import annotations

from server.bots.strong.pg_known import ruled_out_fates


def _view(events: list[dict]) -> dict:
    return {
        "seat": 0,
        "players": 4,
        "hand": [],
        "discard": [],
        "open_fates": {},
        "fate": None,
        "focus": "C5",
        "killed": None,
        "hand_sizes": [3, 3, 3, 3],
        "events": events,
    }


def test_a_focus_hidden_again_by_a_reshuffle_is_not_the_fate_kept_beside_it():
    """The audit's deal: seat 1 kept its Fate beside the Focus G1; seat 2's Artifact made
    G1 its Fate, seat 2 replaced it and the reshuffle before its draw hid G1 in the deck.
    Seat 1's Fate (held all along) is not G1; seat 2's new one may be."""
    out = ruled_out_fates(
        _view(
            [
                {"e": "deal", "dealer": 0, "focus": "G1"},
                {"e": "bids", "cards": ["T4", "S6", "S8", "G5"]},
                {"e": "keep_fate", "seat": 1},
                {"e": "discard", "seat": 1, "card": "S2"},
                {"e": "artifact", "seat": 2, "fate": "G1", "focus": "C5"},
                {"e": "replace_fate", "seat": 2, "card": "G1"},
                {"e": "reshuffle", "cards": 2},
                {"e": "play", "seat": 2, "card": "TM", "bonus": False},
            ]
        )
    )
    assert {"G1", "S2", "C5", "TM"} <= out[1]
    assert "G1" not in out[2] and "S2" not in out[2] and "TM" in out[2]


def test_the_mists_move_what_rules_a_fate_out_with_it():
    out = ruled_out_fates(
        _view(
            [
                {"e": "deal", "dealer": 0, "focus": "C5"},
                {"e": "replace_fate", "seat": 3, "card": "S1"},
                {"e": "discard", "seat": 1, "card": "S2"},
                {"e": "reshuffle", "cards": 2},  # before a draw of seat 1's
                {"e": "mists", "seats": [1, 2, 3]},  # 1's Fate to 2, 2's to 3, 3's to 1
            ]
        )
    )
    assert {"C5", "S1", "S2"} <= out[2] and {"C5", "S1", "S2"} <= out[3]
    # Seat 3's Fate, drawn before S1 and S2 lay in the pile the reshuffle hid (the Focus
    # C5 is in view: only the cards hidden since count).
    assert out[1] == {"S1", "S2"}
