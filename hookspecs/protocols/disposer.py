"""What every registration returns."""

from __future__ import annotations

from collections.abc import Callable

#: Undoes one registration. Idempotent.
Disposer = Callable[[], None]
