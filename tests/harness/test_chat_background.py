"""``harness chat`` on a real pseudo-terminal while a Shadow review runs in the
background (the scripted reviewer hangs until it is cancelled): the prompt
comes back when the root's turn ends, a line typed meanwhile is handled at
once, Ctrl-C at the idle prompt cancels the review, review cards never
swallow what is being typed, and Ctrl-D exits without waiting for the review.

Driven with pexpect: every wait is an ``expect`` on the output, with a timeout."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from .hanging_review import Setup, chats, expect_all, hanging_review

DEADLINE = 30
PROMPT = re.escape("you>")
REVIEWING = r"@\d+: Reviewer reviewing"


@pytest.fixture
def chat() -> Iterator[Callable[[Setup], pexpect.spawn]]:
    with chats(term="xterm", columns=200, timeout=DEADLINE) as start:
        yield start


def assert_reviews_aborted(setup: Setup) -> None:
    """No reviewer child ever finished a turn: each was aborted (or, cancelled
    before its prompt was taken, never ran one)."""
    for reviewer in setup.sessions(children=True):
        assert {end["reason"]["kind"] for end in setup.turn_ends(reviewer)} <= {"aborted"}


def transcript(child: pexpect.spawn) -> str:
    return str(child.before) + str(child.after)


def test_reviews_run_in_the_background_and_ctrl_c_cancels_them(tmp_path: Path, chat: Any) -> None:
    setup = hanging_review(tmp_path)
    child = chat(setup)
    child.expect(PROMPT)

    # 1. the prompt is back while the review hangs
    child.sendline("alpha: read the notes")
    expect_all(child, re.escape("Read alpha."), REVIEWING, PROMPT)

    # 2. a line typed meanwhile is answered at once; as real user input it
    #    cancels the review (the plugin's epoch)
    child.sendline("beta question")
    expect_all(child, re.escape("Plain answer."), re.escape("Reviewer aborted [USER_MESSAGE_RECEIVED]"), PROMPT)

    # 3. another review; Ctrl-C at the idle prompt cancels it, and the card that
    #    reports it leaves the half-typed line intact below it
    child.sendline("gamma: read again")
    expect_all(child, re.escape("Read gamma."), REVIEWING, PROMPT)
    child.send("partial")
    child.expect("partial")
    child.sendintr()
    # the run, or (when the key beat the run's start) the work still preparing it
    child.expect(r"\(cancelling (1 background run|background work)\)")
    child.expect(r"Reviewer aborted \[(USER_CANCELLED|PROVIDER_ABORTED)\]")
    child.expect(PROMPT + r"(\x1b\[0m)? partial")  # the prompt redrawn with the typed text
    child.send(" line\r")
    child.expect(re.escape("Plain answer."))
    child.expect(PROMPT)

    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in transcript(child)

    (root,) = setup.sessions(children=False)
    texts = [e["data"]["message"]["content"][0]["text"] for e in setup.events(root) if e["type"] == "user/message"]
    assert texts == ["alpha: read the notes", "beta question", "gamma: read again", "partial line"]
    assert_reviews_aborted(setup)


def test_ctrl_d_exits_while_a_review_hangs(tmp_path: Path, chat: Any) -> None:
    setup = hanging_review(tmp_path)
    child = chat(setup)
    child.expect(PROMPT)
    child.sendline("alpha: read the notes")
    expect_all(child, REVIEWING, PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)  # bounded cleanup: the review is cancelled, not awaited
    child.close()
    assert child.exitstatus == 0
    assert "Traceback" not in transcript(child)
    assert_reviews_aborted(setup)


# --- the run tracker, in process ------------------------------------------------------------


class _Agent:
    def __init__(self, agent_id: str) -> None:
        self.id = agent_id


class _Request:
    def __init__(self) -> None:
        from hookspecs.values import CancelToken

        self.cancel = CancelToken()


def test_background_runs_cancels_only_the_roots_live_runs() -> None:
    from harness.cli.background import USER_CANCEL_REASON, BackgroundRuns

    runs = BackgroundRuns()
    runs.root_id = "root"
    root, other = _Agent("root"), _Agent("other")
    mine, theirs, ended = _Request(), _Request(), _Request()
    runs.dsh_subagent_started(parent=root, run="run-1", request=mine)
    runs.dsh_subagent_started(parent=other, run="run-2", request=theirs)  # a grandchild's run
    runs.dsh_subagent_started(parent=root, run="run-3", request=ended)
    runs.dsh_subagent_ended(parent=root, run="run-3", result=None)
    assert runs.active == 1
    assert runs.cancel() == 1
    assert mine.cancel.reason == USER_CANCEL_REASON
    assert not theirs.cancel.cancelled and not ended.cancel.cancelled
    assert runs.cancel() == 0  # already cancelled: a second Ctrl-C falls through to the hint
    # Ctrl-C while a plugin was still preparing its run: the run is cancelled as it starts
    runs.cancel_starting = True
    late = _Request()
    runs.dsh_subagent_started(parent=root, run="run-4", request=late)
    assert late.cancel.cancelled
