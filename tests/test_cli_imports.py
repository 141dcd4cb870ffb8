"""``harness --help`` and each subcommand's ``--help`` load only what they run
(issue 20, item 7): listing commands imports neither the chat, the web stack,
the host nor an LLM adapter."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cli_modules import heavy_in, imported_by, imported_by_a_served_run


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("run", "--help"),
        ("serve", "--help"),
        ("demo", "--help"),
        ("sessions", "--help"),
        ("sessions", "list"),
        ("shadow", "--help"),
        ("shadow", "review", "--help"),
        ("shadow", "hook", "--help"),
    ],
    ids=lambda a: " ".join(a),
)
def test_help_imports_no_command_it_does_not_run(tmp_path: Path, argv: tuple[str, ...]) -> None:
    run, modules = imported_by(tmp_path, *argv, home=tmp_path / "home")
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert modules, "the wrapper wrote no module list"
    assert heavy_in(modules) == []


def test_chat_help_loads_no_web_stack(tmp_path: Path) -> None:
    run, modules = imported_by(tmp_path, "chat", "--help", home=tmp_path / "home")
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert not {m for m in modules if m.startswith(("harness.web", "starlette", "hypercorn", "httpx"))}


def test_run_and_demo_load_no_terminal_chat(tmp_path: Path) -> None:
    """rich renders the chat's Markdown; a headless run or demo never loads it."""
    for argv in (("run", "--profile", "examples/profiles/scripted-hello.yml", "What is this project?"), ("demo",)):
        run, modules = imported_by(tmp_path, *argv, home=tmp_path / "home")
        assert run.returncode == 0, run.stderr.decode()[-2000:]
        assert not {m for m in modules if m.startswith(("rich", "harness.cli.chat", "harness.cli.markdown"))}, argv
#: what ``harness --help`` loads no more: the event loop, the contract's values
#: and their converters, the YAML reader and the detector's rule patterns are
#: for commands that run; entry points are read without ``importlib.metadata``
#: (and its e-mail parser), extension help lines without ``ast`` unless printed,
#: and the secret detector loads only to scrub an error
NOT_FOR_HELP = (
    "trio",
    "cattrs",
    "ruamel",
    "hookspecs.values",
    "harness.profiles",
    "httpx",
    "importlib.metadata",
    "email",
    "hookspecs.scrub",
    "hookspecs.secrets_detect",
)


def test_help_loads_no_runtime(tmp_path: Path) -> None:
    run, modules = imported_by(tmp_path, "--help", home=tmp_path / "home")
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert sorted(m for m in modules if m.startswith(NOT_FOR_HELP)) == []


#: what ``harness run`` never needs to make its request: the terminal chat and
#: its input, the web stack, the scripted provider of a profile that does not
#: route to it, the transcript importer, the evaluation harness, and the Shadow
#: Mind's review pipeline and evidence checks (a turn without tool calls admits
#: no review and fires no check). Nor, since such a turn schedules no review,
#: the Shadow Mind's stages (built at a report, a turn that used tools or a
#: control), its definitions, projection, prompt builder, card rendering,
#: ``/shadow`` command and management tools; nor HTTP/2 (the adapter speaks
#: HTTP/1.1), anyio (the host runs on trio) or ``importlib.metadata``; nor
#: httpx and what it loaded (the adapter has its own client, on h11), nor a CA
#: bundle for a plain-http endpoint, nor the e-mail date parser (for a
#: ``Retry-After`` date only)
NOT_FOR_RUN = (
    "harness.cli.chat",
    "harness.cli.chat_input",
    "harness.web",
    "starlette",
    "hypercorn",
    "rich",
    "prompt_toolkit",
    "harness.llm.scripted",
    "harness.llm.script",
    "harness.transcripts",
    "harness.evaluation",
    "shadow_mind_plugin.run.pipeline",
    "shadow_mind_plugin.checks",
    "shadow_mind_plugin.governance",
    "shadow_mind_plugin.definitions",
    "shadow_mind_plugin.coordination",
    "shadow_mind_plugin.output",
    "shadow_mind_plugin.core",
    "shadow_mind_plugin.trigger.trigger_stage",
    "shadow_mind_plugin.trigger.budget",
    "shadow_mind_plugin.run.run_stage",
    "shadow_mind_plugin.runtime.controls",
    "shadow_mind_plugin.runtime.owners",
    "shadow_mind_plugin.projection",
    "shadow_mind_plugin.prompt",
    "shadow_mind_plugin.commands",
    "shadow_mind_plugin.management",
    "h2",
    "hpack",
    "hyperframe",
    "anyio",
    "importlib.metadata",
    "httpx",
    "httpcore",
    "http.client",
    "urllib.request",
    "certifi",
    "email",
)


async def test_run_loads_only_what_its_request_needs(tmp_path: Path) -> None:
    run, modules, requests = await imported_by_a_served_run(tmp_path)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert requests == 1
    assert sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_FOR_RUN)) == []


#: reports whether the cyclic collector runs again after the command (``main``
#: returns or raises) and whether start-up's objects were frozen out of it
_GC_PROBE = """
import gc, sys
from harness.cli import main
try:
    code = main(sys.argv[1:])
finally:
    print("gc", gc.isenabled(), gc.get_freeze_count() > 0, file=sys.stderr)
sys.exit(code)
"""


@pytest.mark.parametrize(
    ("argv", "frozen"),
    [
        (("run", "--profile", "examples/profiles/scripted-hello.yml", "What is this project?"), True),
        (("run", "--profile", "examples/profiles/scripted-hello.yml", "--cwd", "/nonexistent/dir", "hi"), True),
        (("run", "--profile", "no-such-profile", "hi"), True),
        # a server has no end of start-up to resume at: never paused
        (("serve", "--profile", "examples/profiles/scripted-hello.yml", "--port", "70000"), False),
    ],
    ids=["run", "bad-cwd", "bad-profile", "serve"],
)
def test_start_up_pauses_the_collector_and_always_resumes_it(
    tmp_path: Path, argv: tuple[str, ...], frozen: bool
) -> None:
    """Start-up builds what lives to the end of the process; the collector is
    paused while it does and runs again once the root is attached, or when the
    command fails before that."""
    import subprocess
    import sys

    from .cli_env import cli_env
    from .cli_modules import REPO

    run = subprocess.run(
        [sys.executable, "-c", _GC_PROBE, *argv],
        cwd=REPO,
        env=cli_env(DSH_HOME=str(tmp_path / "home")),
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert f"gc True {frozen}" in run.stderr.decode(), run.stderr.decode()[-2000:]


def test_a_collector_turned_off_elsewhere_stays_off() -> None:
    import gc

    from harness.cli.common import pause_collection, resume_collection

    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        pause_collection()
        resume_collection()
        assert not gc.isenabled()
        assert gc.get_freeze_count() == frozen  # nothing frozen either
    finally:
        gc.enable()
