"""The transcript commands' state files: JSON, read bounded, written whole.

Nothing here loads attrs or the contract's values: the Stop hook reads its
state before it knows whether it has anything to import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookspecs.errors import InputFileError
from hookspecs.fsutil import ensure_private_dir, read_regular_text, write_atomic

#: a state file is a few hundred bytes; anything past this is not one of ours
MAX_STATE_BYTES = 1024 * 1024


def load_json(path: Path) -> Any:
    """A state file's JSON value, or None when there is none yet or it is damaged
    (the caller starts over; the file is rewritten whole)."""
    try:
        return json.loads(read_regular_text(path, limit=MAX_STATE_BYTES, what="state file"))
    except (InputFileError, ValueError, RecursionError):
        return None  # a FIFO or a device in its place is as good as damaged: never waited on


def save_json(path: Path, value: Any) -> None:
    """Write a state file whole (0600, atomically, in a private directory)."""
    ensure_private_dir(path.parent)
    write_atomic(path, json.dumps(value, sort_keys=True) + "\n")
