"""Paths in a profile resolve against the profile file's directory, not the
working directory: ``harness serve --profile shadow_mind_plugin/demo/profile.yml``
works from anywhere (issue 21, item 10)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.plugins import load_plugins, make_plugin_manager
from harness.profiles import compose_profile
from hookspecs.errors import DshError

from ..cli_env import cli_env

REPO = Path(__file__).resolve().parents[2]
SCRIPT = "models: [{id: m}]\nresponses:\n  - match: {}\n    repeat: true\n    reply: {text: hi}\n"


def scripts_of(rows: object) -> list[str]:
    loaded = load_plugins(make_plugin_manager(), rows)  # type: ignore[arg-type]
    return [str(p.instance.adapter.script.source) for p in loaded if p.plugin_name == "scripted-llm"]


def test_a_relative_script_is_found_beside_the_profile_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "script.yml").write_text(SCRIPT)
    profile = tmp_path / "conf" / "profile.yml"
    profile.write_text("- {id: llm, name: scripted-llm, config: {script: script.yml}}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    composed = compose_profile(os.path.relpath(profile, elsewhere), dsh_home=tmp_path / "home")
    assert scripts_of(composed.rows) == [str(tmp_path / "conf" / "script.yml")]


def test_each_layer_resolves_against_its_own_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A patch that replaces the config names paths relative to the patch; a
    patch that only disables or renames keeps the profile's base; ``~`` and
    absolute paths are taken as they are."""
    home = tmp_path / "home"
    home.mkdir()
    for where in ("conf", "patches"):
        (tmp_path / where).mkdir()
        (tmp_path / where / "s.yml").write_text(SCRIPT)
    profile = tmp_path / "conf" / "profile.yml"
    profile.write_text(
        "- {id: a, name: scripted-llm, config: {script: s.yml, provider: a}}\n"
        "- {id: b, name: scripted-llm, config: {script: s.yml, provider: b}}\n"
        f"- {{id: c, name: scripted-llm, config: {{script: {tmp_path / 'conf' / 's.yml'}, provider: c}}}}\n"
    )
    patch = tmp_path / "patches" / "p.yml"
    patch.write_text("- {id: a, config: {script: s.yml, provider: a}}\n- {id: b, disabled: false}\n")
    monkeypatch.chdir(home)
    monkeypatch.setenv("HOME", str(tmp_path))
    composed = compose_profile(profile, dsh_home=home, patches=[patch])
    assert scripts_of(composed.rows) == [
        str(tmp_path / "patches" / "s.yml"),
        str(tmp_path / "conf" / "s.yml"),
        str(tmp_path / "conf" / "s.yml"),
    ]
    home_patch = home / "profile.patch.yml"
    home_patch.write_text("- {id: c, config: {script: ~/conf/s.yml, provider: c}}\n")
    composed = compose_profile(profile, dsh_home=home)
    assert scripts_of(composed.rows)[2] == str(tmp_path / "conf" / "s.yml")


def test_a_missing_script_is_named_with_the_resolved_path(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yml"
    profile.write_text("- {id: llm, name: scripted-llm, config: {script: nowhere.yml}}\n")
    with pytest.raises(DshError, match=str(tmp_path / "nowhere.yml")):
        scripts_of(compose_profile(profile, dsh_home=tmp_path / "home").rows)


def test_the_demo_profile_loads_from_the_repository_root(tmp_path: Path) -> None:
    """The reported failure: ``--profile shadow_mind_plugin/demo/profile.yml``
    looked for script.yml in the working directory."""
    run = subprocess.run(
        [sys.executable, "-m", "harness", "plugins", "--profile", "shadow_mind_plugin/demo/profile.yml"],
        cwd=REPO,
        env=cli_env(DSH_HOME=str(tmp_path / "home")),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "llm (scripted-llm" in run.stdout


def test_an_unknown_users_home_is_a_clear_error_not_a_crash(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yml"
    profile.write_text("- {id: llm, name: scripted-llm, config: {script: ~no-such-user-dsh/s.yml}}\n")
    with pytest.raises(DshError, match="no-such-user-dsh"):
        scripts_of(compose_profile(profile, dsh_home=tmp_path / "home").rows)
