"""The newest approval policy and sandbox mode of a session resumed from its
checkpoint, without loading the log's earlier part (issue 20 item 8a).

Every approval asks for the policy, every spawn and bash call for the sandbox
mode; a root session usually has neither, and "none" needed the whole log.
``checked.json`` records the newest event of each state type, so the answer
comes from the record and the tail the resume read. Each answer is compared
with the events of a whole load; "not loaded" is ``loaded_seq`` staying > 0."""

from __future__ import annotations

import json
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.sessions import SessionStore
from harness.sessions.checkpoint import CHECKPOINT_FILE, MAX_STATE_LINE
from harness.sessions.latest import LatestEventData, LatestSandboxMode
from harness.sessions.log import SessionLog
from harness.sessions.shapes import load_log
from hookspecs.errors import SessionError
from hookspecs.values import AgentOptions, EventTypes, SessionEvent, SessionHeader

from .helpers import ECHO, scripted_host
from .lazy_logs import append_turns, store_at, write_log

POLICY, SANDBOX = EventTypes.APPROVAL_POLICY, EventTypes.SANDBOX_MODE


def _path(home: Path, session_id: str = "s") -> Path:
    return home / "sessions" / session_id / "session.jsonl"


def _record(home: Path) -> dict[str, Any]:
    return json.loads((_path(home).parent / CHECKPOINT_FILE).read_text())


def _rewrite_record(home: Path, **fields: Any) -> None:
    record = _path(home).parent / CHECKPOINT_FILE
    record.write_text(json.dumps({**json.loads(record.read_text()), **fields}))


def _whole_load_answers(home: Path) -> dict[str, Any]:
    """The data of the newest event of each state type, from a whole load."""
    events = load_log(_path(home), is_known=lambda _t: True, where="session.jsonl").events
    found: dict[str, Any] = {POLICY: None, SANDBOX: None}
    for event in events:
        if event.type in found:
            found[event.type] = event.data
    return found


def _answers(log: SessionLog) -> dict[str, Any]:
    mode = LatestSandboxMode().of(log)
    return {POLICY: LatestEventData(POLICY).of(log), SANDBOX: {"mode": mode} if mode else None}


def _expected(home: Path) -> dict[str, Any]:
    whole = _whole_load_answers(home)
    sandbox = whole[SANDBOX]
    return {POLICY: whole[POLICY], SANDBOX: {"mode": sandbox["mode"]} if sandbox else None}


def _state(log: SessionLog, which: str) -> None:
    if which == POLICY:
        log.append(POLICY, {"policy": "never", "source": "delegation"})
    else:
        log.append(SANDBOX, {"mode": "read-only", "source": "cli"})


def _long_session(home: Path, where: str) -> tuple[SessionStore, SessionLog]:
    """A closed session of 40 turns (its checkpoint at the end), then opened from
    its checkpoint; ``where`` the state events are: nowhere, before the
    checkpoint, in the tail after it (appended without a new checkpoint)."""
    store = store_at(home)
    log = store.create(SessionHeader(id="s", created_at=1.0))
    append_turns(log, 1, 20)
    if where == "before":
        _state(log, SANDBOX)
        _state(log, POLICY)
    append_turns(log, 21, 20)
    store.close("s")
    if where == "tail":
        store = store_at(home)
        log = store.open("s")
        _state(log, POLICY)
        append_turns(log, 41, 2)
        _state(log, SANDBOX)
        log.close()  # not through the store: the checkpoint stays before these
    store = store_at(home)
    return store, store.open("s")


@pytest.mark.parametrize("where", ["none", "before", "tail", "appended"])
def test_a_resumed_session_answers_from_its_checkpoint_and_tail(tmp_path: Path, where: str) -> None:
    store, log = _long_session(tmp_path, where)
    first = log.loaded_seq
    assert first > 300  # the resume read the tail only
    if where == "appended":
        _state(log, SANDBOX)
        append_turns(log, 41, 1)
        _state(log, POLICY)
    answers = _answers(log)
    assert log.loaded_seq == first  # the earlier part was not loaded
    store.close("s")
    assert answers == _expected(tmp_path)
    assert (answers[SANDBOX] is None) == (where == "none")


