"""The live knobs over the real host: ``/evolution config`` and the web
settings tab change them in a running session and the next turn boundary uses
them; invalid values and deployment-owned keys are refused in one line naming
the field, and the old value stays."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from evolution_review_plugin.live import DEPLOYMENT_KEYS, LIVE_KEYS, LIVE_NAMESPACE
from evolution_review_plugin.prompts import COMPLETION_SKILL_REVIEW_PROMPT, review_prompt
from evolution_review_plugin.settings_tab import DEPLOYMENT_LABELS
from evolution_review_plugin.vocabulary import REVIEW_ERROR
from harness.web.forms import field_payload, find_tab, load_form, save_form

from .helpers import evolution_host, harness_cli, reviews, say, scripted_profile

SCRIPT = "responses:\n  - match: {}\n    repeat: true\n    reply: {text: ok}\n"
#: every real message of a few words counts 1; nothing fires at 50
CONFIG = {"reviewMode": "inject", "reviewMemoryInterval": 50, "reviewSkillInterval": 50, "substantiveMinUserChars": 5}


async def run(host: Any, agent: Any, line: str) -> tuple[str, str]:
    result = await host.commands.execute(agent, line)
    assert result is not None
    return result.kind, result.text


def plugin_of(host: Any) -> Any:
    return host.pm.get_plugin("evolution-review")


async def test_a_live_interval_change_applies_at_the_next_boundary_and_persists(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        await say(host, agent, "hello there, a question")
        assert reviews(agent) == []
        kind, text = await run(host, agent, "/evolution config reviewMemoryInterval 2")
        assert (kind, text) == ("success", "reviewMemoryInterval: 2 (from the next turn boundary on)")
        # the window already holds 1; this turn makes 2 and fires at the new interval
        await say(host, agent, "and a second question")
        assert reviews(agent) == [review_prompt("memory")]
        assert (await run(host, agent, "/evolution config reviewMemoryInterval"))[1] == "reviewMemoryInterval: 2 (settings)"
    document = YAML(typ="safe").load((dsh_home / "settings.yaml").read_text())
    assert document[LIVE_NAMESPACE] == {"reviewMemoryInterval": 2}
    # the next start keeps the change
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        assert plugin_of(host).live.knobs().review_memory_interval == 2


async def test_an_invalid_live_value_is_refused_naming_the_field_and_the_old_value_stays(
    dsh_host: Any, dsh_home: Path
) -> None:
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        for line, why in [
            ("/evolution config reviewMemoryInterval 0", "reviewMemoryInterval must be an integer >= 1, got 0"),
            ("/evolution config reviewMemoryInterval 2.5", "reviewMemoryInterval"),
            ("/evolution config reviewMemoryInterval true", "reviewMemoryInterval: expected an integer"),
            ("/evolution config reviewMode later", "reviewMode"),
            ("/evolution config reviewEnabled maybe", "reviewEnabled"),
        ]:
            kind, text = await run(host, agent, line)
            assert kind == "error" and why in text, (line, text)
            assert "\n" not in text
        kind, text = await run(host, agent, "/evolution config reviewMemoryInterval 0")
        assert text.endswith("; reviewMemoryInterval stays 50")
        knobs = plugin_of(host).live.knobs()
        assert (knobs.review_memory_interval, knobs.review_mode, knobs.review_enabled) == (50, "inject", True)
    assert not (dsh_home / "settings.yaml").exists()  # nothing was written


async def test_deployment_owned_and_deprecated_keys_are_refused_live(dsh_host: Any, dsh_home: Path) -> None:
    async with evolution_host(dsh_host, SCRIPT, reviewTimeoutMs=5000, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        kind, text = await run(host, agent, "/evolution config reviewTimeoutMs 10")
        assert kind == "error" and text.startswith("reviewTimeoutMs is deployment-owned: it is read once at start")
        kind, text = await run(host, agent, "/evolution config memoryInterval 3")
        assert (kind, text) == ("error", "memoryInterval is deprecated and read-only; set reviewMemoryInterval instead")
        kind, text = await run(host, agent, "/evolution config noSuchKnob 3")
        assert kind == "error" and "unknown setting 'noSuchKnob'" in text
        assert (await run(host, agent, "/evolution config reviewTimeoutMs"))[1] == (
            "reviewTimeoutMs: 5000 (deployment-owned, read at start)"
        )
        kind, listing = await run(host, agent, "/evolution config")
        assert kind == "success"
        live_part, owned_part = listing.split("deployment-owned")
        assert all(f"  {key}: " in live_part for key in LIVE_KEYS)
        assert all(f"  {key}: " in owned_part for key in DEPLOYMENT_KEYS)
        assert "  reviewMemoryInterval: 50 (profile)" in live_part and "  reviewTimeoutMs: 5000" in owned_part
        # the generic settings service refuses them too (they are not in the namespace)
        with pytest.raises(Exception, match="reviewTimeoutMs: unknown field"):
            from hookspecs.values import SettingsOp

            await host.settings.mutate(LIVE_NAMESPACE, [SettingsOp.set("reviewTimeoutMs", 10)])
    assert not (dsh_home / "settings.yaml").exists()


async def test_none_restores_the_profile_value(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        agent = await dsh_host.new_root(host)
        await run(host, agent, "/evolution config reviewMode subagent")
        assert plugin_of(host).live.knobs().review_mode == "subagent"
        kind, text = await run(host, agent, "/evolution config reviewMode none")
        assert (kind, text) == ("success", 'reviewMode: "inject" (back to the profile\'s value)')
        assert plugin_of(host).live.sources()["reviewMode"] == "profile"


async def test_switching_the_review_off_and_on_live(dsh_host: Any) -> None:
    config = {**CONFIG, "reviewMemoryInterval": 1}
    async with evolution_host(dsh_host, SCRIPT, **config) as (host, _):
        agent = await dsh_host.new_root(host)
        await run(host, agent, "/evolution config reviewEnabled false")
        await say(host, agent, "hello there, a question")
        assert reviews(agent) == []  # off: nothing counted, nothing delivered
        await run(host, agent, "/evolution config reviewEnabled true")
        await say(host, agent, "and a second question")
        assert reviews(agent) == [review_prompt("memory")]


async def test_wake_off_live_delivers_with_inject(dsh_host: Any) -> None:
    config = {**CONFIG, "reviewMemoryInterval": 1}
    async with evolution_host(dsh_host, SCRIPT, **config) as (host, _):
        agent = await dsh_host.new_root(host)
        await run(host, agent, "/evolution config reviewWakeInject false")
        await say(host, agent, "hello there, a question")
        # inject does not wake: the prompt waits in the inbox for the next message
        assert reviews(agent) == []
        await say(host, agent, "and a second question")
        assert reviews(agent)[:1] == [review_prompt("memory")]


async def test_the_web_settings_tab_edits_live_knobs_and_shows_the_deployment_ones(dsh_host: Any) -> None:
    async with evolution_host(dsh_host, SCRIPT, **CONFIG) as (host, _):
        tab = find_tab(host, LIVE_NAMESPACE)
        assert tab.title == "Self-improvement review"
        form = await load_form(host, tab)
        fields = {f.key: field_payload(f) for f in form.fields}
        assert list(fields) == list(LIVE_KEYS)
        assert fields["reviewMode"]["widget"] == "select" and fields["reviewMode"]["value"] == "inject"
        assert fields["reviewEnabled"]["widget"] == "switch" and fields["reviewMemoryInterval"]["value"] == 50
        # labels, not raw keys: the form is read by people
        [note] = form.notes
        assert note.startswith("Set by the deployment") and not any(key in note for key in DEPLOYMENT_KEYS)
        assert all(label in note for label in DEPLOYMENT_LABELS.values()) and set(DEPLOYMENT_LABELS) == set(DEPLOYMENT_KEYS)
        options = {f.key: [o["label"] for o in field_payload(f)["options"]] for f in form.fields}
        assert options["reviewMode"] == ["Subagent (a separate review)", "Inject (into the conversation)"]
        assert options["skillReviewTrigger"] == ["On a cadence", "On completion", "Both"]
        assert all(field_payload(f)["label"] != f.key for f in form.fields)

        assert await save_form(host, tab, {"reviewMemoryInterval": 0, "reviewMode": "subagent"}) == {
            "reviewMemoryInterval": "evolution-review-live.reviewMemoryInterval: reviewMemoryInterval must be an integer >= 1, got 0"
        }
        assert plugin_of(host).live.knobs().review_mode == "inject"  # nothing written
        refused = await save_form(host, tab, {"reviewTimeoutMs": 10})
        assert list(refused) == ["reviewTimeoutMs"] and "deployment-owned" in refused["reviewTimeoutMs"]

        assert await save_form(host, tab, {"reviewMemoryInterval": 3, "reviewWakeInject": False}) == {}
        knobs = plugin_of(host).live.knobs()
        assert (knobs.review_memory_interval, knobs.review_wake_inject) == (3, False)
        reloaded = {f.key: f for f in (await load_form(host, tab)).fields}
        assert reloaded["reviewMemoryInterval"].value == 3
        assert "the profile's value is 50" in reloaded["reviewMemoryInterval"].hint.help
        assert await save_form(host, tab, {"reviewMemoryInterval": None}) == {}
        assert plugin_of(host).live.knobs().review_memory_interval == 50


def _cli(tmp_path: Path, line: str) -> subprocess.CompletedProcess[str]:
    return harness_cli(tmp_path, tmp_path / "home", "run", "--profile", str(tmp_path / "profile.yml"), line)


def test_the_terminal_changes_a_knob_for_the_next_start_and_refuses_bad_ones(tmp_path: Path) -> None:
    scripted_profile(tmp_path, "{reviewMode: inject, reviewMemoryInterval: 50}", SCRIPT)
    bad = _cli(tmp_path, "/evolution config reviewMemoryInterval 0")
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [
        "evolution-review-live.reviewMemoryInterval: reviewMemoryInterval must be an integer >= 1, got 0; "
        "reviewMemoryInterval stays 50"
    ]
    owned = _cli(tmp_path, "/evolution config reviewMaxDepth 2")
    assert owned.returncode == 1 and "reviewMaxDepth is deployment-owned" in owned.stderr
    good = _cli(tmp_path, "/evolution config reviewMemoryInterval 3")
    assert good.returncode == 0, good.stderr
    assert good.stdout.strip() == "reviewMemoryInterval: 3 (from the next turn boundary on)"
    shown = _cli(tmp_path, "/evolution config")
    assert "  reviewMemoryInterval: 3 (settings)" in shown.stdout and "  reviewMaxDepth: 1" in shown.stdout
    assert (tmp_path / "home" / "settings.yaml").stat().st_mode & 0o077 == 0


async def test_the_trigger_and_the_mode_change_live(dsh_host: Any, dsh_workspace: Path) -> None:
    (dsh_workspace / "notes.txt").write_text("the answer is 42\n")
    script = (
        "responses:\n"
        '  - match: {depth: 0, last_user_contains: "look it up", has_tools: [read]}\n'
        "    reply:\n"
        "      tool_calls: [{name: read, arguments: {path: notes.txt}}]\n" + SCRIPT.removeprefix("responses:\n")
    )
    async with evolution_host(dsh_host, script, **CONFIG) as (host, recorder):
        agent = await dsh_host.new_root(host)
        await run(host, agent, "/evolution config skillReviewTrigger completion")
        await run(host, agent, "/evolution config skillReviewCompletionMinToolCalls 1")
        await say(host, agent, "please look it up in the notes")
        assert reviews(agent) == [COMPLETION_SKILL_REVIEW_PROMPT]
        # subagent mode from now on: the child answers without a plan, so the review
        # errors and falls back to the prompt (inject mode never starts a child)
        assert recorder.named(REVIEW_ERROR) == []
        await run(host, agent, "/evolution config reviewMode subagent")
        await run(host, agent, "/evolution config reviewMemoryInterval 1")
        await say(host, agent, "and a second question")
        assert len(recorder.named(REVIEW_ERROR)) == 1
        assert reviews(agent)[-1] == review_prompt("memory")


def test_a_hand_edited_settings_document_is_read_and_its_ignored_fields_listed(tmp_path: Path) -> None:
    scripted_profile(tmp_path, "{reviewMode: subagent}", SCRIPT)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "settings.yaml").write_text(f"{LIVE_NAMESPACE}:\n  reviewMode: inject\n  reviewTimeoutMs: 5\n")
    shown = _cli(tmp_path, "/evolution config")
    assert shown.returncode == 0, shown.stderr
    assert '  reviewMode: "inject" (settings)' in shown.stdout
    assert "  reviewTimeoutMs: 120000" in shown.stdout  # the row's value: the document cannot change it
    assert "ignored in the settings document:" in shown.stdout and "reviewTimeoutMs" in shown.stdout.split("ignored")[1]
