"""Issue 19 A: the reviewer's workspace comes from the person, never from the transcript.

A transcript is foreign data: its recorded ``cwd`` used to confine the
reviewer's file tools, so ``"cwd": "/"`` let the reviewer read any file, and
the importer's "write paths under cwd relative" then ate every ``/`` of the
text. Now the workspace is ``--cwd`` (default: the current directory) or the
hook input's ``cwd``, checked; when none is acceptable the review runs with no
file tools and says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.transcripts import import_transcript
from harness.transcripts.hook import state_path
from harness.transcripts.reader import read_source
from harness.transcripts.session import write_offline
from harness.transcripts.workspace import choose_workspace

from ..harness.openai import shapes
from ..harness.openai.server import Reply, ScriptedServer
from .reviewer import FIXTURES, harness, make_home, structured

KEY_TEXT = "PRIVATE-KEY-MATERIAL-0123456789"
FILE_TOOLS = {"read", "grep", "glob"}


def transcript_with_cwd(tmp: Path, cwd: str) -> Path:
    """The small Claude Code fixture (its first ten lines), every entry claiming ``cwd``."""
    lines = []
    for raw in (FIXTURES / "claude-code-small.jsonl").read_text().splitlines()[:10]:
        entry = json.loads(raw)
        if "cwd" in entry:
            entry["cwd"] = cwd
        lines.append(json.dumps(entry))
    path = tmp / "session.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def private_key(tmp: Path) -> Path:
    """A stand-in for ~/.ssh/id_ed25519: outside every workspace the tests accept."""
    keys = tmp / "keys"
    keys.mkdir()
    key = keys / "id_ed25519"
    key.write_text(KEY_TEXT + "\n")
    return key


def read_call(path: Path) -> Reply:
    """The scripted reviewer asks for the key first."""
    call = shapes.call(0, id="call_read", name="read", arguments=json.dumps({"path": str(path)}))
    return Reply.sse(
        [shapes.event(shapes.chunk(tool_calls=[call])), shapes.event(shapes.chunk(finish="tool_calls")), shapes.DONE]
    )


def offered(request: Any) -> set[str]:
    return {tool["function"]["name"] for tool in request.json().get("tools", ())}


def sent(server: ScriptedServer) -> str:
    return json.dumps([request.json() for request in server.requests])


async def test_a_transcript_claiming_cwd_root_cannot_let_the_reviewer_read_a_key(
    tmp_path: Path, server: ScriptedServer
) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    key = private_key(tmp_path)
    transcript = transcript_with_cwd(tmp_path, "/")
    server.add(read_call(key))
    server.add(structured({"status": "silent", "content": ""}))
    # no --cwd: the workspace is the current directory (the repository here), not the transcript's "/"
    run = await harness("shadow", "review", str(transcript), "--profile", str(profile), "--json", home=home)
    assert run.returncode == 0, run.stderr.decode()
    assert KEY_TEXT not in sent(server)
    assert len(server.requests) == 2  # the read was answered (refused) and the reviewer went on


@pytest.mark.parametrize("where", ["root", "dsh_home", "inside_dsh_home", "home_dir"])
async def test_an_unacceptable_workspace_reviews_without_file_tools(
    tmp_path: Path, server: ScriptedServer, where: str
) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    fake_home = tmp_path / "me"
    fake_home.mkdir()
    (home / "sessions").mkdir(parents=True, exist_ok=True)
    cwd, why = {
        "root": ("/", "the filesystem root"),
        "dsh_home": (str(home), "DSH_HOME"),
        "inside_dsh_home": (str(home / "sessions"), "DSH_HOME"),
        "home_dir": (str(fake_home), "home directory"),
    }[where]
    key = private_key(tmp_path)
    server.add(read_call(key))
    server.add(structured({"status": "silent", "content": ""}))
    transcript = transcript_with_cwd(tmp_path, "/")
    run = await harness(
        "shadow", "review", str(transcript), "--profile", str(profile), "--cwd", cwd,
        home=home, env={"HOME": str(fake_home)},
    )  # fmt: skip
    assert run.returncode == 0, run.stderr.decode()
    out = run.stdout.decode()
    notes = [line for line in out.splitlines() if line.startswith("reviewed without file tools: ")]
    assert len(notes) == 1 and f"workspace {cwd} refused (" in notes[0] and why in notes[0], out
    assert offered(server.requests[0]) == {"structured_output"}  # no read, grep or glob
    assert KEY_TEXT not in sent(server)  # a call to read anyway is refused
    # the record says so too
    (record,) = (home / "imports" / "reviews").iterdir()
    assert json.loads(record.read_text())["workspace"] == {"path": None, "refused": notes[0].split(": ", 1)[1]}
    # and so does the run's trace, where the refused call shows why
    session_id = json.loads(record.read_text())["session_id"]
    trace = await harness("shadow", "trace", session_id, home=home)
    assert "read → DENIED (reviewed without file tools: " in trace.stdout.decode(), trace.stdout.decode()


async def test_review_with_an_accepted_cwd_keeps_file_tools_confined(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    project = tmp_path / "proj"
    project.mkdir()
    key = private_key(tmp_path)
    server.add(read_call(key))
    server.add(structured({"status": "silent", "content": ""}))
    transcript = transcript_with_cwd(tmp_path, "/")
    run = await harness(
        "shadow", "review", str(transcript), "--profile", str(profile), "--cwd", str(project), "--json", home=home
    )
    assert run.returncode == 0, run.stderr.decode()
    out = json.loads(run.stdout)
    assert out["workspace"] == {"path": str(project.resolve()), "refused": None}
    assert FILE_TOOLS <= offered(server.requests[0])
    assert KEY_TEXT not in sent(server)  # outside the workspace: refused by the tool itself


def _hook_stdin(transcript: Path, cwd: str) -> bytes:
    hook = {"session_id": "cc-1", "transcript_path": str(transcript), "cwd": cwd, "stop_hook_active": False}
    return json.dumps(hook).encode()


async def test_the_hook_takes_its_workspace_from_the_hook_input_not_the_transcript(
    tmp_path: Path, server: ScriptedServer
) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    project = tmp_path / "proj"
    project.mkdir()
    key = private_key(tmp_path)
    # the transcript claims an existing directory that holds the key; the agent's hook input says "/"
    transcript = transcript_with_cwd(tmp_path, str(key.parent))
    server.add(read_call(key))
    server.add(structured({"status": "silent", "content": ""}))
    run = await harness(
        "shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=_hook_stdin(transcript, "/")
    )
    assert run.returncode == 0 and json.loads(run.stdout) == {}, run.stderr.decode()
    assert offered(server.requests[0]) == {"structured_output"}
    assert KEY_TEXT not in sent(server)
    state = json.loads(state_path(home, "claude-code", "cc-1").read_text())
    assert state["workspace"]["path"] is None
    assert state["workspace"]["refused"] == "workspace / refused (the filesystem root)"


def test_imported_text_keeps_its_slashes_whatever_cwd_the_transcript_claims(tmp_path: Path) -> None:
    prose = "a/b 1/2 https://x.y/z and /etc/hosts"
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"type": "user", "cwd": "/", "message": {"role": "user", "content": prose}}) + "\n")
    text = import_transcript(path).events[2].data["message"]["content"][0]["text"]
    assert text == prose


def test_paths_under_the_workspace_are_made_relative_only_at_path_boundaries(tmp_path: Path) -> None:
    prose = "see /w/p/src/x.py, https://h.example/w/p/y and /w/pp/z; key sk-abcdefghijklmnop"
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"type": "user", "cwd": "/", "message": {"role": "user", "content": prose}}) + "\n")
    text = import_transcript(path, workspace="/w/p").events[2].data["message"]["content"][0]["text"]
    assert text == "see src/x.py, https://h.example/w/p/y and /w/pp/z; key [credential]"


def test_a_session_whose_header_names_the_transcripts_cwd_is_not_continued(tmp_path: Path) -> None:
    """An earlier version wrote the transcript's cwd into the session header, where
    resuming would confine the reviewer to it again: such a session is left as it is."""
    home = tmp_path / "home"
    transcript = transcript_with_cwd(tmp_path, "/")
    first = write_offline(read_source(transcript), home, record=None, format=None)
    log = home / "sessions" / first.session_id / "session.jsonl"
    header, *rest = log.read_text().splitlines()
    log.write_text("\n".join([json.dumps({**json.loads(header), "cwd": "/"}), *rest]) + "\n")
    again = write_offline(read_source(transcript), home, record=first.record, format=None)
    assert again.created and again.session_id != first.session_id
    assert again.restarted is not None and "earlier version" in again.restarted


async def test_the_hook_gives_file_tools_in_the_agents_own_cwd(tmp_path: Path, server: ScriptedServer) -> None:
    home, profile = make_home(tmp_path, server.base_url)
    project = tmp_path / "proj"
    project.mkdir()
    transcript = transcript_with_cwd(tmp_path, "/")
    server.add(structured({"status": "silent", "content": ""}))
    stdin = _hook_stdin(transcript, str(project))
    run = await harness("shadow", "hook", "claude-code", "--profile", str(profile), home=home, stdin=stdin)
    assert run.returncode == 0 and json.loads(run.stdout) == {}, run.stderr.decode()
    assert FILE_TOOLS <= offered(server.requests[0])
    state = json.loads(state_path(home, "claude-code", "cc-1").read_text())
    assert state["workspace"] == {"path": str(project.resolve()), "refused": None}


@pytest.mark.parametrize(
    ("asked", "relative_ok", "why"),
    [
        ("{tmp}/me", True, "your home directory"),
        ("{tmp}", True, "it holds your home directory"),
        ("{tmp}/dsh/sessions", True, "inside DSH_HOME"),
        ("{tmp}/link-into-dsh", True, "inside DSH_HOME"),  # judged by where the symlink leads
        ("{tmp}/me/proj/file.txt", True, "not a directory"),
        ("{tmp}/missing", True, "no such directory"),
        ("proj", False, "not an absolute path"),
        ("/", True, "the filesystem root"),
    ],
)
def test_choose_workspace_refuses_what_is_too_wide_or_not_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, asked: str, relative_ok: bool, why: str
) -> None:
    me = tmp_path / "me"
    (me / "proj").mkdir(parents=True)
    (me / "proj" / "file.txt").write_text("x")
    dsh = tmp_path / "dsh"
    (dsh / "sessions").mkdir(parents=True)
    (tmp_path / "link-into-dsh").symlink_to(dsh / "sessions")
    monkeypatch.setenv("HOME", str(me))
    chosen = choose_workspace(asked.format(tmp=tmp_path), dsh_home=dsh, missing="-", relative_ok=relative_ok)
    assert chosen.path is None and chosen.refused is not None and why in chosen.refused
    assert chosen.note == f"reviewed without file tools: {chosen.refused}"


def test_choose_workspace_accepts_a_project_and_says_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "me" / "proj").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    chosen = choose_workspace(str(tmp_path / "me" / "proj"), dsh_home=tmp_path / "dsh", missing="-", relative_ok=False)
    assert chosen.path == (tmp_path / "me" / "proj").resolve() and chosen.note is None
    assert choose_workspace(None, dsh_home=tmp_path, missing="no cwd given", relative_ok=False).refused == (
        "no workspace (no cwd given)"
    )
