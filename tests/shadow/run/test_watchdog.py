"""Degenerate-output watchdog (docs/shadow-mind.md §7 "Degenerate-output watchdog"): thresholds, budgets, one-shot firing."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shadow_mind_plugin.run.watchdog import (
    MAX_CHARS_WITHOUT_TOOL_CALL,
    MAX_REASONING_CHARS_BASE,
    TAIL_CAP,
    DegenerateOutputGuard,
    has_repeated_suffix,
    is_signal_block,
    resolve_reasoning_budget,
)

TOOL_CALLS = "<tool_calls>\n"

PROSE = (
    "The parser walks the token list once and builds the tree bottom-up. When it meets an "
    "unexpected token it records a diagnostic with the offending span, skips to the next "
    "statement boundary and carries on, so a single typo never hides the rest of the file. "
    "Tests cover empty input, deeply nested expressions, unicode identifiers such as naïve "
    "and 变量, and the recovery path after a missing closing bracket."
)


# ---- the pure detector: vectors from the reference ---------------------------


def test_constants() -> None:
    assert TAIL_CAP == 128
    assert MAX_CHARS_WITHOUT_TOOL_CALL == 96_000
    assert MAX_REASONING_CHARS_BASE == 96_000


def test_four_tool_call_markers_repeat() -> None:
    assert has_repeated_suffix(TOOL_CALLS * 4)


def test_partial_fifth_copy_still_repeats() -> None:
    assert has_repeated_suffix(TOOL_CALLS * 6 + "<too")


def test_three_copies_do_not() -> None:
    assert not has_repeated_suffix(TOOL_CALLS * 3)


def test_short_block_with_letters_digits_and_space() -> None:
    assert has_repeated_suffix("ab1 " * 4)
    assert not has_repeated_suffix("ab1 " * 3)


def test_two_token_alternation_period_25() -> None:
    block = TOOL_CALLS + "<tool_calls>"
    assert len(block) == 25
    assert has_repeated_suffix(block * 4)


@pytest.mark.parametrize("text", ["======" * 4, "aaaaa" * 4, "...." * 4, " \n\t\r" * 8, "\n\n\n\n" * 10])
def test_noise_blocks_are_ignored(text: str) -> None:
    assert not has_repeated_suffix(text)


def test_ordinary_prose_does_not_repeat() -> None:
    for end in range(len(PROSE) + 1):
        assert not has_repeated_suffix(PROSE[:end][-TAIL_CAP:])


def test_minimum_length_is_16() -> None:
    assert not has_repeated_suffix("ab1" * 5)  # 15 units, and period 3 is below the minimum
    assert has_repeated_suffix("x" + "ab1 " * 4)


def test_period_bounds() -> None:
    block33 = "abcdefghijklmnopqrstuvwxyz0123456"
    assert len(block33) == 33
    assert not has_repeated_suffix(block33 * 4)  # longer than 32: left to the budget
    assert has_repeated_suffix(block33[:32] * 4)


def test_signal_block_rules() -> None:
    assert is_signal_block("ab1 ")
    assert not is_signal_block("====")  # no letter or digit
    assert not is_signal_block("aaaa")  # one distinct code point
    assert is_signal_block("变量变量")  # \p{L} beyond ASCII
    assert is_signal_block("Ⅻ-Ⅻ-")  # \p{N} (Nl)
    assert not is_signal_block("😀😀!!")  # no letter or digit


def test_astral_characters_count_two_units() -> None:
    # "a😀" is 3 units: below the minimum period, but its doubling (6 units) qualifies
    assert has_repeated_suffix("a😀" * 8)
    assert not has_repeated_suffix("a😀" * 7)  # 21 units: period 6 needs 24


# ---- the guard ------------------------------------------------------------------


def feed(guard: DegenerateOutputGuard, chunks: list[str], kind: str = "text") -> list[str | None]:
    return [guard.observe_chunk(c, kind) for c in chunks]  # type: ignore[arg-type]


def test_guard_fires_repetition_once() -> None:
    guard = DegenerateOutputGuard()
    assert feed(guard, [TOOL_CALLS] * 3) == [None, None, None]
    assert not guard.fired and guard.reason is None
    assert guard.observe_chunk(TOOL_CALLS, "text") == "repetition"
    assert guard.fired and guard.reason == "repetition"
    # one-shot: later chunks are ignored, whatever they hold
    assert feed(guard, [TOOL_CALLS] * 5 + ["x" * 200_000]) == [None] * 6
    assert guard.reason == "repetition"


def test_both_channels_feed_one_tail() -> None:
    guard = DegenerateOutputGuard()
    assert guard.observe_chunk(TOOL_CALLS, "text") is None
    assert guard.observe_chunk(TOOL_CALLS, "reasoning") is None
    assert guard.observe_chunk(TOOL_CALLS, "text") is None
    assert guard.observe_chunk(TOOL_CALLS, "reasoning") == "repetition"


def test_tail_survives_tool_calls_and_boundaries() -> None:
    guard = DegenerateOutputGuard()
    feed(guard, [TOOL_CALLS, TOOL_CALLS])
    guard.observe_tool_call()
    guard.observe_chunk(TOOL_CALLS, "text")
    guard.observe_boundary()
    assert guard.observe_chunk(TOOL_CALLS, "text") == "repetition"


def test_repetition_split_across_odd_chunks() -> None:
    stream = PROSE + "ab1 " * 4
    guard = DegenerateOutputGuard()
    results = [guard.observe_chunk(stream[i : i + 7], "text") for i in range(0, len(stream), 7)]
    assert results[-1] == "repetition" and results.count("repetition") == 1


def test_one_big_chunk_is_checked_at_its_end() -> None:
    guard = DegenerateOutputGuard()
    assert guard.observe_chunk("x" * 5000 + TOOL_CALLS * 4, "text") == "repetition"


def test_repetition_inside_a_chunk_but_not_at_its_end_does_not_fire() -> None:
    # the check looks at the tail after each chunk, like the reference
    guard = DegenerateOutputGuard()
    assert guard.observe_chunk(TOOL_CALLS * 4 + PROSE, "text") is None


def test_empty_chunks_are_ignored() -> None:
    guard = DegenerateOutputGuard(reasoning_budget=0)
    assert guard.observe_chunk("", "reasoning") is None
    assert not guard.fired


def test_unknown_kind_is_an_error() -> None:
    with pytest.raises(ValueError):
        DegenerateOutputGuard().observe_chunk("x", "tool")  # type: ignore[arg-type]


def test_text_budget_is_strictly_greater() -> None:
    guard = DegenerateOutputGuard()
    assert feed(guard, ["x" * 48_000, "x" * 48_000]) == [None, None]
    assert guard.observe_chunk("x", "text") == "output-budget"
    assert guard.reason == "output-budget"
    assert guard.observe_chunk("x", "text") is None


def test_max_effort_reasoning_budget() -> None:
    guard = DegenerateOutputGuard(resolve_reasoning_budget("max"))
    assert guard.reasoning_budget == 384_000
    assert feed(guard, ["x" * 48_000] * 8, "reasoning") == [None] * 8
    assert guard.observe_chunk("x", "reasoning") == "output-budget"


def test_default_reasoning_budget_is_the_base() -> None:
    guard = DegenerateOutputGuard()
    assert feed(guard, ["y" * 96_000], "reasoning") == [None]
    assert guard.observe_chunk("y", "reasoning") == "output-budget"


def test_budgets_are_independent() -> None:
    guard = DegenerateOutputGuard()
    assert guard.observe_chunk("x" * 96_000, "text") is None
    assert guard.observe_chunk("y" * 96_000, "reasoning") is None
    assert not guard.fired
    assert guard.observe_chunk("y", "reasoning") == "output-budget"


@pytest.mark.parametrize("reset", ["observe_tool_call", "observe_boundary"])
def test_progress_resets_both_budgets(reset: str) -> None:
    guard = DegenerateOutputGuard()
    guard.observe_chunk("x" * 96_000, "text")
    guard.observe_chunk("y" * 96_000, "reasoning")
    getattr(guard, reset)()
    assert guard.observe_chunk("x" * 96_000, "text") is None
    assert guard.observe_chunk("y" * 96_000, "reasoning") is None
    assert not guard.fired


def test_budget_counts_utf16_units() -> None:
    guard = DegenerateOutputGuard()
    assert guard.observe_chunk("😀" * 48_000, "text") is None  # 96 000 units
    assert guard.observe_chunk("x", "text") == "output-budget"


def test_budget_checked_before_repetition() -> None:
    guard = DegenerateOutputGuard()
    guard.observe_chunk("x" * 95_990, "text")
    assert guard.observe_chunk(TOOL_CALLS * 4, "text") == "output-budget"


@pytest.mark.parametrize(
    ("effort", "budget"),
    [
        ("low", 96_000),
        ("medium", 96_000),
        ("high", 192_000),
        ("max", 384_000),
        (None, 384_000),
        ("ultra", 384_000),
        ("xhigh", 384_000),
        ("minimal", 384_000),
        ("", 384_000),
    ],
)
def test_resolve_reasoning_budget(effort: str | None, budget: int) -> None:
    assert resolve_reasoning_budget(effort) == budget


def test_buffer_stays_bounded() -> None:
    guard = DegenerateOutputGuard()
    for i in range(20_000):
        guard.observe_chunk(PROSE[i % 300 : i % 300 + 20], "text")
        if i % 1000 == 0:
            guard.observe_boundary()
    assert not guard.fired
    assert len(guard._buf) <= 2 * TAIL_CAP + 20


# ---- properties -------------------------------------------------------------------

WORDS = (
    "parser token tree walk build node span error recovery bracket input output value index "
    "module import function class method return yield async await buffer stream chunk report "
    "review shadow anchor window budget signal event session header turn step message reply "
    "cache queue thread socket packet frame layer model route vendor schema field record "
    "journal status phase stage reason code epoch cycle batch relay holdout literal secret "
    "数据 变量 函数 测试 naïve café résumé 😀ok"
).split()


@st.composite
def prose_stream(draw: st.DrawFn) -> tuple[str, list[int]]:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=60, unique=True))
    seps = draw(st.lists(st.sampled_from([" ", " ", ", ", ". ", "\n"]), min_size=len(words), max_size=len(words)))
    text = "".join(w + s for w, s in zip(words, seps, strict=True))
    cuts = draw(st.lists(st.integers(1, 40), max_size=40))
    return text, cuts


def chunks_of(text: str, cuts: list[int]) -> list[str]:
    out, i = [], 0
    for size in cuts:
        if i >= len(text):
            break
        out.append(text[i : i + size])
        i += size
    if i < len(text):
        out.append(text[i:])
    return out


@settings(max_examples=100, deadline=None)
@given(stream=prose_stream(), kinds=st.lists(st.sampled_from(["text", "reasoning"]), min_size=1))
def test_never_fires_on_prose(stream: tuple[str, list[int]], kinds: list[str]) -> None:
    # distinct words can never form 4 consecutive copies of a signal block
    text, cuts = stream
    guard = DegenerateOutputGuard(resolve_reasoning_budget("low"))
    for i, chunk in enumerate(chunks_of(text, cuts)):
        assert guard.observe_chunk(chunk, kinds[i % len(kinds)]) is None  # type: ignore[arg-type]
    assert not guard.fired


# A literal model of the reference: a list of UTF-16 units, JS code-point
# iteration for the signal test, no shortcuts.
def _units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def _js_code_points(units: list[int]) -> list[int]:
    out, i = [], 0
    while i < len(units):
        u = units[i]
        if 0xD800 <= u <= 0xDBFF and i + 1 < len(units) and 0xDC00 <= units[i + 1] <= 0xDFFF:
            out.append(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00))
            i += 2
        else:
            out.append(u)
            i += 1
    return out


def _model_signal(block: list[int]) -> bool:
    cps = _js_code_points(block)
    letter = any(unicodedata.category(chr(c))[0] in "LN" for c in cps)
    non_ws = any(chr(c) not in " \n\t\r" for c in cps)
    return letter and non_ws and len(set(cps)) >= 2


def _model_repeated(t: list[int]) -> bool:
    if len(t) < 16:
        return False
    for p in range(4, 33):
        if len(t) < 4 * p:
            continue
        block = t[-p:]
        if not _model_signal(block):
            continue
        if all(t[len(t) - k * p : len(t) - (k - 1) * p] == block for k in (2, 3, 4)):
            return True
    return False


class ModelGuard:
    def __init__(self, budget: int) -> None:
        self.budget, self.text, self.reasoning, self.tail, self.fired = budget, 0, 0, [], False

    def chunk(self, text: str, kind: str) -> str | None:
        if self.fired or text == "":
            return None
        units = _units(text)
        if kind == "text":
            self.text += len(units)
            over = self.text > 96_000
        else:
            self.reasoning += len(units)
            over = self.reasoning > self.budget
        if over:
            self.fired = True
            return "output-budget"
        self.tail = (self.tail + units)[-128:]
        if _model_repeated(self.tail):
            self.fired = True
            return "repetition"
        return None


ALPHABET = st.sampled_from(["a", "b", "1", " ", "\n", "<", "=", "é", "变", "😀", "ab", "ab1 ", "<tool_calls>\n"])
OP = st.one_of(
    st.tuples(st.just("chunk"), st.lists(ALPHABET, max_size=12).map("".join), st.sampled_from(["text", "reasoning"])),
    st.tuples(st.sampled_from(["tool", "boundary"]), st.just(""), st.just("")),
)


@settings(max_examples=100, deadline=None)
@given(ops=st.lists(OP, max_size=80), budget=st.sampled_from([40, 96_000]))
def test_guard_matches_the_literal_model(ops: list[tuple[str, str, str]], budget: int) -> None:
    guard = DegenerateOutputGuard(budget)
    model = ModelGuard(budget)
    for op, text, kind in ops:
        if op == "chunk":
            assert guard.observe_chunk(text, kind) == model.chunk(text, kind)  # type: ignore[arg-type]
        elif op == "tool":
            guard.observe_tool_call()
            model.text = model.reasoning = 0
        else:
            guard.observe_boundary()
            model.text = model.reasoning = 0
    assert guard.fired == model.fired


@settings(max_examples=100, deadline=None)
@given(
    block=st.text(alphabet="abc12 <>_\n变😀", min_size=4, max_size=16).filter(lambda b: is_signal_block(b)),
    prefix=st.text(alphabet="xyz ", max_size=30),
    size=st.integers(1, 9),
)
def test_any_signal_block_repeated_four_times_fires(block: str, prefix: str, size: int) -> None:
    stream = prefix + block * 4
    guard = DegenerateOutputGuard()
    for i in range(0, len(stream), size):
        guard.observe_chunk(stream[i : i + size], "text")
    # it may fire earlier on a sub-period, but never later than the 4th copy
    assert guard.reason == "repetition"
