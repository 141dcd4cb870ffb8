"""The host's scrubber: credentials and absolute paths never reach logs or events."""

from __future__ import annotations

from harness.scrub import scrub_text


def test_credentials_and_paths_are_replaced() -> None:
    text = scrub_text("failed: Authorization: Bearer sk-abcdefghijk at /home/me/project/x.py and 'C:\\\\Users\\\\me'")
    assert "sk-abc" not in text and "/home/me" not in text and "Users" not in text
    assert "[credential]" in text and "[absolute-path]" in text


def test_quoted_paths_are_replaced() -> None:
    assert scrub_text("open '/etc/passwd' failed") == "open [absolute-path] failed"


def test_an_unclosed_quote_does_not_backtrack() -> None:
    # with a nested-quantifier pattern this input never finishes (exponential
    # backtracking); the path inside is still scrubbed by the unquoted rule
    hostile = "'/" + "a/" * 5000 + "x"
    assert scrub_text(hostile, limit=100_000) == "'[absolute-path]"


def test_output_is_bounded() -> None:
    assert len(scrub_text("x" * 2000)) == 500
