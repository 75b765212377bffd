"""The conformance suite's longest case, a whole Fortunes rubber, in a file of its own (see
``LONG_CASES`` in test_conformance.py): the same properties, checked the same way."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_conformance import LONG_CASES, run_case

NAME, N, OPTIONS = LONG_CASES[0]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_play_of_a_whole_fortunes_rubber_keeps_every_invariant(seed):
    run_case(NAME, N, OPTIONS, seed)
