"""What every fuzz target module shares: the "only our own errors" rule and a scratch folder."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hookspecs.errors import DshError


def expect_own_errors(call: Callable[[], Any]) -> Any:
    """``call()``'s value, or None when it raised one of the project's own errors;
    anything else escapes and fails the example."""
    try:
        return call()
    except DshError:
        return None


@contextlib.contextmanager
def scratch(prefix: str = "dsh-fuzz-") -> Iterator[Path]:
    """A temporary folder for one example, removed after it."""
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        yield Path(name)
