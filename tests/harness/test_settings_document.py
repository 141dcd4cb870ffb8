"""The settings document's own messages, worded with ``describe_value``."""

from __future__ import annotations

import pytest

from harness.settings.document import parse, read_section
from hookspecs.errors import SettingsError


@pytest.mark.parametrize(("text", "got"), [("- a\n", "a list"), ("just words\n", "the string 'just words'"), ("3\n", "the number 3")])
def test_a_document_that_is_not_a_mapping_names_what_it_is(text: str, got: str) -> None:
    with pytest.raises(SettingsError, match=f"^f.yml: expected a mapping of namespaces at the top level, got {got}$"):
        parse(text, where="f.yml")


@pytest.mark.parametrize(("node", "got"), [([1], "a list"), (True, "a boolean"), (2.5, "the number 2.5")])
def test_a_section_that_is_not_a_mapping_names_what_it_is(node: object, got: str) -> None:
    assert read_section("ns", node).errors == {"": f"ns: expected a mapping of fields, got {got}"}
