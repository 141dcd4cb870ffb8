"""Prompt framing, entry elision to the window and char bounds, token estimate and model budget."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookspecs.values import ModelInfo
from shadow_mind_plugin.projection import Entry, Projection
from shadow_mind_plugin.prompt import (
    EMPTY_TRAJECTORY,
    PROMPT_WINDOW_SHARE,
    THINK_FIRST_CONTINUATION,
    FramedPrompt,
    build_prompt,
    cut_note,
    elision_marker,
    prompt_header,
    window_token_budget,
)
from shadow_mind_plugin.tokens import estimate_tokens
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


def test_separator_costs_one_token() -> None:
    assert estimate_tokens("\n\n") == 1


# --- model budget ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("info", "budget"),
    [
        (None, 0),
        (ModelInfo(id="m"), 0),
        (ModelInfo(id="m", context_window=0), 0),
        (ModelInfo(id="m", context_window=-5), 0),
        (ModelInfo(id="m", context_window=128_000), 64_000),  # half the window
        (ModelInfo(id="m", context_window=128_000, max_output_tokens=32_000), 64_000),
        (ModelInfo(id="m", context_window=128_000, max_output_tokens=100_000), 28_000),  # the output reserve is larger
        (ModelInfo(id="m", context_window=8192), 4096),  # a small window still bounds (was: no bound)
        (ModelInfo(id="m", context_window=8192, max_output_tokens=8192), 4096),  # reserve ≥ window: the share alone
        (ModelInfo(id="m", context_window=1), 1),
    ],
)
def test_window_token_budget(info: ModelInfo | None, budget: int) -> None:
    assert PROMPT_WINDOW_SHARE == 0.5
    assert window_token_budget(info) == budget


# --- framing --------------------------------------------------------------------------------------


def projection(texts: list[str], *, first: int = 0, step: int = 1) -> Projection:
    return Projection.of(
        Entry(first + i * step, f"[seq={first + i * step} assistant]\n{text}") for i, text in enumerate(texts)
    )


def _build(
    source: Projection, *, think_first: bool = False, chars: int = 0, tokens: int = 0, keys: tuple[str, ...] = ()
) -> FramedPrompt:
    return build_prompt(
        "Skeptic",
        "skeptic",
        "Challenge untested claims.",
        source,
        17,
        think_first=think_first,
        max_prompt_chars=chars,
        max_prompt_tokens=tokens,
        keys=keys,
    )


HEADER = prompt_header("Skeptic", "skeptic", "Challenge untested claims.", 17, think_first=False)


def test_header_lines_and_sections() -> None:
    framed = _build(Projection.of([Entry(0, "[seq=0 user:user]\nhello")]))
    prompt = framed.text
    lines = prompt.split("\n")
    assert lines[0] == 'You are the independent Shadow "Skeptic" (skeptic).'
    assert "## Shadow instructions\nChallenge untested claims.\n\n## Root trajectory (captured through session seq 17)\n" in prompt
    assert prompt.endswith("## Root trajectory (captured through session seq 17)\n[seq=0 user:user]\nhello")
    for needle in ('"not_relevant"', '"silent"', '"report"', "empty string", '"challenge", "gap", "confirm", or "uncertain"', "eight", "0 through 1", "decide or act"):
        assert needle in prompt
    assert "numbered plan" not in prompt
    assert framed.header == HEADER and framed.body == "[seq=0 user:user]\nhello"
    assert framed.seqs == {0} and framed.elided == 0 and framed.shown_seqs == (0, 0)


def test_think_first_adds_the_plan_line_before_the_instructions() -> None:
    prompt = _build(projection(["x"]), think_first=True).text
    plan = prompt.index("numbered plan")
    assert plan < prompt.index("## Shadow instructions")
    assert "rendered seq values" in prompt[plan - 80 : plan + 120]


def test_think_first_continuation_text() -> None:
    assert "tools" in THINK_FIRST_CONTINUATION and "final result" in THINK_FIRST_CONTINUATION


def test_empty_trajectory_placeholder() -> None:
    framed = _build(Projection.of([]))
    assert framed.text.endswith("\n" + EMPTY_TRAJECTORY)
    assert framed.seqs == frozenset() and framed.entries == 0 and framed.shown_seqs is None


def test_no_bounds_shows_everything() -> None:
    source = projection([f"message {i}" for i in range(500)])
    framed = _build(source)
    assert framed.body == source.text
    assert framed.seqs == source.seqs and framed.elided == 0 and framed.elided_seqs is None
    assert framed.body_digest.startswith("sha256:") and len(framed.body_digest) == 71


# --- elision --------------------------------------------------------------------------------------


def test_char_bound_elides_the_oldest_entries_behind_one_marker() -> None:
    source = projection([f"answer number {i}" for i in range(40)], first=3, step=2)
    limit = u16len(HEADER) + 1 + 300
    framed = _build(source, chars=limit)
    assert u16len(framed.text) <= limit
    marker, *kept = framed.body.split("\n\n")
    shown = source.entries[framed.elided :]
    assert [e.text for e in shown] == kept  # whole entries, the newest, in order
    last_elided = source.entries[framed.elided - 1].seq
    assert marker == elision_marker(framed.elided, 3, last_elided)
    assert marker.startswith(f"[{framed.elided} earlier trajectory entries (seqs 3 to {last_elided}) left out")
    assert framed.elided_seqs == (3, last_elided)
    assert framed.shown_seqs == (shown[0].seq, 81)
    # the allowlist is exactly what is shown
    assert framed.seqs == {e.seq for e in shown}
    assert framed.entries == 40 and framed.cut_seq is None
    # the longest suffix that fits (the marker reserve is for the widest marker)
    widest = elision_marker(40, 3, 81)
    one_more = "\n\n".join([widest, source.entries[framed.elided - 1].text, *kept])
    assert u16len(HEADER) + 1 + u16len(one_more) > limit


def test_one_elided_entry_reads_in_the_singular() -> None:
    assert elision_marker(1, 7, 7).startswith("[1 earlier trajectory entry (seq 7) left out")


def test_token_bound_elides_too() -> None:
    source = projection([f"第{i}条消息内容" * 3 for i in range(30)])
    framed = _build(source, tokens=estimate_tokens(HEADER) + 200)
    assert estimate_tokens(framed.text) <= estimate_tokens(HEADER) + 200
    assert 0 < framed.elided < 30
    assert framed.body.endswith(source.entries[-1].text)
    assert framed.seqs == {e.seq for e in source.entries[framed.elided :]}


def test_both_bounds_apply_and_the_smaller_wins() -> None:
    source = projection(["x" * 100 for _ in range(50)])
    by_chars = _build(source, chars=u16len(HEADER) + 1 + 1000, tokens=10_000)
    by_tokens = _build(source, chars=10_000_000, tokens=estimate_tokens(HEADER) + 200)
    assert len(by_tokens.seqs) < len(by_chars.seqs) < 50


def test_a_newest_entry_too_large_alone_keeps_its_head_and_says_so() -> None:
    source = projection(["short", "A" * 5000], first=10)
    limit = u16len(HEADER) + 1 + 400
    framed = _build(source, chars=limit)
    assert u16len(framed.text) <= limit
    marker, cut = framed.body.split("\n\n")
    assert marker == elision_marker(1, 10, 10)
    head, note = cut.rsplit("\n", 1)
    assert head.startswith("[seq=11 assistant]\nAAA")
    assert note == cut_note(11, u16len(head), u16len(source.entries[-1].text))
    assert framed.seqs == {11} and framed.cut_seq == 11 and framed.elided == 1


def test_a_cap_smaller_than_the_marker_cuts_the_marker_and_shows_nothing() -> None:
    source = projection(["abc", "def"])
    framed = _build(source, chars=u16len(HEADER) + 1 + 40)
    assert u16len(framed.text) == u16len(HEADER) + 1 + 40
    assert framed.body == elision_marker(2, 0, 1)[:40]
    assert framed.seqs == frozenset() and framed.elided == 2 and framed.shown_seqs is None
    # at or below the header: the header is never cut
    assert _build(source, chars=5).text == HEADER + "\n"


def test_a_window_smaller_than_the_header_still_frames_a_prompt() -> None:
    framed = _build(projection(["abc"]), tokens=3)
    assert framed.text.startswith(HEADER) and framed.seqs == frozenset()
    assert framed.body == elision_marker(1, 0, 0)


def test_body_that_fits_is_untouched() -> None:
    source = projection(["short"])
    framed = _build(source, chars=u16len(HEADER) + 1 + u16len(source.text))
    assert framed.body == source.text and framed.elided == 0


def test_astral_characters_are_never_split() -> None:
    source = projection(["😀" * 400])
    framed = _build(source, chars=u16len(HEADER) + 1 + 200)
    assert framed.cut_seq == 0
    framed.text.encode("utf-8")  # no lone surrogates
    assert u16len(framed.text) <= u16len(HEADER) + 1 + 200


def test_holdout_literals_are_redacted_before_measuring() -> None:
    # each 2-character key becomes the 18-character "[redacted holdout]": measured after redaction
    source = projection(["k1 " * 40 for _ in range(20)])
    limit = u16len(HEADER) + 1 + 2000
    framed = _build(source, chars=limit, keys=("k1",))
    assert "k1" not in framed.text and "[redacted holdout]" in framed.text
    assert u16len(framed.text) <= limit and 0 < framed.elided < 20


@settings(max_examples=100, deadline=None)
@given(
    texts=st.lists(st.text(max_size=60), max_size=30),
    chars=st.integers(-10, 3000),
    tokens=st.integers(-10, 1500),
)
def test_never_throws_and_shows_a_newest_suffix(texts: list[str], chars: int, tokens: int) -> None:
    source = projection(texts)
    framed = _build(source, chars=chars, tokens=tokens)
    assert framed.text.startswith(HEADER + "\n")
    if chars > u16len(HEADER):
        assert u16len(framed.text) <= chars
    shown = source.entries[framed.elided :]
    assert framed.seqs == {e.seq for e in shown}
    assert framed.elided + len(shown) == len(source.entries) == framed.entries
    if framed.cut_seq is None:
        for entry in shown:
            assert entry.text in framed.body
    else:
        assert framed.cut_seq == source.entries[-1].seq and len(shown) == 1
