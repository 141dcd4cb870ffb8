"""``harness serve`` over real HTTP on loopback (httpx against the live app in a
subprocess): the token gate, the conversation stream, slash commands,
approvals, the settings tab and a clean Ctrl-C stop."""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .server import NOTICE_ROW, Server, new_session

SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: shadow-model, context_window: 64000, reasoning_efforts: [low, high], default_effort: low}
responses:
  - match: {depth: 0, last_user_contains: "deploy"}
    reply:
      text: "Reading <b>the notes</b> first."
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: "deploy"}
    reply: {text: "Deploying to production now. \\u001b[31m<script>alert(1)</script>"}
  - match: {depth: 0, last_user_contains: "tighten"}
    reply:
      tool_calls: [{name: update_shadow_config, arguments: {maxReportChars: 5000}}]
  - match: {depth: 0, last_user_contains: "tighten"}
    reply: {text: "Done."}
  - match: {depth: 1}
    repeat: true
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: silent}
  - match: {depth: 0}
    repeat: true
    reply: {text: "Noted."}
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(tmp_path, SCRIPT, rows=NOTICE_ROW) as served:
        yield served


#: A hang guard, not a timing assertion: heartbeats keep an idle stream open
#: forever, so a missing item would otherwise block the suite.
STREAM_BOUND_SECONDS = 60.0


def sse_items(response: httpx.Response) -> Iterator[dict[str, Any]]:
    give_up = time.monotonic() + STREAM_BOUND_SECONDS
    for line in response.iter_lines():
        if time.monotonic() > give_up:
            raise AssertionError(f"no expected item within {STREAM_BOUND_SECONDS:g}s of stream")
        if line.startswith("data: "):
            yield json.loads(line[6:])


