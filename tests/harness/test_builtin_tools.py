"""The built-in tools and workspace confinement, against real files and processes."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio
from trio.testing import MockClock

from harness.tools.builtin import bash as bash_mod
from harness.tools.builtin import builtin_tools
from harness.tools.builtin import glob as glob_mod
from harness.tools.schema import validate
from harness.tools.workspace import resolve_in_workspace
from hookspecs.errors import ToolArgsError, ToolError
from hookspecs.protocols import ToolRunContext
from hookspecs.values import ToolResult
from hookspecs.values.cancel import CancelToken

from .helpers import poll_until

TOOLS = {tool.name: tool for tool in builtin_tools()}


@attrs.define
class FakeContext:
    """Just enough of :class:`ToolRunContext` for tools."""

    cwd: Path
    cancel: CancelToken = attrs.field(factory=CancelToken)
    call_id: str = "call-1"
    agent: Any = None
    concluded: bool = False

    def conclude_turn(self) -> None:
        self.concluded = True


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside"
    secret.mkdir()
    (secret / "secret.txt").write_text("TOP SECRET needle\n")
    return secret


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path) -> FakeContext:
    return FakeContext(cwd=ws)


async def call(name: str, args: dict[str, Any], ctx: FakeContext) -> ToolResult:
    """Run a tool the way the host does: validate against its schema, then execute."""
    tool = TOOLS[name]
    assert validate(args, tool.parameters) == [], "test passed invalid arguments"
    out = await tool.execute(args, ctx)
    return out if isinstance(out, ToolResult) else ToolResult.text(out)


async def call_error(name: str, args: dict[str, Any], ctx: FakeContext) -> ToolArgsError:
    with pytest.raises(ToolArgsError) as info:
        await call(name, args, ctx)
    return info.value


def test_fake_context_satisfies_the_protocol(ctx: FakeContext) -> None:
    assert isinstance(ctx, ToolRunContext)


def test_builtin_tool_flags() -> None:
    assert list(TOOLS) == ["read", "grep", "glob", "write", "edit", "bash"]
    for name in ("read", "grep", "glob"):
        tool = TOOLS[name]
        assert tool.read_only and tool.concurrency_safe
        assert not tool.requires_approval and not tool.root_only
    for name in ("write", "edit", "bash"):
        tool = TOOLS[name]
        assert tool.requires_approval and tool.root_only
        assert not tool.read_only and not tool.concurrency_safe


# --- workspace confinement ------------------------------------------------------------------


def test_resolve_in_workspace(ws: Path, outside: Path) -> None:
    (ws / "a").mkdir()
    assert resolve_in_workspace(ws, "a/b.txt") == (ws / "a" / "b.txt").resolve()
    assert resolve_in_workspace(ws, str(ws / "a")) == (ws / "a").resolve()
    assert resolve_in_workspace(ws, ".") == ws.resolve()
    assert resolve_in_workspace(ws, "a/../a") == (ws / "a").resolve()

    with pytest.raises(ToolArgsError) as info:
        resolve_in_workspace(ws, "../outside/secret.txt", argument="file")
    assert info.value.violations == ("file '../outside/secret.txt' is outside the workspace",)

    with pytest.raises(ToolArgsError, match="is outside the workspace"):
        resolve_in_workspace(ws, "/etc/passwd")
    with pytest.raises(ToolArgsError, match="does not exist"):
        resolve_in_workspace(ws, "missing", must_exist=True)
    with pytest.raises(ToolArgsError, match="must not be empty"):
        resolve_in_workspace(ws, "")


def test_symlinks_are_followed_before_the_check(ws: Path, outside: Path) -> None:
    (ws / "inner.txt").write_text("x")
    (ws / "alias.txt").symlink_to(ws / "inner.txt")
    assert resolve_in_workspace(ws, "alias.txt") == (ws / "inner.txt").resolve()

    (ws / "escape").symlink_to(outside)
    (ws / "dangling").symlink_to(outside / "not-yet")
    for path in ("escape/secret.txt", "escape", "dangling"):
        with pytest.raises(ToolArgsError) as info:
            resolve_in_workspace(ws, path)
        # The message names what the model sent, never where the link leads.
        assert str(outside) not in str(info.value)
        assert f"'{path}' is outside the workspace" in str(info.value)


def test_workspace_reached_through_a_symlink(tmp_path: Path, ws: Path) -> None:
    link = tmp_path / "ws-link"
    link.symlink_to(ws)
    (ws / "f").write_text("x")
    assert resolve_in_workspace(link, "f") == (ws / "f").resolve()
    assert resolve_in_workspace(link, str(link / "f")) == (ws / "f").resolve()


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read", {"path": "../outside/secret.txt"}),
        ("read", {"path": "OUTSIDE/secret.txt"}),
        ("read", {"path": "escape/secret.txt"}),
        ("grep", {"pattern": "needle", "path": "../outside"}),
        ("grep", {"pattern": "needle", "path": "OUTSIDE"}),
        ("grep", {"pattern": "needle", "path": "escape"}),
        ("glob", {"pattern": "*", "path": "../outside"}),
        ("glob", {"pattern": "*", "path": "OUTSIDE"}),
        ("glob", {"pattern": "escape/*"}),
        ("write", {"path": "../outside/new.txt", "content": "x"}),
        ("write", {"path": "escape/new.txt", "content": "x"}),
        ("edit", {"path": "escape/secret.txt", "old_text": "TOP", "new_text": "no"}),
    ],
)
async def test_file_tools_refuse_paths_outside_the_workspace(
    name: str, args: dict[str, Any], ctx: FakeContext, ws: Path, outside: Path
) -> None:
    (ws / "escape").symlink_to(outside)
    args = {k: v.replace("OUTSIDE", str(outside)) for k, v in args.items()}
    error = await call_error(name, args, ctx)
    assert "is outside the workspace" in error.message
    assert str(ws) not in error.message
    assert (outside / "secret.txt").read_text() == "TOP SECRET needle\n"
    assert not (outside / "new.txt").exists()


async def test_walks_do_not_follow_links_out_of_the_workspace(
    ctx: FakeContext, ws: Path, outside: Path
) -> None:
    (ws / "escape").symlink_to(outside)
    (ws / "leak.txt").symlink_to(outside / "secret.txt")
    (ws / "ok.txt").write_text("needle here\n")
    grep = await call("grep", {"pattern": "needle"}, ctx)
    assert grep.text_content == "ok.txt:1:needle here"
    glob = await call("glob", {"pattern": "**/*"}, ctx)
    assert glob.text_content == "ok.txt"


# --- read ------------------------------------------------------------------------------------


async def test_read_numbers_lines(ctx: FakeContext, ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("first\nsecond\r\nthird\n")
    result = await call("read", {"path": "src/a.py"}, ctx)
    assert not result.is_error
    assert result.text_content == "     1\tfirst\n     2\tsecond\n     3\tthird"
    assert result.value == {"path": "src/a.py", "lines": 3, "total_lines": 3, "truncated": False}


async def test_read_window_with_offset_and_limit(ctx: FakeContext, ws: Path) -> None:
    (ws / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await call("read", {"path": "big.txt", "offset": 4, "limit": 3}, ctx)
    assert result.text_content.splitlines()[:3] == ["     4\tline 4", "     5\tline 5", "     6\tline 6"]
    assert "offset=7" in result.text_content
    assert result.value == {"path": "big.txt", "lines": 3, "total_lines": 10, "truncated": True}

    tail = await call("read", {"path": "big.txt", "offset": 9}, ctx)
    assert tail.text_content == "     9\tline 9\n    10\tline 10"
    assert tail.value["truncated"] is False

    error = await call_error("read", {"path": "big.txt", "offset": 11}, ctx)
    assert error.violations[0].startswith("offset: 11 is past the end")


async def test_read_default_limit_is_2000_lines(ctx: FakeContext, ws: Path) -> None:
    (ws / "long.txt").write_text("x\n" * 2500)
    result = await call("read", {"path": "long.txt"}, ctx)
    assert result.value == {"path": "long.txt", "lines": 2000, "total_lines": 2500, "truncated": True}


async def test_read_by_absolute_path_inside_and_empty_file(ctx: FakeContext, ws: Path) -> None:
    (ws / "empty.txt").write_text("")
    result = await call("read", {"path": str(ws / "empty.txt")}, ctx)
    assert result.value == {"path": "empty.txt", "lines": 0, "total_lines": 0, "truncated": False}
    assert "empty" in result.text_content


async def test_read_cuts_very_long_lines(ctx: FakeContext, ws: Path) -> None:
    (ws / "min.js").write_text("a" * 5000 + "\n")
    result = await call("read", {"path": "min.js"}, ctx)
    assert len(result.text_content) < 2100
    assert "line cut" in result.text_content


async def test_read_refuses_directories_binaries_and_missing_files(ctx: FakeContext, ws: Path) -> None:
    (ws / "dir").mkdir()
    (ws / "blob.bin").write_bytes(b"PNG\x00\x01\x02")
    (ws / "late.bin").write_bytes(b"text\n" * 3000 + b"\x00tail\n")

    assert "is a directory" in (await call_error("read", {"path": "dir"}, ctx)).message
    assert "binary file" in (await call_error("read", {"path": "blob.bin"}, ctx)).message
    assert "binary file" in (await call_error("read", {"path": "late.bin"}, ctx)).message
    assert "'nope.txt' does not exist" in (await call_error("read", {"path": "nope.txt"}, ctx)).message


async def test_read_refuses_fifos_instead_of_blocking(ctx: FakeContext, ws: Path) -> None:
    os.mkfifo(ws / "pipe")
    assert "not a regular file" in (await call_error("read", {"path": "pipe"}, ctx)).message


# --- grep ------------------------------------------------------------------------------------


def make_tree(ws: Path) -> None:
    (ws / "b.py").write_text("import os\nx = 1  # TODO later\n")
    (ws / "a").mkdir()
    (ws / "a" / "z.py").write_text("# todo: first\nok\n# TODO: second\n")
    (ws / "a" / "notes.md").write_text("TODO in markdown\n")
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("TODO hidden\n")
    (ws / "image.png").write_bytes(b"\x89PNG\x00TODO")


async def test_grep_sorted_by_path_then_line(ctx: FakeContext, ws: Path) -> None:
    make_tree(ws)
    result = await call("grep", {"pattern": "TODO"}, ctx)
    assert result.text_content.splitlines() == [
        "a/notes.md:1:TODO in markdown",
        "a/z.py:3:# TODO: second",
        "b.py:2:x = 1  # TODO later",
    ]
    assert result.value == {"matches": 3, "files": 3, "truncated": False}


async def test_grep_options(ctx: FakeContext, ws: Path) -> None:
    make_tree(ws)
    insensitive = await call("grep", {"pattern": "todo", "ignore_case": True, "glob": "*.py"}, ctx)
    assert insensitive.text_content.splitlines() == [
        "a/z.py:1:# todo: first",
        "a/z.py:3:# TODO: second",
        "b.py:2:x = 1  # TODO later",
    ]
    in_dir = await call("grep", {"pattern": r"^#", "path": "a"}, ctx)
    assert in_dir.text_content.splitlines() == ["a/z.py:1:# todo: first", "a/z.py:3:# TODO: second"]
    one_file = await call("grep", {"pattern": "[ox]", "path": "b.py"}, ctx)
    assert one_file.text_content.splitlines() == ["b.py:1:import os", "b.py:2:x = 1  # TODO later"]
    braces = await call("grep", {"pattern": "TODO", "glob": "*.{md,txt}"}, ctx)
    assert braces.text_content == "a/notes.md:1:TODO in markdown"
    slashed = await call("grep", {"pattern": "TODO", "glob": "a/*.py"}, ctx)
    assert slashed.text_content == "a/z.py:3:# TODO: second"
    explicit_hidden = await call("grep", {"pattern": "TODO", "path": ".git"}, ctx)
    assert explicit_hidden.text_content == ".git/config:1:TODO hidden"


async def test_grep_max_results_and_no_matches(ctx: FakeContext, ws: Path) -> None:
    (ws / "many.txt").write_text("hit\n" * 10)
    capped = await call("grep", {"pattern": "hit", "max_results": 4}, ctx)
    lines = capped.text_content.splitlines()
    assert lines[:4] == [f"many.txt:{i}:hit" for i in range(1, 5)]
    assert "stopped after 4 matches" in capped.text_content
    assert capped.value == {"matches": 4, "files": 1, "truncated": True}
    exact = await call("grep", {"pattern": "hit", "max_results": 10}, ctx)
    assert exact.value["truncated"] is False
    none = await call("grep", {"pattern": "absent"}, ctx)
    assert none.text_content == "no matches" and none.value["matches"] == 0


async def test_grep_invalid_regex_names_pattern(ctx: FakeContext) -> None:
    error = await call_error("grep", {"pattern": "(unclosed"}, ctx)
    assert error.violations[0].startswith("pattern: invalid regular expression")


async def test_grep_missing_path(ctx: FakeContext) -> None:
    assert "does not exist" in (await call_error("grep", {"pattern": "x", "path": "nope"}, ctx)).message


# --- glob ------------------------------------------------------------------------------------


async def test_glob_patterns(ctx: FakeContext, ws: Path) -> None:
    make_tree(ws)
    (ws / "a" / "deep").mkdir()
    (ws / "a" / "deep" / "y.py").write_text("")
    (ws / "c.ts").write_text("")

    rec = await call("glob", {"pattern": "**/*.py"}, ctx)
    assert rec.text_content.splitlines() == ["a/deep/y.py", "a/z.py", "b.py"]
    assert rec.value == {"files": ["a/deep/y.py", "a/z.py", "b.py"], "total": 3, "truncated": False}

    top = await call("glob", {"pattern": "*.py"}, ctx)
    assert top.text_content == "b.py"
    sub = await call("glob", {"pattern": "*.py", "path": "a"}, ctx)
    assert sub.text_content == "a/z.py"
    prefix = await call("glob", {"pattern": "a/**/*.py"}, ctx)
    assert prefix.text_content.splitlines() == ["a/deep/y.py", "a/z.py"]
    braces = await call("glob", {"pattern": "*.{ts,md,png}"}, ctx)
    assert braces.text_content.splitlines() == ["c.ts", "image.png"]
    question = await call("glob", {"pattern": "?.py"}, ctx)
    assert question.text_content == "b.py"


async def test_glob_files_only_and_hidden_dirs(ctx: FakeContext, ws: Path) -> None:
    make_tree(ws)
    everything = await call("glob", {"pattern": "**"}, ctx)
    listed = everything.text_content.splitlines()
    assert "a" not in listed and ".git/config" not in listed
    assert listed == ["a/notes.md", "a/z.py", "b.py", "image.png"]
    hidden = await call("glob", {"pattern": ".git/*"}, ctx)
    assert hidden.text_content == ".git/config"
    none = await call("glob", {"pattern": "*.rs"}, ctx)
    assert none.text_content == "no files matched" and none.value["total"] == 0


async def test_glob_caps_results(ctx: FakeContext, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glob_mod, "MAX_FILES", 3)
    for i in range(5):
        (ws / f"f{i}.txt").write_text("")
    result = await call("glob", {"pattern": "*.txt"}, ctx)
    assert result.text_content.splitlines()[:3] == ["f0.txt", "f1.txt", "f2.txt"]
    assert "showing the first 3 of 5 files" in result.text_content
    assert result.value == {"files": ["f0.txt", "f1.txt", "f2.txt"], "total": 5, "truncated": True}


async def test_glob_cap_default_is_1000() -> None:
    assert glob_mod.MAX_FILES == 1000


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [
        ("../*", "must not contain '..'"),
        ("/etc/*", "must be relative"),
        ("a/../../x", "must not contain '..'"),
    ],
)
async def test_glob_refuses_escaping_patterns(pattern: str, fragment: str, ctx: FakeContext) -> None:
    error = await call_error("glob", {"pattern": pattern}, ctx)
    assert error.violations[0].startswith("pattern: ") and fragment in error.message


async def test_glob_path_must_be_a_directory(ctx: FakeContext, ws: Path) -> None:
    (ws / "f.txt").write_text("")
    assert "not a directory" in (await call_error("glob", {"pattern": "*", "path": "f.txt"}, ctx)).message


# --- write -----------------------------------------------------------------------------------


async def test_write_creates_parents_and_reports_bytes(ctx: FakeContext, ws: Path) -> None:
    result = await call("write", {"path": "new/dir/f.txt", "content": "héllo\n"}, ctx)
    assert result.text_content == "wrote 7 bytes to new/dir/f.txt"
    assert result.value == {"path": "new/dir/f.txt", "bytes": 7, "created": True}
    assert (ws / "new" / "dir" / "f.txt").read_text() == "héllo\n"
    assert os.listdir(ws / "new" / "dir") == ["f.txt"]  # no temp file left behind


async def test_write_replaces_keeping_mode_and_links(ctx: FakeContext, ws: Path) -> None:
    target = ws / "script.sh"
    target.write_text("old")
    target.chmod(0o751)
    (ws / "link.sh").symlink_to(target)
    result = await call("write", {"path": "link.sh", "content": "new"}, ctx)
    assert result.value == {"path": "script.sh", "bytes": 3, "created": False}
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert (ws / "link.sh").is_symlink()


async def test_write_errors(ctx: FakeContext, ws: Path) -> None:
    (ws / "d").mkdir()
    (ws / "file").write_text("")
    assert "is a directory" in (await call_error("write", {"path": "d", "content": ""}, ctx)).message
    assert "workspace directory" in (await call_error("write", {"path": ".", "content": ""}, ctx)).message
    nested = await call_error("write", {"path": "file/x.txt", "content": ""}, ctx)
    assert "is a file, not a directory" in nested.message


# --- edit ------------------------------------------------------------------------------------


async def test_edit_replaces_a_unique_occurrence(ctx: FakeContext, ws: Path) -> None:
    (ws / "f.py").write_text("a = 1\nb = 2\n")
    result = await call("edit", {"path": "f.py", "old_text": "b = 2", "new_text": "b = 3"}, ctx)
    assert result.text_content == "replaced 1 occurrence in f.py"
    assert result.value == {"path": "f.py", "replacements": 1}
    assert (ws / "f.py").read_text() == "a = 1\nb = 3\n"


async def test_edit_requires_exactly_one_unless_replace_all(ctx: FakeContext, ws: Path) -> None:
    (ws / "f.txt").write_text("x x x")
    error = await call_error("edit", {"path": "f.txt", "old_text": "x", "new_text": "y"}, ctx)
    assert error.violations[0].startswith("old_text: found 3 times")
    assert (ws / "f.txt").read_text() == "x x x"

    missing = await call_error("edit", {"path": "f.txt", "old_text": "z", "new_text": "y"}, ctx)
    assert missing.violations[0].startswith("old_text: not found") and "found 0 times" in missing.message

    result = await call("edit", {"path": "f.txt", "old_text": "x", "new_text": "y", "replace_all": True}, ctx)
    assert result.value == {"path": "f.txt", "replacements": 3}
    assert (ws / "f.txt").read_text() == "y y y"


async def test_edit_errors(ctx: FakeContext, ws: Path) -> None:
    (ws / "f.txt").write_text("same")
    (ws / "b.bin").write_bytes(b"a\x00b")
    same = await call_error("edit", {"path": "f.txt", "old_text": "same", "new_text": "same"}, ctx)
    assert same.violations[0].startswith("new_text:")
    binary = await call_error("edit", {"path": "b.bin", "old_text": "a", "new_text": "c"}, ctx)
    assert "binary" in binary.message
    missing = await call_error("edit", {"path": "no", "old_text": "a", "new_text": "c"}, ctx)
    assert "does not exist" in missing.message


async def test_edit_preserves_bytes_that_are_not_utf8(ctx: FakeContext, ws: Path) -> None:
    (ws / "latin1.txt").write_bytes(b"caf\xe9 = 1\nvalue = 2\n")
    await call("edit", {"path": "latin1.txt", "old_text": "value = 2", "new_text": "value = 3"}, ctx)
    assert (ws / "latin1.txt").read_bytes() == b"caf\xe9 = 1\nvalue = 3\n"


# --- bash ------------------------------------------------------------------------------------


async def test_bash_runs_in_the_workspace(ctx: FakeContext, ws: Path) -> None:
    (ws / "marker.txt").write_text("")
    result = await call("bash", {"command": "ls; echo to-stderr >&2"}, ctx)
    assert not result.is_error
    assert result.text_content == "exit code 0\nmarker.txt\nto-stderr\n"
    assert result.value == {"exit_code": 0, "timed_out": False, "cancelled": False, "truncated": False}


async def test_bash_nonzero_exit_is_an_error_result(ctx: FakeContext) -> None:
    result = await call("bash", {"command": "echo failing; exit 3"}, ctx)
    assert result.is_error
    assert result.text_content == "exit code 3\nfailing\n"
    assert result.error is not None and result.error.code == "NONZERO_EXIT"
    assert result.value["exit_code"] == 3


async def test_bash_empty_output_and_stdin_is_empty(ctx: FakeContext) -> None:
    result = await call("bash", {"command": "cat"}, ctx)
    assert result.text_content == "exit code 0\n(no output)"


async def test_bash_truncates_huge_output_keeping_head_and_tail(ctx: FakeContext) -> None:
    command = "echo START; head -c 100000 /dev/zero | tr '\\0' a; echo; echo END"
    result = await call("bash", {"command": command}, ctx)
    text = result.text_content
    assert len(text) < bash_mod.MAX_OUTPUT_CHARS + 200
    assert text.startswith("exit code 0\nSTART\n") and text.endswith("END\n")
    assert "output truncated" in text and result.value["truncated"] is True


async def test_bash_timeout_kills_the_command(ctx: FakeContext, autojump_clock: MockClock) -> None:
    # a sleep far past the bound, marked so it can be found: the timeout must kill it,
    # not wait for it (virtual time may fire the bound before the sleep even starts)
    marker = f"30.{os.getpid()}{id(ctx)}"
    result = await call("bash", {"command": f"sleep {marker}", "timeout_seconds": 1}, ctx)
    await poll_until(lambda: not _running("sleep", marker), what="the timed-out sleep to exit", give_up_after=5)
    assert result.is_error and result.error is not None and result.error.code == "TIMEOUT"
    assert result.text_content.startswith("command timed out after 1 seconds and was killed")
    assert result.value["timed_out"] is True and result.value["exit_code"] is None


def _running(*argv: str) -> bool:
    """Whether a live process has exactly this command line."""
    wanted = "\0".join(argv).encode() + b"\0"
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes() == wanted and _alive(int(entry.name)):
                    return True
            except OSError:
                continue
    return False


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] not in "ZX"
    except (FileNotFoundError, ProcessLookupError):
        return False


async def _wait_for(path: Path) -> None:
    await poll_until(lambda: path.exists() and bool(path.read_text().strip()), what=f"{path.name} written", give_up_after=10)


async def test_bash_cancel_token_kills_the_process_group(ctx: FakeContext, ws: Path) -> None:
    # The shell backgrounds a child; cancelling must kill it too, not just the shell.
    command = "sleep 30 & echo $! > child.pid; wait"
    results: list[ToolResult] = []
    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: _collect(results, call("bash", {"command": command}, ctx)))
        await _wait_for(ws / "child.pid")
        child = int((ws / "child.pid").read_text())
        assert _alive(child)
        ctx.cancel.cancel("user pressed stop")
    (result,) = results
    assert result.is_error and result.error is not None and result.error.code == "ABORTED"
    assert result.value["cancelled"] is True and result.value["exit_code"] is None
    await poll_until(lambda: not _alive(child), what="the background child to exit", give_up_after=5)


async def test_bash_already_cancelled_token_runs_nothing(ctx: FakeContext, ws: Path) -> None:
    ctx.cancel.cancel("gone")
    result = await call("bash", {"command": "touch ran"}, ctx)
    assert result.error is not None and result.error.code == "ABORTED"
    assert not (ws / "ran").exists()


async def test_bash_reports_a_shell_that_cannot_start(tmp_path: Path) -> None:
    ctx = FakeContext(cwd=tmp_path / "vanished")
    with pytest.raises(ToolError, match="cannot start /bin/sh: No such file or directory") as info:
        await call("bash", {"command": "true"}, ctx)
    assert str(tmp_path) not in info.value.message


async def test_write_refuses_unencodable_content(ctx: FakeContext) -> None:
    error = await call_error("write", {"path": "x.txt", "content": "bad \ud800"}, ctx)
    assert error.violations[0].startswith("content:")


async def test_grep_glob_errors_name_the_glob_argument(ctx: FakeContext) -> None:
    error = await call_error("grep", {"pattern": "x", "glob": "../*.py"}, ctx)
    assert error.violations[0].startswith("glob: must not contain '..'")


async def test_bash_timeout_argument_is_bounded() -> None:
    params = TOOLS["bash"].parameters
    assert validate({"command": "x", "timeout_seconds": 601}, params) == ["timeout_seconds: must be <= 600"]
    assert validate({"command": "x", "timeout_seconds": 0}, params) == ["timeout_seconds: must be > 0"]


async def _collect(into: list[ToolResult], awaitable: Any) -> None:
    into.append(await awaitable)


def test_tool_visibility_refuses_an_agent_of_another_host() -> None:
    """The contract lets a plugin pass any Agent; this host resolves scoped
    tools only for its own agents and says so instead of failing deep inside."""
    from harness.tools.registry import ToolRegistry
    from hookspecs.errors import DshError

    class ForeignAgent:
        id = "foreign"
        is_root = True

    registry = ToolRegistry()
    with pytest.raises(DshError, match="tool visibility needs an agent of this host; got ForeignAgent"):
        registry.visible(ForeignAgent())  # type: ignore[arg-type]