def test_the_record_holds_the_state_lines_and_stays_private(tmp_path: Path) -> None:
    store, log = _long_session(tmp_path, "before")
    store.close("s")
    record = _record(tmp_path)
    line = json.loads(record["latest"][SANDBOX]["line"])
    assert line["data"] == {"mode": "read-only", "source": "cli"} and line["seq"] == record["latest"][SANDBOX]["seq"]
    assert record["latest"][POLICY]["seq"] == line["seq"] + 1
    assert stat.S_IMODE((_path(tmp_path).parent / CHECKPOINT_FILE).stat().st_mode) == 0o600
    write_log(tmp_path / "other", "s", turns=2)
    assert _record(tmp_path / "other")["latest"] == {POLICY: None, SANDBOX: None}


def test_an_old_checkpoint_loads_on_the_first_ask_and_the_next_close_records_the_state(tmp_path: Path) -> None:
    store, log = _long_session(tmp_path, "before")
    store.close("s")
    record = _record(tmp_path)
    del record["latest"]  # as the previous version wrote it
    (_path(tmp_path).parent / CHECKPOINT_FILE).write_text(json.dumps(record))
    store = store_at(tmp_path)
    log = store.open("s")
    assert log.loaded_seq > 0  # the rest of the record is still trusted
    assert _answers(log) == _expected(tmp_path) and log.loaded_seq == 0  # unknown: asked the log
    store.close("s")  # nothing appended, but the state is now known: recorded
    assert _record(tmp_path)["latest"][SANDBOX]["seq"] > 0
    store = store_at(tmp_path)
    log = store.open("s")
    assert _answers(log) == _expected(tmp_path) and log.loaded_seq > 0
    store.close("s")


def _sandbox_line(home: Path) -> tuple[int, str]:
    entry = _record(home)["latest"][SANDBOX]
    return entry["seq"], entry["line"]


def _tampered(home: Path) -> list[Any]:
    seq, line = _sandbox_line(home)
    other = json.dumps({**json.loads(line), "data": {"mode": "danger-full-access", "source": "cli"}})
    last = _record(home)["seq"] - 1
    return [
        "read-only",  # not a mapping of types
        {"tool/call": None},  # not a state type
        {SANDBOX: 3},
        {SANDBOX: "known"},
        {SANDBOX: {"seq": seq}},
        {SANDBOX: {"seq": seq, "line": line, "extra": 1}},
        {SANDBOX: {"seq": seq + 1, "line": line}},  # its line names another seq
        {SANDBOX: {"seq": str(seq), "line": line}},
        {SANDBOX: {"seq": 10**9, "line": line.replace(f'"seq":{seq}', '"seq":1000000000')}},  # not before it
        {SANDBOX: {"seq": seq, "line": line[:-1]}},  # not JSON
        {SANDBOX: {"seq": seq, "line": "[" * 8000 + "]" * 8000}},  # nested too deeply to decode
        {SANDBOX: {"seq": seq, "line": line.replace('"time"', '"tiem"')}},
        {SANDBOX: {"seq": seq, "line": line.replace('"data":{', '"data":[{').replace("}}", "}]}")}},
        {POLICY: {"seq": seq, "line": line}},  # a sandbox line recorded as the policy
        {SANDBOX: {"seq": seq, "line": line.replace("read-only", "\ud800")}},  # a lone surrogate: not UTF-8
        # well formed, but the record's last covered event (kept in memory) is not it
        {SANDBOX: {"seq": last, "line": other.replace(f'"seq": {seq}', f'"seq": {last}')}},
    ]


@pytest.mark.parametrize("case", range(16))
def test_a_malformed_state_record_is_not_trusted(tmp_path: Path, case: int) -> None:
    store, log = _long_session(tmp_path, "before")
    store.close("s")
    tampered = _tampered(tmp_path)
    assert len(tampered) == 16
    _rewrite_record(tmp_path, latest=tampered[case])
    store = store_at(tmp_path)
    log = store.open("s")
    assert log.loaded_seq == 0  # the whole log was read, as without a record
    assert _answers(log) == _expected(tmp_path)
    store.close("s")


