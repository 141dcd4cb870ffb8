"""Every evolution-review trio test runs on a MockClock that jumps ahead when
all tasks wait, so deadlines and scripted delays take no wall time.

pytest-trio hands ``trio.run`` only a clock that is one of the test's own
arguments (an autouse fixture is not), so the clock is set by the runner the
``trio`` marker names. A test that requests ``clock`` (or any other Clock
fixture) gets that one; a test that waits on real I/O (a subprocess, a socket)
is marked ``real_clock``, since autojump would fire its deadlines at once.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
import trio
import trio.testing


@pytest.fixture
def clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


def run_on_mock_clock(fn: Callable[[], Any], *, clock: trio.abc.Clock | None = None, **kwargs: Any) -> Any:
    return trio.run(fn, clock=clock or trio.testing.MockClock(autojump_threshold=0), **kwargs)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "real_clock: this evolution test waits on real I/O: no MockClock")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = __file__.rsplit("/", 1)[0]
    for item in items:
        function = getattr(item, "obj", None)
        if not str(item.fspath).startswith(here) or not inspect.iscoroutinefunction(function):
            continue
        if item.get_closest_marker("real_clock") is None:
            item.add_marker(pytest.mark.trio(run=run_on_mock_clock))
