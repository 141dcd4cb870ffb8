"""CLI subprocesses in tests never inherit the developer's ``DSH_*`` settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.harness import test_cli, test_cli_extensions


@pytest.fixture
def developer_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DSH_DISABLED_PLUGINS", "scripted-llm,agent-loop")
    monkeypatch.setenv("DSH_PROFILE", str(tmp_path / "no-such-profile.yml"))


@pytest.mark.usefixtures("developer_environment")
def test_a_cli_run_ignores_the_developers_dsh_settings(tmp_path: Path) -> None:
    run = test_cli.harness("run", "--profile", "examples/profiles/scripted-hello.yml", "hi", home=tmp_path / "home")
    assert run.returncode == 0, run.stderr
    assert "this project is Shadow Mind for Python" in run.stdout


@pytest.mark.usefixtures("developer_environment")
def test_an_extension_run_ignores_the_developers_dsh_settings(tmp_path: Path) -> None:
    run = test_cli_extensions.harness("plugins", "--profile", "examples/profiles/scripted-hello.yml", tmp_path=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "scripted-llm" in run.stdout and "blocked" not in run.stdout
