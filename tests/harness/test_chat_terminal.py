"""``harness chat`` on a real pseudo-terminal (issue 21, item 11): a report
waiting to be relayed is cancelled by Ctrl-C; Markdown from the model is
rendered, with any escape sequence in it shown, never obeyed; ``/help`` lists
every command, plugin commands included; ``/shadow config`` and ``/shadow
status`` read as a person expects.

Driven with pexpect: every wait is an ``expect`` on the output, with a timeout."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pexpect
import pyte
import pytest

from .hanging_review import Setup, chat_setup, chats, expect_all

DEADLINE = 30
PROMPT = re.escape("you>")

#: ``alpha`` is a tool turn (a review follows, and its report waits out the
#: relay window); ``markdown`` answers in Markdown, with an escape sequence in it
SCRIPT = r"""
models:
  - id: m
responses:
  - match: {depth: 0, last_user_contains: alpha}
    reply:
      tool_calls: [{name: read, arguments: {path: notes.txt}}]
  - match: {depth: 0, last_user_contains: alpha}
    reply: {text: "The deploy target is production."}
  - match: {depth: 1, has_tools: [structured_output]}
    repeat: true
    reply:
      tool_calls:
        - name: structured_output
          arguments: {status: report, verdict: challenge, severity: 0.8, refs: ["{{seq:tool call}}"], content: "notes.txt says staging."}
  - match: {depth: 0, last_user_contains: markdown}
    repeat: true
    reply:
      text: "## Deploy notes\n\nThe target is **staging**, see `notes.txt`.\n\n- first item\n- second item\n\n```python\nprint('hi')\n```\n\nNot a colour: \u001b[31mRED\u001b[0m and a title \u001b]0;pwned\u0007 end.\n"
  - match: {depth: 0}
    repeat: true
    reply: {text: "Plain answer."}
"""


def terminal_setup(tmp_path: Path, runtime: str, rows: str = "") -> Setup:
    """:func:`chat_setup` with this module's script; ``runtime`` is the runtime row's config."""
    return chat_setup(tmp_path, SCRIPT, runtime, rows)


@pytest.fixture
def chat() -> Iterator[Callable[..., pexpect.spawn]]:
    with chats(term="xterm-256color", columns=100, timeout=DEADLINE) as start:
        yield start


def finish(child: pexpect.spawn) -> str:
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return str(child.before)


def test_ctrl_c_cancels_a_report_waiting_to_be_relayed(tmp_path: Path, chat: Any) -> None:
    # a window far longer than the test: the relay can only end by the cancel
    setup = terminal_setup(tmp_path, "{resultBatchWindowMs: 600000, randomSeed: 1}")
    child = chat(setup)
    child.expect(PROMPT)
    child.sendline("alpha: read the notes")
    child.expect(re.escape("report waiting to be relayed (challenge)"))
    child.sendintr()
    # the card and the chat's note arrive in either order
    expect_all(child, re.escape("(cancelling background work)"), re.escape("Reviewer aborted [USER_CANCELLED]"))
    child.sendline("beta question")
    child.expect(re.escape("Plain answer."))
    child.expect(PROMPT)
    rest = finish(child)
    assert "Traceback" not in rest
    (root,) = setup.sessions(children=False)
    sources = [e["data"]["message"]["source"]["kind"] for e in setup.events(root) if e["type"] == "user/message"]
    assert sources == ["user", "user"]  # no shadow-report ever entered the conversation


def screen_of(output: str, columns: int, rows: int = 40) -> list[str]:
    """What a terminal shows after ``output``: its escape sequences run by a
    terminal emulator (the streamed plain text replaced by its rendering)."""
    screen = pyte.Screen(columns, rows)
    pyte.Stream(screen).feed(output)
    return [line.rstrip() for line in screen.display]


def test_markdown_is_rendered_and_escape_sequences_are_shown_not_obeyed(tmp_path: Path, chat: Any) -> None:
    setup = terminal_setup(tmp_path, "{randomSeed: 1}")
    columns = 100
    child = chat(setup, columns)
    transcript = io.StringIO()
    child.logfile_read = transcript
    child.expect(PROMPT)
    child.sendline("markdown please")
    child.expect(PROMPT)  # back once the answer is all there
    finish(child)
    output = transcript.getvalue()
    shown = screen_of(output, columns)
    (tmp_path / "chat-markdown.txt").write_text("\n".join(shown).rstrip() + "\n")  # a capture to look at
    text = "\n".join(shown)
    # rendered: no Markdown marks left on screen
    assert "**" not in text and "##" not in text and "```" not in text
    assert "Deploy notes" in shown
    assert "The target is staging, see notes.txt." in shown
    assert " • first item" in shown and " • second item" in shown
    assert " print('hi')" in shown
    # and styled: bold, the heading and the code in colour (escape sequences of rich's own)
    assert "\x1b[1mstaging\x1b[0m" in output and re.search(r"\x1b\[[0-9;]+mDeploy notes", output)
    # the model's own escape sequences are shown as text, never run
    assert "Not a colour: ^[[31mRED^[[0m and a title ^[]0;pwned^G end." in shown
    assert "\x1b[31mRED" not in output and "\x1b]0;" not in output and "\x07" not in output


def test_help_lists_every_command_and_settings_read_as_people_expect(tmp_path: Path, chat: Any) -> None:
    evolution = "- {id: evolution-review, name: evolution-review}\n"  # a second plugin with a command
    setup = terminal_setup(tmp_path, "{randomSeed: 1, defaultShadowTimeoutSeconds: 300}", rows=evolution)
    child = chat(setup)
    child.expect(PROMPT)
    child.sendline("/help")
    child.expect(PROMPT)  # back after the whole answer
    shown = str(child.before)
    # every command the profile provides, each with its one-line description
    for name, description in (
        ("/compact", "Replace the older history with a summary"),
        ("/evolution", "Self-improvement review"),
        ("/help", "List the available commands"),
        ("/shadow", "Shadow Mind: status, forced reviews"),
    ):
        assert re.search(rf"^  {re.escape(name)}\b.*(\r\n {{30}})?.*{re.escape(description)}", shown, re.M | re.S), name
    assert "Ctrl-C" in shown and "Ctrl-D" in shown

    child.sendline("/shadow config")
    child.expect(PROMPT)
    config = str(child.before)
    assert re.search(r"^defaultShadowTimeoutSeconds: 300\r?$", config, re.M)
    assert re.search(r"^resultBatchWindowMs: 400\r?$", config, re.M)
    assert re.search(r"^diminishingNoveltyThreshold: 0.4\r?$", config, re.M)
    assert not re.search(r"\d\.0\r?$", config, re.M)

    child.sendline("/shadow status")
    child.expect(PROMPT)
    status = str(child.before)
    assert "Shadow Mind active: 0 reviews running, 0 waiting to start, 0 in this session" in status
    assert "epoch" not in status
    finish(child)