def test_an_oversized_state_event_is_recorded_unknown_and_asked_of_the_log(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    log = store.create(SessionHeader(id="s", created_at=1.0))
    log.append(SANDBOX, {"mode": "read-only", "source": "cli", "note": "é" * MAX_STATE_LINE})
    log.append(POLICY, {"policy": "never", "source": "delegation", "note": "ü ☃"})
    append_turns(log, 1, 30)
    store.close("s")
    record = _record(tmp_path)
    assert record["latest"][SANDBOX] == "unknown" and "ü ☃" in record["latest"][POLICY]["line"]
    log = store_at(tmp_path).open("s")
    first = log.loaded_seq
    assert LatestEventData(POLICY).of(log) == {"policy": "never", "source": "delegation", "note": "ü ☃"}
    assert log.loaded_seq == first > 0
    assert LatestSandboxMode().of(log) == "read-only" and log.loaded_seq == 0  # unknown: the log was asked
    log.close()


def test_a_log_opened_to_append_only_refuses_an_unknown_state(tmp_path: Path) -> None:
    write_log(tmp_path, "s", turns=2)
    opened = store_at(tmp_path).open_tail("s")
    assert opened is not None
    log, _ = opened
    _state(log, POLICY)
    assert LatestEventData(POLICY).of(log) == {"policy": "never", "source": "delegation"}  # appended: known
    with pytest.raises(SessionError) as caught:
        LatestSandboxMode().of(log)
    assert caught.value.code == "SESSION_APPEND_ONLY"
    with pytest.raises(ValueError):
        log.latest_event(EventTypes.TURN_START)  # not a state type: callers read the events
    log.close()


async def test_the_agent_and_a_spawn_ask_without_loading_the_resumed_log(tmp_path: Path) -> None:
    home = tmp_path / "home"
    store, log = _long_session(home, "before")
    store.close("s")
    async with scripted_host(tmp_path, ECHO) as (host, _):
        handle = await host.agents.resume("s", agent_options=AgentOptions(provider="scripted", model="m"))
        try:
            agent = handle.agent
            first = agent.session.loaded_seq
            assert first > 0
            assert agent.approval_policy == "never"
            assert host.subagents.toolkit.delegated_policy(agent).sandbox_mode == "read-only"
            assert agent.session.loaded_seq == first
        finally:
            await handle.dispose()


def _newest(events: list[SessionEvent], etype: str) -> Any:
    found = [event.data for event in events if event.type == etype]
    return found[-1] if found else None


_STEP = st.sampled_from(["turn", "policy", "sandbox", "close", "reopen"])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(_STEP, min_size=1, max_size=14), ask_first=st.sampled_from([POLICY, SANDBOX]))
def test_answers_equal_a_whole_loads_at_any_checkpoint(steps: list[str], ask_first: str) -> None:
    """Random logs, random state events, a checkpoint at random points ("close"
    records one, "reopen" closes without one): every answer is the whole load's."""
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        store = store_at(home)
        log = store.create(SessionHeader(id="s", created_at=1.0))
        turn = 0
        for index, step in enumerate(steps):
            if step == "turn":
                turn += 1
                append_turns(log, turn, 1)
            elif step == "policy":
                log.append(POLICY, {"policy": f"p{index}"})
            elif step == "sandbox":
                log.append(SANDBOX, {"mode": f"m{index}"})
            else:
                if step == "close":
                    store.close("s")
                else:
                    log.close()
                store = store_at(home)
                log = store.open("s")
                first = log.loaded_seq
                order = [ask_first, SANDBOX if ask_first == POLICY else POLICY]
                events = load_log(_path(home), is_known=lambda _t: True, where="s").events
                for etype in order:
                    event = log.latest_event(etype)
                    assert (event.data if event is not None else None) == _newest(events, etype)
                if first > 0 and step == "close":
                    assert log.loaded_seq == first  # a checkpoint written now knows it all
        events = list(log.events)
        for etype in (POLICY, SANDBOX):
            event = log.latest_event(etype)
            assert (event.data if event is not None else None) == _newest(events, etype)
        store.close("s")


def test_a_state_line_that_cannot_be_re_encoded_is_recorded_unknown(tmp_path: Path) -> None:
    store, log = _long_session(tmp_path, "before")
    store.close("s")
    path = _path(tmp_path)
    # a hand-edited log: the mode is a lone surrogate, which JSON can carry and UTF-8 cannot
    path.write_text(path.read_text().replace('"mode":"read-only"', '"mode":"\\ud800"'))
    (path.parent / CHECKPOINT_FILE).unlink()
    store = store_at(tmp_path)
    store.repair(store.open("s"))  # a whole load: the repair records the clean end
    store.close("s")
    assert _record(tmp_path)["latest"][SANDBOX] == "unknown" and _record(tmp_path)["latest"][POLICY] is not None
    log = store_at(tmp_path).open("s")
    assert log.loaded_seq > 0 and LatestSandboxMode().of(log) == "\ud800" and log.loaded_seq == 0
    log.close()
