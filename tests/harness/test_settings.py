"""The reference host's settings service: layering, the YAML document, writes."""

from __future__ import annotations

import logging
import os
import stat
import textwrap
from pathlib import Path
from typing import Any, Literal

import attrs
import pytest
import trio

from harness.settings import SettingsService
from hookspecs.errors import SettingsConflictError, SettingsError
from hookspecs.values.settings import SettingsOp, SettingsSpec

NS = "agent-loop"


@attrs.frozen(kw_only=True)
class LoopSettings:
    max_parallel_tool_calls: int = attrs.field(
        default=4,
        validator=attrs.validators.ge(1),
        metadata={"description": "Tool calls run at once."},
    )
    mode: Literal["fast", "careful"] = "fast"
    model: str | None = None
    api_key: str | None = None
    tags: tuple[str, ...] = ()
    ratio: float = 0.5
    headers: dict[str, str] = attrs.field(factory=dict)
    enabled: bool = True


@attrs.frozen(kw_only=True)
class OtherSettings:
    level: int = 1


def careful_is_serial(value: LoopSettings) -> list[str]:
    if value.mode == "careful" and value.max_parallel_tool_calls > 1:
        return ["careful mode runs one tool call at a time (max_parallel_tool_calls must be 1)"]
    return []


def heal_careful(value: LoopSettings) -> tuple[LoopSettings, list[str]]:
    if careful_is_serial(value):
        return attrs.evolve(value, max_parallel_tool_calls=1), ["max_parallel_tool_calls lowered to 1 for careful mode"]
    return value, []


def loop_spec(**overrides: Any) -> SettingsSpec:
    fields: dict[str, Any] = {"namespace": NS, "schema": LoopSettings, "title": "Agent loop", "secrets": ("api_key",)}
    fields.update(overrides)
    return SettingsSpec(**fields)


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any, Any]] = []

    def __call__(self, namespace: str, value: Any, previous: Any) -> None:
        self.calls.append((namespace, value, previous))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "home" / "settings.yaml"


@pytest.fixture
def updates() -> Recorder:
    return Recorder()


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def make(path: Path, updates: Recorder, *specs: SettingsSpec, base: dict[str, Any] | None = None) -> SettingsService:
    service = SettingsService(path=path, on_updated=updates)
    for spec in specs or (loop_spec(),):
        service.register(spec, base=base if spec.namespace == NS else None)
    service.load()
    return service


def load_failure(path: Path, updates: Recorder, spec: SettingsSpec) -> str:
    """The message of the ``SettingsError`` that loading the document raises."""
    service = SettingsService(path=path, on_updated=updates)
    service.register(spec)
    with pytest.raises(SettingsError) as info:
        service.load()
    return info.value.message


def describe(service: SettingsService, namespace: str = NS, **kwargs: Any) -> Any:
    return next(d for d in service.describe(**kwargs) if d.namespace == namespace)


# --- resolution ---------------------------------------------------------------------------


def test_missing_file_resolves_to_defaults(path: Path, updates: Recorder) -> None:
    service = make(path, updates)
    assert service.get(NS) == LoopSettings()
    assert not path.exists()


