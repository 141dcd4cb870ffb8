"""Every settings field is one declaration: a description, and bounds where it is a number.

The settings namespaces of the host and the bundled plugins, and the two plugins'
row configs, are found by walking the packages (a new namespace is covered
without editing this file). Each must subclass ``hookspecs.values.Settings``,
whose fields carry one ``SettingField``: the source of the field's check, its
message and its JSON Schema.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

import attrs
import pytest

from harness.settings import SettingsService
from hookspecs.values import Settings, SettingsSpec, setting, setting_of, settings_key

PACKAGES = ("harness", "shadow_mind_plugin", "evolution_review_plugin")
#: packages whose plugins' row configs are settings people write (the host's
#: adapter rows are wire formats of their own)
PLUGIN_PACKAGES = ("shadow_mind_plugin", "evolution_review_plugin")


def _modules(package: str) -> list[Any]:
    root = importlib.import_module(package)
    walked = pkgutil.walk_packages(root.__path__, f"{package}.")
    names = [info.name for info in walked if not info.name.endswith(".__main__")]  # __main__ runs the CLI
    return [root, *(importlib.import_module(name) for name in names)]


def settings_classes() -> dict[str, type]:
    """``{where: class}``: every registered namespace's schema and every plugin row config."""
    found: dict[str, type] = {}
    for package in PACKAGES:
        for module in _modules(package):
            for value in vars(module).values():
                if isinstance(value, SettingsSpec):
                    found[f"namespace {value.namespace}"] = value.schema
                elif package in PLUGIN_PACKAGES and isinstance(value, type) and value.__module__ == module.__name__:
                    schema = getattr(value, "config_schema", None)
                    if isinstance(schema, type) and attrs.has(schema):
                        found[f"{module.__name__}.{value.__name__}.config_schema"] = schema
    return found


def missing(cls: type) -> list[str]:
    """What a settings class lacks: the one declaration, a description, bounds for a number."""
    if not (isinstance(cls, type) and issubclass(cls, Settings)):
        return [f"{getattr(cls, '__name__', cls)!s} does not subclass hookspecs.values.Settings"]
    problems: list[str] = []
    for field in attrs.fields(cls):
        described = setting_of(field)
        key = settings_key(field)
        if described is None:
            problems.append(f"{key}: not declared with setting()")
            continue
        if not described.description.strip():
            problems.append(f"{key}: no description")
        numeric = described.kind in ("integer", "number")
        bounded = described.minimum is not None or described.maximum is not None or described.unbounded
        if numeric and not bounded and not described.removed:
            problems.append(f"{key}: a number without bounds (or a reason it has none)")
    return problems


def test_the_walk_finds_the_namespaces_and_the_row_configs() -> None:
    found = settings_classes()
    for where in (
        "namespace shadow-mind-runtime",
        "namespace evolution-review-live",
        "namespace compaction",
        "namespace agent-loop",
        "evolution_review_plugin.plugin.EvolutionReviewPlugin.config_schema",
    ):
        assert where in found, sorted(found)


@pytest.mark.parametrize(("where", "cls"), sorted(settings_classes().items()))
def test_every_settings_field_is_described_and_bounded(where: str, cls: type) -> None:
    assert missing(cls) == [], where


def test_the_check_fails_for_a_field_without_description_or_bounds() -> None:
    class Loose(Settings):
        count: int = setting(alias="count", default=1, description="")
        ratio: float = setting(alias="ratio", default=0.5, description="A share.")
        seed: float | None = setting(alias="seed", default=None, unbounded="any seed", description="A seed.")

    @attrs.frozen
    class Plain:
        count: int = 1

    assert missing(Loose) == [
        "count: no description",
        "count: a number without bounds (or a reason it has none)",
        "ratio: a number without bounds (or a reason it has none)",
    ]
    assert missing(Plain) == ["Plain does not subclass hookspecs.values.Settings"]


def test_a_live_evolution_knob_has_the_row_fields_bounds_and_description_in_its_schema(tmp_path: Path) -> None:
    """The live knobs were declared apart from the row: the form's schema of
    reviewMemoryInterval had neither minimum nor description."""
    from evolution_review_plugin.live import LIVE_SPEC

    service = SettingsService(path=tmp_path / "settings.yaml", on_updated=lambda *args: None)
    service.register(LIVE_SPEC)
    service.load()
    schema = next(d.schema for d in service.describe() if d.namespace == LIVE_SPEC.namespace)
    interval = schema["properties"]["reviewMemoryInterval"]
    assert interval["minimum"] == 1
    assert interval["description"] == "Activity units between memory reviews (default 10)."
    assert interval["type"] == ["integer", "null"]
    assert schema["properties"]["reviewMode"]["anyOf"][0]["enum"] == ["subagent", "inject"]
