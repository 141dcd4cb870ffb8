"""Session ids are taken as a unique prefix everywhere one is asked for
(``sessions list`` prints 12 characters of a parent id), and the text view of
``sessions show`` prints a relayed message's provenance."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.inspect import sessions_show
from harness.sessions import SessionStore
from hookspecs.errors import SessionError, SessionFormatError
from hookspecs.values import EventTypes, SessionHeader, create_user_message
from hookspecs.values.messages import message_to_json

from ..cli_env import cli_env

REPO = Path(__file__).resolve().parents[2]
A1 = "fc8ee7006d26aaaa0000000000000001"
A2 = "fc8ee7006d26bbbb0000000000000002"
B = "0123456789abcdef0123456789abcdef"


def make_store(home: Path) -> SessionStore:
    return SessionStore(sessions_dir=home / "sessions", on_event=lambda s, e: None, now_ms=lambda: 1000.0)


def persist(home: Path, session_id: str, *messages: object) -> None:
    store = make_store(home)
    log = store.create(SessionHeader(id=session_id, created_at=1.0, cwd="/w"))
    for message in messages:
        log.append(EventTypes.USER_MESSAGE, {"turn": 1, "step": 0, "message": message_to_json(message)})  # type: ignore[arg-type]
    store.close(session_id)


def test_a_unique_prefix_names_its_session(tmp_path: Path) -> None:
    for session_id in (A1, A2, B):
        persist(tmp_path, session_id)
    store = make_store(tmp_path)
    assert store.resolve_id(B) == B
    assert store.resolve_id("0123") == B
    assert store.resolve_id("fc8ee7006d26a") == A1
    with pytest.raises(SessionError) as info:
        store.resolve_id("fc8ee7006d26")
    assert info.value.code == "AMBIGUOUS_SESSION_ID"
    assert "matches 2 sessions" in info.value.message and "\n" not in info.value.message
    with pytest.raises(SessionFormatError, match="session file not found"):
        store.resolve_id("ffff")
    with pytest.raises(SessionFormatError, match="session file not found"):
        store.resolve_id("012")  # shorter than the minimum prefix: only an exact id
    with pytest.raises(SessionError, match="invalid session id"):
        store.resolve_id("../x")


def test_a_live_session_resolves_by_prefix(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.create(SessionHeader(id=B, created_at=1.0, cwd="/w"))
    assert store.resolve_id("01234567") == B


RELAY = create_user_message(
    "A Shadow review of the last turn:\n\n### Reviewer (default)\nthe notes were never compared",
    source={
        "kind": "shadow-report",
        "form": "relay",
        "reports": [
            {
                "shadow_id": "default",
                "run_id": "8a41c2d9e0f14b7b9c3d2e1f00aa55bb",
                "child_session_id": A2,
                "captured_through_seq": 7,
                "verdict": "gap",
                "severity": 0.7,
                "refs": [3, 5],
            }
        ],
    },
)


def test_sessions_show_prints_a_relayed_report_with_its_provenance(tmp_path: Path) -> None:
    persist(tmp_path, B, create_user_message("please check"), RELAY)
    out = io.StringIO()
    assert sessions_show(tmp_path, "0123456", as_json=False, out=out) == 0
    text = out.getvalue()
    assert f"session {B}" in text
    assert "[0] you: please check" in text
    assert "[1] shadow-report: A Shadow review" in text
    (provenance,) = [line for line in text.splitlines() if "8a41c2d9e0f14b7b9c3d2e1f00aa55bb" in line]
    for part in ("shadow_id default", "verdict gap", "severity 0.7", "refs [3, 5]", "captured_through_seq 7", A2):
        assert part in provenance, provenance
    assert "form relay" in text


def harness(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=REPO,
        env=cli_env(DSH_HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_cli_takes_the_prefix_sessions_list_prints(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = harness("run", "--profile", "examples/profiles/scripted-hello.yml", "hello", home=home)
    assert run.returncode == 0, run.stderr
    (session_id,) = [p.name for p in (home / "sessions").iterdir()]
    show = harness("sessions", "show", session_id[:12], home=home)
    assert show.returncode == 0, show.stderr
    assert f"session {session_id}" in show.stdout and "you: hello" in show.stdout
    again = harness("run", "--profile", "examples/profiles/scripted-hello.yml", "--session", session_id[:12], "again", home=home)
    assert again.returncode == 0, again.stderr
    assert [p.name for p in (home / "sessions").iterdir()] == [session_id]  # resumed, not a new session
    assert "you: again" in harness("sessions", "show", session_id, home=home).stdout
    # a second session with the same 4-character start makes that prefix ambiguous
    twin = home / "sessions" / (session_id[:4] + "0" * (len(session_id) - 4))
    twin.mkdir(mode=0o700)
    (twin / "session.jsonl").write_bytes((home / "sessions" / session_id / "session.jsonl").read_bytes())
    ambiguous = harness("sessions", "show", session_id[:4], home=home)
    assert ambiguous.returncode != 0
    (line,) = ambiguous.stderr.strip().splitlines()
    assert f"session id prefix {session_id[:4]!r} is ambiguous: it matches 2 sessions" in line
