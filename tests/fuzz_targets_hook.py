"""Fuzz targets for the Stop-hook bridge's stdin (``harness shadow hook``).

Whatever the agent (or anything else) writes to the hook's stdin, parsing it
raises only :class:`~hookspecs.errors.DshError` subclasses: an escaping
``RecursionError`` or ``UnicodeDecodeError`` would be a traceback, and a
traceback must never reach the agent. Registered in :mod:`tests.fuzz_targets`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from harness.transcripts.hook import MAX_INPUT, read_hook_input, state_key, state_path, transcript_of
from hookspecs.errors import DshError

_KEYS = [
    "session_id",
    "transcript_path",
    "agent_transcript_path",
    "agent_id",
    "cwd",
    "hook_event_name",
    "stop_hook_active",
]
_json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8,
)
_hook_objects = st.dictionaries(st.sampled_from(_KEYS), _json_values, max_size=6).map(lambda d: json.dumps(d).encode())
#: raw bytes, hook-shaped objects, deep nesting and over-long input
hook_stdin = st.one_of(
    st.binary(max_size=300),
    _hook_objects,
    st.integers(min_value=1, max_value=200_000).map(lambda n: b"[" * n + b"]" * n),
    st.just(b" " * (MAX_INPUT + 1)),
)


def hook_input(raw: bytes) -> None:
    """Parse the hook's stdin and derive what the bridge derives from it."""
    try:
        hook = read_hook_input(raw)
    except DshError:
        return
    transcript_of(hook)
    state_path(Path("dsh-home"), "claude-code", state_key(hook))


HOOK_TARGETS: dict[str, tuple[st.SearchStrategy[Any], Callable[[Any], None]]] = {
    "hook_stdin": (hook_stdin, hook_input),
}
