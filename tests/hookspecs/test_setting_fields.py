"""``hookspecs.values.setting``: one declaration gives a field's check, message and JSON Schema."""

from __future__ import annotations

import math
from typing import Literal

import attrs
import pytest

from hookspecs.values import Settings, evolve_settings, override_of, setting, setting_fields, setting_of


class Demo(Settings):
    count: int = setting(alias="maxCount", default=2, minimum=1, maximum=9, why_minimum="0 would stop", description="How many.")
    share: float = setting(alias="share", default=0.5, minimum=0, maximum=1, description="A share.")
    loose: float = setting(alias="loose", default=1.0, minimum=1, finite=False, description="Replaced later when NaN.")
    flag: bool = setting(alias="flag", default=True, description="On or off.")
    mode: Literal["a", "b"] = setting(alias="mode", default="a", description="Which one.")
    names: tuple[str, ...] = setting(alias="names", default=(), description="Some names.")
    label: str | None = setting(alias="label", default=None, non_empty=True, description="A label.")
    route: str | None = setting(alias="route", default=None, pattern=r"[^/\s]+/\S+", shape="a provider/model route", description="A route.")
    old: float | None = setting(alias="old", default=None, removed="use maxCount", description="Removed.")


def _refusal(**values: object) -> str:
    with pytest.raises((TypeError, ValueError)) as info:
        Demo(**values)  # type: ignore[arg-type]
    return str(info.value)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"maxCount": 0}, "maxCount must be an integer from 1 to 9 (0 would stop), got 0"),
        ({"maxCount": 10}, "maxCount must be an integer from 1 to 9, got 10"),
        ({"maxCount": True}, "maxCount must be an integer from 1 to 9, got a boolean"),
        ({"maxCount": 1.5}, "maxCount must be an integer from 1 to 9, got 1.5"),
        ({"share": math.nan}, "share must be a finite number from 0 to 1, got the number nan"),
        ({"share": "0.5"}, "share must be a finite number from 0 to 1, got the string '0.5'"),
        ({"loose": 0.5}, "loose must be a number >= 1, got 0.5"),
        ({"flag": 1}, "flag must be true or false, got 1"),
        ({"mode": "c"}, "mode must be one of 'a', 'b', got the string 'c'"),
        ({"names": ["a", 1]}, "names must be a list of strings, got tuple"),
        ({"label": "  "}, "label must be a non-empty string, got the string '  '"),
        ({"route": "nomodel"}, "route must be a provider/model route, got the string 'nomodel'"),
        ({"old": 3}, "old was removed: use maxCount"),
    ],
)
def test_each_refusal_is_one_line_naming_the_key(values: dict[str, object], message: str) -> None:
    assert _refusal(**values) == message


def test_a_wrong_type_is_a_type_error_and_a_bound_a_value_error() -> None:
    with pytest.raises(TypeError):
        Demo(maxCount="3")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Demo(maxCount=0)


def test_valid_values_pass_and_lists_become_tuples() -> None:
    value = Demo(maxCount=9, share=1, loose=math.inf, mode="b", names=["x"], label="l", route="p/m/x")  # type: ignore[arg-type]
    assert value.names == ("x",) and value.loose == math.inf
    assert evolve_settings(value, {"maxCount": 1}).count == 1


def test_a_long_refused_value_is_cut_in_the_message() -> None:
    message = _refusal(route="x" * 10_000)
    assert len(message) < 200 and message.endswith("…")


def test_the_json_keywords_come_from_the_declaration() -> None:
    described = setting_fields(Demo)
    assert described["count"].json_keywords() == {"description": "How many.", "minimum": 1, "maximum": 9}
    assert described["label"].json_keywords() == {"description": "A label.", "minLength": 1}
    assert described["route"].json_keywords()["pattern"] == r"^(?:[^/\s]+/\S+)$"
    assert (described["mode"].kind, described["mode"].choices) == ("choice", ("a", "b"))
    assert described["label"].optional and not described["count"].optional


def test_an_override_keeps_key_description_and_bounds_with_its_own_kind() -> None:
    class Live(Settings):
        count: int | None = override_of(setting_fields(Demo)["loose"])

    live = setting_of(attrs.fields(Live).count)
    assert live is not None
    assert (live.key, live.description, live.minimum, live.kind, live.finite) == ("loose", "Replaced later when NaN.", 1, "integer", True)
    assert Live().count is None
    with pytest.raises(ValueError, match=r"^loose must be an integer >= 1, got 0$"):
        Live(**{"loose": 0})  # the keyword is the key


def test_a_class_that_breaks_the_declaration_rules_is_refused_at_definition() -> None:
    with pytest.raises(TypeError, match=r"Bad\.plain: declare it with setting\(\.\.\.\)"):

        class Bad(Settings):
            plain: int = 3

    with pytest.raises(TypeError, match=r"Optional\.count: the annotation must allow None exactly when the default is None"):

        class Optional(Settings):
            count: int = setting(alias="count", default=None, minimum=1, description="x")  # type: ignore[arg-type]

    with pytest.raises(TypeError, match=r"Mapping\.table: .* is not a settings type"):

        class Mapping(Settings):
            table: dict[str, int] = setting(alias="table", default={}, description="x")
