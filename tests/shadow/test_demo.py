"""The README's offline demo, run for real: a reviewer report is relayed and answered."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROMPT = "Which Python versions does this project support?"


def test_offline_demo_relays_and_answers(tmp_path: Path) -> None:
    env = {**os.environ, "DSH_HOME": str(tmp_path / "home")}
    run = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--profile", "examples/profiles/shadow-demo.yml", "--json", PROMPT],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    payload = json.loads(run.stdout)
    relays = [
        e for e in payload["events"]
        if e["type"] == "user/message" and e["data"]["message"]["source"]["kind"] == "shadow-report"
    ]
    assert len(relays) == 1
    (report,) = relays[0]["data"]["message"]["source"]["reports"]
    assert report["verdict"] == "challenge" and report["shadow_id"] == "default"
    tool_call = next(e["seq"] for e in payload["events"] if e["type"] == "tool/call")
    assert report["refs"] == [tool_call]
    assert payload["final_text"].startswith("Correction: the reviewer is right")
    # the reviewer's child session was persisted next to the root's
    sessions = list((tmp_path / "home" / "sessions").iterdir())
    assert len(sessions) == 2
