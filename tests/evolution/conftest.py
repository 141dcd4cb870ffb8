"""Every evolution-review trio test runs on a MockClock that jumps ahead when
all tasks wait, so deadlines and scripted delays take no wall time."""

from __future__ import annotations

import pytest
import trio.testing


@pytest.fixture(autouse=True)
def clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)
