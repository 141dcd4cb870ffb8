"""The model-facing management tools, driven by a scripted root model so every
call goes through the host's real tool pipeline (schema validation, approval,
error results)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hookspecs import hookimpl
from hookspecs.values import CancelToken, SettingsOp, SubagentRequest, TextBlock, create_user_message
from shadow_mind_plugin.settings import ShadowMindSettings, heal
from shadow_mind_plugin.views import settings_view

from .helpers import new_root, settle, write_definition
from .helpers import shadow_host as _shadow_host


def shadow_host(*args: Any, config: dict[str, Any] | None = None, **kw: Any) -> Any:
    """A Shadow host with the management tools offered (``managementTools`` is off by default)."""
    return _shadow_host(*args, config={"managementTools": True, **(config or {})}, **kw)


TOOLS = {"list_shadows", "update_default_shadow", "get_shadow_config", "update_shadow_config"}

TAIL = """
  - match: {depth: 1}
    repeat: true
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent, content: ""}}]
  - match: {depth: 0}
    repeat: true
    reply: {text: "done"}
"""


def calls_script(*calls: tuple[str, dict[str, Any]]) -> str:
    """The root answers "manage" with these tool calls (one step), then text."""
    listed = "\n".join(
        f"        - {{name: {name}, arguments: {json.dumps(args)}}}" for name, args in calls
    )
    return f"""responses:
  - match: {{depth: 0, last_user_contains: "manage"}}
    reply:
      tool_calls:
{listed}
{TAIL}"""


class Approver:
    """Answers every approval request with a fixed outcome and records it."""

    def __init__(self, outcome: str) -> None:
        self.outcome = outcome
        self.requests: list[Any] = []

    @hookimpl
    def dsh_approval_request(self, request: Any) -> str:
        self.requests.append(request)
        return self.outcome


async def manage(host: Any, root: Any) -> list[dict[str, Any]]:
    """Run one root turn and return the tool results in call order."""
    root.followup(create_user_message("manage the shadow"))
    await settle(host, root)
    return [e.data for e in root.session.events if e.type == "tool/result"]


def text(result: dict[str, Any]) -> str:
    (block,) = result["message"]["content"]
    return "\n".join(part["text"] for part in block["content"])


def value(result: dict[str, Any]) -> Any:
    assert "error" not in result, result.get("error")
    return json.loads(text(result))


def error(result: dict[str, Any]) -> tuple[str, str]:
    failure = result["error"]
    return failure["code"], failure["message"]


def default_md(home: Path) -> Path:
    return home / "shadow-minds" / "default.md"


def settings_file(home: Path) -> Path:
    return home / "settings.yaml"


def sidecar(home: Path, keys: dict[str, list[str]]) -> None:
    (home / "shadow-minds" / "holdout-keys.json").write_text(json.dumps(keys))


# --- visibility ---------------------------------------------------------------------------------


async def test_tools_are_offered_to_the_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0)
    async with shadow_host(tmp_path, calls_script(("get_shadow_config", {})), home=home) as (host, adapter, _):
        root = await new_root(host)
        await manage(host, root)
        offered = {t.name for t in adapter.requests[0].tools}
        assert TOOLS <= offered
        schemas = {t.name: t for t in adapter.requests[0].tools}
        # holdout and id are not model-settable
        props = schemas["update_default_shadow"].parameters["properties"]
        assert "holdout" not in props and "id" not in props
        assert schemas["update_default_shadow"].parameters["additionalProperties"] is False


async def test_tools_are_offered_only_while_the_setting_is_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0)
    script = """responses:
  - match: {depth: 0}
    repeat: true
    reply: {text: "done"}
