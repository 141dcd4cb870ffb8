"""The reviewer's child log holds no second copy of the trajectory: its first
``user/message`` keeps the prompt header and a reference to the root's log and
watermark; the live request sends the full text; ``harness shadow trace`` shows
the reference and verifies it by re-projecting the root log."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from hookspecs.layout import SESSION_FILE, SESSIONS_DIR
from hookspecs.values import EventTypes, SessionEvent, TextBlock, create_user_message, message_to_json
from shadow_mind_plugin.projection import project
from shadow_mind_plugin.prompt import build_prompt, digest
from shadow_mind_plugin.prompt_record import REFERENCE_KIND, rebuild_body, stored_prompt

from ..cli_env import cli_env
from .helpers import new_root, settle, shadow_host, write_definition

ROOT_TOKEN = "ROOT-ONLY-TOKEN"

SCRIPT = """
models:
  - {id: root-model, context_window: 128000}
  - {id: small-window, context_window: 3000}
responses:
  - match: {depth: 0, last_user_contains: "check"}
    reply: {tool_calls: [{name: read, arguments: {path: notes.txt}}]}
  - match: {depth: 0, last_user_contains: "check"}
    reply: {text: "checked ROOT-ONLY-TOKEN"}
  - match: {depth: 1, last_user_contains: "ROOT-ONLY-TOKEN"}
    repeat: true
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: silent, content: ""}
"""


def _events(texts: list[str]) -> list[SessionEvent]:
    return [
        SessionEvent(
            type=EventTypes.USER_MESSAGE, seq=i, time=0, data={"message": message_to_json(create_user_message(text))}
        )
        for i, text in enumerate(texts)
    ]


@pytest.mark.parametrize(
    ("chars", "elided", "cut"),
    [(0, 0, None), (2800, 0, None), (2500, 2, None), (1300, 3, 3), (909, 4, None)],  # all; elided; cut; marker only
)
def test_the_reference_rebuilds_the_body_that_was_sent(chars: int, elided: int, cut: int | None) -> None:
    events = _events(["first " * 20, "second " * 30, "third " * 10, "newest " * 200])
    projection = project(events, 3)
    framed = build_prompt("N", "n", "Do.", projection, 3, think_first=False, max_prompt_chars=chars)
    assert (framed.elided, framed.cut_seq) == (elided, cut)
    reference = stored_prompt(
        framed, root_session_id="r", watermark=3, capture="full", disclosure="redacted", holdout=False
    ).reference
    json.dumps(reference, allow_nan=False)  # it is stored as JSON
    assert reference["kind"] == REFERENCE_KIND
    assert rebuild_body(events, reference) == framed.body
    assert digest(framed.body) == reference["body_digest"] == framed.body_digest


def test_holdout_references_are_not_rebuilt() -> None:
    events = _events(["a secret word"])
    framed = build_prompt("N", "n", "Do.", project(events, 0), 0, think_first=False, keys=("secret",))
    reference = stored_prompt(framed, root_session_id="r", watermark=0, capture="full", disclosure="redacted", holdout=True).reference
    assert rebuild_body(events, reference) is None


async def _run(tmp_path: Path, extra: str) -> dict[str, Any]:
    home = tmp_path / "home"
    write_definition(home, extra="debug: true\n" + extra)
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message("please check the notes " + "padding words " * 300))
        await settle(host, root)
        (cycle,) = runtime.owners[root.id].governance.cycles.values()
        (view,) = cycle.runs
        live = next(r for r in adapter.requests if r.metadata["delegation_depth"] == 1)
    child_log = home / SESSIONS_DIR / str(view.child_session_id) / SESSION_FILE
    lines = [json.loads(line) for line in child_log.read_text().splitlines()]
    (entered,) = [line for line in lines if line.get("type") == "user/message"][:1]
    first = next(m for m in live.messages if m.role == "user")
    return {"home": home, "view": view, "log": child_log.read_text(), "entered": entered["data"]["message"], "live": first}


async def _trace(home: Path, run_id: str, *args: str) -> str:
    result = await trio.run_process(
        [sys.executable, "-m", "harness", "shadow", "trace", run_id, *args],
        env=cli_env(DSH_HOME=str(home)), capture_stdout=True, capture_stderr=True, check=False,
    )
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout.decode()


async def test_the_child_log_holds_a_reference_not_the_trajectory(tmp_path: Path) -> None:
    world = await _run(tmp_path, "")
    assert world["view"].phase == "silent"
    live_text = "\n".join(b.text for b in world["live"].content if isinstance(b, TextBlock))
    # before: the child's first user/message was the whole prompt, trajectory included
    assert ROOT_TOKEN in live_text and "padding words" in live_text
    assert ROOT_TOKEN not in world["log"] and "padding words" not in world["log"]
    entered = world["entered"]
    reference = entered["source"]["stored_prompt"]
    assert entered["content"][0]["text"].startswith('You are the independent Shadow "Reviewer" (default).')
    assert entered["content"][1]["text"].startswith("[trajectory not stored here: the projection of root session")
    assert reference["watermark"] == world["view"].captured_through_seq and reference["elided"] == 0
    assert reference["prompt_chars"] == len(live_text)
    out = await _trace(world["home"], world["view"].run_id)
    assert f"prompt {len(live_text)} chars" in out
    assert "prompt trajectory by reference: root " in out and "0 left out" in out and "verified" in out
    data = json.loads(await _trace(world["home"], world["view"].run_id, "--json"))
    assert data["runs"][0]["child"]["prompt_reference"]["check"] == "verified"


async def test_an_elided_prompt_is_verified_too(tmp_path: Path) -> None:
    world = await _run(tmp_path, "run_with_model: scripted/small-window\n")
    reference = world["entered"]["source"]["stored_prompt"]
    assert reference["elided"] >= 1 and reference["elided_seqs"][0] == 2
    out = await _trace(world["home"], world["view"].run_id)
    assert f"{reference['elided']} left out (seqs 2–" in out and "verified" in out
