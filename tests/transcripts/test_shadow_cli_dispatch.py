"""``harness shadow`` hands ``review`` / ``hook`` to the host's ``dsh.shadow_cli`` entry points."""

from __future__ import annotations

from importlib import metadata

import pytest

from shadow_mind_plugin import cli


def test_the_installed_host_provides_review_and_hook() -> None:
    actions = cli.host_actions()
    assert actions["review"].value == "harness.transcripts.cli:review_main"
    assert actions["hook"].value == "harness.transcripts.hook:hook_main"


def test_an_action_that_cannot_load_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = metadata.EntryPoint(name="review", value="no_such_module_here:main", group=cli.HOST_ACTIONS_GROUP)
    monkeypatch.setattr(cli, "host_actions", lambda: {"review": broken})
    assert cli.main(["review", "x.jsonl"]) == cli.EXIT_PROBLEMS
    assert capsys.readouterr().err == (
        "harness shadow: cannot load 'review' (no_such_module_here:main): ModuleNotFoundError\n"
    )
