"""Errors raised by the definition store.

Both carry a short contractual ``reason`` (what users and tests match on) and,
when known, the definition file *name* (never an absolute path: messages end
up in logs, tool results and the UI).
"""

from __future__ import annotations

from hookspecs.errors import DshError


class DefinitionError(DshError):
    """A definition document (or a save request) is invalid.

    ``reason`` is the bare rule text, e.g. ``"name must be a single line"``;
    ``source`` is the file name it came from (``"default.md"``) or None.
    ``str(err)`` is ``"<source>: <reason>"`` so a lone message still names the file;
    registry diagnostics keep the two apart (``path`` + ``error=reason``).
    """

    code = "INVALID_DEFINITION"

    def __init__(self, reason: str, *, source: str | None = None) -> None:
        self.reason = reason
        self.source = source
        super().__init__(f"{source}: {reason}" if source else reason)


class HoldoutKeyError(DshError):
    """The operator's ``holdout-keys.json`` sidecar is missing or invalid.

    Messages never contain the keys themselves.
    """

    code = "HOLDOUT_KEYS_INVALID"

    @property
    def reason(self) -> str:
        return self.message
