"""What ``harness run`` loads and does before its first model request.

Asserted by behaviour, never by wall time: a scripted ``harness run`` (no
network) is run as a process and the modules it imported are compared with
what its first request needs (``tests/cli_modules.py``); the commands that do
need the modules left out still work (their own tests).
"""

from __future__ import annotations

from pathlib import Path

import attrs

from harness.settings.fields import keyed_converter

from ..cli_modules import imported_by

# --- one converter, each schema's structuring code generated once ------------------------------


@attrs.frozen(kw_only=True)
class _Keyed:
    window_size: int = attrs.field(default=1, alias="windowSize")


@attrs.frozen(kw_only=True)
class _Plain:
    sizes: dict[str, int] = attrs.field(factory=dict)
    names: tuple[str, ...] = ()


def test_a_keyed_schema_keeps_its_structure_hook_when_the_converter_makes_another() -> None:
    # cattrs forgets every cached hook when it makes one for a mapping (or, to
    # unstructure, a tuple): the keyed class's code was generated again (the
    # shadow-mind settings' twice in every run)
    converter = keyed_converter()
    first = converter.get_structure_hook(_Keyed)
    assert converter.structure({"windowSize": 2}, _Keyed) == _Keyed(windowSize=2)
    assert converter.structure({"sizes": {"a": 3}}, _Plain) == _Plain(sizes={"a": 3})
    assert converter.get_structure_hook(_Keyed) is first
    unstructure = converter.get_unstructure_hook(_Keyed)
    assert converter.unstructure(_Plain(names=("x",))) == {"sizes": {}, "names": ["x"]}
    assert converter.get_unstructure_hook(_Keyed) is unstructure



# --- what a run imports ------------------------------------------------------------------------

#: what ``harness run`` loads only when it needs it: a tool's code at its call, the
#: tool-call pipeline with the first call, what writes a compaction when one runs,
#: telemetry when ``DSH_OTEL`` asks for it, difflib for the unknown-hook error
LAZY = (
    *(f"harness.tools.builtin.{tool}" for tool in ("read", "grep", "glob", "write", "edit", "bash", "_walk", "_files")),
    "harness.tools.scheduler",
    "harness.tools.pipeline",
    "harness.tools.workspace",
    "harness.compaction.commit",
    "harness.compaction.summarize",
    "harness.telemetry",
    "difflib",
)

#: a reply per request, in order: a ``read`` call then an answer, or the answer alone
READ_THEN_ANSWER = """
models: [{id: m, context_window: 64000}]
responses:
  - reply: {text: "Let me look.", tool_calls: [{name: read, arguments: '{"path": "notes.txt"}'}]}
  - reply: {text: "It says hello."}
"""
ANSWER = """
models: [{id: m, context_window: 64000}]
responses:
  - reply: {text: "Hello."}
"""

#: a scripted provider (no network), the agent loop, the subagent tool and the bundle, as
#: the profile of ``bench/cli_startup.py`` routes them to an OpenAI-compatible server
PROFILE = """
- id: llm
  name: scripted-llm
  config: {script: script.yml}
- id: agent-loop
  name: agent-loop
  config: {model: scripted/m}
- id: tool-subagent
  name: tool-subagent
- bundle: shadow-mind
"""


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def _run(tmp_path: Path, script: str) -> tuple[str, set[str]]:
    (tmp_path / "script.yml").write_text(script, encoding="utf-8")
    (tmp_path / "profile.yml").write_text(PROFILE, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello\n", encoding="utf-8")
    argv = ("run", "--profile", str(tmp_path / "profile.yml"), "--cwd", str(work), "--json", "What do the notes say?")
    run, modules = imported_by(tmp_path, *argv, home=tmp_path / "home")
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout.decode(), modules


def test_a_run_answered_without_tools_loads_no_tool_code_compaction_writer_or_telemetry(tmp_path: Path) -> None:
    out, modules = _run(tmp_path, ANSWER)
    assert "Hello." in out
    assert "harness.tools.builtin.catalog" in modules  # the definitions are offered to the model
    assert _loaded(modules, LAZY) == []


def test_a_tool_call_loads_that_tools_code_only(tmp_path: Path) -> None:
    out, modules = _run(tmp_path, READ_THEN_ANSWER)
    assert "It says hello." in out and "hello" in out
    assert {"harness.tools.builtin.read", "harness.tools.scheduler", "harness.tools.pipeline"} <= modules
    others = tuple(f"harness.tools.builtin.{tool}" for tool in ("grep", "glob", "write", "edit", "bash"))
    assert _loaded(modules, others) == []
