"""The operator-owned holdout sidecar: ``$DSH_HOME/shadow-minds/holdout-keys.json``.

Shape: a JSON object mapping a definition id to a non-empty list of unique,
non-blank literal strings, e.g. ``{"default": ["SCORING_COMMAND"]}``. The plugin
only reads it. Keys are returned as written (not trimmed) and never appear in
an error message, a log line or a repr produced here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

from ..routes import js_trim
from .errors import HoldoutKeyError
from .files import read_home_file

HOLDOUT_KEYS_FILE: Final = "holdout-keys.json"
#: How messages name the sidecar: relative to the home, never an absolute path.
HOLDOUT_KEYS_DISPLAY: Final = f"$DSH_HOME/shadow-minds/{HOLDOUT_KEYS_FILE}"


def load_holdout_document(path: Path) -> dict[str, Any]:
    """Read and decode the sidecar at ``path`` (a JSON object).

    A missing file raises FileNotFoundError (callers word it per id); every
    other failure is a :class:`HoldoutKeyError` without absolute paths.
    """
    try:
        raw = read_home_file(Path(path))
    except FileNotFoundError:
        raise
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise HoldoutKeyError(f"cannot read {HOLDOUT_KEYS_DISPLAY}: {reason}") from None
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise HoldoutKeyError("invalid holdout key sidecar JSON: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        # exc.msg and the position never quote the document (which holds the keys);
        # `from None` keeps exc.doc out of any traceback
        raise HoldoutKeyError(
            f"invalid holdout key sidecar JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:  # the decoder recurses once per nesting level
        raise HoldoutKeyError("invalid holdout key sidecar JSON: nested too deeply") from None
    if not isinstance(document, dict):
        raise HoldoutKeyError("holdout key sidecar must be a JSON object")
    return document


def holdout_keys_for(document: dict[str, Any], id: str) -> list[str]:
    """The validated literal keys of ``id`` in a decoded sidecar document."""
    keys = document.get(id)
    if (
        not isinstance(keys, list)
        or not keys
        or any(not isinstance(k, str) or not js_trim(k) for k in keys)
        or len(set(keys)) != len(keys)
    ):
        raise HoldoutKeyError(f"holdout definition {_quote(id)} needs unique non-empty literal keys")
    return list(keys)


def load_holdout_keys(path: Path, id: str) -> list[str]:
    """Read the sidecar at ``path`` and return the literal keys of ``id``."""
    try:
        document = load_holdout_document(path)
    except FileNotFoundError:
        raise HoldoutKeyError(missing_sidecar_message(id)) from None
    return holdout_keys_for(document, id)


def missing_sidecar_message(id: str) -> str:
    return (
        f"holdout definition {_quote(id)} needs {HOLDOUT_KEYS_DISPLAY} containing "
        f'{{{_quote(id)}: ["literal", ...]}}; create the sidecar as the operator, '
        'or remove "holdout: true" from the definition'
    )


def _quote(id: str) -> str:
    return json.dumps(id, ensure_ascii=False)
