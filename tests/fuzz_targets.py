"""Fuzz targets over every file the host and the plugin read from disk.

Each target takes one arbitrary input (text, bytes or YAML-ish text) and feeds
it to a loader; it passes when the loader returns or raises one of the
project's own error types (``DshError`` subclasses: ``SessionFormatError``,
``SettingsError``, ``ProfileError``, ``ScriptError``, ``DefinitionError``,
``HoldoutKeyError``...). Anything else — a ``TypeError``, ``RecursionError``,
``KeyError`` — escapes and fails the example.

``tests/test_fuzz_inputs.py`` runs every target with a few dozen examples;
``bench/fuzz_inputs.py`` runs the same targets with thousands.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from harness.cli.inspect import sessions_show
from harness.llm.script import parse_script_text
from harness.profiles import parse_profile
from harness.profiles.parse import parse_patch
from harness.sessions import SessionStore, derive_messages
from harness.sessions.checkpoint import CHECKPOINT_FILE, Checkpoint
from harness.sessions.latest import LatestEventData, LatestSandboxMode
from harness.sessions.shapes import load_log
from harness.settings import SettingsService
from hookspecs.values import EventTypes
from hookspecs.values.settings import SettingsSpec
from shadow_mind_plugin.definitions.holdout_keys import load_holdout_document
from shadow_mind_plugin.definitions.parse import parse_definition

from .fuzz_support import expect_own_errors, scratch
from .fuzz_targets_evolution import TARGETS as EVOLUTION_TARGETS
from .fuzz_targets_files import FILE_TARGETS
from .fuzz_targets_hook import HOOK_TARGETS
from .harness.test_settings import LoopSettings

# --- strategies -----------------------------------------------------------------------------

_YAML_PIECES = [
    "- ", ": ", ":", "? ", "&a ", "*a", "&b ", "*b", "!!float ", "!!int ", "!!bool ", "!!str ", "!!null ",
    "!!binary ", "!!timestamp ", "!!set ", "!!omap ", "!!pairs ", "!!map ", "!!seq ", "!custom ", "[", "]",
    "{", "}", ", ", "\n", "\n  ", "\n    ", "---\n", "...\n", "'", '"', "# c", "|\n  ", ">\n  ", "xyz", "1",
    "-1", "0x1F", "0o7", "1e999", ".nan", ".inf", "null", "~", "true", "no", "2024-01-01", "12:30", "\t",
    "\ufeff", "\x00", "é", "id", "name", "config", "disabled", "bundle", "insert", "remove", "enable",
    "disable", "rename", "responses", "reply", "match", "text", "tool_calls", "models", "holdout", "tools",
    "enabled", "activation_probability", "timeout_seconds", "capture", "demo", "agent-loop", "ratio", "mode",
]

#: text built from YAML-significant fragments (tags, anchors, flow and block syntax)
yamlish = st.lists(st.sampled_from(_YAML_PIECES), max_size=40).map("".join)
#: any text, any bytes, or YAML-ish text, as bytes to write to a file
file_bytes = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    yamlish.map(lambda t: t.encode("utf-8", "surrogatepass")),
)
any_text = st.one_of(st.text(max_size=200), yamlish)

_json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12))
json_value = st.recursive(
    _json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)

_CORE_TYPES = ["user/message", "assistant/message", "tool/result", "turn/start", "turn/end", "tool/call", "plugin/x"]
_block = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": st.one_of(st.text(max_size=10), json_value)}),
    st.fixed_dictionaries({"type": st.sampled_from(["tool-call", "tool-result", "image", "reasoning", "x"])}),
    json_value,
)
_message = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {
            "id": st.one_of(st.just("m"), json_value),
            "role": st.one_of(st.sampled_from(["user", "assistant", "tool", "wizard"]), json_value),
            "content": st.one_of(st.lists(_block, max_size=3), json_value),
        },
        optional={"source": st.one_of(st.just({"kind": "user"}), json_value)},
    ),
)
_event = st.fixed_dictionaries(
    {
        "type": st.one_of(st.sampled_from(_CORE_TYPES), json_value),
        "seq": st.one_of(st.just(-1), json_value),  # -1: "the line's own seq", filled in below
        "time": st.one_of(st.just(1), json_value),
        "data": st.one_of(st.fixed_dictionaries({}, optional={"message": _message, "turn": json_value}), json_value),
    },
    optional={"ignorable": st.booleans()},
)
_event_line = st.one_of(
    _event,
    st.text(max_size=60),
    st.binary(max_size=40),
)
#: the lines after a valid header: mostly well-framed events with fuzzed fields
session_lines = st.lists(_event_line, max_size=6)

_STATE_TYPES = ["sandbox/mode", "approval/policy"]
#: a recorded state event's line: mostly a state event before the checkpoint, with fuzzed fields
_state_line = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.one_of(st.sampled_from(_STATE_TYPES), json_value),
            "seq": st.one_of(st.sampled_from([0, 1]), json_value),
            "time": st.one_of(st.just(1), json_value),
            "data": st.one_of(st.fixed_dictionaries({"mode": json_value, "policy": json_value}), json_value),
        },
        optional={"ignorable": st.booleans()},
    ).map(json.dumps),
    st.text(max_size=40),
)


def _coherent_entry(seq: int, etype: str, data: Any) -> dict[str, Any]:
    """An entry whose line is a well-framed state event at its own seq."""
    return {"seq": seq, "line": json.dumps({"type": etype, "seq": seq, "time": 1, "data": data})}


_state_data = st.one_of(
    st.fixed_dictionaries({"mode": st.sampled_from(["read-only", ""]), "policy": json_value}), json_value
)
_state_entry = st.one_of(
    st.none(),
    st.just("unknown"),
    st.builds(_coherent_entry, st.sampled_from([0, 1]), st.sampled_from(_STATE_TYPES), _state_data),
    st.fixed_dictionaries(
        {"seq": st.one_of(st.sampled_from([0, 1, 2]), json_value), "line": st.one_of(_state_line, json_value)},
        optional={"extra": json_value},
    ),
    json_value,
)
#: the checkpoint's ``latest`` field: (present, value)
state_record = st.tuples(
    st.booleans(),
    st.one_of(
        # well framed, each type's event at its own seq
        st.fixed_dictionaries(
            {},
            optional={
                etype: st.one_of(
                    st.none(), st.builds(_coherent_entry, st.sampled_from([0, 1]), st.just(etype), _state_data)
                )
                for etype in _STATE_TYPES
            },
        ),
        st.dictionaries(st.sampled_from([*_STATE_TYPES, "tool/call"]), _state_entry, max_size=3),
        json_value,
    ),
)


# --- targets --------------------------------------------------------------------------------


def session_log(lines: list[Any]) -> None:
    """A session file: a valid header, then the fuzzed lines; load, list, show."""
    with scratch() as home:
        _session_log(home, lines)


def _encoded(lines: list[Any], first_seq: int) -> list[bytes]:
    """The fuzzed lines as file lines; an event whose seq is -1 gets its own."""
    out: list[bytes] = []
    for seq, line in enumerate(lines, start=first_seq):
        if isinstance(line, dict):
            if line.get("seq") == -1:
                line = {**line, "seq": seq}
            out.append(json.dumps(line).encode())
        elif isinstance(line, str):
            out.append(line.encode("utf-8", "surrogatepass"))
        else:
            out.append(line)
    return out


def _header(session_id: str) -> bytes:
    return json.dumps({"type": "session", "version": 1, "id": session_id, "created_at": 1.0}).encode()


def _session_log(home: Path, lines: list[Any]) -> None:
    path = home / "sessions" / "s1" / "session.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join([_header("s1"), *_encoded(lines, 0)]) + b"\n")
    store = SessionStore(sessions_dir=home / "sessions", on_event=lambda s, e: None, now_ms=lambda: 0.0)
    loaded = expect_own_errors(lambda: load_log(path, is_known=store.is_known_type, where="s1"))
    if loaded is not None:
        derive_messages(loaded.events)  # a log that loads folds into a history
    store.scan()  # never raises: a broken session is a problem line
    expect_own_errors(lambda: sessions_show(home, "s1", as_json=False, out=_Sink()))


def session_log_resumed(case: tuple[list[Any], tuple[bool, Any]]) -> None:
    """A log with a resume checkpoint after its first two events (its record's
    state field fuzzed), then the fuzzed lines: the resume reads only those, the
    approval policy and sandbox mode come from the record and the tail, the
    earlier part loads when read."""
    lines, (has_state, state) = case
    with scratch() as home:
        folder = home / "sessions" / "s2"
        folder.mkdir(parents=True)
        head = b"".join(line + b"\n" for line in [_header("s2"), *(json.dumps(e).encode() for e in _CLEAN_START)])
        (folder / "session.jsonl").write_bytes(head + b"".join(line + b"\n" for line in _encoded(lines, 2)))
        record = json.loads(Checkpoint(seq=2, offset=len(head), turns=0, time=1.0).to_json())
        record.pop("latest")
        if has_state:
            record["latest"] = state
        (folder / CHECKPOINT_FILE).write_text(json.dumps(record))
        store = SessionStore(sessions_dir=home / "sessions", on_event=lambda s, e: None, now_ms=lambda: 0.0)

        def resume_and_read() -> None:
            log = store.open("s2")
            try:
                LatestSandboxMode().of(log)
                LatestEventData(EventTypes.APPROVAL_POLICY).of(log)
                list(log.events)
            finally:
                store.close("s2")

        expect_own_errors(resume_and_read)


#: events a checkpoint may follow (ignorable, so any host loads them); the
#: resume keeps the second in memory and leaves the first to the lazy load
_CLEAN_START = [{"type": "fuzz/mark", "ignorable": True, "seq": seq, "time": 1.0, "data": {}} for seq in (0, 1)]


class _Sink:
    def write(self, text: str) -> int:
        return len(text)

    def isatty(self) -> bool:
        return False


def settings_document(raw: bytes) -> None:
    """``settings.yaml`` at start-up (only SettingsError) and as a hand edit (never raises)."""
    with scratch() as home:
        path = home / "settings.yaml"
        service = SettingsService(path=path, on_updated=lambda *args: None)
        service.register(SettingsSpec(namespace="agent-loop", schema=LoopSettings))
        service.load()  # no file yet: defaults
        path.write_bytes(raw)
        service.reload()
        fresh = SettingsService(path=path, on_updated=lambda *args: None)
        fresh.register(SettingsSpec(namespace="agent-loop", schema=LoopSettings))
        expect_own_errors(fresh.load)


def profile_text(text: str) -> None:
    """A profile and a patch file (only ProfileError)."""
    expect_own_errors(lambda: parse_profile(text, source="p.yml"))
    expect_own_errors(lambda: parse_patch(text, source="patch.yml"))


def definition_text(text: str) -> None:
    """A Shadow definition document, with and without a frontmatter opener (only DefinitionError)."""
    expect_own_errors(lambda: parse_definition(text, Path("fuzz.md")))
    expect_own_errors(lambda: parse_definition("---\n" + text + "\n---\n\nReview it.\n", Path("fuzz.md")))


def holdout_sidecar(raw: bytes) -> None:
    """``holdout-keys.json`` bytes (only HoldoutKeyError)."""
    with scratch() as home:
        path = home / "holdout-keys.json"
        path.write_bytes(raw)
        expect_own_errors(lambda: load_holdout_document(path))


def script_text(text: str) -> None:
    """A scripted-adapter script (only ScriptError)."""
    expect_own_errors(lambda: parse_script_text(text))


#: name -> (strategy, target); the test module and the bench script run these
TARGETS: dict[str, tuple[st.SearchStrategy[Any], Callable[[Any], None]]] = {
    "session_log": (session_lines, session_log),
    "session_log_resumed": (st.tuples(session_lines, state_record), session_log_resumed),
    "settings_document": (file_bytes, settings_document),
    "profile_text": (any_text, profile_text),
    "definition_text": (any_text, definition_text),
    "holdout_sidecar": (file_bytes, holdout_sidecar),
    "script_text": (any_text, script_text),
    **EVOLUTION_TARGETS,
    **HOOK_TARGETS,
    **FILE_TARGETS,
}
