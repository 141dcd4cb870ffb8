"""Holdout literal redaction (docs/shadow-mind.md §7 "Holdout")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shadow_mind_plugin.governance.holdout import REDACTED_HOLDOUT, contains_literal, redact

R = REDACTED_HOLDOUT


def test_marker_is_the_contract_string() -> None:
    assert R == "[redacted holdout]"


def test_every_occurrence_is_replaced() -> None:
    assert redact("run SCORE then SCORE again", ["SCORE"]) == f"run {R} then {R} again"


def test_keys_apply_in_order_without_overlap_handling() -> None:
    # the first key consumes the shared "bc", so the second never matches
    assert redact("abcd", ["abc", "bcd"]) == f"{R}d"
    assert redact("abcd", ["bcd", "abc"]) == f"a{R}"


def test_later_keys_see_earlier_markers() -> None:
    # sequential split/join: a key that occurs inside the marker is redacted
    # there too, and the marker it leaves still holds the key, so the relay's
    # final invariant check refuses such a text (as the reference does)
    text = redact("SECRET", ["SECRET", "holdout"])
    assert text == f"[redacted {R}]"
    assert contains_literal(text, ["holdout"]) is True


def test_keys_are_literals_not_patterns() -> None:
    assert redact("a.b* and axb", ["a.b*"]) == f"{R} and axb"
    assert redact(r"C:\path\(x)", [r"\(x)"]) == rf"C:\path{R}"


def test_non_overlapping_left_to_right() -> None:
    assert redact("aaa", ["aa"]) == f"{R}a"


def test_empty_keys_are_skipped() -> None:
    assert redact("abc", ["", "b"]) == f"a{R}c"
    assert contains_literal("abc", [""]) is False


def test_contains_literal() -> None:
    assert contains_literal("x EXPECTED_OUTPUT y", ["SCORING_COMMAND", "EXPECTED_OUTPUT"])
    assert not contains_literal("nothing here", ["SCORING_COMMAND"])
    assert not contains_literal("anything", [])


def test_unicode_keys() -> None:
    assert redact("密钥=秘密值😀", ["秘密值😀"]) == f"密钥={R}"


# Keys drawn from characters that never occur in the marker, so no marker can
# complete a key: then no key may survive redaction.
KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
keys_strategy = st.lists(st.text(alphabet=KEY_ALPHABET, min_size=1, max_size=6), max_size=5)
text_strategy = st.text(alphabet=KEY_ALPHABET + "abc xyz-\n", max_size=80)


@settings(max_examples=100, deadline=None)
@given(text=text_strategy, keys=keys_strategy)
def test_redact_never_leaves_a_key(text: str, keys: list[str]) -> None:
    out = redact(text, keys)
    assert not contains_literal(out, keys)
    if not keys or not contains_literal(text, keys):
        assert out == text
