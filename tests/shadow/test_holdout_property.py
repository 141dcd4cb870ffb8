"""Property: a holdout literal never leaves — not through the framed prompt, the
report, the relay, provenance, status, journals or logs."""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookspecs.values import create_user_message

from .helpers import new_root, settle, shadow_host, write_definition

LITERAL = st.text(
    alphabet=st.sampled_from("ABCDEFGHJKMNPQRSTUVWXYZ23456789_-秘密鍵"), min_size=6, max_size=14
).map(lambda s: "HK" + s)


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def script(literal: str) -> str:
    return f"""
responses:
  - match: {{depth: 0, has_tools: [read], last_user_contains: "check"}}
    reply:
      text: "Reading the notes about {literal}."
      tool_calls: [{{name: read, arguments: {{path: notes.txt}}}}]
  - match: {{depth: 0, last_user_contains: "check"}}
    reply: {{text: "The value is {literal}, all good."}}
  - match: {{depth: 1}}
    reply:
      tool_calls:
        - name: structured_output
          arguments:
            status: report
            verdict: challenge
            severity: 0.5
            refs: ["{{{{seq:tool call}}}}"]
            content: "The root leaked {literal} in its answer; {literal} must stay secret."
  - match: {{depth: 0}}
    repeat: true
    reply: {{text: "ok"}}
"""


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(literals=st.lists(LITERAL, min_size=1, max_size=3, unique=True))
async def test_no_holdout_literal_leaves(literals: list[str]) -> None:
    literal = literals[0]
    capture = Capture()
    logging.getLogger().addHandler(capture)
    try:
        with tempfile.TemporaryDirectory() as raw:
            tmp = Path(raw)
            home = tmp / "home"
            write_definition(
                home,
                name=f"Keeper of {literal}",
                extra="holdout: true\ndebug: true\n",
                prompt=f"Make sure nobody reveals {literal} or the other keys.",
            )
            (home / "shadow-minds" / "holdout-keys.json").write_text(json.dumps({"default": literals}))
            async with shadow_host(tmp, script(literal), home=home, config={"argumentDisclosure": "full"}) as (host, adapter, runtime):
                root = await new_root(host)
                root.followup(create_user_message(f"please check the value {literal}"))
                await settle(host, root)
                status = json.dumps(runtime.controls.status(root), ensure_ascii=False)
                cycles = json.dumps(runtime.controls.cycles(root), ensure_ascii=False)
                child_requests = [r for r in adapter.requests if r.metadata["delegation_depth"] == 1]
                assert child_requests, "the reviewer ran"
                framed = child_requests[0].messages[0].content[0].text
                relay = [
                    e for e in root.session.events
                    if e.type == "user/message" and e.data["message"]["source"]["kind"] == "shadow-report"
                ]
                assert len(relay) == 1
                relay_json = json.dumps(relay[0].data, ensure_ascii=False)
                child_id = relay[0].data["message"]["source"]["reports"][0]["child_session_id"]
                _, child_events = host.sessions.read(child_id)
                child_prompt = json.dumps(child_events[[e.type for e in child_events].index("user/message")].data, ensure_ascii=False)
            journals = "".join(p.read_text() for p in (home / "shadow-minds").rglob("*.jsonl"))
            for key in literals:
                assert key not in framed, "framed prompt"
                assert key not in child_prompt, "child log prompt"
                assert key not in relay_json, "relay text and provenance"
                assert key not in status and key not in cycles, "status"
                assert key not in journals, "journals"
                assert all(key not in line for line in capture.lines), "logs"
            assert "[redacted holdout]" in framed and "[redacted holdout]" in relay_json
    finally:
        logging.getLogger().removeHandler(capture)
