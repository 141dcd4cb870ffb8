"""The one value describer behind every "expected ..., got ..." message."""

from __future__ import annotations

import pytest
from ruamel.yaml.scalarstring import LiteralScalarString

from hookspecs.values.wire import describe_value


class Thing:
    pass


@pytest.mark.parametrize(
    ("value", "phrase"),
    [
        (None, "null"),
        (True, "a boolean"),
        (0, "the number 0"),
        (1.5, "the number 1.5"),
        ("x", "the string 'x'"),
        ([1], "a list"),
        ({"a": 1}, "a mapping"),
        ((1, 2), "tuple"),
        (Thing(), "Thing"),
    ],
)
def test_phrases(value: object, phrase: str) -> None:
    assert describe_value(value) == phrase


def test_yaml_string_subclasses_read_like_plain_strings() -> None:
    assert describe_value(LiteralScalarString("a\n")) == "the string 'a\\n'"
