"""The offline example profile, run as a user would: two `harness run`
processes in one temporary DSH_HOME. The first conversation ends with a
review that keeps a memory note and a skill; the second starts with the note."""

from __future__ import annotations

import subprocess
from pathlib import Path

from .helpers import ROOT, harness_cli

PROFILE = "examples/profiles/evolution-scripted.yml"


def run(home: Path, prompt: str) -> subprocess.CompletedProcess[str]:
    return harness_cli(ROOT, home, "run", "--profile", PROFILE, prompt)


def test_the_example_keeps_a_note_and_a_skill_and_the_next_session_loads_the_note(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = run(home, "The test suite is flaky; find out why. And please answer in French next time.")
    assert first.returncode == 0, first.stderr
    assert "💾 Self-improvement review: 1 memory note saved; skill flaky-tests saved." in first.stdout
    assert (home / "memory" / "USER.md").read_text() == "Prefers answers in French.\n"
    assert "# Flaky tests" in (home / "skills" / "flaky-tests" / "SKILL.md").read_text()

    second = run(home, "Hello again")
    assert second.returncode == 0, second.stderr
    assert "Je me souviens que vous préférez le français" in second.stdout


def test_the_side_by_side_profile_composes_both_plugins(tmp_path: Path) -> None:
    proc = harness_cli(
        ROOT, tmp_path / "home", "--profile", "examples/profiles/evolution-deepseek.yml", "--dump-config"
    )
    assert proc.returncode == 0, proc.stderr
    assert "name: evolution-review" in proc.stdout and "name: shadow-mind-runtime" in proc.stdout
