"""Prompt framing, trimming to the char/token bounds, token estimate and model budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookspecs.values import ModelInfo
from shadow_mind_plugin.prompt import (
    EMPTY_TRAJECTORY,
    THINK_FIRST_CONTINUATION,
    TRIM_MARKER,
    build_prompt,
    prompt_header,
    trim_trajectory,
)
from shadow_mind_plugin.tokens import estimate_tokens, prompt_token_budget
from shadow_mind_plugin.utf16 import u16len

# --- token estimate -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), ("a", 1), ("abc", 2), ("你好", 2), ("你好abc", 4), ("𠀀x", 3), ("héllo wörld", 6)],
)
def test_estimate_vectors(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def test_estimate_dense_ranges_and_boundaries() -> None:
    assert estimate_tokens("\u3000\u30ff\uac00\ud7af\uff01") == 5  # all dense
    assert estimate_tokens("\u2e7f\u2e7f") == 1  # just below the first range: not dense
    assert estimate_tokens("\U000323af") == 2  # last astral ideograph: 2 UTF-16 units
    assert estimate_tokens("\U000323b0") == 1  # past the range: 2 units / 2
    assert estimate_tokens("😀😀") == 2  # emoji are not dense: 4 units / 2


def test_marker_sizes_match_the_reference() -> None:
    assert u16len(TRIM_MARKER) == 59
    assert estimate_tokens(TRIM_MARKER) == 30
    assert estimate_tokens("\n\n") == 1


# --- model budget ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("info", "budget"),
    [
        (None, 0),
        (ModelInfo(id="m"), 0),
        (ModelInfo(id="m", context_window=0), 0),
        (ModelInfo(id="m", context_window=-5), 0),
        (ModelInfo(id="m", context_window=128_000), 128_000 - 8192),
        (ModelInfo(id="m", context_window=128_000, max_output_tokens=32_000), 96_000),
        (ModelInfo(id="m", context_window=128_000, max_output_tokens=0), 128_000 - 8192),
        (ModelInfo(id="m", context_window=8192), 0),
        (ModelInfo(id="m", context_window=4000, max_output_tokens=4000), 0),
        (ModelInfo(id="m", context_window=4001, max_output_tokens=4000), 1),
    ],
)
def test_prompt_token_budget(info: ModelInfo | None, budget: int) -> None:
    assert prompt_token_budget(info) == budget


# --- framing --------------------------------------------------------------------------------------


def _build(trajectory: str, *, think_first: bool = False, chars: int = 0, tokens: int = 0) -> str:
    return build_prompt(
        "Skeptic",
        "skeptic",
        "Challenge untested claims.",
        trajectory,
        17,
        think_first=think_first,
        max_prompt_chars=chars,
        max_prompt_tokens=tokens,
    )


def test_header_lines_and_sections() -> None:
    prompt = _build("[seq=0 user:user]\nhello")
    lines = prompt.split("\n")
    assert lines[0] == 'You are the independent Shadow "Skeptic" (skeptic).'
    assert "## Shadow instructions\nChallenge untested claims.\n\n## Root trajectory (captured through session seq 17)\n" in prompt
    assert prompt.endswith("## Root trajectory (captured through session seq 17)\n[seq=0 user:user]\nhello")
    for needle in ('"not_relevant"', '"silent"', '"report"', "empty string", '"challenge", "gap", "confirm", or "uncertain"', "eight", "0 through 1", "decide or act"):
        assert needle in prompt
    assert "numbered plan" not in prompt


def test_think_first_adds_the_plan_line_before_the_instructions() -> None:
    prompt = _build("x", think_first=True)
    plan = prompt.index("numbered plan")
    assert plan < prompt.index("## Shadow instructions")
    assert "rendered seq values" in prompt[plan - 80 : plan + 120]


def test_think_first_continuation_text() -> None:
    assert "tools" in THINK_FIRST_CONTINUATION and "final result" in THINK_FIRST_CONTINUATION


def test_empty_trajectory_placeholder() -> None:
    assert _build("").endswith("\n" + EMPTY_TRAJECTORY)


def test_no_bounds_no_trimming() -> None:
    body = "\n\n".join(f"[seq={i} user:user]\nmessage {i}" for i in range(500))
    assert _build(body).endswith(body)


# --- trimming -------------------------------------------------------------------------------------


def _header_len() -> int:
    return u16len(prompt_header("Skeptic", "skeptic", "Challenge untested claims.", 17, think_first=False))


def test_char_bound_keeps_newest_parts_behind_the_marker() -> None:
    parts = [f"[seq={i} assistant]\nanswer number {i}" for i in range(40)]
    body = "\n\n".join(parts)
    limit = _header_len() + 1 + 300
    prompt = _build(body, chars=limit)
    assert u16len(prompt) <= limit
    kept = prompt.split("\n", _header_len())[-1]
    tail = prompt[prompt.index(TRIM_MARKER) :]
    assert tail.startswith(TRIM_MARKER + "\n\n")
    assert tail.endswith(parts[-1])
    assert "[seq=0 assistant]" not in kept
    # the kept suffix is the longest one that fits
    kept_parts = tail[len(TRIM_MARKER) + 2 :].split("\n\n")
    assert kept_parts == parts[-len(kept_parts) :]
    longer = "\n\n".join(parts[-len(kept_parts) - 1 :])
    assert u16len(longer) > 300 - 61


def test_token_bound_trims_too() -> None:
    parts = [f"第{i}条消息内容" * 3 for i in range(30)]
    body = "\n\n".join(parts)
    header_tokens = estimate_tokens(prompt_header("Skeptic", "skeptic", "Challenge untested claims.", 17, think_first=False))
    prompt = _build(body, tokens=header_tokens + 200)
    body_out = prompt[prompt.index(TRIM_MARKER) :]
    assert estimate_tokens(body_out) <= 200
    assert body_out.endswith(parts[-1])


def test_single_huge_part_keeps_its_head() -> None:
    body = "A" * 1000
    limit = _header_len() + 1 + 200
    prompt = _build(body, chars=limit)
    assert prompt.endswith(TRIM_MARKER + "\n\n" + "A" * (200 - 61))
    assert u16len(prompt) == limit


def test_budget_at_or_below_zero_uses_the_placeholder() -> None:
    header = _header_len()
    assert _build("x" * 50, chars=header + 1).endswith("\n" + EMPTY_TRAJECTORY)
    assert _build("x" * 50, chars=5).endswith("\n" + EMPTY_TRAJECTORY)
    assert _build("x" * 50, tokens=3).endswith("\n" + EMPTY_TRAJECTORY)


def test_small_budget_returns_a_cut_marker() -> None:
    assert trim_trajectory("abc\n\ndef", 40, float("inf")) == TRIM_MARKER[:40]
    assert trim_trajectory("abc\n\ndef", 61, float("inf")) == TRIM_MARKER
    assert trim_trajectory("abc\n\ndef", float("inf"), 31) == TRIM_MARKER
    assert trim_trajectory("abc\n\ndef", 62, float("inf")) == TRIM_MARKER + "\n\nd"


def test_body_that_fits_is_untouched() -> None:
    body = "short"
    assert _build(body, chars=_header_len() + 1 + 5).endswith("\nshort")


def test_astral_characters_are_never_split() -> None:
    body = "😀" * 100
    prompt = _build(body, chars=_header_len() + 1 + 61 + 5)
    tail = prompt[prompt.index(TRIM_MARKER) + len(TRIM_MARKER) + 2 :]
    assert tail == "😀😀"  # 5 units fit two whole emoji; the half pair is dropped
    prompt.encode("utf-8")  # no lone surrogates


@settings(max_examples=100, deadline=None)
@given(
    parts=st.lists(st.text(max_size=60), max_size=30),
    chars=st.integers(-10, 3000),
    tokens=st.integers(-10, 1500),
)
def test_never_throws_and_respects_positive_budgets(parts: list[str], chars: int, tokens: int) -> None:
    body = "\n\n".join(parts)
    prompt = _build(body, chars=chars, tokens=tokens)
    header = prompt_header("Skeptic", "skeptic", "Challenge untested claims.", 17, think_first=False)
    assert prompt.startswith(header + "\n")
    out = prompt[len(header) + 1 :]
    char_budget = chars - u16len(header) - 1 if chars > 0 else None
    token_budget = tokens - estimate_tokens(header) if tokens > 0 else None
    if (char_budget is not None and char_budget <= 0) or (token_budget is not None and token_budget <= 0):
        assert out in (body or EMPTY_TRAJECTORY, EMPTY_TRAJECTORY)
        return
    if char_budget is not None and char_budget >= 61 and (token_budget is None or token_budget >= 31):
        assert u16len(out) <= char_budget
    if token_budget is not None and token_budget >= 31 and (char_budget is None or char_budget >= 61):
        assert estimate_tokens(out) <= token_budget
    if out != (body or EMPTY_TRAJECTORY):
        assert out.startswith(TRIM_MARKER[: max(0, min(char_budget or 59, 59))])
        if len(out) > len(TRIM_MARKER):
            # what survives is the head of a suffix: the newest parts, cut at the end only
            kept = out[len(TRIM_MARKER) + 2 :]
            pieces = body.split("\n\n")
            assert any("\n\n".join(pieces[i:]).startswith(kept) for i in range(len(pieces)))
