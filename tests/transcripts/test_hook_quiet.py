"""A Stop the plugin will not review costs close to nothing (issue 20, item 2).

When the default Shadow is disabled, or never rolls, the plugin's settings-only
pre-check says no for every turn. The hook keeps that answer with the stamps of
the files it came from (:mod:`harness.transcripts.quiet`), and later Stops on
a grown transcript answer ``{}`` without loading the importers, the host or
the plugin, until one of those files changes. Asserted on ``sys.modules``,
never on time."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from harness.transcripts.hook import state_path

from ..cli_modules import heavy_in, imported_by
from .reviewer import claude_transcript, grow, make_home

_IMPORTERS = {"harness.transcripts.reader", "harness.transcripts.claude_code", "harness.profiles"}


def _stdin(transcript: Path) -> bytes:
    hook = {"session_id": "cc-1", "transcript_path": str(transcript), "cwd": "/nowhere", "hook_event_name": "Stop"}
    return json.dumps({"stop_hook_active": False, **hook}).encode()


def _settle(*paths: Path) -> None:
    """Files written a minute ago: past the window in which a stamp is not trusted."""
    old = time.time() - 60
    for path in paths:
        os.utime(path, (old, old))


def _setup(tmp_path: Path, **home_options: object) -> tuple[Path, Path, Path, tuple[str, ...]]:
    home, profile = make_home(tmp_path, "http://127.0.0.1:9/v1", **home_options)  # type: ignore[arg-type]
    transcript = claude_transcript(tmp_path)
    _settle(profile, home / "shadow-minds" / "default.md")
    return home, profile, transcript, ("shadow", "hook", "claude-code", "--profile", str(profile))


def _stop(tmp_path: Path, argv: tuple[str, ...], home: Path, transcript: Path) -> set[str]:
    run, modules = imported_by(tmp_path, *argv, home=home, stdin=_stdin(transcript))
    assert run.returncode == 0 and json.loads(run.stdout) == {}, run.stderr.decode()
    return modules


def _state(home: Path) -> dict[str, object]:
    return json.loads(state_path(home, "claude-code", "cc-1").read_text())


def test_a_disabled_shadow_is_asked_once_then_grown_transcripts_load_nothing(tmp_path: Path) -> None:
    home, _profile, transcript, argv = _setup(tmp_path, enabled=False)
    first = _stop(tmp_path, argv, home, transcript)
    assert "harness.host" in first  # the plugin itself said no
    assert _state(home)["last_reason_code"] == "SHADOW_DISABLED"
    grow(transcript)
    again = _stop(tmp_path, argv, home, transcript)
    assert heavy_in(again) == [] and not again & _IMPORTERS
    # nor attrs, the contract's values or logging: a bare start, argparse and json
    assert not again & {"attrs", "attr", "hookspecs.values", "logging"}
    state = _state(home)
    assert state["last_skip"] == "quiet" and state["last_reason_code"] == "SHADOW_DISABLED"
    # it saw the grown file: the next Stop on it is "unchanged"
    assert state["seen_size"] == transcript.stat().st_size


def test_a_never_rolling_shadow_is_remembered_too(tmp_path: Path) -> None:
    home, _profile, transcript, argv = _setup(tmp_path, probability=0.0)
    _stop(tmp_path, argv, home, transcript)
    assert _state(home)["last_reason_code"] == "NOT_ROLLED"
    grow(transcript)
    assert heavy_in(_stop(tmp_path, argv, home, transcript)) == []


def test_enabling_the_shadow_makes_the_next_stop_ask_the_plugin_again(tmp_path: Path) -> None:
    home, _profile, transcript, argv = _setup(tmp_path, enabled=False)
    _stop(tmp_path, argv, home, transcript)
    definition = home / "shadow-minds" / "default.md"
    definition.write_text(definition.read_text().replace("enabled: false", "enabled: true"))
    grow(transcript)
    again = _stop(tmp_path, argv, home, transcript)
    assert "harness.host" in again
    assert _state(home)["last_skip"] is None


def test_an_edited_profile_or_a_new_home_patch_makes_the_next_stop_ask_again(tmp_path: Path) -> None:
    home, profile, transcript, argv = _setup(tmp_path, enabled=False)
    _stop(tmp_path, argv, home, transcript)
    profile.write_text(profile.read_text() + "\n")
    grow(transcript)
    assert "harness.host" in _stop(tmp_path, argv, home, transcript)
    _settle(profile)
    (home / "profile.patch.yml").write_text("[]\n")
    grow(transcript, [{"type": "user", "message": {"role": "user", "content": "more"}, "uuid": "u-more"}])
    assert "harness.host" in _stop(tmp_path, argv, home, transcript)


def test_a_fresh_input_file_is_not_trusted(tmp_path: Path) -> None:
    """Modified within the racy window of when it was stamped (here: stamped
    in the future, which no machine load can make older than the window)."""
    home, profile, transcript, argv = _setup(tmp_path, enabled=False)
    soon = time.time() + 30
    os.utime(profile, (soon, soon))
    _stop(tmp_path, argv, home, transcript)
    assert _state(home).get("quiet") is None
