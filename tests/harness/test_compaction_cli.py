"""``/compact`` in a real ``harness chat`` subprocess (temporary ``DSH_HOME``),
and a resumed session that continues with the compacted view."""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness.sessions.history import derive_messages
from hookspecs.values import SessionEvent

from .helpers import run_chat as chat
from .helpers import scripted_profile

SCRIPT = """
models:
  - {id: m, context_window: 64000}
responses:
  - match: {system_contains: "working memory"}
    repeat: true
    reply: {text: "SCRIPTED SUMMARY: the user asked two questions about the release."}
  - match: {depth: 0}
    repeat: true
    reply: {text: "Answered."}
"""


def load(home: Path) -> tuple[str, list[SessionEvent]]:
    (path,) = (home / "sessions").glob("*/session.jsonl")
    lines = path.read_text().splitlines()
    events = [SessionEvent(**{k: v for k, v in json.loads(line).items() if k in ("type", "seq", "time", "data")}) for line in lines[1:]]
    return path.parent.name, events


def types(events: list[SessionEvent]) -> list[str]:
    return [e.type for e in events if e.type != "assistant/chunk"]


def test_compact_in_chat_then_resume(tmp_path: Path) -> None:
    home = tmp_path / "home"
    profile = scripted_profile(tmp_path, SCRIPT)
    first = chat("--profile", str(profile), stdin="/compact\nfirst question\nsecond question\n/compact now\n/compact\n", home=home)
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "nothing was compacted: nothing to compact" in out  # an empty history
    assert "/compact takes no arguments" in out
    compacted = re.search(r"compacted (\d+) messages into a summary \(about (\d+) -> (\d+) tokens\)", out)
    assert compacted, out
    shadowed = int(compacted.group(1))
    assert 2 <= shadowed <= 4
    sid, events = load(home)
    trace = [t for t in types(events) if t.startswith(("compaction/", "command/"))]
    assert trace == [
        "command/run", "command/done", "command/run", "command/done",
        "command/run", "compaction/start", "compaction/summary", "compaction/end", "command/done",
    ]
    history = derive_messages(events)
    assert history[0].text.endswith("SCRIPTED SUMMARY: the user asked two questions about the release.")
    assert len(history) == 1 + 4 - shadowed  # the summary, then the kept tail

    second = chat("--profile", str(profile), "--session", sid, stdin="third question\n", home=home)
    assert second.returncode == 0, second.stderr
    assert "Answered." in second.stdout
    _, resumed = load(home)
    history = derive_messages(resumed)
    assert len(history) == 1 + 4 - shadowed + 2
    assert history[0].source["plugin"] == "compact"
    assert [m.text for m in history[-2:]] == ["third question", "Answered."]
    assert [e.data["reason"]["kind"] for e in resumed if e.type == "turn/end"] == ["completed"] * 3


