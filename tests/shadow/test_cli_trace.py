"""``harness shadow trace|health``, run for real against a DSH home that a real
host with the plugin wrote (scripted models), in subprocesses."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from hookspecs.values import create_user_message
from shadow_mind_plugin import cli
from shadow_mind_plugin.diagnostics.health import DEBUG_RECORD_FIELDS, LIFECYCLE_FIELDS, VALUE_LOOP_FIELDS
from shadow_mind_plugin.diagnostics.journals import LIFECYCLE_EVENTS

from ..cli_env import cli_env
from .helpers import new_root, settle, shadow_host, write_definition

REPO = Path(__file__).resolve().parents[2]

#: root reads notes.txt and deploys to production; the reviewer calls read with
#: broken arguments (INVALID_ARGS), then reports a challenge citing the root's
#: tool call; the root adopts it (value loop: challenge_adopted).
SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000}
responses:
  - match: {model: root-model, depth: 0, last_user_contains: "deploy"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {model: root-model, depth: 0, last_user_contains: "deploy"}
    reply: {text: "Deploying to production now."}
  - match: {model: shadow-model, depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls: [{name: read, arguments: {file: SECRET-ARGUMENT-TEXT}}]
  - match: {model: shadow-model, depth: 1, has_tools: [structured_output]}
    reply:
      text: "REVIEWER-TEXT-HEAD checked the notes"
      tool_calls:
        - name: structured_output
          arguments:
            status: report
            verdict: challenge
            severity: 0.8
            refs: ["{{seq:tool call}}"]
            content: "REPORT-BODY notes.txt says the target is staging, but the root deploys to production."
  - match: {model: root-model, depth: 0, last_user_contains: "Shadow reports"}
    reply: {text: "Good catch: the shadow review is right, I changed the deploy target to staging."}
"""

