"""The row config: defaults from the reference, bounds refused at load naming
the field, the removed executionTimeoutMs, NaN/infinity from YAML clamped."""

from __future__ import annotations

import logging
import math
from pathlib import Path

import pytest

from evolution_review_plugin.config import ReviewConfig, clamp
from harness.plugins import instantiate_plugin
from harness.profiles.bundles import available_bundles
from hookspecs.errors import ProfileError

from .helpers import harness_cli, scripted_profile


class Plugin:
    config_schema = ReviewConfig

    def __init__(self, config: ReviewConfig) -> None:
        self.config = config


def load(config: dict[str, object]) -> ReviewConfig:
    plugin = instantiate_plugin(Plugin, config, name="evolution-review", where="profile row evolution-review")
    assert isinstance(plugin, Plugin)
    return plugin.config


def test_defaults_follow_the_reference() -> None:
    config = ReviewConfig()
    assert (config.review_enabled, config.review_mode, config.skill_review_trigger, config.review_wake_inject) == (
        True, "subagent", "cadence", True,
    )  # fmt: skip
    effective = clamp(config, lambda text: None)
    assert (effective.memory_interval, effective.skill_interval, config.review_timeout_ms) == (10, 10, 120_000)
    assert (config.review_context_messages, config.review_message_chars, config.review_max_depth) == (60, 2000, 1)
    assert config.review_tool_allow == ("skill",) and config.review_provider is None
    assert config.skill_review_completion_min_tool_calls == 20
    assert (config.max_ops_per_plan, config.memory_chars, config.user_chars) == (32, 2200, 1375)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"reviewTimeoutMs": 0}, "reviewTimeoutMs must be a number from 1 to 4294967295 (0 would abort every review at once), got 0"),
        ({"reviewTimeoutMs": 4_294_967_296}, "reviewTimeoutMs must be a number from 1 to 4294967295, got 4294967296"),
        ({"reviewMaxDepth": 0}, "reviewMaxDepth must be a number >= 1 (0 would reject every review spawn), got 0"),
        ({"memoryInterval": 0.5}, "memoryInterval must be a number >= 1, got 0.5 @ $.memoryInterval"),
        ({"reviewSkillInterval": 0}, "reviewSkillInterval must be a number >= 1, got 0"),
        ({"executionTimeoutMs": 30000}, "executionTimeoutMs was removed: nothing read it; use reviewTimeoutMs"),
        ({"reviewMode": "later"}, "expected one of 'subagent', 'inject' @ $.reviewMode"),
        ({"skillReviewTrigger": "always"}, "expected one of 'cadence', 'completion', 'both'"),
        ({"reviewProvider": ""}, "reviewProvider must be a non-empty string, got the string ''"),
    ],
)
def test_bad_values_are_refused_at_load_naming_the_field(config: dict[str, object], message: str) -> None:
    with pytest.raises(ProfileError) as caught:
        load(config)
    assert message in str(caught.value)
    assert str(caught.value).startswith("profile row evolution-review: field 'config':")


def test_nan_and_infinity_fall_back_to_the_default_with_one_warning() -> None:
    config = load({"reviewMemoryInterval": math.nan, "reviewTimeoutMs": math.inf, "reviewSkillInterval": 4})
    warnings: list[str] = []
    effective = clamp(config, warnings.append)
    assert effective.memory_interval == 10 and effective.review_timeout_s == 120.0 and effective.skill_interval == 4
    assert len(warnings) == 1
    assert "reviewMemoryInterval=nan" in warnings[0] and "reviewTimeoutMs=inf" in warnings[0]


def test_the_old_interval_keys_are_still_read_with_a_deprecation_warning() -> None:
    warnings: list[str] = []
    effective = clamp(load({"memoryInterval": 3, "skillInterval": 4}), warnings.append)
    assert (effective.memory_interval, effective.skill_interval) == (3, 4)
    assert warnings == [
        "evolution-review: memoryInterval is deprecated; use reviewMemoryInterval",
        "evolution-review: skillInterval is deprecated; use reviewSkillInterval",
    ]
    # the new key wins over its alias, silently
    warnings.clear()
    effective = clamp(load({"reviewMemoryInterval": 5, "memoryInterval": 3}), warnings.append)
    assert effective.memory_interval == 5 and warnings == []


def test_a_yaml_nan_in_a_profile_starts_the_host_with_a_warning(tmp_path: Path) -> None:
    script = "responses:\n  - match: {}\n    repeat: true\n    reply: {text: ok}\n"
    profile = scripted_profile(tmp_path, "{memoryInterval: .nan, reviewMode: inject}", script)
    proc = harness_cli(tmp_path, tmp_path / "home", "run", "--profile", str(profile), "hello")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("memoryInterval=nan is not a finite number; using the default") == 1


def test_a_zero_timeout_in_a_profile_is_refused_with_the_reason(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yml"
    profile.write_text("- {id: evolution-review, name: evolution-review, config: {reviewTimeoutMs: 0}}\n")
    proc = harness_cli(tmp_path, tmp_path / "home", "run", "--profile", str(profile), "hello")
    assert proc.returncode != 0
    assert "reviewTimeoutMs must be a number from 1 to 4294967295 (0 would abort every review at once)" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_the_bundle_is_declared() -> None:
    assert "evolution-review" in available_bundles()


def test_clamp_logs_nothing_for_a_clean_config(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        clamp(ReviewConfig(), logging.getLogger("x").warning)
    assert caplog.records == []


def test_the_bundle_inserts_the_row_and_a_profile_row_configures_it(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yml"
    profile.write_text("- bundle: evolution-review\n- id: evolution-review\n  config: {reviewMode: inject}\n")
    proc = harness_cli(tmp_path, tmp_path / "home", "--profile", str(profile), "--dump-config")
    assert proc.returncode == 0, proc.stderr
    assert "# layers: bundle:evolution-review" in proc.stdout
    assert "name: evolution-review" in proc.stdout and "reviewMode: inject" in proc.stdout
