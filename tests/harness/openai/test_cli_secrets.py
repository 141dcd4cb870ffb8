"""The configured API key, echoed by a provider in a request id, reaches no
session log and no CLI output: the CLI runs as a subprocess against the
loopback server, with a temporary ``DSH_HOME`` and the key in the environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from . import shapes
from .conftest import API_KEY, KEY_ENV, write_profile
from .server import Reply, ScriptedServer

REPO = Path(__file__).resolve().parents[3]
PROXY_VARS = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"]
#: the key and the partial forms a provider might echo
FORMS = [API_KEY, API_KEY.removeprefix("sk-"), API_KEY[3:15], API_KEY[-10:], API_KEY[10:18]]


def delegate() -> Reply:
    """The root model's first answer: delegate to a subagent."""
    call = shapes.call(0, id="call_1", name="subagent", arguments=json.dumps({"prompt": "look around"}))
    return Reply.sse(shapes.events([shapes.chunk(tool_calls=[call]), shapes.chunk(finish="tool_calls")]))


def echo_in_header() -> Reply:
    return Reply.error(400, {"error": {"message": "nope"}}, {"x-request-id": f"Bearer {API_KEY}"})


def echo_in_body_id() -> Reply:
    # the id of a streamed chunk, then an error event: the id becomes the request id
    first = shapes.chunk(content="partial")
    first["id"] = API_KEY.removeprefix("sk-")
    return Reply.sse([shapes.event(first), shapes.event({"error": {"message": "went wrong"}})])


def echo_in_error_id() -> Reply:
    return Reply.error(400, {"error": {"message": "nope", "id": API_KEY[3:19]}})


ECHOES = {"x-request-id": echo_in_header, "body id": echo_in_body_id, "error.id": echo_in_error_id}


async def harness(*args: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARS and k != "DSH_PROFILE"}
    env.update({"DSH_HOME": str(home), KEY_ENV: API_KEY})
    with trio.fail_after(60):
        return await trio.run_process(
            [sys.executable, "-m", "harness", *args], cwd=cwd, env=env, capture_stdout=True, capture_stderr=True, check=False
        )


@pytest.mark.parametrize("where", list(ECHOES))
async def test_an_echoed_key_is_stored_and_printed_nowhere(where: str, tmp_path: Path, server: ScriptedServer) -> None:
    echo = ECHOES[where]
    server.add(delegate(), echo(), echo())  # root delegates, the child fails, then the root fails
    rows = "- id: tool-subagent\n  name: tool-subagent\n"
    profile = write_profile(tmp_path / "profile.yml", server.base_url, more_rows=rows)
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    run = await harness("run", "--profile", str(profile), "--cwd", str(work), "--json", "hi", home=home, cwd=work)
    assert len(server.requests) == 3, run.stderr.decode()
    assert all(r.headers["authorization"] == f"Bearer {API_KEY}" for r in server.requests)
    payload = json.loads(run.stdout)
    assert payload["turns"][-1]["reason"]["kind"] == "error"
    outputs = [run.stdout, run.stderr]
    logs = sorted(p for p in home.rglob("*") if p.is_file())
    sessions = {p.parent.name for p in logs if p.name == "session.jsonl"}
    assert len(sessions) == 2, logs  # the root and the child
    for session_id in sessions:
        show = await harness("sessions", "show", session_id, "--json", home=home, cwd=work)
        assert show.returncode == 0, show.stderr.decode()
        ends = [json.loads(line) for line in show.stdout.splitlines() if b'"turn/end"' in line]
        assert ends and all(e["data"]["reason"]["kind"] == "error" for e in ends)
        assert all("request_id" in e["data"]["reason"]["error"] for e in ends)
        outputs += [show.stdout, show.stderr]
    outputs += [p.read_bytes() for p in logs]
    blob = b"\n".join(outputs).decode("utf-8", "replace")
    for form in FORMS:
        assert form not in blob, form