"""
    async with _shadow_host(tmp_path, script, home=home) as (host, adapter, _):  # the default: off
        root = await new_root(host)

        async def offered() -> set[str]:
            root.followup(create_user_message("hello"))
            await settle(host, root)
            return {t.name for t in adapter.requests[-1].tools}

        assert not TOOLS & await offered()
        assert "shadow" in {c.name for c in host.commands.list()}  # /shadow stays
        await host.settings.mutate("shadow-mind-runtime", [SettingsOp.set("managementTools", True)])
        assert TOOLS <= await offered()
        await host.settings.mutate("shadow-mind-runtime", [SettingsOp.set("managementTools", False)])
        assert not TOOLS & await offered()


async def test_tools_are_hidden_from_child_agents(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_definition(home, probability=0.0)
    before = path.read_bytes()
    child_script = """responses:
  - match: {depth: 1, has_tools: [read]}
    reply:
      tool_calls:
        - {name: list_shadows, arguments: {}}
        - {name: update_default_shadow, arguments: {enabled: false}}
        - {name: update_shadow_config, arguments: {maxReportChars: 5}}
  - match: {depth: 1}
    repeat: true
    reply: {text: "child done"}
"""
    approver = Approver("allowed-once")
    async with shadow_host(tmp_path, child_script, home=home, plugins=[("approver", approver)]) as (host, adapter, runtime):
        root = await new_root(host)
        run = await host.subagents.start(
            "spawn",
            SubagentRequest(label="helper", prompt=(TextBlock(text="go"),), parent=root, cancel=CancelToken()),
        )
        try:
            await run.result()
            child = run.local_agent
            assert child is not None and not child.is_root
            assert not TOOLS & {t.name for t in host.tools.visible(child)}
            assert TOOLS <= {t.name for t in host.tools.visible(root)}
            assert not TOOLS & {t.name for t in adapter.requests[0].tools}
            results = [e.data for e in child.session.events if e.type == "tool/result"]
            assert [r["name"] for r in results] == ["list_shadows", "update_default_shadow", "update_shadow_config"]
            assert [r["error"]["code"] for r in results] == ["UNKNOWN_TOOL"] * 3
        finally:
            await run.dispose()
        assert approver.requests == []
        assert runtime.settings().max_report_chars == 0
    assert path.read_bytes() == before


# --- list_shadows ---------------------------------------------------------------------------------


async def test_list_shadows_shows_definitions_and_diagnostics_but_never_keys_or_paths(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0, extra="holdout: true\n")
    root_dir = home / "shadow-minds"
    sidecar(home, {"default": ["SECRET-HOLDOUT-KEY"], "other": ["ANOTHER-SECRET"]})
    (root_dir / "legacy.md").write_text("---\nname: Legacy\nenabled: false\n---\n\nOld duty.\n")
    (root_dir / "broken.md").write_text("---\nactivation_probability: 7\n---\n\nBroken.\n")
    (root_dir / "nokeys.md").write_text("---\nholdout: true\n---\n\nNeeds keys.\n")
    approver = Approver("allowed-once")
    async with shadow_host(tmp_path, calls_script(("list_shadows", {})), home=home, plugins=[("approver", approver)]) as (host, _, _):
        root = await new_root(host)
        (result,) = await manage(host, root)
        listed = value(result)
        assert [d["id"] for d in listed["definitions"]] == ["default", "legacy"]
        default = listed["definitions"][0]
        assert default["holdout"] is True and default["name"] == "Reviewer"
        assert default["prompt"] == "Check the root's claims against its tool results."
        assert set(default) == {
            "id", "name", "enabled", "debug", "activation_probability", "active_for_models", "run_with_model",
            "reasoning_effort", "timeout_seconds", "tools", "capture", "context", "think_first", "holdout", "prompt",
        }
        assert listed["diagnostics"] == [
            {"path": "broken.md", "error": "activation_probability must be a finite number from 0 through 1"},
            {"path": "nokeys.md", "error": 'holdout definition "nokeys" needs unique non-empty literal keys'},
        ]
        raw = text(result)
        for secret in ("SECRET-HOLDOUT-KEY", "ANOTHER-SECRET", str(tmp_path), str(home), "holdout-keys.json", "source_path"):
            assert secret not in raw
        # a read: nobody was asked
        assert approver.requests == []


async def test_list_shadows_on_a_fresh_home(tmp_path: Path) -> None:
    async with shadow_host(tmp_path, calls_script(("list_shadows", {}))) as (host, _, _):
        root = await new_root(host)
        (result,) = await manage(host, root)
        assert value(result) == {"definitions": [], "diagnostics": []}


# --- update_default_shadow ---------------------------------------------------------------------------


UPDATE = {"activation_probability": 0.25, "name": "Tool Reviewer", "tools": ["read", "bash"], "run_with_model": None, "timeout_seconds": 30}


async def test_update_default_shadow_with_approval_saves(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0, extra="run_with_model: scripted/shadow-model\n")
    approver = Approver("allowed-once")
    async with shadow_host(tmp_path, calls_script(("update_default_shadow", UPDATE)), home=home, plugins=[("approver", approver)]) as (host, _, runtime):
        root = await new_root(host)
        (result,) = await manage(host, root)
        saved = value(result)
        assert saved["activation_probability"] == 0.25 and saved["name"] == "Tool Reviewer"
        assert saved["tools"] == ["read", "bash"] and saved["run_with_model"] is None
        assert saved["timeout_seconds"] == 30
        definition = runtime.registry.default_definition()
        assert (definition.activation_probability, definition.name, definition.run_with_model) == (0.25, "Tool Reviewer", None)
        on_disk = default_md(home).read_text()
        assert "name: Tool Reviewer" in on_disk and "run_with_model" not in on_disk
        (request,) = approver.requests
        assert (request.kind, request.tool, request.arguments) == ("tool", "update_default_shadow", UPDATE)
        assert request.call_id == result["call_id"] and request.agent is root
        decided = [e.data["outcome"] for e in root.session.events if e.type == "approval/decided"]
        assert decided == ["allowed-once"]


async def test_update_default_shadow_keeps_holdout_sticky(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=0.0, extra="holdout: true\n")
    sidecar(home, {"default": ["SECRET"]})
    async with shadow_host(tmp_path, calls_script(("update_default_shadow", {"name": "Renamed"})), home=home, plugins=[("approver", Approver("allowed-once"))]) as (host, _, runtime):
        root = await new_root(host)
        (result,) = await manage(host, root)
        assert value(result)["holdout"] is True
        assert runtime.registry.default_definition().holdout is True
        assert "SECRET" not in text(result)


async def test_update_default_shadow_rejected_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_definition(home, probability=0.0)
    before = path.read_bytes()
    approver = Approver("rejected")
    async with shadow_host(tmp_path, calls_script(("update_default_shadow", UPDATE)), home=home, plugins=[("approver", approver)]) as (host, _, _):
        root = await new_root(host)
        (result,) = await manage(host, root)
        assert error(result) == ("NOT_APPROVED", "Shadow Mind mutation was not approved (rejected)")
        assert text(result) == "Error [NOT_APPROVED]: Shadow Mind mutation was not approved (rejected)"
        assert len(approver.requests) == 1
    assert path.read_bytes() == before


async def test_update_default_shadow_without_an_approver_is_unavailable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_definition(home, probability=0.0)
    before = path.read_bytes()
    async with shadow_host(tmp_path, calls_script(("update_default_shadow", UPDATE)), home=home) as (host, _, _):
        root = await new_root(host)
        (result,) = await manage(host, root)
        assert error(result) == ("NOT_APPROVED", "Shadow Mind mutation was not approved (unavailable)")
    assert path.read_bytes() == before


async def test_update_default_shadow_argument_errors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_definition(home, probability=0.0)
    before = path.read_bytes()
    approver = Approver("allowed-once")
    calls = [
        ("update_default_shadow", {}),
        ("update_default_shadow", {"activation_probability": 2}),
        ("update_default_shadow", {"holdout": True}),
        ("update_default_shadow", {"id": "other"}),
        ("update_default_shadow", {"run_with_model": "no-slash"}),
    ]
    async with shadow_host(tmp_path, calls_script(*calls), home=home, plugins=[("approver", approver)]) as (host, _, _):
        root = await new_root(host)
        empty, probability, holdout, id_, route = await manage(host, root)
        assert error(empty) == (
            "INVALID_ARGS",
            "invalid arguments for tool 'update_default_shadow': update_default_shadow requires at least one field to update",
        )
        assert error(probability)[0] == "INVALID_ARGS" and "activation_probability" in error(probability)[1]
        assert error(holdout)[0] == "INVALID_ARGS" and "unexpected property 'holdout'" in error(holdout)[1]
        assert error(id_)[0] == "INVALID_ARGS" and "unexpected property 'id'" in error(id_)[1]
        code, message = error(route)
        assert code == "INVALID_ARGS" and "run_with_model must use provider/model" in message
        # invalid values are caught before anyone is asked to approve them
        assert approver.requests == []
    assert path.read_bytes() == before


async def test_update_default_shadow_before_the_default_exists(tmp_path: Path) -> None:
    home = tmp_path / "home"
    approver = Approver("allowed-once")
    async with shadow_host(tmp_path, calls_script(("update_default_shadow", {"enabled": False})), home=home, plugins=[("approver", approver)]) as (host, _, _):
        root = await new_root(host)
        (result,) = await manage(host, root)
        # the default is created on first need, then patched
        assert value(result)["enabled"] is False
        assert "enabled: false" in (home / "shadow-minds" / "default.md").read_text()
        assert len(approver.requests) == 1


# --- get_shadow_config and update_shadow_config ----------------------------------------------------------


async def test_get_shadow_config_returns_the_resolved_settings(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings_file(home).write_text("shadow-mind-runtime:\n  maxReportChars: 9\n  reviewWindowSize: 2\n")
    approver = Approver("allowed-once")
    async with shadow_host(tmp_path, calls_script(("get_shadow_config", {})), home=home, plugins=[("approver", approver)]) as (host, _, runtime):
        root = await new_root(host)
        (result,) = await manage(host, root)
        resolved = value(result)
        assert resolved == settings_view(runtime.settings())
        assert resolved["maxReportChars"] == 9  # the user file
        assert resolved["resultBatchWindowMs"] == 0  # the profile row
        assert resolved["reviewWindowSize"] == heal(ShadowMindSettings(reviewWindowSize=2))[0].review_window_size  # healed
        assert resolved["argumentDisclosure"] == "redacted"  # a default
        assert approver.requests == []


async def test_update_shadow_config_sets_and_null_clears(tmp_path: Path) -> None:
    home = tmp_path / "home"
    approver = Approver("allowed-once")
    calls = [
        ("update_shadow_config", {"randomSeed": 7, "maxReportChars": 300}),
        ("update_shadow_config", {"randomSeed": None}),
    ]
    async with shadow_host(tmp_path, calls_script(*calls), home=home, plugins=[("approver", approver)]) as (host, _, runtime):
        root = await new_root(host)
        first, second = await manage(host, root)
        assert value(first)["randomSeed"] == 7 and value(first)["maxReportChars"] == 300
        assert value(second)["randomSeed"] is None and value(second)["maxReportChars"] == 300
        assert runtime.settings().random_seed is None and runtime.settings().max_report_chars == 300
        on_disk = settings_file(home).read_text()
        assert "randomSeed" not in on_disk and "maxReportChars: 300" in on_disk
        assert [(r.tool, r.arguments) for r in approver.requests] == calls


async def test_update_shadow_config_cross_field_rejection_is_an_error_result(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings_file(home).write_text("shadow-mind-runtime:\n  maxReportChars: 9\n")
    before = settings_file(home).read_bytes()
    calls = [
        ("update_shadow_config", {"sessionShadowSoftBudgetChars": 100}),
        ("update_shadow_config", {"frugalShadowModel": "scripted/cheap"}),
    ]
    async with shadow_host(tmp_path, calls_script(*calls), home=home, plugins=[("approver", Approver("allowed-once"))]) as (host, _, runtime):
        root = await new_root(host)
        value_before = runtime.settings()
        soft, frugal = await manage(host, root)
        assert soft["message"]["content"][0]["is_error"] is True
        message = error(soft)[1]
        assert "sessionShadowSoftBudgetChars needs sessionShadowHardBudgetChars" in message
        assert "sessionShadowSoftBudgetChars needs frugalShadowModel" in message
        assert "frugalShadowModel needs sessionShadowSoftBudgetChars" in error(frugal)[1]
        assert runtime.settings() == value_before
    assert settings_file(home).read_bytes() == before


async def test_update_shadow_config_can_set_related_keys_together(tmp_path: Path) -> None:
    home = tmp_path / "home"
    budget = {"sessionShadowSoftBudgetChars": 100, "sessionShadowHardBudgetChars": 1000, "frugalShadowModel": "scripted/cheap"}
    calls = [("update_shadow_config", budget), ("update_shadow_config", {k: None for k in budget})]
    async with shadow_host(tmp_path, calls_script(*calls), home=home, plugins=[("approver", Approver("allowed-once"))]) as (host, _, runtime):
        root = await new_root(host)
        together, cleared = await manage(host, root)
        assert {k: value(together)[k] for k in budget} == budget
        assert {k: value(cleared)[k] for k in budget} == dict.fromkeys(budget)
        assert runtime.settings().frugal_shadow_model is None


async def test_update_shadow_config_refused_or_unanswered_changes_nothing(tmp_path: Path) -> None:
    for outcome, plugins in (("rejected", [("approver", Approver("rejected"))]), ("unavailable", [])):
        case = tmp_path / outcome
        case.mkdir()
        home = case / "home"
        async with shadow_host(case, calls_script(("update_shadow_config", {"maxReportChars": 5})), home=home, plugins=plugins) as (host, _, runtime):
            root = await new_root(host)
            (result,) = await manage(host, root)
            assert error(result) == ("NOT_APPROVED", f"Shadow Mind mutation was not approved ({outcome})")
            assert runtime.settings().max_report_chars == 0
        assert not settings_file(home).exists()


async def test_update_shadow_config_argument_errors(tmp_path: Path) -> None:
    approver = Approver("allowed-once")
    calls = [
        ("update_shadow_config", {}),
        ("update_shadow_config", {"bogus": 1}),
        ("update_shadow_config", {"argumentDisclosure": "everything"}),
        ("update_shadow_config", {"reviewWindowSize": 1}),
    ]
    async with shadow_host(tmp_path, calls_script(*calls), plugins=[("approver", approver)]) as (host, _, runtime):
        root = await new_root(host)
        empty, bogus, enum, bound = await manage(host, root)
        assert error(empty) == (
            "INVALID_ARGS",
            "invalid arguments for tool 'update_shadow_config': update_shadow_config requires at least one setting",
        )
        assert error(bogus)[0] == "INVALID_ARGS" and "unexpected property 'bogus'" in error(bogus)[1]
        assert error(enum)[0] == "INVALID_ARGS" and "argumentDisclosure" in error(enum)[1]
        assert error(bound)[0] == "INVALID_ARGS"
        assert "reviewWindowSize" in error(bound)[1] and ">= 2" in error(bound)[1]
        assert runtime.settings() == ShadowMindSettings(resultBatchWindowMs=0, managementTools=True)
        # every problem was found before anyone was asked to approve
        assert approver.requests == []
