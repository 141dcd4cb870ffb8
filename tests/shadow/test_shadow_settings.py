"""Shadow Mind settings: defaults, per-field bounds, heal, check and host integration."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.settings import SettingsService
from hookspecs.errors import SettingsError
from hookspecs.values import SettingsOp, settings_key
from shadow_mind_plugin.settings import SETTINGS_SPEC, ShadowMindSettings, check, heal

NS = "shadow-mind-runtime"

#: The reference's settings table (v0.1.6), key for key.
REFERENCE_DEFAULTS: dict[str, Any] = {
    "defaultShadowTimeoutSeconds": 600,
    "headlessDrainTimeoutSeconds": 120,
    "resultBatchWindowMs": 400,
    "argumentDisclosure": "redacted",
    "randomSeed": None,
    "maxPromptChars": 0,
    "maxReportChars": 0,
    "valueLoopEnabled": True,
    "valueLoopWindowTurns": 2,
    "reviewWindowSize": 8,
    "spinningRepeatCount": 3,
    "oscillationPeriods": 2,
    "noDriftRepeatCount": 3,
    "diminishingWindowSize": 5,
    "diminishingNoveltyThreshold": 0.4,
    "stagnationCooldownSeconds": 300,
    "stagnationEscalationEnabled": False,
    "reasoningEffortLadder": ("low", "medium", "high"),
    "sessionShadowSoftBudgetChars": None,
    "sessionShadowHardBudgetChars": None,
    "frugalShadowModel": None,
    "staleReportDecay": 0,
    "collapsedByDefault": True,
    "maxRelayCyclesPerUserMessage": 3,
    "managementTools": False,  # ours: the management tools are offered on request (issue 9)
}


def test_defaults_equal_the_reference_table() -> None:
    defaults = ShadowMindSettings()
    assert {settings_key(f): getattr(defaults, f.name) for f in attrs.fields(ShadowMindSettings)} == REFERENCE_DEFAULTS
    assert [settings_key(f) for f in attrs.fields(ShadowMindSettings)] == list(REFERENCE_DEFAULTS)


def test_every_field_is_described() -> None:
    for field in attrs.fields(ShadowMindSettings):
        assert field.metadata.get("description"), field.name


def test_defaults_are_consistent() -> None:
    assert check(ShadowMindSettings()) == []
    assert heal(ShadowMindSettings()) == (ShadowMindSettings(), [])


def test_spec() -> None:
    assert SETTINGS_SPEC.namespace == NS
    assert SETTINGS_SPEC.schema is ShadowMindSettings
    assert SETTINGS_SPEC.title == "Shadow Mind"
    assert SETTINGS_SPEC.check is check and SETTINGS_SPEC.heal is heal
    assert SETTINGS_SPEC.applies == "live"


# --- per-field bounds ---------------------------------------------------------------------------

GOOD = [
    ("defaultShadowTimeoutSeconds", 0.001),
    ("headlessDrainTimeoutSeconds", 1),
    ("resultBatchWindowMs", 0),
    ("argumentDisclosure", "full"),
    ("randomSeed", -3.5),
    ("randomSeed", math.nan),
    ("maxPromptChars", 0),
    ("maxReportChars", 10),
    ("maxRelayCyclesPerUserMessage", 0),
    ("valueLoopWindowTurns", 1),
    ("reviewWindowSize", 100),
    ("spinningRepeatCount", 2),
    ("diminishingNoveltyThreshold", 1),
    ("stagnationCooldownSeconds", 0),
    ("staleReportDecay", 0.5),
    ("reasoningEffortLadder", ["a"]),
    ("frugalShadowModel", "not validated per field"),
]

BAD = [
    ("defaultShadowTimeoutSeconds", 0),
    ("defaultShadowTimeoutSeconds", math.inf),
    ("defaultShadowTimeoutSeconds", "600"),
    ("headlessDrainTimeoutSeconds", 0.0009),
    ("resultBatchWindowMs", -1),
    ("argumentDisclosure", "partial"),
    ("randomSeed", "42"),
    ("randomSeed", True),
    ("maxPromptChars", -1),
    ("maxPromptChars", 1.5),
    ("maxReportChars", True),
    ("maxRelayCyclesPerUserMessage", -1),
    ("valueLoopEnabled", 1),
    ("valueLoopWindowTurns", 0),
    ("reviewWindowSize", 1),
    ("spinningRepeatCount", 1),
    ("oscillationPeriods", 1),
    ("noDriftRepeatCount", 1),
    ("diminishingWindowSize", 1),
    ("diminishingNoveltyThreshold", 1.01),
    ("diminishingNoveltyThreshold", math.nan),
    ("stagnationCooldownSeconds", -0.5),
    ("stagnationEscalationEnabled", "yes"),
    ("reasoningEffortLadder", "low"),
    ("reasoningEffortLadder", [1]),
    ("sessionShadowSoftBudgetChars", 0),
    ("sessionShadowHardBudgetChars", 0),
    ("frugalShadowModel", 3),
    ("staleReportDecay", -0.1),
    ("collapsedByDefault", None),
]


@pytest.mark.parametrize(("field", "value"), GOOD)
def test_field_accepts(field: str, value: Any) -> None:
    ShadowMindSettings(**{field: value})


@pytest.mark.parametrize(("field", "value"), BAD)
def test_field_rejects(field: str, value: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        ShadowMindSettings(**{field: value})


# --- heal, rule by rule --------------------------------------------------------------------------


def test_heal_raises_review_window_to_the_largest_stagnation_window() -> None:
    for changes, expected in [
        ({"spinningRepeatCount": 9}, 9),
        ({"oscillationPeriods": 6}, 12),
        ({"noDriftRepeatCount": 10}, 10),
        ({"diminishingWindowSize": 11}, 11),
        ({"oscillationPeriods": 5, "spinningRepeatCount": 10}, 10),
    ]:
        value, notes = heal(ShadowMindSettings(**changes))
        assert value.review_window_size == expected
        assert len(notes) == 1 and notes[0].startswith(f"reviewWindowSize raised from 8 to {expected}")
    assert "2 × oscillationPeriods = 12" in heal(ShadowMindSettings(oscillationPeriods=6))[1][0]
    # a bigger window is fine
    assert heal(ShadowMindSettings(reviewWindowSize=20)) == (ShadowMindSettings(reviewWindowSize=20), [])


def test_heal_cleans_the_ladder() -> None:
    value, notes = heal(ShadowMindSettings(reasoningEffortLadder=(" low ", "", "medium", "low", "  ", "high", "medium")))
    assert value.reasoning_effort_ladder == ("low", "medium", "high")
    assert notes == [
        "reasoningEffortLadder cleaned up (surrounding whitespace trimmed; blank entries removed; "
        "repeated 'low', 'medium' removed): now low, medium, high"
    ]
    for empty in [(), ("", "   ")]:
        value, notes = heal(ShadowMindSettings(reasoningEffortLadder=empty))
        assert value.reasoning_effort_ladder == ("low", "medium", "high")
        assert "default low, medium, high" in notes[0]


def test_heal_drops_a_malformed_frugal_route_and_then_the_soft_budget() -> None:
    value, notes = heal(
        ShadowMindSettings(sessionShadowSoftBudgetChars=10, sessionShadowHardBudgetChars=20, frugalShadowModel="cheap")
    )
    assert (value.session_shadow_soft_budget_chars, value.session_shadow_hard_budget_chars, value.frugal_shadow_model) == (
        None,
        20,
        None,
    )
    assert notes == [
        "frugalShadowModel 'cheap' dropped: it is not a provider/model route",
        "sessionShadowSoftBudgetChars (10) dropped: the soft budget needs a valid frugalShadowModel",
    ]


def test_heal_trims_a_valid_frugal_route() -> None:
    value, notes = heal(
        ShadowMindSettings(sessionShadowSoftBudgetChars=10, sessionShadowHardBudgetChars=20, frugalShadowModel=" a/b ")
    )
    assert value.frugal_shadow_model == "a/b"
    assert notes == ["frugalShadowModel trimmed to 'a/b' (surrounding whitespace removed)"]


def test_heal_soft_without_hard() -> None:
    value, notes = heal(ShadowMindSettings(sessionShadowSoftBudgetChars=10, frugalShadowModel="a/b"))
    # soft goes (no hard), then frugal goes (no soft)
    assert (value.session_shadow_soft_budget_chars, value.frugal_shadow_model) == (None, None)
    assert notes == [
        "sessionShadowSoftBudgetChars (10) dropped: the soft budget needs sessionShadowHardBudgetChars",
        "frugalShadowModel (a/b) dropped: it is only used from sessionShadowSoftBudgetChars on, which is not set",
    ]


def test_heal_soft_alone() -> None:
    value, notes = heal(ShadowMindSettings(sessionShadowSoftBudgetChars=10))
    assert value == ShadowMindSettings()
    assert notes == [
        "sessionShadowSoftBudgetChars (10) dropped: the soft budget needs sessionShadowHardBudgetChars "
        "and a valid frugalShadowModel"
    ]


def test_heal_frugal_without_soft() -> None:
    value, notes = heal(ShadowMindSettings(frugalShadowModel="a/b", sessionShadowHardBudgetChars=50))
    assert value == ShadowMindSettings(sessionShadowHardBudgetChars=50)
    assert len(notes) == 1 and notes[0].startswith("frugalShadowModel (a/b) dropped")


def test_heal_soft_not_below_hard_drops_all_three() -> None:
    for soft in (50, 60):
        value, notes = heal(
            ShadowMindSettings(sessionShadowSoftBudgetChars=soft, sessionShadowHardBudgetChars=50, frugalShadowModel="a/b")
        )
        assert value == ShadowMindSettings()
        assert notes == [
            f"sessionShadowSoftBudgetChars ({soft}), sessionShadowHardBudgetChars (50) and frugalShadowModel "
            "dropped: the soft budget must be less than the hard budget"
        ]


def test_heal_keeps_valid_tiers_and_a_lone_hard_budget() -> None:
    tiers = ShadowMindSettings(sessionShadowSoftBudgetChars=10, sessionShadowHardBudgetChars=20, frugalShadowModel="a/b")
    assert heal(tiers) == (tiers, [])
    hard = ShadowMindSettings(sessionShadowHardBudgetChars=20)
    assert heal(hard) == (hard, [])


# --- check ----------------------------------------------------------------------------------------


def test_check_messages() -> None:
    assert check(ShadowMindSettings(diminishingWindowSize=12)) == [
        "reviewWindowSize (8) must cover every stagnation window, but the largest needs 12 "
        "(diminishingWindowSize = 12): raise reviewWindowSize to at least 12 or lower that window"
    ]
    assert check(ShadowMindSettings(reasoningEffortLadder=())) == [
        "reasoningEffortLadder is empty: list at least one reasoning effort, e.g. low, medium, high"
    ]
    assert check(ShadowMindSettings(reasoningEffortLadder=(" ",))) == [
        "reasoningEffortLadder has only blank entries: list at least one reasoning effort, e.g. low, medium, high"
    ]
    assert check(ShadowMindSettings(reasoningEffortLadder=("low", "", "low ", "high"))) == [
        "reasoningEffortLadder has blank entries: remove them",
        "reasoningEffortLadder lists 'low' more than once: keep each reasoning effort once",
    ]
    assert check(ShadowMindSettings(reasoningEffortLadder=(" low", "high "))) == []  # heal trims
    assert check(ShadowMindSettings(sessionShadowSoftBudgetChars=5)) == [
        "sessionShadowSoftBudgetChars needs sessionShadowHardBudgetChars: set a hard budget above the soft one, "
        "or unset the soft budget",
        "sessionShadowSoftBudgetChars needs frugalShadowModel: set the provider/model route to use once the soft "
        "budget is reached, or unset the soft budget",
    ]
    assert check(ShadowMindSettings(frugalShadowModel="a/b")) == [
        "frugalShadowModel needs sessionShadowSoftBudgetChars: set the soft budget from which it is used, "
        "or unset frugalShadowModel"
    ]
    assert check(
        ShadowMindSettings(sessionShadowSoftBudgetChars=9, sessionShadowHardBudgetChars=9, frugalShadowModel="bad")
    ) == [
        "frugalShadowModel 'bad' must use provider/model (for example deepseek/deepseek-chat): fix the route or unset it",
        "sessionShadowSoftBudgetChars (9) must be less than sessionShadowHardBudgetChars (9): "
        "lower the soft budget or raise the hard one",
    ]
    assert check(ShadowMindSettings(sessionShadowHardBudgetChars=9)) == []


_settings_values = st.builds(
    ShadowMindSettings,
    reviewWindowSize=st.integers(2, 14),
    spinningRepeatCount=st.integers(2, 12),
    oscillationPeriods=st.integers(2, 7),
    noDriftRepeatCount=st.integers(2, 12),
    diminishingWindowSize=st.integers(2, 12),
    reasoningEffortLadder=st.lists(st.sampled_from(["low", " low", "high", "", " ", "max "]), max_size=5).map(tuple),
    sessionShadowSoftBudgetChars=st.none() | st.integers(1, 30),
    sessionShadowHardBudgetChars=st.none() | st.integers(1, 30),
    frugalShadowModel=st.none() | st.sampled_from(["a/b", " a/b ", "bad", "", "p/org/m"]),
)


@settings(max_examples=100, deadline=None)
@given(value=_settings_values)
def test_heal_always_satisfies_check_and_is_idempotent(value: ShadowMindSettings) -> None:
    healed, notes = heal(value)
    assert check(healed) == []
    assert heal(healed) == (healed, [])
    assert (healed == value) == (notes == [])


@settings(max_examples=100, deadline=None)
@given(value=_settings_values)
def test_values_check_accepts_heal_only_trims(value: ShadowMindSettings) -> None:
    if check(value):
        return
    healed, _ = heal(value)
    assert attrs.evolve(healed, reasoningEffortLadder=(), frugalShadowModel=None) == attrs.evolve(
        value, reasoningEffortLadder=(), frugalShadowModel=None
    )
    assert healed.reasoning_effort_ladder == tuple(entry.strip() for entry in value.reasoning_effort_ladder)


# --- with the reference host's settings service ------------------------------------------------------


def _service(tmp_path: Path, text: str | None = None) -> SettingsService:
    path = tmp_path / "settings.yaml"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    service = SettingsService(path=path, on_updated=lambda *args: None)
    service.register(SETTINGS_SPEC)
    service.load()
    return service


def test_host_registers_and_describes(tmp_path: Path) -> None:
    service = _service(tmp_path)
    assert service.get(NS) == ShadowMindSettings()
    descriptor = next(d for d in service.describe() if d.namespace == NS)
    props = descriptor.schema["properties"]
    assert set(props) == set(REFERENCE_DEFAULTS)
    assert props["defaultShadowTimeoutSeconds"]["minimum"] == 0.001
    assert props["argumentDisclosure"]["enum"] == ["redacted", "full"]
    assert props["diminishingNoveltyThreshold"]["maximum"] == 1
    assert props["sessionShadowSoftBudgetChars"]["minimum"] == 1
    assert descriptor.value["reasoningEffortLadder"] == ["low", "medium", "high"]


def test_host_heals_a_hand_edited_document(tmp_path: Path) -> None:
    service = _service(
        tmp_path,
        f"{NS}:\n  spinningRepeatCount: 12\n  reasoningEffortLadder: [' high', high]\n  frugalShadowModel: nope\n",
    )
    value = service.get(NS)
    assert (value.review_window_size, value.reasoning_effort_ladder, value.frugal_shadow_model) == (12, ("high",), None)
    notes = next(d for d in service.describe() if d.namespace == NS).notes
    assert len(notes) == 3 and all(note.startswith(f"{NS}: ") for note in notes)


async def test_host_rejects_inconsistent_writes_with_check_messages(tmp_path: Path) -> None:
    service = _service(tmp_path)
    with pytest.raises(SettingsError, match="sessionShadowSoftBudgetChars needs sessionShadowHardBudgetChars"):
        await service.mutate(NS, [SettingsOp.set("sessionShadowSoftBudgetChars", 10)])
    with pytest.raises(SettingsError, match="maxPromptChars"):
        await service.mutate(NS, [SettingsOp.set("maxPromptChars", -1)])
    value = await service.mutate(
        NS,
        [
            SettingsOp.set("sessionShadowSoftBudgetChars", 10),
            SettingsOp.set("sessionShadowHardBudgetChars", 20),
            SettingsOp.set("frugalShadowModel", " deepseek/deepseek-chat "),
            SettingsOp.set("randomSeed", 7),
        ],
    )
    assert value.frugal_shadow_model == "deepseek/deepseek-chat"
    assert value.random_seed == 7


# --- attribute names and keys ----------------------------------------------------------------------

#: A value other than the default for every key, consistent under ``check``.
NON_DEFAULTS: dict[str, Any] = {
    "defaultShadowTimeoutSeconds": 30,
    "headlessDrainTimeoutSeconds": 5,
    "resultBatchWindowMs": 0,
    "argumentDisclosure": "full",
    "randomSeed": 7,
    "maxPromptChars": 1000,
    "maxReportChars": 500,
    "valueLoopEnabled": False,
    "valueLoopWindowTurns": 3,
    "reviewWindowSize": 9,
    "spinningRepeatCount": 4,
    "oscillationPeriods": 3,
    "noDriftRepeatCount": 5,
    "diminishingWindowSize": 6,
    "diminishingNoveltyThreshold": 0.5,
    "stagnationCooldownSeconds": 60,
    "stagnationEscalationEnabled": True,
    "reasoningEffortLadder": ["high"],
    "sessionShadowSoftBudgetChars": 100,
    "sessionShadowHardBudgetChars": 200,
    "frugalShadowModel": "a/b",
    "staleReportDecay": 0.25,
    "collapsedByDefault": False,
    "maxRelayCyclesPerUserMessage": 5,
    "managementTools": True,
}


def test_attributes_are_snake_case_behind_camel_case_keys(tmp_path: Path) -> None:
    for field in attrs.fields(ShadowMindSettings):
        key = settings_key(field)
        assert re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)+", field.name), field.name
        assert re.fullmatch(r"[a-z][a-z0-9]*([A-Z][a-z0-9]+)+", key), key
        assert key == re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), field.name)
    assert set(NON_DEFAULTS) == set(REFERENCE_DEFAULTS)

    document = "".join(f"  {key}: {json.dumps(value)}\n" for key, value in NON_DEFAULTS.items())
    service = _service(tmp_path, f"{NS}:\n{document}")
    value = service.get(NS)
    descriptor = next(d for d in service.describe() if d.namespace == NS)
    assert (descriptor.notes, descriptor.problems) == ((), ())
    for field in attrs.fields(ShadowMindSettings):
        expected = NON_DEFAULTS[settings_key(field)]
        assert getattr(value, field.name) == (tuple(expected) if isinstance(expected, list) else expected), field.name

    # the attribute name is not a key
    service = _service(tmp_path, f"{NS}:\n  max_report_chars: 5\n")
    assert service.get(NS).max_report_chars == 0
    assert next(d for d in service.describe() if d.namespace == NS).problems == (
        f"unknown field {NS}.max_report_chars ignored",
    )
