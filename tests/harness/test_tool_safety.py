"""What the built-in tools must never do to the host: a pattern that freezes
it, a hardlink that reads past the workspace, a shell that writes outside it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from .test_builtin_tools import FakeContext, call, call_error

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path) -> FakeContext:
    return FakeContext(cwd=ws)


# --- grep: no pattern can block the host -------------------------------------------------

GREP_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    import trio

    from harness.tools.builtin.grep import TOOL
    from hookspecs.values.cancel import CancelToken


    class Context:
        cwd = Path(sys.argv[1])
        cancel = CancelToken()
        call_id = "call-1"
        agent = None

        def conclude_turn(self):
            pass


    result = trio.run(TOOL.execute, {"pattern": sys.argv[2]}, Context())
    print(result.text_content)
    """
)


def test_a_catastrophic_pattern_does_not_block_the_host(tmp_path: Path) -> None:
    # under a backtracking engine each extra "a" doubles the time: 32 of them take hours
    (tmp_path / "evil.txt").write_text("a" * 32 + "!\n")
    script = tmp_path / "grep_once.py"
    script.write_text(GREP_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path), "(a+)+$"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "no matches"
    assert done.stderr == ""  # the engine logs nothing of its own to the terminal


async def test_grep_refuses_what_a_linear_engine_cannot_do(ctx: FakeContext) -> None:
    for pattern in [r"(a)\1", "(?=x)y", "(?<!x)y"]:
        error = await call_error("grep", {"pattern": pattern}, ctx)
        (violation,) = error.violations
        assert violation.startswith("pattern: not supported by the linear-time engine (RE2): "), violation
        assert "\n" not in violation


async def test_grep_still_matches_case_insensitively_and_on_unicode(ctx: FakeContext, ws: Path) -> None:
    (ws / "u.txt").write_text("Grüße TODO\nnothing\n")
    hit = await call("grep", {"pattern": r"grÜße|todo\b", "ignore_case": True}, ctx)
    assert hit.text_content == "u.txt:1:Grüße TODO"


# --- hard links: a name inside, a file outside ------------------------------------------


async def test_a_hard_link_to_an_outside_file_is_not_read(ctx: FakeContext, ws: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET needle\n")
    os.link(secret, ws / "innocent.txt")
    (ws / "plain.txt").write_text("a needle here\n")
    error = await call_error("read", {"path": "innocent.txt"}, ctx)
    assert "hard link" in error.message and "TOP SECRET" not in error.message
    found = await call("grep", {"pattern": "needle"}, ctx)
    assert found.text_content == "plain.txt:1:a needle here"
    alone = await call("grep", {"pattern": "needle", "path": "innocent.txt"}, ctx)
    assert "TOP SECRET" not in alone.text_content


# --- the terminal shows model text, never obeys it --------------------------------------

HOSTILE = "Done.\x1b[2J\x1b]0;pwned\x07\r\x1b[32muser@host$\x1b[0m rm -rf ~\n\tindented\x9b31m"


def test_control_sequences_in_model_text_are_shown_not_obeyed(tmp_path: Path) -> None:
    script = tmp_path / "hostile.yml"
    script.write_text(f"responses:\n  - reply: {{text: {json.dumps(HOSTILE)}}}\n")
    profile = tmp_path / "p.yml"
    profile.write_text(
        f"- id: llm\n  name: scripted-llm\n  config: {{script: {script}}}\n"
        "- id: agent-loop\n  name: agent-loop\n  config: {model: scripted/x}\n"
    )
    env = {**os.environ, "DSH_HOME": str(tmp_path / "home")}
    env.pop("DSH_PROFILE", None)

    def harness(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "harness", *args], cwd=REPO, env=env, capture_output=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.decode("utf-8")  # bytes: text mode would turn a lone \r into \n

    streamed = harness("run", "--profile", str(profile), "hi")
    session_id = harness("sessions", "list").split()[0]
    shown = harness("sessions", "show", session_id)
    for out in (streamed, shown):
        assert "Done.^[[2J^[]0;pwned^G^M^[[32muser@host$^[[0m rm -rf ~\n\tindented" in out
        assert not any(ord(c) < 32 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 for c in out), repr(out)