def until(items: Iterator[dict[str, Any]], wanted: str | Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The items up to and including the first one ``wanted`` matches (a string: its ``kind``)."""
    predicate = wanted if callable(wanted) else lambda i: i["kind"] == wanted
    seen = []
    for item in items:
        seen.append(item)
        if predicate(item):
            return seen
    raise AssertionError(f"stream ended before the expected item; saw {seen}")


def is_event(item: dict[str, Any], event_type: str) -> bool:
    return item["kind"] == "event" and item["event"]["type"] == event_type


def is_turn_end(item: dict[str, Any]) -> bool:
    return is_event(item, "turn/end")


def test_only_the_header_credential_authorises_data_and_writes(server: Server) -> None:
    """The launch URL carries the credential in its fragment (never sent to the
    server); the static shell is public, every API route needs ``Authorization:
    Bearer``; no cookie is set, and a leftover ``dsh_token`` cookie or a
    ``?token=`` authorises nothing."""
    assert server.launch == f"{server.base}/#token={server.token}"
    with server.client() as client:
        session = new_session(client)
    bearer = {"authorization": f"Bearer {server.token}"}
    leftovers: list[dict[str, str]] = [{}, {"cookie": f"dsh_token={server.token}"}, {"authorization": "Bearer wrong"}, {"x-dsh-token": server.token}]
    with httpx.Client(base_url=server.base, timeout=30) as anonymous:
        page = anonymous.get("/")
        assert page.status_code == 200 and "script-src 'self'" in page.headers["content-security-policy"]
        assert server.token not in page.text and '<link rel="stylesheet" href="/plugins.css">' in page.text
        assert anonymous.get("/static/core.js").status_code == 200
        styles = anonymous.get("/plugins.css")
        assert styles.status_code == 200 and styles.headers["content-type"].startswith("text/css")
        assert styles.text.startswith("/* shadow-mind */") and '.card[data-kind="shadow-mind-review"]' in styles.text
        launch = anonymous.get(f"/?token={server.token}")  # the old launch URL: just the shell, no cookie
        assert launch.status_code == 200 and "set-cookie" not in launch.headers
        reads = ["/api/sessions", "/api/approvals", "/api/commands", "/api/settings/tabs", f"/api/sessions/{session}/events", f"/api/sessions/{session}/stream"]
        for headers in leftovers:
            for path in reads:
                for query in ("", f"?token={server.token}"):
                    refused = anonymous.get(path + query, headers=headers)
                    assert refused.status_code == 401, (path, query, headers)
                    assert refused.text == "missing or wrong credential: open the URL harness serve printed\n"
                    assert "set-cookie" not in refused.headers
            for path, body in [("/api/sessions", {}), (f"/api/sessions/{session}/send", {"text": "/shadow show"}), ("/api/approvals/x", {"allow": True})]:
                assert anonymous.post(path, headers=headers, json=body).status_code == 401, (path, headers)
        # the header from another origin, or at another Host (DNS rebinding)
        foreign = anonymous.post("/api/sessions", headers={**bearer, "origin": "http://127.0.0.1:1"}, json={})
        assert foreign.status_code == 403 and foreign.text.count("\n") == 1
        rebound = anonymous.get("/api/sessions", headers={**bearer, "host": "evil.test"})
        assert rebound.status_code == 421
        with anonymous.stream("GET", f"/api/sessions/{session}/stream", headers=bearer) as stream:
            assert stream.status_code == 200 and "set-cookie" not in stream.headers
            assert next(sse_items(stream)) is not None
        mine = anonymous.post("/api/sessions", headers={**bearer, "origin": server.base}, json={})
        assert mine.status_code == 200 and "set-cookie" not in mine.headers
    code, out, err = server.stop()
    assert code == 0 and "harness serve: stopped" in out, err


def test_the_proof_shows_the_server_knows_the_credential_without_asking_for_it(server: Server) -> None:
    """``GET /api/proof?nonce=HEX`` answers HMAC-SHA256(token, "dsh-web-proof:" + nonce) to anyone:
    the page checks it before it sends the credential (a program squatting the port cannot answer it)."""
    nonce = secrets.token_hex(32)
    with httpx.Client(base_url=server.base) as anonymous:  # no credential
        answer = anonymous.get("/api/proof", params={"nonce": nonce})
        assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
        assert answer.headers["content-type"].startswith("application/json")
        expected = hmac.new(server.token.encode(), b"dsh-web-proof:" + nonce.encode(), hashlib.sha256).hexdigest()
        assert answer.json() == {"proof": expected}
        assert server.token not in answer.text
        # another nonce, another proof: nothing to replay
        assert anonymous.get("/api/proof", params={"nonce": secrets.token_hex(32)}).json()["proof"] != expected
        for bad in ("", "xyz" * 22, "ab" * 15, "ab" * 65, nonce + "&nonce=" + nonce):
            refused = anonymous.get("/api/proof?nonce=" + bad)
            assert refused.status_code == 400 and server.token not in refused.text, bad
        assert anonymous.get("/api/proof").status_code == 400
        assert anonymous.get("/api/proof", params={"nonce": nonce}, headers={"host": "evil.example"}).status_code == 421
        assert anonymous.post("/api/proof", params={"nonce": nonce}).status_code == 401  # only the GET is public


def test_a_turn_streams_text_and_tool_calls_and_commands_use_the_registry(server: Server) -> None:
    with server.client() as client:
        session = new_session(client)
        with client.stream("GET", f"/api/sessions/{session}/stream") as stream:
            items = sse_items(stream)
            until(items, "ready")
            assert client.post(f"/api/sessions/{session}/send", json={"text": "please deploy"}).json()["ok"]
            seen = until(items, is_turn_end)
        deltas = "".join(i["text"] for i in seen if i["kind"] == "delta")
        assert "Reading <b>the notes</b> first." in deltas  # raw in JSON: the page inserts it as text
        events = [i["event"] for i in seen if i["kind"] == "event"]
        assert [e["type"] for e in events if e["type"].startswith("tool/")] == ["tool/call", "tool/result"]
        assert "read" in events[[e["type"] for e in events].index("tool/call")]["text"]
        final = [e for e in events if e["type"] == "assistant/message"][-1]["text"]
        assert "^[[31m" in final and "\x1b" not in final  # control characters made visible
        shown = client.post(f"/api/sessions/{session}/send", json={"text": "/shadow show"}).json()
        assert shown["ok"] and "name: Reviewer" in shown["text"]
        unknown = client.post(f"/api/sessions/{session}/send", json={"text": "/nosuch"}).json()
        assert not unknown["ok"] and "unknown command /nosuch" in unknown["text"]
        history = client.get(f"/api/sessions/{session}/events").json()
        assert any(e["type"] == "command/done" for e in history["events"])
        assert str(server.tmp) not in json.dumps(history)  # no absolute paths in payloads
        listed = client.get("/api/sessions").json()["sessions"]
        assert [s["id"] for s in listed] == [session]


def test_bad_requests_get_one_line_errors(server: Server) -> None:
    with server.client() as client:
        assert client.get("/api/sessions/../events").status_code == 404  # no route escapes the session space
        for bad in ("0123456789abcdef0123456789abcdef", "not%20an%20id"):
            response = client.get(f"/api/sessions/{bad}/events")
            assert response.status_code in (400, 404), bad
            error = response.json()["error"]
            assert error and "\n" not in error and str(server.tmp) not in error
        session = new_session(client)
        garbled = client.post(f"/api/sessions/{session}/send", content=b"{not json")
        assert garbled.status_code == 400 and garbled.json()["error"] == "request body is not JSON"
        assert client.post(f"/api/sessions/{session}/send", json={"text": "  "}).json()["error"] == "text is empty"
        assert client.get(f"/api/sessions/{session}/events?after=x").json()["error"] == "query parameter after must be an integer"
        assert client.post(f"/api/sessions/{session}/card-action", json={"command": "rm -rf"}).status_code == 400
        assert client.get("/api/settings/tabs/nope").status_code == 404
        empty = client.post("/api/settings/tabs/shadow-mind-runtime", json={"values": {}})
        assert empty.status_code == 400 and "values" in empty.json()["error"]


def test_an_approval_waits_for_the_click(server: Server) -> None:
    with server.client() as client:
        session = new_session(client)
        with client.stream("GET", f"/api/sessions/{session}/stream") as stream:
            items = sse_items(stream)
            until(items, "ready")
            client.post(f"/api/sessions/{session}/send", json={"text": "tighten the reports"})
            asked = until(items, "approval")[-1]["approval"]
            assert asked["tool"] == "update_shadow_config" and "maxReportChars" in asked["arguments"]
            assert client.get(f"/api/sessions/{session}/events").json()["approvals"] == [asked]
            assert client.post(f"/api/approvals/{asked['id']}", json={"allow": True, "session_id": session}).json()["ok"]
            seen = until(items, is_turn_end)
        results = [i["event"] for i in seen if is_event(i, "tool/result")]
        assert results and not results[0]["error"]
        assert client.post(f"/api/approvals/{asked['id']}", json={"allow": True, "session_id": session}).status_code == 404
        config = client.post(f"/api/sessions/{session}/send", json={"text": "/shadow config maxReportChars"}).json()
        assert config["text"] == "maxReportChars: 5000"


def test_a_stream_opened_after_the_approval_was_asked_still_shows_it(server: Server) -> None:
    """The page sends its first prompt before its stream is connected (it does
    not wait for it): an approval asked in between must reach the stream, or the
    prompt never appears and the turn waits forever."""
    with server.client() as client:
        session = new_session(client)
        client.post(f"/api/sessions/{session}/send", json={"text": "tighten the reports"})
        give_up = time.monotonic() + STREAM_BOUND_SECONDS  # a hang guard, not a timing assertion
        while not (pending := client.get(f"/api/sessions/{session}/events").json()["approvals"]):
            assert time.monotonic() < give_up, "the approval was never asked"
            time.sleep(0.05)
        with client.stream("GET", f"/api/sessions/{session}/stream") as stream:
            items = sse_items(stream)
            asked = until(items, "approval")[-1]["approval"]
            assert asked == pending[0]
            assert client.post(f"/api/approvals/{asked['id']}", json={"allow": True, "session_id": session}).json()["ok"]
            seen = until(items, is_turn_end)
            card = until(items, "card")[-1]["card"]  # the review of that turn
        assert {"kind": "approval-done", "id": asked["id"]} in seen
        # cards are pushed live only too: a stream opened later starts with the session's cards
        last = seen[-1]["event"]["seq"]
        with client.stream("GET", f"/api/sessions/{session}/stream?after={last}") as stream:
            opening = until(sse_items(stream), "ready")
        assert card["key"] in [i["card"]["key"] for i in opening if i["kind"] == "card"]


def test_an_approval_names_its_session_and_is_answered_only_for_it(server: Server) -> None:
    """Every page gets every pending approval (the agent waits for someone), so
    each names its session, and an answer must name the session it is for: a
    page showing A cannot approve B's call without having opened B."""
    with server.client() as client:
        shown = new_session(client)
        other = new_session(client)
        with client.stream("GET", f"/api/sessions/{shown}/stream") as stream:
            items = sse_items(stream)
            until(items, "ready")
            # the label is the session's title (its first prompt: person/model text), escaped and bounded
            client.post(f"/api/sessions/{other}/send", json={"text": "tighten the reports \u001b[31m" + "x" * 500})
            asked = until(items, "approval")[-1]["approval"]
            assert asked["session_id"] == other
            label = asked["session_label"]
            assert label.startswith("tighten the reports ^[[31m") and label.endswith(" · " + other[:8])
            assert "\x1b" not in label and len(label) <= 120
            assert client.get(f"/api/sessions/{shown}/events").json()["approvals"] == [asked]
            assert client.get("/api/approvals").json()["approvals"] == [asked]  # for a page showing no session
            path = f"/api/approvals/{asked['id']}"
            unnamed = client.post(path, json={"allow": True})
            assert unnamed.status_code == 400 and "session_id" in unnamed.json()["error"]
            wrong = client.post(path, json={"allow": True, "session_id": shown})
            assert wrong.status_code == 409 and other[:8] in wrong.json()["error"]
            assert client.get(f"/api/sessions/{other}/events").json()["approvals"] == [asked]  # still pending
            assert client.post(path, json={"allow": True, "session_id": other}).json()["ok"]
            assert {"kind": "approval-done", "id": asked["id"]} in until(items, "approval-done")
        with client.stream("GET", f"/api/sessions/{other}/stream") as stream:
            turn = until(sse_items(stream), is_turn_end)
        [result] = [i["event"] for i in turn if is_event(i, "tool/result")]
        assert not result["error"]  # allowed, and only once


def test_a_notice_pushed_before_the_stream_connected_still_reaches_it(server: Server) -> None:
    """Notices are pushed live only: one pushed between the page's event load
    and its stream connecting must still arrive, with an id the page uses to
    ignore the repeat when it reconnects."""
    with server.client() as client:
        session = new_session(client)
        loaded = client.get(f"/api/sessions/{session}/events").json()
        assert loaded["notices"] == []
        assert client.post(f"/api/sessions/{session}/send", json={"text": "/notice between the load and the stream"}).json()["ok"]
        with client.stream("GET", f"/api/sessions/{session}/stream?after={loaded['last_seq']}") as stream:
            opening = until(sse_items(stream), "ready")
        [notice] = [i for i in opening if i["kind"] == "notice"]
        assert notice["text"] == "between the load and the stream" and notice["level"] == "info"
        assert client.get(f"/api/sessions/{session}/events").json()["notices"] == [{k: v for k, v in notice.items() if k != "kind"}]
        with client.stream("GET", f"/api/sessions/{session}/stream") as stream:
            again = until(sse_items(stream), "ready")
        assert [i for i in again if i["kind"] == "notice"] == [notice]  # the same id: the page shows it once
        # another session's notices are not this one's; the opening is bounded to the recent ones
        other = new_session(client)
        for n in range(8):
            client.post(f"/api/sessions/{other}/send", json={"text": f"/notice other {n}"})
        with client.stream("GET", f"/api/sessions/{session}/stream") as stream:
            mine = [i["text"] for i in until(sse_items(stream), "ready") if i["kind"] == "notice"]
        with client.stream("GET", f"/api/sessions/{other}/stream") as stream:
            theirs = [i["text"] for i in until(sse_items(stream), "ready") if i["kind"] == "notice"]
        assert mine == ["between the load and the stream"]
        assert theirs == [f"other {n}" for n in range(3, 8)]


def test_aborting_the_turn_withdraws_its_approval(server: Server) -> None:
    with server.client() as client:
        session = new_session(client)
        with client.stream("GET", f"/api/sessions/{session}/stream") as stream:
            items = sse_items(stream)
            until(items, "ready")
            client.post(f"/api/sessions/{session}/send", json={"text": "tighten the reports"})
            asked = until(items, "approval")[-1]["approval"]
            assert client.post(f"/api/sessions/{session}/abort", json={}).json()["aborted"]
            seen = until(items, is_turn_end)
        assert {"kind": "approval-done", "id": asked["id"]} in seen
        [result] = [i["event"] for i in seen if is_event(i, "tool/result")]
        assert result["error"]  # the call still got its one result
        assert "aborted by user" in seen[-1]["event"]["text"]
        assert client.get(f"/api/sessions/{session}/events").json()["approvals"] == []


def test_the_settings_tab_validates_at_the_field_and_saves_through_the_plugin(server: Server) -> None:
    with server.client() as client:
        tabs = client.get("/api/settings/tabs").json()["tabs"]
        assert [t["title"] for t in tabs] == ["Shadow Mind"]
        namespace = tabs[0]["namespace"]
        form = client.get(f"/api/settings/tabs/{namespace}").json()["form"]
        fields = {f["key"]: f for f in form["fields"]}
        assert fields["activation_probability"]["widget"] == "slider" and fields["activation_probability"]["value"] == 1.0
        assert {"scripted/shadow-model", "scripted/root-model"} <= {o["value"] for o in fields["run_with_model"]["options"]}
        efforts = fields["reasoning_effort"]
        assert [o["value"] for o in efforts["options"]] == ["low", "high"] and efforts["depends_on"] == "run_with_model"
        assert all(o["when"] == ["", "scripted/shadow-model"] for o in efforts["options"])  # only the model that advertises them
        assert form["presets"] and all("prompt" in p["values"] for p in form["presets"])
        bad = client.post(f"/api/settings/tabs/{namespace}", json={"values": {"name": "", "activation_probability": 0.4}})
        assert bad.status_code == 422 and "name" in bad.json()["errors"]
        budget = client.post(f"/api/settings/tabs/{namespace}", json={"values": {"sessionShadowHardBudgetChars": -3}})
        assert budget.status_code == 422 and list(budget.json()["errors"]) == ["sessionShadowHardBudgetChars"]
        saved = client.post(f"/api/settings/tabs/{namespace}", json={"values": {"activation_probability": 0.4, "argumentDisclosure": "full"}})
        assert saved.status_code == 200
        values = {f["key"]: f["value"] for f in saved.json()["form"]["fields"]}
        assert values["activation_probability"] == 0.4 and values["argumentDisclosure"] == "full"
        session = new_session(client)
        shown = client.post(f"/api/sessions/{session}/send", json={"text": "/shadow show"}).json()["text"]
        assert "activation_probability: 0.4" in shown
        config = client.post(f"/api/sessions/{session}/send", json={"text": "/shadow config argumentDisclosure"}).json()
        assert config["text"] == 'argumentDisclosure: "full"'


def test_serve_refuses_a_bad_port_or_a_taken_one_in_one_line(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    from ..cli_env import cli_env

    served = Server(tmp_path, SCRIPT)  # writes the profile; not started
    base = [sys.executable, "-m", "harness", "serve", "--profile", str(tmp_path / "profile.yml")]
    env = cli_env(DSH_HOME=str(served.home))
    bad = subprocess.run([*base, "--port", "70000"], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and bad.stderr.strip() == "harness: --port 70000 is not a port number (0-65535)"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        busy = subprocess.run([*base, "--port", str(port)], capture_output=True, text=True, env=env, timeout=60)
    assert busy.returncode == 2
    assert busy.stderr.strip().splitlines() == [f"harness: --host 127.0.0.1 --port {port}: cannot listen there (Address already in use)"]


def test_serve_refuses_a_host_that_is_not_loopback(tmp_path: Path) -> None:
    """``--host ''`` would bind every interface (and print ``http://:PORT``): no
    host but a loopback one is served, and there is no opt-in to serve others."""
    import subprocess
    import sys

    from ..cli_env import cli_env

    served = Server(tmp_path, SCRIPT)  # writes the profile; not started
    base = [sys.executable, "-m", "harness", "serve", "--profile", str(tmp_path / "profile.yml"), "--port", "0"]
    env = cli_env(DSH_HOME=str(served.home))
    for host in ("", "0.0.0.0", "::", "192.0.2.7"):
        refused = subprocess.run([*base, "--host", host], capture_output=True, text=True, env=env, timeout=60)
        assert refused.returncode == 2, (host, refused.stdout, refused.stderr)
        assert refused.stderr.strip().splitlines() == [
            f"harness: --host {host!r} is not a loopback address; harness serve listens on loopback only (127.0.0.1, ::1 or localhost)"
        ]
        assert "http://" not in refused.stdout


def test_a_body_over_the_limit_is_refused_while_it_streams(server: Server) -> None:
    """The live server answers 413 to a declared 300 MB body without reading it,
    and cuts a chunked one off at the limit (the counter is in test_bodies.py)."""
    from harness.web.bodies import BODY_LIMIT

    from .raw_http import chunked, post

    port = int(server.base.rsplit(":", 1)[1])
    with server.client() as client:
        session = new_session(client)
    headers = {"authorization": f"Bearer {server.token}", "content-type": "application/json"}
    path = f"/api/sessions/{session}/send"
    status, answer, _ = post(port, path, {**headers, "content-length": "300000000"}, [])
    assert status == 413, answer
    size = 32 * BODY_LIMIT
    status, answer, sent = post(port, path, {**headers, "transfer-encoding": "chunked"}, chunked(size, 65536))
    assert status == 413, answer
    assert sent < size
    with server.client() as client:  # and it goes on serving
        assert client.get("/api/sessions").status_code == 200
        assert client.post(path, json={"text": "/shadow show"}).json()["ok"]
