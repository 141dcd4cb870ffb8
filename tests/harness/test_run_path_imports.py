"""What ``harness run`` loads and does before its first model request.

Asserted by behaviour, never by wall time: a scripted ``harness run`` (no
network) is run as a process and the modules it imported are compared with
what its first request needs (``tests/cli_modules.py``); the commands that do
need the modules left out still work (their own tests).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest

from harness.settings.fields import keyed_converter
from hookspecs.errors import DshError
from hookspecs.values.wire import structure

from ..cli_modules import imported_by
from .first_request import OUT_ENV

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


def _config_class(key: str, kind: type) -> Any:
    # one name and qualified name, as two plugins' (or a redefined) config classes have
    return attrs.make_class("Config", {"value": attrs.field(default=None, alias=key, type=kind)}, frozen=True, kw_only=True)


def test_the_shared_converter_keeps_classes_of_one_name_apart() -> None:
    # one converter per process (every host's settings and plugin config): its
    # hooks are made per class object, never per name
    first, second = _config_class("maxItems", int), _config_class("max_items", str)
    assert first.__qualname__ == second.__qualname__
    converter = keyed_converter()
    assert converter.structure({"maxItems": 2}, first) == first(maxItems=2)
    assert converter.structure({"max_items": "x"}, second) == second(max_items="x")
    assert converter.unstructure(first(maxItems=3)) == {"maxItems": 3}
    assert converter.unstructure(second(max_items="y")) == {"max_items": "y"}
    with pytest.raises(DshError, match="unknown field.*max_items"):  # each keeps its own keys
        structure(converter, {"max_items": 2}, first, where="first")
    with pytest.raises(DshError, match=r"expected an integer.*\$\.maxItems"):  # and its own types
        structure(converter, {"maxItems": "2"}, first, where="first")



# --- what a run imports ------------------------------------------------------------------------

#: what ``harness run`` loads only when it needs it: a tool's code at its call, the
#: tool-call pipeline with the first call, a subagent run's pieces with the first
#: child, what writes a compaction when one runs, telemetry when ``DSH_OTEL`` asks
#: for it, difflib for the unknown-hook error
LAZY = (
    *(f"harness.tools.builtin.{tool}" for tool in ("read", "grep", "glob", "write", "edit", "bash", "_walk", "_files")),
    "harness.tools.scheduler",
    "harness.tools.pipeline",
    "harness.tools.workspace",
    "harness.subagents.run",
    "harness.subagents.structured",
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

#: a scripted provider (no network) that records the modules loaded by its first
#: request (:mod:`.first_request`), the agent loop, the subagent tool and the bundle,
#: as the profile of ``bench/cli_startup.py`` routes them to an OpenAI-compatible server
PROFILE = """
- id: llm
  name: "tests.harness.first_request:RecordingLlmPlugin"
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


def _run(tmp_path: Path, script: str) -> tuple[str, set[str], set[str]]:
    """stdout, the modules loaded by the first request, the modules loaded at exit."""
    (tmp_path / "script.yml").write_text(script, encoding="utf-8")
    (tmp_path / "profile.yml").write_text(PROFILE, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello\n", encoding="utf-8")
    first = tmp_path / "first-request.json"
    argv = ("run", "--profile", str(tmp_path / "profile.yml"), "--cwd", str(work), "--json", "What do the notes say?")
    run, modules = imported_by(tmp_path, *argv, home=tmp_path / "home", env={OUT_ENV: str(first)})
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout.decode(), set(json.loads(first.read_text(encoding="utf-8"))), modules


def test_a_run_loads_none_of_it_before_its_first_request(tmp_path: Path) -> None:
    out, before, _ = _run(tmp_path, ANSWER)
    assert "Hello." in out
    assert "harness.tools.builtin.catalog" in before  # the definitions are offered to the model
    # the session checkpoint is written when the run ends, not read at a new session's
    # start; a log's tail is read to append to it (an importer), not to start one
    assert _loaded(before, (*LAZY, "harness.sessions.checkpoint", "harness.sessions.tail")) == []


def test_a_run_answered_without_tools_loads_none_of_it_to_its_end(tmp_path: Path) -> None:
    out, _, modules = _run(tmp_path, ANSWER)
    assert "Hello." in out
    assert _loaded(modules, LAZY) == []


def test_a_tool_call_loads_that_tools_code_only(tmp_path: Path) -> None:
    out, _, modules = _run(tmp_path, READ_THEN_ANSWER)
    assert "It says hello." in out and "hello" in out
    assert {"harness.tools.builtin.read", "harness.tools.scheduler", "harness.tools.pipeline"} <= modules
    others = tuple(f"harness.tools.builtin.{tool}" for tool in ("grep", "glob", "write", "edit", "bash"))
    assert _loaded(modules, others) == []


# --- the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["run", "hi"], ["chat"], ["serve"], ["plugins"]], ids=" ".join)
def test_a_profile_given_before_the_command_is_kept(command: list[str]) -> None:
    # argparse lets a subcommand's defaults replace what came before it: the
    # profile and the patch were dropped, and the run used the default profile
    import harness.cli as cli

    parse = cli.build_parser().parse_args
    args = parse(["--profile", "p.yml", "--patch", "x.yml", *command])
    assert (args.profile, args.patch) == ("p.yml", ["x.yml"])
    args = parse([*command, "--profile", "q.yml"])
    assert (args.profile, args.patch) == ("q.yml", None)
    args = parse(command)
    assert (args.profile, args.patch) == (None, None)


@pytest.mark.parametrize("command", [["run", "hi"], ["chat"], ["serve"], ["plugins"]], ids=" ".join)
def test_patches_given_before_and_after_the_command_all_apply(command: list[str], tmp_path: Path) -> None:
    # --patch is repeatable: the command's own list replaced the one given before it
    import harness.cli as cli
    from harness.cli.profile_args import load_profile

    (tmp_path / "p.yml").write_text("- {id: a, name: scripted-llm}\n")
    for name in ("x", "y", "z"):
        (tmp_path / f"{name}.yml").write_text("[]\n")
    argv = ["--profile", str(tmp_path / "p.yml"), "--patch", str(tmp_path / "x.yml"), *command]
    argv += ["--patch", str(tmp_path / "y.yml"), "--patch", str(tmp_path / "z.yml")]
    composed = load_profile(cli.build_parser().parse_args(argv), tmp_path)
    assert composed is not None
    assert [layer for layer in composed.layers if layer.startswith("patch:")] == [
        f"patch:{tmp_path / name}.yml" for name in ("x", "y", "z")
    ]


def test_the_host_asks_for_telemetry_by_the_packages_own_switch() -> None:
    # the host checks the variable before it loads the package that defines it
    from harness.core_plugin import TELEMETRY_ENV
    from harness.telemetry import ENABLE_ENV

    assert TELEMETRY_ENV == ENABLE_ENV