#: debug off: a concern is relayed and nothing is journaled
QUIET_SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000}
responses:
  - match: {model: root-model, depth: 0, last_user_contains: "summarize"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {model: root-model, depth: 0, last_user_contains: "summarize"}
    reply: {text: "All done."}
  - match: {model: shadow-model, depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: report, verdict: gap, severity: 0.4, content: "REPORT-BODY the answer is terse."}
  - match: {model: root-model, depth: 0, last_user_contains: "Shadow reports"}
    reply: {text: "Noted."}
"""

ROUTE = "run_with_model: scripted/shadow-model\n"


async def _populate(tmp: Path, script: str, extra: str, prompt: str) -> dict[str, Any]:
    home = tmp / "home"
    write_definition(home, name="Deploy Shadow", extra=extra)
    async with shadow_host(tmp, script, home=home) as (host, _adapter, _runtime):
        root = await new_root(host)
        root.followup(create_user_message(prompt))
        await settle(host, root)
        events = root.session.events
        relay = next(
            e for e in events if e.type == "user/message" and e.data["message"]["source"]["kind"] == "shadow-report"
        )
        (report,) = relay.data["message"]["source"]["reports"]
        return {
            "home": home,
            "root": root.session.id,
            "run": report["run_id"],
            "child": report["child_session_id"],
            "relay_seq": relay.seq,
            "tool_call_seq": next((e.seq for e in events if e.type == "tool/call"), None),
        }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A home with debug journals (run, relay, value loop) written by a real host."""
    return trio.run(_populate, tmp_path_factory.mktemp("debug"), SCRIPT, "debug: true\n" + ROUTE, "please deploy the app")


@pytest.fixture(scope="module")
def quiet_world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A home whose definition has debug off: no journals, only session logs."""
    return trio.run(_populate, tmp_path_factory.mktemp("quiet"), QUIET_SCRIPT, ROUTE, "summarize the repo")


def harness(*args: str, home: Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = cli_env(DSH_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-m", "harness", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def _no_leaks(text: str, home: Path) -> None:
    assert str(home) not in text and str(home.parent) not in text
    for secret in ("SECRET-ARGUMENT-TEXT", "REPORT-BODY", "Check the root's claims", "please deploy"):
        assert secret not in text


# --- the fixture is what we think it is --------------------------------------------------


def test_fixture_wrote_journals_and_value_loop(world: dict[str, Any]) -> None:
    home = world["home"]
    log = home / "shadow-minds" / "logs" / "default.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    events = [record["event"] for record in records]
    assert events[0] == "run-admitted" and "run-finished" in events and "quality-metadata" in events
    (loop,) = [json.loads(line) for line in (home / "shadow-minds" / "value-loop.jsonl").read_text().splitlines()]
    assert loop["run_id"] == world["run"] and loop["classification"] == "challenge_adopted"
    # what health requires is what the runtime writes
    assert set(loop) == set(VALUE_LOOP_FIELDS)
    assert all(set(LIFECYCLE_FIELDS) <= set(r) for r in records if r["event"] in LIFECYCLE_EVENTS)
    assert all(set(DEBUG_RECORD_FIELDS) <= set(r) for r in records)


# --- trace ----------------------------------------------------------------------------------


def test_trace_run_id_explains_the_run(world: dict[str, Any]) -> None:
    home = world["home"]
    result = harness("shadow", "trace", world["run"], home=home)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"Run {world['run']}  shadow default" in out
    assert f"root session   {world['root']}" in out and f"child session  {world['child']}" in out
    # timeline in lifecycle order with phase/stage
    timeline = out[out.index("Timeline (shadow-minds/logs/default.jsonl)") : out.index("Quality metadata")]
    order = [name for name in ("run-admitted", "child-started", "run-finished", "report-delivered") if name in timeline]
    assert order == ["run-admitted", "child-started", "run-finished", "report-delivered"]
    assert sorted(order, key=timeline.index) == order
    assert "running/prepare" in timeline and "report/relay" in timeline and "stop completed" in timeline
    # quality metadata: route, tiers, telemetry; never prompt text
    assert "route scripted/shadow-model" in out and "budget tier standard" in out and "independence " in out
    assert "tool calls 2 (read×1, structured_output×1) · INVALID_ARGS 1 (read×1)" in out
    assert "deliberation " in out and "prompt " in out
    # relay provenance and the value loop
    assert f"seq {world['relay_seq']} " in out and f"verdict challenge, severity 0.8, refs [{world['tool_call_seq']}]" in out
    assert f"challenge_adopted (relayed at seq {world['relay_seq']}" in out
    # the child's evidence: descriptor, tool errors, routes, turn end, last events
    assert "descriptor: provider shadow-mind, label shadow:default, mode one-shot" in out
    assert "INVALID_ARGS: 1 (read 1)" in out and "tool errors: INVALID_ARGS 1" in out
    assert "→ INVALID_ARGS" in out and "structured_output → ok" in out
    assert "request routes: seq" in out and "scripted/shadow-model" in out
    assert "turn end: seq" in out and "completed" in out
    assert "last 15 events" in out and "tool/result read" in out
    assert "REVIEWER-TEXT-HEAD" not in out  # text only with --show-text
    _no_leaks(out, home)


def test_trace_accepts_a_unique_prefix_and_json(world: dict[str, Any]) -> None:
    home = world["home"]
    result = harness("shadow", "trace", world["run"][:8], "--json", "--events", "3", home=home)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "run"
    (run,) = data["runs"]
    assert run["run_id"] == world["run"] and run["journal"] is True
    assert [t["event"] for t in run["timeline"]][:2] == ["run-admitted", "child-started"]
    assert run["quality"]["tools"]["invalid_args_by_tool"] == {"read": 1}
    assert run["child"]["invalid_args_by_tool"] == {"read": 1}
    assert len(run["child"]["last_events"]) == 3
    assert run["value_loop"][0]["classification"] == "challenge_adopted"
    _no_leaks(result.stdout, home)


def test_trace_show_text_prints_assistant_heads_only(world: dict[str, Any]) -> None:
    home = world["home"]
    result = harness("shadow", "trace", world["run"], "--show-text", home=home)
    assert result.returncode == 0, result.stderr
    assert '"REVIEWER-TEXT-HEAD checked the notes"' in result.stdout
    _no_leaks(result.stdout, home)


def test_trace_root_session_lists_its_runs_relays_and_classifications(world: dict[str, Any]) -> None:
    home = world["home"]
    result = harness("shadow", "trace", world["root"], home=home)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"Root session {world['root']}")
    assert "1 relayed report(s) in 1 relay message(s)" in out
    assert "1 Shadow run(s):" in out
    assert f"{world['run']}  shadow default  phase report  relayed yes  value loop challenge_adopted" in out
    assert f"Run {world['run']}" in out and "Timeline" in out and f"Child session {world['child']}" in out
    _no_leaks(out, home)


def test_trace_child_session_finds_its_run(world: dict[str, Any]) -> None:
    home = world["home"]
    result = harness("shadow", "trace", world["child"], home=home)
    assert result.returncode == 0, result.stderr
    assert f"Run {world['run']}  shadow default" in result.stdout
    assert f"Child session {world['child']}" in result.stdout
    assert "Timeline" in result.stdout


def test_trace_without_debug_explains_from_the_sessions(quiet_world: dict[str, Any]) -> None:
    home = quiet_world["home"]
    assert not (home / "shadow-minds" / "logs").exists()
    for target in (quiet_world["root"], quiet_world["child"], quiet_world["run"]):
        result = harness("shadow", "trace", target, home=home)
        assert result.returncode == 0, (target, result.stderr)
        out = result.stdout
        assert f"Run {quiet_world['run']}  shadow default" in out
        assert "need `debug: true` in the frontmatter of shadow-minds/default.md" in out
        assert "Timeline" not in out
        assert "verdict gap, severity 0.4" in out
        assert f"Child session {quiet_world['child']}" in out and "label shadow:default" in out
        _no_leaks(out, home)


def test_trace_errors_name_what_is_missing(world: dict[str, Any]) -> None:
    home = world["home"]
    missing = harness("shadow", "trace", "feedfacecafe", home=home)
    assert missing.returncode == 1
    assert "nothing named 'feedfacecafe' found" in missing.stderr
    assert "debug: true" in missing.stderr and "harness sessions list" in missing.stderr
    short = harness("shadow", "trace", world["run"][:4], home=home)
    assert short.returncode == 1 and "at least 6 characters" in short.stderr
    bad = harness("shadow", "trace", "../etc", home=home)
    assert bad.returncode == 1 and "neither a run id nor a session id" in bad.stderr
    nohome = harness("shadow", "trace", world["run"], "--home", str(home / "nope"), home=home)
    assert nohome.returncode == 1 and "DSH home does not exist" in nohome.stderr
    for result in (missing, short, bad, nohome):
        assert str(home) not in result.stderr


# --- health ---------------------------------------------------------------------------------


def _copy(world: dict[str, Any], tmp_path: Path) -> Path:
    home = tmp_path / "home"
    shutil.copytree(world["home"], home)
    return home


def test_health_on_a_clean_home(world: dict[str, Any]) -> None:
    home = world["home"]
    result = harness("shadow", "health", home=home)
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "shadow-minds/default.md  id default  debug yes" in out
    assert "debug journals on for: default" in out
    assert "shadow-minds/logs/default.jsonl" in out and "shadow-minds/value-loop.jsonl" in out
    assert "shadow-minds/logs/  mode 0700  ok" in out
    assert out.rstrip().endswith("Healthy.")
    _no_leaks(out, home)
    data = json.loads(harness("shadow", "health", "--json", home=home).stdout)
    assert data["healthy"] is True and all(f["size"] > 0 for f in data["files"])


def test_health_names_every_problem_and_repair_keeps_valid_lines(world: dict[str, Any], tmp_path: Path) -> None:
    home = _copy(world, tmp_path)
    log = home / "shadow-minds" / "logs" / "default.jsonl"
    loop = home / "shadow-minds" / "value-loop.jsonl"
    valid = log.read_bytes().splitlines(keepends=True)
    assert len(valid) >= 4
    corrupted = [valid[0], b'{"event": "run-admitted", oops\n', valid[1], b'{"time":"x","ev\x00ent":"y"}\n', *valid[2:]]
    log.write_bytes(b"".join(corrupted) + b'{"schema_version":1,"time":"2026-')  # torn tail
    os.chmod(log, 0o644)
    loop.write_bytes(loop.read_bytes() + b'{"time":"t","run_id":"r"}\n')  # missing fields
    os.chmod(home / "shadow-minds" / "logs", 0o755)

    result = harness("shadow", "health", home=home)
    assert result.returncode == 1, result.stdout
    out = result.stdout
    assert "mode 0644, expected 0600" in out
    assert "line 2: invalid JSON" in out
    assert "line 4: NUL byte(s) (1)" in out
    assert f"line {len(corrupted) + 1}: torn last line: truncated JSON" in out
    assert "line 2: missing field(s): root_session_id, shadow_id, classification, relayed_at_seq, refs, observed_through_seq" in out
    assert "shadow-minds/logs/  mode 0755  mode 0755, expected 0700" in out
    assert "harness shadow health --repair" in out
    _no_leaks(out, home)

    repaired = harness("shadow", "health", "--repair", home=home)
    assert repaired.returncode == 0, repaired.stdout
    assert f"kept {len(valid)} line(s), dropped 3" in repaired.stdout
    assert "kept 1 line(s), dropped 1" in repaired.stdout
    assert repaired.stdout.rstrip().endswith("Healthy after repair.")
    assert log.read_bytes() == b"".join(valid)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE((home / "shadow-minds" / "logs").stat().st_mode) == 0o700
    assert [json.loads(line)["run_id"] for line in loop.read_text().splitlines()] == [world["run"]]

    again = harness("shadow", "health", home=home)
    assert again.returncode == 0 and again.stdout.rstrip().endswith("Healthy.")
    # the repaired journal still traces
    assert harness("shadow", "trace", world["run"], home=home).returncode == 0


def test_health_keeps_a_valid_record_missing_its_newline(world: dict[str, Any], tmp_path: Path) -> None:
    home = _copy(world, tmp_path)
    log = home / "shadow-minds" / "logs" / "default.jsonl"
    data = log.read_bytes()
    log.write_bytes(data.rstrip(b"\n"))
    result = harness("shadow", "health", "--json", home=home)
    assert result.returncode == 1
    (item,) = [f for f in json.loads(result.stdout)["files"] if f["path"] == "shadow-minds/logs/default.jsonl"]
    assert any("torn last line: no trailing newline" in p for p in item["problems"])
    assert harness("shadow", "health", "--repair", home=home).returncode == 0
    assert log.read_bytes() == data


def test_health_without_shadow_minds(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = harness("shadow", "health", home=home)
    assert result.returncode == 0 and "nothing to check" in result.stdout


# --- the harness extension point ----------------------------------------------------------


def test_harness_help_lists_the_shadow_command(tmp_path: Path) -> None:
    result = harness("--help", home=tmp_path)
    assert result.returncode == 0
    line = next(line for line in result.stdout.splitlines() if line.strip().startswith("shadow "))
    assert "Debug Shadow Mind runs" in line
    sub = harness("shadow", "--help", home=tmp_path)
    assert sub.returncode == 0 and "usage: harness shadow" in sub.stdout and "trace" in sub.stdout


# --- failure paths, from a hand-written journal --------------------------------------------


def _record(event: str, run_id: str, **extra: Any) -> str:
    base = {
        "schema_version": 1, "time": "2026-01-01T00:00:00.000Z", "event": event, "run_id": run_id,
        "shadow_id": "default", "root_session_id": "root-session-1", "captured_through_seq": 4,
        "phase": "running", "stage": "run",
    }
    return json.dumps({**base, **extra}) + "\n"


def test_trace_renders_cancellations_stagnation_and_discarded_bodies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    logs = home / "shadow-minds" / "logs"
    logs.mkdir(parents=True)
    run = "run-abc123xyz"
    lines = [
        _record("run-admitted", run, stage="prepare"),
        _record("child-started", run, child_session_id="child-1", stage="start"),
        _record("run-cancellation-requested", run, child_session_id="child-1", reason_code="USER_MESSAGE_RECEIVED", cancellation_source="user-input"),
        json.dumps({"event": "quality-metadata", "time": "2026-01-01T00:00:01.000Z", "run_id": run, "status": "stagnation", "patterns": ["spinning"], "action": "cooldown", "cooldown_until": "2026-01-01T00:10:00.000Z"}) + "\n",
        json.dumps({"event": "non-report-body-discarded", "time": "2026-01-01T00:00:02.000Z", "run_id": run, "status": "silent", "discarded_body_chars": 42, "discarded_body_hash": "ab" * 32}) + "\n",
        _record("run-finished", run, child_session_id="child-1", phase="aborted", reason_code="USER_MESSAGE_RECEIVED", cancellation_source="user-input", provider_stop_reason="aborted", error="cancelled at /srv/secret/place"),
        _record("run-admitted", "run-abc123zzz", stage="prepare"),
        '{"event":"run-fin',
    ]
    (logs / "default.jsonl").write_text("".join(lines))

    assert cli.main(["trace", run, "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "outcome: aborted at stage run, reason USER_MESSAGE_RECEIVED, relayed no" in out
    assert "run-cancellation-requested" in out and "reason USER_MESSAGE_RECEIVED  cancelled by user-input" in out
    assert "stop aborted  error cancelled at <path>" in out
    assert "stagnation" in out and "patterns [spinning] → cooldown 2026-01-01T00:10:00.000Z" in out
    assert "non-report-body-discarded" in out and "status silent, 42 chars discarded" in out
    assert "child session sessions/child-1/ was not found" in out
    assert "root session sessions/root-session-1/ was not found" in out
    assert "1 damaged line(s) in shadow-minds/logs/default.jsonl were skipped; run `harness shadow health`" in out
    assert str(tmp_path) not in out and "/srv/secret" not in out

    assert cli.main(["trace", "run-abc123", "--home", str(home)]) == 1
    err = capsys.readouterr().err
    assert "'run-abc123' is ambiguous" in err and "run-abc123xyz (run)" in err and "run-abc123zzz (run)" in err


#: debug on: the reviewer answers ``silent`` but sends a body anyway
SILENT_SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000}
responses:
  - match: {model: root-model, depth: 0, last_user_contains: "check"}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {model: root-model, depth: 0, last_user_contains: "check"}
    reply: {text: "Checked."}
  - match: {model: shadow-model, depth: 1, has_tools: [structured_output]}
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: silent, content: "BODY-TEXT nothing to add"}
"""


async def _populate_silent(tmp: Path) -> tuple[Path, str]:
    home = tmp / "home"
    write_definition(home, name="Deploy Shadow", extra="debug: true\n" + ROUTE)
    async with shadow_host(tmp, SILENT_SCRIPT, home=home) as (host, _adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        last = runtime.owners[root.id].governance.last_run
        assert last is not None and last.phase == "silent"
        return home, last.run_id


def test_trace_shows_the_size_of_a_discarded_body(tmp_path: Path) -> None:
    """The runtime journals ``discarded_body_chars``; the trace prints that count
    (it used to read a camelCase key the runtime never writes)."""
    home, run_id = trio.run(_populate_silent, tmp_path)
    result = harness("shadow", "trace", run_id, home=home)
    assert result.returncode == 0, result.stderr
    assert "non-report-body-discarded" in result.stdout
    assert "status silent, 24 chars discarded" in result.stdout
    assert "BODY-TEXT" not in result.stdout


def test_trace_show_text_redacts_holdout_literals(world: dict[str, Any], tmp_path: Path) -> None:
    """An operator's holdout literals (any id's, in the sidecar) never appear in
    what trace prints, as written or JSON-escaped, even with ``--show-text``."""
    home = tmp_path / "home"
    shutil.copytree(world["home"], home)
    keys = {"other": ["REVIEWER-TEXT-HEAD", "checked the notes"]}
    (home / "shadow-minds" / "holdout-keys.json").write_text(json.dumps(keys))
    for extra in ([], ["--json"]):
        result = harness("shadow", "trace", world["run"], "--show-text", *extra, home=home)
        assert result.returncode == 0, result.stderr
        assert "[redacted holdout]" in result.stdout
        for literal in keys["other"]:
            assert literal not in result.stdout and json.dumps(literal)[1:-1] not in result.stdout
        child = harness("shadow", "trace", world["child"], "--show-text", *extra, home=home)
        assert child.returncode == 0, child.stderr
        assert "REVIEWER-TEXT-HEAD" not in child.stdout and "checked the notes" not in child.stdout
