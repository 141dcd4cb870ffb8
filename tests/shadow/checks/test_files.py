"""Edits of unseen files and of files the person protected, in every tool dialect."""

from __future__ import annotations

from pathlib import Path

import pytest

from .dialects import DIALECTS, Answer, Edit, Read, Search, Shell, User, Write, run

pytestmark = pytest.mark.parametrize("dialect", DIALECTS)


# --- an edit or overwrite of a file nothing earlier read, listed or searched -------------------


def test_an_edit_of_an_unseen_file_fires(dialect: str, tmp_path: Path) -> None:
    out = run(dialect, [User("Rename the helper"), Edit("src/util.py"), Answer("Renamed.")], tmp_path)
    finding = out.of("edit-without-read")
    assert finding.verdict == "gap" and "`src/util.py`" in finding.text
    assert out.events[finding.refs[0]].type == "tool/call"


def test_an_edit_after_a_search_showed_the_file_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Rename the helper"),
        Search("helper", "src/util.py:3:def helper():"),
        Edit("src/util.py"),
        Answer("Renamed."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_an_edit_after_a_read_in_an_earlier_turn_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Show me the helper"),
        Read("src/util.py"),
        Answer("Here it is."),
        User("Rename it"),
        Edit("src/util.py"),
        Answer("Renamed."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_a_new_file_is_not_an_overwrite(dialect: str, tmp_path: Path) -> None:
    steps = [User("Add a settings module"), Write("src/settings.py", created=True), Answer("Added.")]
    assert run(dialect, steps, tmp_path).findings == []


def test_a_second_blind_edit_of_the_same_file_is_reported_once(dialect: str, tmp_path: Path) -> None:
    steps = [User("Rename the helper"), Edit("src/util.py"), Edit("src/util.py"), Answer("Renamed.")]
    assert run(dialect, steps, tmp_path).kinds() == ["edit-without-read"]


def test_a_known_overwrite_of_an_unseen_file_fires(dialect: str, tmp_path: Path) -> None:
    if dialect != "claude-code":
        pytest.skip("only Claude Code's Write says whether it replaced a file")
    out = run(
        dialect, [User("Reset the settings"), Write("src/settings.py", created=False), Answer("Rewritten.")], tmp_path
    )
    assert out.kinds() == ["edit-without-read"]


# --- a change to something the person said not to touch ----------------------------------------


def test_an_edit_under_a_protected_directory_fires(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Fix add() in src/app.py but don't touch `tests/`."),
        Read("tests/test_app.py"),
        Edit("tests/test_app.py"),
        Answer("Adjusted the test."),
    ]
    out = run(dialect, steps, tmp_path)
    finding = out.of("touched-protected")
    assert "`tests/`" in finding.text and finding.verdict == "challenge"
    assert out.events[finding.refs[0]].type == "user/message"


def test_a_shell_command_removing_a_protected_file_fires(dialect: str, tmp_path: Path) -> None:
    steps = [User("Clean up, but leave config.yml alone."), Shell("rm config.yml"), Answer("Cleaned up.")]
    assert "touched-protected" in run(dialect, steps, tmp_path).kinds()


def test_edits_elsewhere_are_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Fix add() in src/app.py; do not modify tests/test_app.py."),
        Read("src/app.py"),
        Edit("src/app.py"),
        Read("tests/test_app.py"),
        Answer("Fixed add()."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_a_protection_the_person_lifted_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Don't touch tests/test_app.py for now."),
        Read("tests/test_app.py"),
        Answer("Understood."),
        User("OK, go ahead and update tests/test_app.py too."),
        Edit("tests/test_app.py"),
        Answer("Updated the test."),
    ]
    assert run(dialect, steps, tmp_path).findings == []
