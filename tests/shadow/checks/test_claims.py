"""Claims in the final answer against the turn's tool results, in every tool dialect."""

from __future__ import annotations

from pathlib import Path

import pytest

from .dialects import DIALECTS, Answer, Edit, Read, Shell, User, run

pytestmark = pytest.mark.parametrize("dialect", DIALECTS)


# --- success claimed after the last check command failed -----------------------------------


def test_tests_pass_claimed_after_a_failing_run_fires(dialect: str, tmp_path: Path) -> None:
    out = run(
        dialect,
        [
            User("Fix add() in src/app.py"),
            Read("src/app.py"),
            Edit("src/app.py"),
            Shell("pytest -q", 1, "1 failed"),
            Answer("All tests pass now."),
        ],
        tmp_path,
    )
    finding = out.of("unverified-success")
    assert finding.verdict == "challenge"
    call, result, answer = finding.refs
    assert (out.events[call].type, out.events[result].type, out.events[answer].type) == (
        "tool/call",
        "tool/result",
        "assistant/message",
    )
    assert "`pytest -q`" in finding.text and f"seq {call}" in finding.text and "All tests pass now." in finding.text


def test_a_failing_run_rerun_green_before_the_claim_is_silent(dialect: str, tmp_path: Path) -> None:
    out = run(
        dialect,
        [
            User("Fix add() in src/app.py"),
            Read("src/app.py"),
            Shell("pytest -q", 1, "1 failed"),
            Edit("src/app.py"),
            Shell("pytest -q tests/test_app.py", 0, "3 passed"),
            Answer("All tests pass now."),
        ],
        tmp_path,
    )
    assert out.findings == []


def test_an_answer_that_says_the_tests_still_fail_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Fix add()"),
        Read("src/app.py"),
        Shell("pytest -q", 1, "1 failed"),
        Answer("The tests still fail: the fixture is missing."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_lint_claimed_clean_after_a_failing_lint_fires(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Tidy the imports"),
        Shell("pytest -q", 0, "3 passed"),
        Shell("ruff check .", 1, "F401 unused"),
        Answer("Tests pass and lint is clean."),
    ]
    out = run(dialect, steps, tmp_path)
    assert out.kinds() == ["unverified-success"]
    assert "lint passes" in out.of("unverified-success").text and "`ruff check .`" in out.of("unverified-success").text


def test_a_generic_fixed_after_a_failing_build_fires(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("The build is broken"),
        Read("src/app.py"),
        Edit("src/app.py"),
        Shell("npm run build", 2, "error TS2304"),
        Answer("Fixed."),
    ]
    out = run(dialect, steps, tmp_path)
    assert out.kinds() == ["unverified-success"]
    assert "it is fixed" in out.of("unverified-success").text


def test_a_failure_in_an_earlier_turn_is_not_this_turns_claim(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Run the tests"),
        Shell("pytest -q", 1, "1 failed"),
        Answer("One test fails."),
        User("Thanks, explain add()"),
        Read("src/app.py"),
        Answer("All tests pass in CI per the badge."),
    ]
    assert "unverified-success" not in run(dialect, steps, tmp_path).kinds()


# --- a change claimed without a successful write -----------------------------------------------


def test_a_change_claimed_after_a_failed_edit_fires(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Make add() correct"),
        Read("src/app.py"),
        Edit("src/app.py", ok=False),
        Answer("I updated `src/app.py` so add() adds."),
    ]
    out = run(dialect, steps, tmp_path)
    finding = out.of("unbacked-change")
    assert "`src/app.py`" in finding.text and finding.verdict == "challenge"
    assert out.events[finding.refs[0]].type == "tool/call"  # the failed edit is cited
    assert "done-after-error" not in out.kinds()  # the same failure, reported once


def test_a_change_claimed_after_a_successful_edit_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Make add() correct"),
        Read("src/app.py"),
        Edit("src/app.py", ok=False),
        Edit("src/app.py"),
        Answer("I updated `src/app.py` so add() adds."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_a_change_by_a_shell_command_naming_the_file_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Bump the version"),
        Read("pyproject.toml"),
        Shell("sed -i s/0.1/0.2/ pyproject.toml"),
        Answer("Updated pyproject.toml to 0.2."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


# --- done right after an unaddressed tool error ------------------------------------------------


def test_done_after_a_failed_edit_fires(dialect: str, tmp_path: Path) -> None:
    steps = [User("Make add() correct"), Read("src/app.py"), Edit("src/app.py", ok=False), Answer("Done.")]
    out = run(dialect, steps, tmp_path)
    assert out.kinds() == ["done-after-error"]
    assert "no later call retried" in out.of("done-after-error").text


def test_done_after_a_failed_command_and_only_a_look_fires(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Install the deps"),
        Shell("pip install -r requirements.txt", 1, "no matching distribution"),
        Shell("ls"),
        Answer("All set, everything is installed."),
    ]
    assert run(dialect, steps, tmp_path).kinds() == ["done-after-error"]


def test_a_run_rerun_green_through_a_task_runner_is_silent(dialect: str, tmp_path: Path) -> None:
    # `just check` runs the tests: the failed pytest before it is superseded, not the last word
    steps = [
        User("Run just check and fix what fails"),
        Shell("python -m pytest tests/", 1, "FAIL Required test coverage of 100% not reached."),
        Read("tests/test_app.py"),
        Edit("tests/test_app.py"),
        Shell("just check", 0, "1 passed"),
        Answer("The quality checks now pass. I fixed the test to call the function."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_done_after_a_command_that_had_nothing_to_do_is_silent(dialect: str, tmp_path: Path) -> None:
    # git commit exits 1 on a clean tree: nothing was left undone
    steps = [
        User("Commit the gitignore"),
        Shell(
            "git add .gitignore && git commit -m 'Ignore caches'",
            1,
            "On branch master\nnothing to commit, working tree clean",
        ),
        Answer("The `.gitignore` was already committed. The task is complete."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_done_after_the_error_was_retried_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Make add() correct"),
        Read("src/app.py"),
        Edit("src/app.py", ok=False),
        Read("src/app.py"),
        Edit("src/app.py"),
        Answer("Done."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_done_after_a_failed_look_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Is there a config?"),
        Read("config.yml", ok=False),
        Read("src/app.py"),
        Answer("Done: there is no config file; defaults live in the code."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_done_that_admits_the_error_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Make add() correct"),
        Read("src/app.py"),
        Edit("src/app.py", ok=False),
        Answer("Done with the review, but the edit failed; please apply it by hand."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_a_sentence_naming_tests_without_claiming_a_result_is_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Cover the edge case"),
        Read("tests/test_app.py"),
        Shell("pytest -q", 1, "1 failed"),
        Answer("I wrote a test for the passing case."),
    ]
    assert "unverified-success" not in run(dialect, steps, tmp_path).kinds()
