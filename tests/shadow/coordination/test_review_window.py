"""Review window, decay and the four stagnation detectors (docs/shadow-mind.md §7 "Stagnation, cooldown and escalation", "Stale-report decay")."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from shadow_mind_plugin.coordination.review_window import (
    Detection,
    ReviewEntry,
    ReviewWindow,
    ReviewWindowOptions,
    detect_patterns,
    envelope_key,
    refs_key,
)

OPTIONS = ReviewWindowOptions()


def entry(run: str, verdict: str, refs: Sequence[int] = (), shadow: str = "default") -> ReviewEntry:
    return ReviewEntry(
        shadow_id=shadow,
        run_id=run,
        verdict=verdict,
        refs=tuple(refs),
        captured_through_seq=0,
        finished_at="2025-01-01T00:00:00.000Z",
    )


def patterns(entries: Sequence[ReviewEntry], options: ReviewWindowOptions = OPTIONS) -> list[str]:
    return [str(d.pattern) for d in detect_patterns(entries, options)]


def test_keys_emulate_json_stringify() -> None:
    assert refs_key([3, 7]) == "[3,7]"
    assert refs_key(()) == "[]"
    assert envelope_key("challenge", [3, 7]) == "challenge:[3,7]"
    assert envelope_key("confirm", []) == "confirm:[]"
    assert entry("r", "gap", [1]).envelope == "gap:[1]"


def test_default_options_match_settings_defaults() -> None:
    assert OPTIONS == ReviewWindowOptions(
        spinning_repeat_count=3,
        oscillation_periods=2,
        no_drift_repeat_count=3,
        diminishing_window_size=5,
        diminishing_novelty_threshold=0.4,
    )


def test_spinning_needs_n_identical_envelopes() -> None:
    two = [entry("r1", "challenge", [4]), entry("r2", "challenge", [4])]
    assert patterns(two) == []
    three = [*two, entry("r3", "challenge", [4])]
    assert detect_patterns(three, OPTIONS) == [
        Detection(shadow_id="default", pattern="spinning", run_ids=("r1", "r2", "r3"))  # type: ignore[arg-type]
    ]


def test_spinning_looks_at_the_suffix_only() -> None:
    entries = [entry("r0", "gap", [1]), *(entry(f"r{i}", "challenge", [4]) for i in range(1, 4))]
    found = detect_patterns(entries, OPTIONS)
    assert [d.pattern for d in found] == ["spinning"]
    assert found[0].run_ids == ("r1", "r2", "r3")


def test_spinning_broken_by_different_refs() -> None:
    entries = [entry("r1", "challenge", [4]), entry("r2", "challenge", [4]), entry("r3", "challenge", [4, 5])]
    assert patterns(entries) == []


def test_oscillation_alternates_two_verdicts_on_identical_refs() -> None:
    entries = [entry(f"r{i}", v, [2, 9]) for i, v in enumerate(["challenge", "confirm", "challenge", "confirm"])]
    found = detect_patterns(entries, OPTIONS)
    assert [d.pattern for d in found] == ["oscillation"]
    assert found[0].run_ids == ("r0", "r1", "r2", "r3")


def test_oscillation_needs_2n_entries() -> None:
    entries = [entry(f"r{i}", v, [2]) for i, v in enumerate(["challenge", "confirm", "challenge"])]
    assert "oscillation" not in patterns(entries)


def test_oscillation_needs_identical_refs() -> None:
    verdicts = ["challenge", "confirm", "challenge", "confirm"]
    entries = [entry(f"r{i}", v, [2] if i < 3 else [3]) for i, v in enumerate(verdicts)]
    assert patterns(entries) == []


def test_oscillation_needs_strict_alternation() -> None:
    verdicts = ["challenge", "confirm", "confirm", "challenge"]
    assert "oscillation" not in patterns([entry(f"r{i}", v, [2]) for i, v in enumerate(verdicts)])
    verdicts = ["challenge", "confirm", "challenge", "gap"]
    assert "oscillation" not in patterns([entry(f"r{i}", v, [2]) for i, v in enumerate(verdicts)])


def test_oscillation_first_two_must_differ() -> None:
    entries = [entry(f"r{i}", "gap", [2]) for i in range(4)]
    assert "oscillation" not in patterns(entries)


def test_oscillation_periods_option() -> None:
    verdicts = ["gap", "uncertain"] * 3
    entries = [entry(f"r{i}", v, []) for i, v in enumerate(verdicts)]
    options = ReviewWindowOptions(oscillation_periods=3)
    found = [d for d in detect_patterns(entries, options) if d.pattern == "oscillation"]
    assert len(found) == 1 and len(found[0].run_ids) == 6
    assert "oscillation" not in patterns(entries[1:], options)


def test_no_drift_is_repeated_confirmation_of_the_same_refs() -> None:
    entries = [entry(f"r{i}", "confirm", [5]) for i in range(3)]
    # also spinning: the envelopes are identical
    assert patterns(entries) == ["spinning", "no-drift"]


def test_no_drift_requires_confirm() -> None:
    entries = [entry(f"r{i}", "gap", [5]) for i in range(3)]
    assert patterns(entries) == ["spinning"]


def test_no_drift_requires_identical_refs() -> None:
    entries = [entry("r1", "confirm", [5]), entry("r2", "confirm", [5]), entry("r3", "confirm", [6])]
    assert patterns(entries) == []


def test_no_drift_threshold_independent_of_spinning() -> None:
    entries = [entry(f"r{i}", "confirm", [1]) for i in range(3)]
    options = ReviewWindowOptions(spinning_repeat_count=4)
    assert patterns(entries, options) == ["no-drift"]


def test_diminishing_five_identical_is_below_0_4() -> None:
    entries = [entry(f"r{i}", "challenge", [1]) for i in range(5)]
    found = detect_patterns(entries, ReviewWindowOptions(spinning_repeat_count=6))
    assert [d.pattern for d in found] == ["diminishing"]
    assert found[0].run_ids == tuple(f"r{i}" for i in range(5))


def test_diminishing_threshold_is_strict() -> None:
    entries = [entry(f"r{i}", "challenge", [1]) for i in range(5)]
    # 1/5 = 0.2 is not < 0.2
    options = ReviewWindowOptions(spinning_repeat_count=6, diminishing_novelty_threshold=0.2)
    assert patterns(entries, options) == []


def test_diminishing_counts_distinct_envelopes() -> None:
    # 2 distinct of 5 = 0.4: not < 0.4
    entries = [entry(f"r{i}", "challenge", [1 if i % 2 else 2]) for i in range(5)]
    assert "diminishing" not in patterns(entries)
    # 2 of 5 < 0.5
    assert "diminishing" in patterns(entries, ReviewWindowOptions(diminishing_novelty_threshold=0.5))


def test_all_four_in_order() -> None:
    entries = [entry(f"r{i}", "confirm", [1]) for i in range(5)]
    options = ReviewWindowOptions(oscillation_periods=2)
    assert patterns(entries, options) == ["spinning", "no-drift", "diminishing"]
    # oscillation sorts between spinning and no-drift
    osc = [entry(f"o{i}", v, [1]) for i, v in enumerate(["confirm", "gap"] * 2)]
    opts = ReviewWindowOptions(spinning_repeat_count=2, diminishing_window_size=4, diminishing_novelty_threshold=0.6)
    assert patterns(osc, opts) == ["oscillation", "diminishing"]


def test_definitions_keep_first_seen_order_and_separate_windows() -> None:
    entries = [
        entry("b1", "challenge", [1], shadow="b"),
        entry("a1", "gap", [2], shadow="a"),
        entry("b2", "challenge", [1], shadow="b"),
        entry("a2", "gap", [2], shadow="a"),
        entry("b3", "challenge", [1], shadow="b"),
        entry("a3", "gap", [2], shadow="a"),
    ]
    found = detect_patterns(entries, OPTIONS)
    assert [(d.shadow_id, d.pattern, d.run_ids) for d in found] == [
        ("b", "spinning", ("b1", "b2", "b3")),
        ("a", "spinning", ("a1", "a2", "a3")),
    ]


def test_detect_patterns_on_nothing() -> None:
    assert detect_patterns([], OPTIONS) == []


# ---- ReviewWindow -------------------------------------------------------------


def test_record_reports_repeats_only_with_decay() -> None:
    window = ReviewWindow()
    assert window.record(entry("r1", "challenge", [1]), window_size=8) is False
    assert window.record(entry("r2", "challenge", [1]), window_size=8) is False  # decay 0: never
    assert window.decay_factor("default") == 1.0
    assert window.record(entry("r3", "challenge", [1]), window_size=8, decay=0.5) is True
    assert window.decay_factor("default") == 0.5
    assert window.record(entry("r4", "challenge", [1]), window_size=8, decay=0.5) is True
    assert window.decay_factor("default") == 0.25
    assert window.record(entry("r5", "challenge", [2]), window_size=8, decay=0.5) is False
    assert window.decay_factor("default") == 0.25
    assert window.effective_probability("default", 0.7) == 0.7 * 0.25
    assert window.effective_probability("other", 0.7) == 0.7


def test_effective_probability_is_capped_at_one() -> None:
    window = ReviewWindow()
    assert window.effective_probability("default", 1.0) == 1.0


def test_repeat_check_runs_before_the_push() -> None:
    window = ReviewWindow()
    # the entry itself is not "already in the window"
    assert window.record(entry("r1", "gap", [3]), window_size=8, decay=0.1) is False


def test_repeats_are_per_definition() -> None:
    window = ReviewWindow()
    window.record(entry("r1", "gap", [3], shadow="a"), window_size=8, decay=0.5)
    assert window.record(entry("r2", "gap", [3], shadow="b"), window_size=8, decay=0.5) is False
    assert window.decay_factor("b") == 1.0


def test_eviction_beyond_window_size_per_definition() -> None:
    window = ReviewWindow()
    for i in range(5):
        window.record(entry(f"a{i}", "gap", [i], shadow="a"), window_size=3)
    window.record(entry("b0", "gap", [0], shadow="b"), window_size=3)
    assert [e.run_id for e in window.entries("a")] == ["a2", "a3", "a4"]
    assert [e.run_id for e in window.entries("b")] == ["b0"]
    assert [e.run_id for e in window.entries()] == ["a2", "a3", "a4", "b0"]
    # the evicted envelope no longer counts as a repeat
    assert window.record(entry("a5", "gap", [0], shadow="a"), window_size=3, decay=0.5) is False
    assert window.record(entry("a6", "gap", [4], shadow="a"), window_size=3, decay=0.5) is True


def test_entries_interleave_in_acceptance_order() -> None:
    window = ReviewWindow()
    for run, shadow in [("1", "a"), ("2", "b"), ("3", "a"), ("4", "b")]:
        window.record(entry(run, "gap", [], shadow=shadow), window_size=8)
    assert [e.run_id for e in window.entries()] == ["1", "2", "3", "4"]


def test_detect_covers_one_definition() -> None:
    window = ReviewWindow()
    for i in range(3):
        window.record(entry(f"a{i}", "confirm", [1], shadow="a"), window_size=8)
        window.record(entry(f"b{i}", "gap", [i], shadow="b"), window_size=8)
    assert [d.pattern for d in window.detect("a", OPTIONS)] == ["spinning", "no-drift"]
    assert window.detect("b", OPTIONS) == []
    assert window.detect("missing", OPTIONS) == []


def test_clear_forgets_entries_and_decay() -> None:
    window = ReviewWindow()
    window.record(entry("r1", "gap", []), window_size=8)
    window.record(entry("r2", "gap", []), window_size=8, decay=0.5)
    window.clear()
    assert window.entries() == []
    assert window.decay_factor("default") == 1.0


def test_ten_thousand_records_stay_bounded() -> None:
    window = ReviewWindow()
    repeats = 0
    for i in range(10_000):
        shadow = "a" if i % 3 else "b"
        repeats += window.record(entry(f"r{i}", "challenge", [i % 7], shadow=shadow), window_size=8, decay=0.01)
        window.detect(shadow, OPTIONS)
    assert len(window.entries("a")) == 8 and len(window.entries("b")) == 8
    assert repeats > 0


VERDICTS = st.sampled_from(["challenge", "gap", "confirm", "uncertain"])
ENTRY = st.tuples(st.sampled_from(["a", "b"]), VERDICTS, st.lists(st.integers(1, 3), max_size=2, unique=True).map(sorted))


@settings(max_examples=100, deadline=None)
@given(items=st.lists(ENTRY, max_size=40), window_size=st.integers(2, 8), decay=st.sampled_from([0.0, 0.25]))
def test_window_matches_a_naive_model(
    items: list[tuple[str, str, list[int]]], window_size: int, decay: float
) -> None:
    window = ReviewWindow()
    model: list[ReviewEntry] = []
    factors: dict[str, float] = {}
    for i, (shadow, verdict, refs) in enumerate(items):
        e = entry(f"r{i}", verdict, refs, shadow=shadow)
        expected_repeat = decay > 0 and any(m.shadow_id == shadow and m.envelope == e.envelope for m in model)
        if expected_repeat:
            factors[shadow] = factors.get(shadow, 1.0) * (1 - decay)
        model.append(e)
        while sum(m.shadow_id == shadow for m in model) > window_size:
            model.remove(next(m for m in model if m.shadow_id == shadow))
        assert window.record(e, window_size=window_size, decay=decay) is expected_repeat
        assert window.entries() == model
        expected = [d for d in detect_patterns(model, OPTIONS) if d.shadow_id == shadow]
        assert window.detect(shadow, OPTIONS) == expected
        assert window.decay_factor(shadow) == factors.get(shadow, 1.0)
