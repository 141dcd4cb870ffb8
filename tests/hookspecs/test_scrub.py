"""The contract's scrubber: credentials and absolute paths never reach logs, events or journals.

The rule-by-rule cases live with the plugin's ``sanitize`` (tests/shadow/governance/
test_safe_errors.py), which runs the same rules; these pin the host's use and
what the merge of the two former scrubbers added to each side."""

from __future__ import annotations

import pytest

from hookspecs.scrub import scrub_text


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


def test_the_cut_is_marked_and_none_keeps_everything() -> None:
    assert scrub_text("abcdef", limit=4) == "abc…"
    assert scrub_text("x" * 2000, limit=None) == "x" * 2000


# ---- what the merge added: the host's rules the plugin lacked ---------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("password=hunter2 next", "password=[credential] next"),  # only the value is replaced
        ("PASSWORD: 'two words'", "PASSWORD: '[credential]'"),
        ("mypassword=x", "mypassword=x"),  # still whole words only
    ],
)
def test_password_is_a_secret_name(raw: str, clean: str) -> None:
    assert scrub_text(raw) == clean


def test_a_bare_path_may_follow_an_equals_sign() -> None:
    assert scrub_text("--config=/home/me/app.yml") == "--config=[absolute-path]"


def test_python_only_white_space_separates() -> None:
    assert scrub_text("token\x1c=\x85abc") == "token\x1c=\x85[credential]"
    assert scrub_text("Bearer\x1fabcdefgh") == "Bearer\x1f[credential]"
    assert scrub_text("x\x1e/opt/app/bin") == "x\x1e[absolute-path]"


def test_dotless_i_matches_case_insensitively() -> None:
    assert scrub_text("AP\u0131_KEY=abc") == "AP\u0131_KEY=[credential]"


# ---- what the merge added: the plugin's rules the host lacked ---------------------


def test_a_non_ascii_letter_does_not_join_a_name_into_a_word() -> None:
    assert scrub_text("\u00e9token=abc") == "\u00e9token=[credential]"
    assert scrub_text("\u4e2dsk-abcdefghij") == "\u4e2d[credential]"
    assert scrub_text("\u00e9C:\\Users\\me") == "\u00e9[absolute-path]"
    # the letters that fold to ASCII ones do join (JavaScript's `iu` semantics)
    assert scrub_text("\u017ftoken=abc") == "\u017ftoken=abc"


def test_ecmascript_only_white_space_separates() -> None:
    assert scrub_text("secret\ufeff=abc") == "secret\ufeff=[credential]"
    assert scrub_text("x\ufeff/opt/app/bin") == "x\ufeff[absolute-path]"


def test_a_value_runs_on_over_white_space_only_one_side_knows() -> None:
    # the host stopped at \x1c, the plugin at \ufeff: together neither ends a value
    assert scrub_text("token=abc\x1cdef\ufeffghi tail") == "token=[credential] tail"
    assert scrub_text("/usr/lib\x1cx/y tail") == "[absolute-path] tail"


# ---- known secret values ------------------------------------------------------------


def test_known_secrets_are_replaced_first_longest_first() -> None:
    key = "AbC123-not-a-pattern"
    text = scrub_text(f"provider said {key} and {key[:6]}", secrets=[key[:6], key, ""])
    assert text == "provider said [credential] and [credential]"


def test_a_known_secret_is_gone_before_the_cut() -> None:
    key = "k" * 40
    text = scrub_text("x" * 470 + key, secrets=[key])
    assert "k" not in text and text.endswith("[credential]")


def test_no_secrets_changes_nothing() -> None:
    assert scrub_text("plain words", secrets=[]) == "plain words"


def test_path_marker_replaces_the_absolute_path_marker_only() -> None:
    text = "token=abc123 read /home/me/project/notes.txt and C:\\Users\\me\\x.txt"
    out = scrub_text(text, limit=None, path_marker="<path>")
    assert out == "token=[credential] read <path> and <path>"
    assert scrub_text(text, limit=None) == "token=[credential] read [absolute-path] and [absolute-path]"


@pytest.mark.parametrize("marker", ["148aac11-0000.jsonl", "47bfd9da-0000.jsonl", "0"])
def test_a_path_marker_starting_with_digits_is_a_literal(marker: str) -> None:
    # the rule that keeps the character before a path wrote \1 + marker: \148... was group 14
    # (an error) and \147... the octal escape "g"; a Claude Code session id is such a marker
    assert scrub_text("see /home/me/x.jsonl", limit=None, path_marker=marker) == f"see {marker}"


@pytest.mark.parametrize(
    "echo",
    [
        "7d1f0c9e4b2a8f6e5d3c1b0a",  # the key without its sk- prefix
        "9e4b2a8f",  # eight characters from its middle
        "sk-test-7d1f0c9e",  # its first sixteen
        "Bearer sk-test-7d1f0c9e4b2a8f6e5d3c1b0a",
    ],
)
def test_a_partial_echo_of_a_known_secret_is_hidden(echo: str) -> None:
    key = "sk-test-7d1f0c9e4b2a8f6e5d3c1b0a"
    text = scrub_text(f"id={echo!r} for you", secrets=[key], limit=None)
    assert "[credential]" in text
    for size in range(8, len(key) + 1):
        for start in range(len(key) - size + 1):
            assert key[start : start + size] not in text


def test_fewer_than_eight_characters_of_a_secret_are_kept() -> None:
    key = "sk-test-7d1f0c9e4b2a8f6e5d3c1b0a"
    assert scrub_text("version 7d1f0c9 is out", secrets=[key]) == "version 7d1f0c9 is out"
