"""The conformance suite's Fortunes target bets over two deals, in a file of their own (see
``LONG_CASES`` in test_conformance.py): the same properties, checked the same way."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .test_conformance import LONG_CASES, run_case


@pytest.mark.parametrize(("name", "n", "options"), LONG_CASES[1:], ids=lambda v: str(v))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_play_of_the_target_bets_keeps_every_invariant(name, n, options, seed):
    run_case(name, n, options, seed)
