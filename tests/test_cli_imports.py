"""``harness --help`` and each subcommand's ``--help`` load only what they run
(issue 20, item 7): listing commands imports neither the chat, the web stack,
the host nor an LLM adapter."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cli_modules import heavy_in, imported_by


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
