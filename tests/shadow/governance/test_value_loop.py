"""Value loop (docs/shadow-mind.md §7 "Value loop"): capture, observation, classification, and the replay corpus."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookspecs.values.events import SessionEvent
from shadow_mind_plugin.governance.value_loop import (
    ADOPTION_ACTION,
    REJECTION,
    REVIEW_MENTION,
    ChallengeObserver,
    Observation,
    PendingChallenge,
    artifacts,
    capture_challenges,
    classify,
    matches,
    observe,
)
from shadow_mind_plugin.vocabulary import ValueClassification

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "value_loop_replays.json"


def ev(seq: int, type_: str, data: Any) -> SessionEvent:
    return SessionEvent(type=type_, seq=seq, time=0.0, data=data)


def say(seq: int, *texts: str, reasoning: str | None = None) -> SessionEvent:
    content: list[dict[str, Any]] = []
    if reasoning is not None:
        content.append({"type": "reasoning", "text": reasoning})
    content += [{"type": "text", "text": t} for t in texts]
    message = {"id": f"a{seq}", "role": "assistant", "content": content, "source": {"kind": "model"}}
    return ev(seq, "assistant/message", {"turn": 1, "step": 0, "message": message})


def call(seq: int, arguments: str, name: str = "edit") -> SessionEvent:
    return ev(seq, "tool/call", {"turn": 1, "step": 0, "call_id": f"c{seq}", "name": name, "arguments": arguments})


def turn_end(seq: int) -> SessionEvent:
    return ev(seq, "turn/end", {"turn": 1, "reason": {"kind": "completed"}})


def relay(seq: int, reports: list[dict[str, Any]], kind: str = "shadow-report") -> SessionEvent:
    message = {
        "id": "m",
        "role": "user",
        "content": [{"type": "text", "text": "review"}],
        "source": {"kind": kind, "form": "relay", "reports": reports},
    }
    return ev(seq, "user/message", {"turn": 2, "step": 0, "message": message})


def report(run_id: str, verdict: str = "challenge", refs: list[int] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "shadow_id": "default",
        "run_id": run_id,
        "child_session_id": "child",
        "captured_through_seq": 3,
        "verdict": verdict,
    }
    if refs is not None:
        out["refs"] = refs
    return out


def obs(text: str = "", turns: int = 0, challenged: tuple[str, ...] = (), targets: tuple[str, ...] = ()) -> Observation:
    return Observation(challenged_artifacts=challenged, tool_targets=targets, response_text=text, completed_turns=turns)


# ---- capture ------------------------------------------------------------------------


def test_capture_keeps_only_challenges() -> None:
    event = relay(7, [report("r1", refs=[2, 3]), report("r2", "gap"), report("r3", "confirm"), report("r4", refs=None)])
    assert capture_challenges(event) == [
        PendingChallenge(run_id="r1", shadow_id="default", relayed_at_seq=7, refs=(2, 3)),
        PendingChallenge(run_id="r4", shadow_id="default", relayed_at_seq=7, refs=()),
    ]


def test_capture_dedupes_run_ids() -> None:
    event = relay(5, [report("r1", refs=[1]), report("r1", refs=[2])])
    assert [c.refs for c in capture_challenges(event)] == [(1,)]


@pytest.mark.parametrize(
    "event",
    [
        relay(5, [report("r1")], kind="user"),
        ev(5, "assistant/message", {"message": {"source": {"kind": "shadow-report", "reports": [report("r1")]}}}),
        ev(5, "user/message", {"turn": 1}),
        ev(5, "user/message", None),
        relay(5, [{"verdict": "challenge"}]),  # no ids
    ],
)
def test_capture_ignores_everything_else(event: SessionEvent) -> None:
    assert capture_challenges(event) == []


# ---- artifacts ------------------------------------------------------------------------


def test_artifacts_paths_and_names() -> None:
    assert artifacts("edit src/Parser.py and README.md") == ["src/parser.py", "readme.md"]
    assert artifacts(r"C:\Repo\Lib\x.ts") == ["c:/repo/lib/x.ts"]
    assert artifacts("no artifacts here") == []
    assert artifacts("v1.2 is a version") == ["v1.2"]


def test_artifacts_of_objects_use_compact_json() -> None:
    assert artifacts({"path": "src/a.py", "n": 1}) == ["src/a.py"]
    assert artifacts(["docs/x.md"]) == ["docs/x.md"]


def test_artifacts_of_json_text_are_parsed_first() -> None:
    # raw tool-call arguments are JSON text where a Windows backslash is `\\`:
    # matched on the raw text the pair split the path and only the name survived
    assert artifacts(r'{"path":"C:\\repo\\Main.PY"}') == ["c:/repo/main.py"]
    assert artifacts(r'{"path":"src\\parser.py","note":"see docs/x.md"}') == ["src/parser.py", "docs/x.md"]
    assert artifacts("not json: src/a.py") == ["src/a.py"]  # plain text stays text


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (r"src\parser.py", "src/parser.py"),
        ("./src/parser.py", "src/parser.py"),
        (r".\src\.\parser.py", "src/parser.py"),
        ("src//parser.py", "src/parser.py"),
        (r"C:\Work\SRC\Parser.py", "c:/work/src/parser.py"),
        ("c:/work/src/parser.py", "c:/work/src/parser.py"),
    ],
)
def test_artifact_paths_are_normalised(raw: str, expected: str) -> None:
    assert artifacts(raw) == [expected]


@pytest.mark.parametrize(
    "arguments",
    [
        r'{"path":"src\\parser.py"}',
        r'{"path":".\\src\\Parser.py"}',
        r'{"path":"C:\\work\\src\\parser.py"}',
        '{"path":"/home/me/work/./src/parser.py"}',
        '{"edits":[{"file":"./src/parser.py","text":"x"}]}',
    ],
)
def test_a_challenged_path_is_adopted_however_the_call_spells_it(arguments: str) -> None:
    log = [
        call(0, '{"path":"src/parser.py"}', "read"),
        relay(1, [report("r1", refs=[0])]),
        call(2, arguments),
        turn_end(3),
    ]
    challenge = capture_challenges(log[1])[0]
    assert classify(observe(log, challenge), 5) == ValueClassification.ADOPTED
    observer = ChallengeObserver(challenge)
    observer.feed(log)
    assert observer.classify(5) == ValueClassification.ADOPTED


def test_a_bare_name_or_another_directory_is_not_the_challenged_path() -> None:
    for arguments in ('{"path":"parser.py"}', '{"path":"lib/parser.py"}', '{"path":"xsrc/parser.py"}'):
        log = [call(0, '{"path":"src/parser.py"}', "read"), relay(1, [report("r1", refs=[0])]), call(2, arguments), turn_end(3)]
        challenge = capture_challenges(log[1])[0]
        assert classify(observe(log, challenge), 5) is None, arguments


# ---- regexes ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mention", "action", "rejection"),
    [
        ("The review was helpful", True, False, False),
        ("Fixed the bug", False, True, False),
        ("the REPORT is WRONG", True, False, True),
        ("reviewer", False, False, False),  # ASCII word boundary
        ("pre-review", True, False, False),
        ("éreview", True, False, False),  # é is not an ASCII word character
        ("review_x", False, False, False),  # _ is
        ("changelog fixes", False, False, False),
        ("accepted, adopted, addressed", False, True, False),
        ("wrong: the shadow", True, False, True),
        ("the finding\nis wrong", True, False, False),  # . does not cross a newline
        ("the finding\u2028is wrong", True, False, False),
        ("影子报告", True, False, False),
        ("已修改", False, True, False),
        ("拒绝了该审查", True, False, True),
        ("拒绝\n审查", True, False, False),
        ("审查结果不适用", True, False, True),
        ("不采纳", False, True, True),  # 采纳 is an adoption word too; rejection is checked first
        ("ſhadow", True, False, False),  # JS iu folds U+017F to s
    ],
)
def test_regex_semantics(text: str, mention: bool, action: bool, rejection: bool) -> None:
    o = obs(text)
    assert matches(REVIEW_MENTION, text) is mention
    assert matches(ADOPTION_ACTION, text) is action
    assert matches(REJECTION, text) is rejection
    if rejection:
        assert classify(o, 2) == "challenge_rejected"


def test_rejection_window_is_80_characters() -> None:
    assert classify(obs("review " + "x" * 78 + " wrong"), 9) == "challenge_rejected"  # 80 between
    assert classify(obs("review " + "x" * 79 + " wrong"), 9) is None  # 81 between


# ---- classify ----------------------------------------------------------------------------


def test_classify_order() -> None:
    both = dict(challenged=("src/a.py",), targets=("src/a.py",))
    assert classify(obs("the review is wrong", 5, **both), 2) == ValueClassification.REJECTED
    assert classify(obs("", 5, **both), 2) == ValueClassification.ADOPTED
    assert classify(obs("fixed per review", 5), 2) == ValueClassification.ADOPTED
    assert classify(obs("nothing", 2), 2) == ValueClassification.IGNORED
    assert classify(obs("nothing", 1), 2) is None


def test_classify_needs_an_exact_artifact_match() -> None:
    assert classify(obs(challenged=("config.yaml",), targets=("deploy/config.yaml",)), 2) is None


# ---- observe --------------------------------------------------------------------------------


def sample_log() -> list[SessionEvent]:
    return [
        call(0, '{"path":"src/a.py"}', "read"),
        say(1, "Looked at src/b.py"),
        turn_end(2),
        relay(3, [report("r1", refs=[0, 1])]),
        say(4, "first", reasoning="the review is wrong"),
        call(5, '{"path":"SRC/A.PY"}'),
        turn_end(6),
        say(7, "second", "third"),
        turn_end(8),
    ]


def test_observe_reduces_events() -> None:
    challenge = PendingChallenge(run_id="r1", shadow_id="default", relayed_at_seq=3, refs=(0, 1))
    observation = observe(sample_log(), challenge)
    assert observation == Observation(
        challenged_artifacts=("src/a.py", "src/b.py"),
        tool_targets=("src/a.py",),
        response_text="first\nsecond\nthird",  # reasoning excluded
        completed_turns=2,
    )
    assert classify(observation, 2) == ValueClassification.ADOPTED


def test_events_up_to_the_relay_are_not_responses() -> None:
    challenge = PendingChallenge(run_id="r1", shadow_id="default", relayed_at_seq=6, refs=(0,))
    observation = observe(sample_log(), challenge)
    assert observation.tool_targets == ()
    assert observation.response_text == "second\nthird"
    assert observation.completed_turns == 1


def test_observer_is_incremental_and_skips_overlap() -> None:
    log = sample_log()
    challenge = PendingChallenge(run_id="r1", shadow_id="default", relayed_at_seq=3, refs=(0, 1))
    observer = ChallengeObserver(challenge)
    observer.feed(log[:4])
    assert observer.classify(2) is None
    observer.feed(log[:7])  # overlaps the first batch
    assert observer.observed_through_seq == 6
    assert observer.classify(2) == ValueClassification.ADOPTED
    observer.feed(log[7:])
    assert observer.snapshot() == observe(log, challenge)


WORDS = st.sampled_from(
    ["review", "wrong", "fixed", "报告", "不正确", "已修复", "src/a.py", "ok", "\n", " ", "the", "shadow", "invalid"]
)
EVENT = st.one_of(
    st.tuples(st.just("say"), st.lists(WORDS, max_size=8).map(" ".join)),
    st.tuples(st.just("call"), st.sampled_from(['{"path":"src/a.py"}', '{"path":"src/c.py"}', "not json"])),
    st.tuples(st.just("end"), st.just("")),
)


@settings(max_examples=100, deadline=None)
@given(items=st.lists(EVENT, max_size=25), window=st.integers(1, 3), cut=st.integers(0, 25))
def test_incremental_classification_matches_the_pure_one(
    items: list[tuple[str, str]], window: int, cut: int
) -> None:
    log: list[SessionEvent] = [call(0, '{"path":"src/a.py"}', "read"), relay(1, [report("r", refs=[0])])]
    for kind, payload in items:
        seq = len(log)
        log.append(say(seq, payload) if kind == "say" else call(seq, payload) if kind == "call" else turn_end(seq))
    challenge = capture_challenges(log[1])[0]
    observer = ChallengeObserver(challenge)
    observer.feed(log[: cut + 2])
    observer.feed(log)
    assert observer.snapshot() == observe(log, challenge)
    assert observer.classify(window) == classify(observe(log, challenge), window)


# ---- the replay corpus ---------------------------------------------------------------------


def load_corpus() -> list[dict[str, Any]]:
    return json.loads(CORPUS.read_text(encoding="utf-8"))["cases"]  # type: ignore[no-any-return]


def test_corpus_shape() -> None:
    cases = load_corpus()
    expected = [c["expected"] for c in cases]
    assert len(cases) >= 20
    assert expected.count("challenge_adopted") >= 10
    assert len(cases) - expected.count("challenge_adopted") >= 10
    assert {"challenge_rejected", "ignored", None} <= set(expected)
    assert len({c["name"] for c in cases}) == len(cases)


def replay(case: dict[str, Any]) -> tuple[ValueClassification | None, PendingChallenge]:
    """What the runtime does: capture at the relay, evaluate at each later
    turn/end on the log so far (pure and incremental), first answer wins."""
    events = [SessionEvent(type=e["type"], seq=e["seq"], time=0.0, data=e["data"]) for e in case["events"]]
    assert [e.seq for e in events] == list(range(len(events)))
    spec = case["challenge"]
    captured = capture_challenges(events[spec["relayed_at_seq"]])
    challenge = PendingChallenge(**spec)
    assert challenge in captured
    observer = ChallengeObserver(challenge)
    for event in events:
        if event.seq <= challenge.relayed_at_seq or event.type != "turn/end":
            continue
        observer.feed(events[observer.observed_through_seq + 1 : event.seq + 1])  # only the new events
        pure = classify(observe(events[: event.seq + 1], challenge), case["window_turns"])
        assert observer.classify(case["window_turns"]) == pure
        if pure is not None:
            return pure, challenge
    return None, challenge


@pytest.mark.parametrize("case", load_corpus(), ids=lambda c: c["name"])
def test_replay_corpus(case: dict[str, Any]) -> None:
    result, _ = replay(case)
    assert result == case["expected"], case["note"]