def test_layers_defaults_then_base_then_user(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  mode: careful\n  max_parallel_tool_calls: 1\n")
    service = make(path, updates, base={"max_parallel_tool_calls": 3, "ratio": 0.9})
    assert service.get(NS) == LoopSettings(mode="careful", max_parallel_tool_calls=1, ratio=0.9)
    d = describe(service)
    assert d.base == {"max_parallel_tool_calls": 3, "ratio": 0.9}
    assert d.user == {"mode": "careful", "max_parallel_tool_calls": 1}
    assert d.value["ratio"] == 0.9 and d.value["tags"] == []


def test_invalid_base_fails_registration_naming_the_field(path: Path, updates: Recorder) -> None:
    service = SettingsService(path=path, on_updated=updates)
    with pytest.raises(SettingsError, match=r"agent-loop\.max_parallel_tool_calls: expected an integer"):
        service.register(loop_spec(), base={"max_parallel_tool_calls": "3"})
    with pytest.raises(SettingsError, match=r"agent-loop\.nope: unknown field"):
        service.register(loop_spec(), base={"nope": 1})
    with pytest.raises(SettingsError, match=r"agent-loop\.max_parallel_tool_calls: .*must be >= 1"):
        service.register(loop_spec(), base={"max_parallel_tool_calls": 0})


def test_duplicate_and_malformed_namespaces_are_refused(path: Path, updates: Recorder) -> None:
    service = SettingsService(path=path, on_updated=updates)
    service.register(loop_spec())
    with pytest.raises(SettingsError, match="already registered"):
        service.register(loop_spec())
    for bad in ("Agent", "agent_loop", "-agent", "agent-", "agent--loop", "1agent", ""):
        with pytest.raises(SettingsError, match="kebab-case"):
            service.register(SettingsSpec(namespace=bad, schema=OtherSettings))


def test_schema_without_defaults_is_refused(path: Path, updates: Recorder) -> None:
    @attrs.frozen(kw_only=True)
    class NoDefault:
        level: int

    service = SettingsService(path=path, on_updated=updates)
    with pytest.raises(SettingsError, match="'level' needs a default"):
        service.register(SettingsSpec(namespace="x", schema=NoDefault))


def test_defaults_breaking_the_check_fail_registration(path: Path, updates: Recorder) -> None:
    service = SettingsService(path=path, on_updated=updates)
    with pytest.raises(SettingsError, match="'agent-loop': agent-loop: careful mode runs one tool call"):
        service.register(loop_spec(check=careful_is_serial), base={"mode": "careful"})


def test_disposer_removes_the_namespace(path: Path, updates: Recorder) -> None:
    service = SettingsService(path=path, on_updated=updates)
    dispose = service.register(loop_spec())
    dispose()
    dispose()  # idempotent
    with pytest.raises(SettingsError, match="unknown settings namespace"):
        service.get(NS)
    assert service.describe() == []
    service.register(loop_spec())  # the name is free again
    assert service.get(NS) == LoopSettings()


# --- loading --------------------------------------------------------------------------------


def test_invalid_value_at_startup_names_file_namespace_and_field(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  max_parallel_tool_calls: x\n")
    assert (
        f"{path}: agent-loop.max_parallel_tool_calls: expected an integer, got the string 'x'"
        == load_failure(path, updates, loop_spec())
    )


def test_validator_and_nested_errors_at_startup_name_the_field(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  max_parallel_tool_calls: 0\n  tags: [a, 2]\n  mode: slow\n")
    message = load_failure(path, updates, loop_spec())
    assert message.startswith(f"{path}: ")
    assert "agent-loop.max_parallel_tool_calls: 'max_parallel_tool_calls' must be >= 1: 0" in message
    assert "agent-loop.tags[1]: expected a string, got the number 2" in message
    assert "agent-loop.mode: invalid value; expected one of 'fast', 'careful'" in message


def test_non_json_yaml_value_is_an_error_naming_the_field(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  model: 2024-01-01\n")
    service = SettingsService(path=path, on_updated=updates)
    service.register(loop_spec())
    with pytest.raises(SettingsError, match=r"agent-loop\.model: a date is not a JSON value"):
        service.load()


def test_malformed_yaml_names_file_and_line(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  mode: fast\n  tags: [a, b\n  ratio: 1\n")
    service = SettingsService(path=path, on_updated=updates)
    service.register(loop_spec())
    with pytest.raises(SettingsError) as info:
        service.load()
    assert info.value.message.startswith(f"{path}: invalid YAML: ")
    assert "(line 4, column " in info.value.message


def test_unknown_user_fields_are_reported_not_fatal(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  bogus: 1\n  mode: careful\n  max_parallel_tool_calls: 1\n")
    service = make(path, updates)
    assert service.get(NS).mode == "careful"
    assert describe(service).problems == ("unknown field agent-loop.bogus ignored",)


async def test_unknown_user_field_survives_writes(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  bogus: 1\n")
    service = make(path, updates)
    await service.mutate(NS, [SettingsOp.set("ratio", 0.25)])
    assert path.read_text() == f"{NS}:\n  bogus: 1\n  ratio: 0.25\n"
    assert describe(service).problems == ("unknown field agent-loop.bogus ignored",)


def test_heal_notes_are_reported(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  mode: careful\n")  # default 4 parallel calls breaks the rule
    service = make(path, updates, loop_spec(check=careful_is_serial, heal=heal_careful))
    assert service.get(NS) == LoopSettings(mode="careful", max_parallel_tool_calls=1)
    assert describe(service).notes == ("agent-loop: max_parallel_tool_calls lowered to 1 for careful mode",)


def test_check_without_heal_makes_the_hand_edit_invalid(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  mode: careful\n")
    service = SettingsService(path=path, on_updated=updates)
    service.register(loop_spec(check=careful_is_serial))
    with pytest.raises(SettingsError, match="careful mode runs one tool call at a time"):
        service.load()


# --- reload ---------------------------------------------------------------------------------


def test_reload_keeps_last_good_value_and_reports_the_field(
    path: Path, updates: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    write(path, f"{NS}:\n  ratio: 0.75\n")
    service = make(path, updates)
    good = service.get(NS)
    write(path, f"{NS}:\n  ratio: lots\n")
    with caplog.at_level(logging.WARNING):
        problems = service.reload()
    assert problems == ["agent-loop.ratio: expected a number, got the string 'lots'"]
    assert service.get(NS) is good
    d = describe(service)
    assert d.problems == ("agent-loop.ratio: expected a number, got the string 'lots'",)
    assert d.user == {"ratio": "lots"}  # the form sees what is in the file
    assert "keeping the last good value" in caplog.text and "agent-loop.ratio" in caplog.text
    assert updates.calls == []

    write(path, f"{NS}:\n  ratio: 0.125\n")
    assert service.reload() == []
    assert service.get(NS).ratio == 0.125
    assert describe(service).problems == ()
    assert [(ns, new.ratio, old.ratio) for ns, new, old in updates.calls] == [(NS, 0.125, 0.75)]


def test_reload_of_malformed_yaml_keeps_everything(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  ratio: 0.75\n")
    service = make(path, updates)
    write(path, f"{NS}: [\n")
    [problem] = service.reload()
    assert problem.startswith(f"{path}: invalid YAML: ") and "(line " in problem
    assert service.get(NS).ratio == 0.75
    assert updates.calls == []


def test_reload_fires_only_for_changed_namespaces(path: Path, updates: Recorder) -> None:
    other = SettingsSpec(namespace="other", schema=OtherSettings)
    write(path, f"# settings\n{NS}:\n  ratio: 0.75\nother:\n  level: 2\n")
    service = make(path, updates, loop_spec(), other)
    # Only comments, formatting and key spelling change: no event.
    write(path, f"# edited by hand\n{NS}: {{ratio: 0.750}}  # same value\nother:\n  level: 2\n")
    assert service.reload() == []
    assert updates.calls == []
    write(path, f"{NS}:\n  ratio: 0.75\nother:\n  level: 3\n")
    service.reload()
    assert [(ns, new, old) for ns, new, old in updates.calls] == [("other", OtherSettings(level=3), OtherSettings(level=2))]


def test_register_after_load_keeps_the_service_running(path: Path, updates: Recorder) -> None:
    write(path, "late:\n  level: nope\n")
    service = make(path, updates)
    service.register(SettingsSpec(namespace="late", schema=OtherSettings))
    assert service.get("late") == OtherSettings()
    d = describe(service, "late")
    assert d.problems == ("late.level: expected an integer, got the string 'nope'",)
    assert d.user == {"level": "nope"}


# --- mutate -----------------------------------------------------------------------------------

COMMENTED = """\
# Settings for my agent host.
# Edited by hand; keep these notes.
other-plugin:
  colour: blue   # not registered here; must survive
  nested: {a: 1, b: [x, y]}

agent-loop:
  # how many tools may run at once
  max_parallel_tool_calls: 4  # tuned for my laptop
  # fast or careful
  mode: fast
  ratio: 0.5  # keep in sync with ops

# trailing notes about the last plugin
last-plugin:
  x: 'quoted'
"""


async def test_mutate_preserves_comments_order_and_other_namespaces(path: Path, updates: Recorder) -> None:
    write(path, COMMENTED)
    service = make(path, updates)
    value = await service.mutate(NS, [SettingsOp.set("max_parallel_tool_calls", 8)])
    assert value.max_parallel_tool_calls == 8
    assert path.read_text() == COMMENTED.replace(
        "max_parallel_tool_calls: 4  # tuned", "max_parallel_tool_calls: 8  # tuned"
    )


async def test_new_keys_are_appended_and_unset_keeps_neighbouring_comments(path: Path, updates: Recorder) -> None:
    write(path, COMMENTED)
    service = make(path, updates)
    await service.mutate(NS, [SettingsOp.set("model", "m-1"), SettingsOp.unset("mode")])
    assert path.read_text() == COMMENTED.replace("  # fast or careful\n  mode: fast\n", "  # fast or careful\n").replace(
        "  ratio: 0.5  # keep in sync with ops\n", "  ratio: 0.5  # keep in sync with ops\n  model: m-1\n"
    )
    assert list(describe(service).user) == ["max_parallel_tool_calls", "ratio", "model"]


async def test_set_and_unset_fall_back_to_base_and_defaults(path: Path, updates: Recorder) -> None:
    service = make(path, updates, base={"ratio": 0.9})
    await service.mutate(NS, [SettingsOp.set("ratio", 0.25), SettingsOp.set("tags", ["a", "b"])])
    assert service.get(NS).ratio == 0.25 and service.get(NS).tags == ("a", "b")
    assert path.read_text() == f"{NS}:\n  ratio: 0.25\n  tags:\n  - a\n  - b\n"
    await service.mutate(NS, [SettingsOp.unset("ratio")])
    assert service.get(NS).ratio == 0.9  # back to the profile layer
    await service.mutate(NS, [SettingsOp.unset("tags")])
    assert service.get(NS) == LoopSettings(ratio=0.9)
    assert path.read_text() == ""  # the emptied section is removed
    assert describe(service).user == {}


async def test_emptied_section_removal_keeps_other_namespaces(path: Path, updates: Recorder) -> None:
    write(path, COMMENTED)
    service = make(path, updates)
    await service.mutate(
        NS, [SettingsOp.unset("max_parallel_tool_calls"), SettingsOp.unset("mode"), SettingsOp.unset("ratio")]
    )
    text = path.read_text()
    assert "agent-loop" not in text
    assert text.startswith("# Settings for my agent host.\n# Edited by hand; keep these notes.\nother-plugin:\n")
    assert "  colour: blue   # not registered here; must survive\n  nested: {a: 1, b: [x, y]}\n" in text
    assert "# trailing notes about the last plugin\nlast-plugin:\n  x: 'quoted'\n" in text


async def test_nested_path_edits_a_dict_field(path: Path, updates: Recorder) -> None:
    service = make(path, updates, base={"headers": {"X-Base": "1"}})
    await service.mutate(NS, [SettingsOp(op="set", path=("headers", "X-Extra"), value="2")])
    # The user layer replaces the whole field, so editing starts from the resolved dict.
    assert service.get(NS).headers == {"X-Base": "1", "X-Extra": "2"}
    await service.mutate(NS, [SettingsOp(op="unset", path=("headers", "X-Base"))])
    assert service.get(NS).headers == {"X-Extra": "2"}
    assert path.read_text() == f"{NS}:\n  headers:\n    X-Extra: '2'\n"
    with pytest.raises(SettingsError, match=r"agent-loop\.ratio\.x\.y: ratio is not a mapping, so it has no key 'x'"):
        await service.mutate(NS, [SettingsOp.set("ratio", 1.0), SettingsOp(op="set", path=("ratio", "x", "y"), value=1)])


async def test_invalid_write_names_the_field_and_writes_nothing(path: Path, updates: Recorder) -> None:
    write(path, COMMENTED)
    service = make(path, updates)
    before = path.read_bytes()
    with pytest.raises(SettingsError, match=r"agent-loop\.max_parallel_tool_calls: expected an integer"):
        await service.mutate(NS, [SettingsOp.set("max_parallel_tool_calls", "8")])
    with pytest.raises(SettingsError, match=r"agent-loop\.max_parallel_tool_calls: .*must be >= 1"):
        await service.mutate(NS, [SettingsOp.set("max_parallel_tool_calls", 0)])
    with pytest.raises(SettingsError, match=r"agent-loop\.colour: unknown field"):
        await service.mutate(NS, [SettingsOp.set("colour", "red")])
    with pytest.raises(SettingsError, match=r"agent-loop\.ratio: .*not a finite JSON number"):
        await service.mutate(NS, [SettingsOp.set("ratio", float("nan"))])
    assert path.read_bytes() == before
    assert service.get(NS).max_parallel_tool_calls == 4
    assert updates.calls == []


async def test_check_rejects_writes_and_leaves_the_file_untouched(path: Path, updates: Recorder) -> None:
    write(path, COMMENTED)
    service = make(path, updates, loop_spec(check=careful_is_serial, heal=heal_careful))
    before = path.read_bytes()
    revision = service.revision(NS)
    with pytest.raises(SettingsError) as info:
        await service.mutate(NS, [SettingsOp.set("mode", "careful")])
    assert info.value.message == "agent-loop: careful mode runs one tool call at a time (max_parallel_tool_calls must be 1)"
    assert path.read_bytes() == before
    assert service.revision(NS) == revision
    assert service.get(NS).mode == "fast"
    assert updates.calls == []
    value = await service.mutate(NS, [SettingsOp.set("mode", "careful"), SettingsOp.set("max_parallel_tool_calls", 1)])
    assert (value.mode, value.max_parallel_tool_calls) == ("careful", 1)
    assert describe(service).notes == ()


async def test_on_updated_fires_only_when_the_resolved_value_changes(path: Path, updates: Recorder) -> None:
    service = make(path, updates, base={"ratio": 0.9})
    first = service.get(NS)
    new = await service.mutate(NS, [SettingsOp.set("ratio", 0.25)])
    assert updates.calls == [(NS, new, first)]
    await service.mutate(NS, [SettingsOp.set("ratio", 0.25)])  # same value again
    assert len(updates.calls) == 1
    mtime = path.stat().st_mtime_ns
    await service.mutate(NS, [SettingsOp.set("ratio", 0.25)])
    assert path.stat().st_mtime_ns == mtime  # nothing changed: nothing written
    # Writing the base value into the user layer changes the document, not the value.
    await service.mutate(NS, [SettingsOp.set("ratio", 0.9), SettingsOp.set("ratio", 0.9)])
    assert len(updates.calls) == 2
    revision = service.revision(NS)
    await service.mutate(NS, [SettingsOp.unset("ratio")])  # back to base 0.9: same value
    assert len(updates.calls) == 2
    assert service.revision(NS) != revision


async def test_stale_revision_is_a_conflict(path: Path, updates: Recorder) -> None:
    service = make(path, updates)
    revision = service.revision(NS)
    await service.mutate(NS, [SettingsOp.set("ratio", 0.25)], expected_revision=revision)
    before = path.read_bytes()
    with pytest.raises(SettingsConflictError) as info:
        await service.mutate(NS, [SettingsOp.set("ratio", 0.75)], expected_revision=revision)
    assert info.value.code == "SETTINGS_CONFLICT"
    assert path.read_bytes() == before
    assert service.get(NS).ratio == 0.25
    await service.mutate(NS, [SettingsOp.set("ratio", 0.75)], expected_revision=service.revision(NS))
    assert service.get(NS).ratio == 0.75


async def test_hand_edit_not_yet_reloaded_is_a_conflict_for_fenced_writes(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  ratio: 0.25\n")
    service = make(path, updates)
    revision = service.revision(NS)
    write(path, f"{NS}:\n  ratio: 0.5\n  mode: careful\n")
    with pytest.raises(SettingsConflictError, match="edited on disk"):
        await service.mutate(NS, [SettingsOp.set("ratio", 0.75)], expected_revision=revision)
    assert path.read_text() == f"{NS}:\n  ratio: 0.5\n  mode: careful\n"
    # Unfenced writes build on the file as it is now rather than clobbering it.
    value = await service.mutate(NS, [SettingsOp.set("ratio", 0.75)])
    assert (value.ratio, value.mode) == (0.75, "careful")


def test_revision_is_a_content_hash_that_survives_restarts(path: Path, updates: Recorder) -> None:
    write(path, f"{NS}:\n  ratio: 0.25\n  mode: careful\n  max_parallel_tool_calls: 1\n")
    first = make(path, updates).revision(NS)
    write(path, f"# reordered\n{NS}:\n  mode: careful   # x\n  max_parallel_tool_calls: 1\n  ratio: 0.25\n")
    again = make(path, updates).revision(NS)
    assert first == again
    assert len(first) == 16 and int(first, 16) >= 0
    write(path, f"{NS}:\n  ratio: 0.5\n")
    assert make(path, updates).revision(NS) != first


async def test_written_file_is_private(path: Path, updates: Recorder) -> None:
    service = make(path, updates)
    await service.mutate(NS, [SettingsOp.set("ratio", 0.25)])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    os.chmod(path, 0o644)
    await service.mutate(NS, [SettingsOp.set("ratio", 0.5)])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


async def test_concurrent_writes_to_different_namespaces_all_land(path: Path, updates: Recorder) -> None:
    other = SettingsSpec(namespace="other", schema=OtherSettings)
    service = make(path, updates, loop_spec(), other)
    async with trio.open_nursery() as nursery:
        for index in range(5):
            nursery.start_soon(service.mutate, NS, [SettingsOp.set("tags", [f"t{index}"])])
            nursery.start_soon(service.mutate, "other", [SettingsOp.set("level", index + 10)])
    fresh = make(path, Recorder(), loop_spec(), other)
    assert fresh.get(NS) == service.get(NS)
    assert fresh.get("other") == service.get("other")
    assert fresh.get("other").level >= 10 and len(fresh.get(NS).tags) == 1


# --- describe -----------------------------------------------------------------------------------


async def test_describe_redacts_secrets(path: Path, updates: Recorder) -> None:
    service = make(path, updates, base={"api_key": "base-secret"})
    await service.mutate(NS, [SettingsOp.set("api_key", "user-secret")])
    d = describe(service)
    assert d.value["api_key"] == "***" and d.base["api_key"] == "***" and d.user["api_key"] == "***"
    plain = describe(service, redact_secrets=False)
    assert (plain.value["api_key"], plain.base["api_key"], plain.user["api_key"]) == (
        "user-secret",
        "base-secret",
        "user-secret",
    )
    with pytest.raises(SettingsError, match="redaction placeholder"):
        await service.mutate(NS, [SettingsOp.set("api_key", "***")])
    assert service.get(NS).api_key == "user-secret"


def test_describe_unset_secret_shows_as_unset(path: Path, updates: Recorder) -> None:
    assert describe(make(path, updates)).value["api_key"] is None


def test_describe_emits_json_schema(path: Path, updates: Recorder) -> None:
    d = describe(make(path, updates, loop_spec(description="How the loop runs.")))
    assert (d.title, d.description, d.applies) == ("Agent loop", "How the loop runs.", "live")
    schema = d.schema
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["max_parallel_tool_calls"] == {
        "type": "integer",
        "minimum": 1,
        "default": 4,
        "description": "Tool calls run at once.",
    }
    assert props["mode"] == {"enum": ["fast", "careful"], "type": "string", "default": "fast"}
    assert props["model"] == {"type": ["string", "null"], "default": None}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}, "default": []}
    assert props["ratio"] == {"type": "number", "default": 0.5}
    assert props["headers"] == {"type": "object", "additionalProperties": {"type": "string"}, "default": {}}
    assert props["enabled"] == {"type": "boolean", "default": True}
    assert d.value == {
        "max_parallel_tool_calls": 4,
        "mode": "fast",
        "model": None,
        "api_key": None,
        "tags": [],
        "ratio": 0.5,
        "headers": {},
        "enabled": True,
    }


# --- field keys: an explicit attrs alias names the field in documents ------------------------------

ALIASED = "aliased"


@attrs.frozen(kw_only=True)
class Limits:
    max_depth: int = attrs.field(default=2, alias="maxDepth", validator=attrs.validators.ge(0))
    hard_stop: bool = False


@attrs.frozen(kw_only=True)
class AliasedSettings:
    max_report_chars: int = attrs.field(
        default=4000,
        alias="maxReportChars",
        validator=attrs.validators.ge(1),
        metadata={"description": "Longest report kept."},
    )
    api_token: str | None = attrs.field(default=None, alias="apiToken")
    limits: Limits = attrs.field(factory=Limits)
    plainName: bool = True  # camelCase without an alias: the attribute name is the key


def aliased_spec(**overrides: Any) -> SettingsSpec:
    # a secret may be named by attribute; it is redacted by key
    fields: dict[str, Any] = {"namespace": ALIASED, "schema": AliasedSettings, "secrets": ("api_token",)}
    fields.update(overrides)
    return SettingsSpec(**fields)


def test_aliased_fields_round_trip_from_the_document(path: Path, updates: Recorder) -> None:
    write(path, f"{ALIASED}:\n  maxReportChars: 10\n  limits:\n    maxDepth: 3\n    hard_stop: true\n  plainName: false\n")
    service = make(path, updates, aliased_spec())
    assert service.get(ALIASED) == AliasedSettings(
        maxReportChars=10, limits=Limits(maxDepth=3, hard_stop=True), plainName=False
    )
    d = describe(service, ALIASED)
    assert d.user == {"maxReportChars": 10, "limits": {"maxDepth": 3, "hard_stop": True}, "plainName": False}
    assert d.value == {
        "maxReportChars": 10,
        "apiToken": None,
        "limits": {"maxDepth": 3, "hard_stop": True},
        "plainName": False,
    }
    assert d.problems == ()


def test_attribute_names_of_aliased_fields_are_unknown_keys(path: Path, updates: Recorder) -> None:
    write(path, f"{ALIASED}:\n  max_report_chars: 10\n")
    service = make(path, updates, aliased_spec())
    assert service.get(ALIASED) == AliasedSettings()
    assert describe(service, ALIASED).problems == ("unknown field aliased.max_report_chars ignored",)
    with pytest.raises(SettingsError, match=r"profile config for settings namespace 'aliased': aliased\.max_report_chars: unknown field"):
        SettingsService(path=path, on_updated=updates).register(aliased_spec(), base={"max_report_chars": 10})


async def test_aliased_fields_are_mutated_by_key(path: Path, updates: Recorder) -> None:
    write(path, f"# mine\n{ALIASED}:\n  maxReportChars: 10  # short\n")
    service = make(path, updates, aliased_spec())
    value = await service.mutate(
        ALIASED,
        [SettingsOp.set("maxReportChars", 20), SettingsOp(op="set", path=("limits", "maxDepth"), value=5)],
    )
    assert (value.max_report_chars, value.limits.max_depth) == (20, 5)
    assert await trio.Path(path).read_text() == f"# mine\n{ALIASED}:\n  maxReportChars: 20  # short\n  limits:\n    maxDepth: 5\n    hard_stop: false\n"
    with pytest.raises(SettingsError, match=r"aliased\.max_report_chars: unknown field"):
        await service.mutate(ALIASED, [SettingsOp.set("max_report_chars", 30)])
    await service.mutate(ALIASED, [SettingsOp.unset("maxReportChars"), SettingsOp.unset("limits")])
    assert service.get(ALIASED) == AliasedSettings()
    assert describe(service, ALIASED).user == {}


async def test_describe_names_aliased_fields_by_key(path: Path, updates: Recorder) -> None:
    service = make(path, updates, aliased_spec())
    await service.mutate(ALIASED, [SettingsOp.set("apiToken", "t-1")])
    d = describe(service, ALIASED)
    props = d.schema["properties"]
    assert list(props) == ["maxReportChars", "apiToken", "limits", "plainName"]
    assert props["maxReportChars"] == {
        "type": "integer",
        "minimum": 1,
        "default": 4000,
        "description": "Longest report kept.",
    }
    assert props["limits"]["properties"]["maxDepth"] == {"type": "integer", "minimum": 0, "default": 2}
    assert props["limits"]["default"] == {"maxDepth": 2, "hard_stop": False}
    assert d.value["apiToken"] == "***" and d.user == {"apiToken": "***"}
    assert describe(service, ALIASED, redact_secrets=False).user == {"apiToken": "t-1"}


async def test_errors_name_the_key_of_an_aliased_field(path: Path, updates: Recorder) -> None:
    service = SettingsService(path=path, on_updated=updates)
    with pytest.raises(SettingsError, match=r"aliased\.maxReportChars: 'maxReportChars' must be >= 1: 0"):
        service.register(aliased_spec(), base={"maxReportChars": 0})
    write(path, f"{ALIASED}:\n  maxReportChars: lots\n  limits: {{maxDepth: x, max_depth: 1}}\n")
    message = load_failure(path, updates, aliased_spec())
    assert "aliased.maxReportChars: expected an integer, got the string 'lots'" in message
    assert "aliased.limits.maxDepth: expected an integer, got the string 'x'" in message
    assert "aliased.limits: unknown field(s): max_depth" in message
    assert "max_report_chars" not in message


def test_fields_sharing_a_key_are_refused(path: Path, updates: Recorder) -> None:
    @attrs.frozen(kw_only=True)
    class Clash:
        _level: int = 1  # attrs derives the alias "level"; the key stays the name
        other: int = attrs.field(default=2, alias="_level")

    with pytest.raises(SettingsError, match="two fields have the key '_level'"):
        SettingsService(path=path, on_updated=updates).register(SettingsSpec(namespace="clash", schema=Clash))
