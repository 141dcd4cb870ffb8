"""What ``harness shadow trace`` must never print: every holdout literal.

Trace reads session logs and journals as they are on disk, and a child's
assistant text (shown with ``--show-text``) may quote an operator's holdout
key. The literals of *every* id in the sidecar are redacted (a trace does not
know which definition a text passed through), with the governance's own
:func:`~shadow_mind_plugin.governance.holdout.redact`, which matches each key
as written and JSON-escaped.
"""

from __future__ import annotations

from pathlib import Path

from ..definitions.errors import HoldoutKeyError
from ..definitions.holdout_keys import HOLDOUT_KEYS_FILE, load_holdout_document
from ..definitions.registry import ROOT_DIR


def holdout_literals(home: Path) -> tuple[str, ...]:
    """Every non-empty string listed in the sidecar, longest first (so a key
    containing another is replaced whole); () when there is no sidecar.
    Raises :class:`HoldoutKeyError` when it exists but cannot be read."""
    try:
        document = load_holdout_document(home / ROOT_DIR / HOLDOUT_KEYS_FILE)
    except FileNotFoundError:
        return ()
    found = {key for keys in document.values() if isinstance(keys, list) for key in keys if isinstance(key, str) and key}
    return tuple(sorted(found, key=lambda key: (-len(key), key)))


def literals_or_refusal(home: Path, *, show_text: bool) -> tuple[str, ...]:
    """:func:`holdout_literals`; with ``show_text`` an unreadable sidecar is an
    error (text would be shown without knowing what to hide), else it means
    nothing to redact (without ``show_text`` no text body is printed)."""
    try:
        return holdout_literals(home)
    except HoldoutKeyError:
        if show_text:
            raise
        return ()



def quiet_literals(home: Path) -> tuple[str, ...]:
    """:func:`holdout_literals`, or () when the sidecar cannot be read (for a
    last pass over text already built with the strict list)."""
    try:
        return holdout_literals(home)
    except HoldoutKeyError:
        return ()
