"""Arbitrary file contents raise only the project's own errors (bounded examples).

The targets live in :mod:`tests.fuzz_targets`; ``bench/fuzz_inputs.py`` runs
them with many more examples.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from .fuzz_targets import TARGETS

EXAMPLES = 60


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_only_own_errors_escape(name: str) -> None:
    strategy, target = TARGETS[name]

    @settings(max_examples=EXAMPLES, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(strategy)
    def fuzz(value: Any) -> None:
        target(value)

    fuzz()
