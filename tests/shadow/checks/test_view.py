"""The view the checks read: tool shapes, exit codes, incrementality, and refs
that always lie on the projection's rendered seqs."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.transcripts.reader import import_transcript
from hookspecs.values import SessionEvent
from shadow_mind_plugin.checks import ViewBuilder, check_session, protect, run_checks, validate, view_of
from shadow_mind_plugin.checks.protect import protected_in
from shadow_mind_plugin.checks.tools import ToolKind, shape_of
from shadow_mind_plugin.projection import project

from .dialects import Answer, Edit, HostLog, Read, Search, Shell, Step, User, Write

FIXTURES = Path(__file__).resolve().parents[2] / "transcripts" / "fixtures"


def _imported(name: str) -> list[SessionEvent]:
    imported = import_transcript(FIXTURES / name)
    return [SessionEvent(type=e.type, seq=i, time=0.0, data=e.data) for i, e in enumerate(imported.events)]


def test_exit_codes_of_real_claude_code_and_codex_shell_results() -> None:
    for name in ("real_claude_code_2197.jsonl", "real_codex_0171.jsonl"):
        events = _imported(name)
        (action,) = view_of(events, events[-1].seq).actions
        assert (action.shape.kind, action.shape.command, action.exit_code, action.failed) == (
            ToolKind.SHELL,
            "cat notes.txt",
            1,
            True,
        )


def test_the_small_fixtures_fire_as_their_stories_say() -> None:
    claude = _imported("claude-code-small.jsonl")
    first_turn = next(e.seq for e in claude if e.type == "turn/end")
    kinds = [f.kind.value for f in check_session(claude, first_turn, project(claude, first_turn).seqs)]
    assert kinds == ["unverified-success"]  # "Done: the test passes now." after `pytest -q` failed
    codex = _imported("codex-small.jsonl")
    first_turn = next(e.seq for e in codex if e.type == "turn/end")
    kinds = [f.kind.value for f in check_session(codex, first_turn, project(codex, first_turn).seqs)]
    assert kinds == ["unverified-success", "done-after-error"]  # pytest failed; the apply_patch failed


def test_shapes_of_each_dialect() -> None:
    assert shape_of("bash", '{"command":"pytest -q"}').command == "pytest -q"
    assert shape_of("shell", '{"command":["bash","-lc","ruff check ."]}').command == "ruff check ."
    assert shape_of("exec_command", '{"cmd":"ls"}').command == "ls"
    assert shape_of("local_shell", '{"type":"exec","command":["rm","-rf","x"]}').command == "rm -rf x"
    assert shape_of("shell", '{"command":["bash","-lc","ls"],"workdir":[absolute-path]}').command == "ls"
    patch = shape_of(
        "apply_patch",
        '{"input":"*** Begin Patch\\n*** Add File: a.py\\n*** Update File: b.py\\n*** Delete File: c.py\\n*** End Patch"}',
    )
    assert (patch.kind, patch.paths, patch.created, patch.deleted) == (
        ToolKind.PATCH,
        ("a.py", "b.py", "c.py"),
        ("a.py",),
        ("c.py",),
    )
    assert patch.changed_existing() == ("b.py",)
    assert shape_of("Edit", '{"file_path":"src/a.py"}').changed_existing() == ("src/a.py",)
    assert (
        shape_of("write", '{"path":"a.py"}').changed_existing() == ()
    )  # the host's write does not say it replaced a file
    assert shape_of("mystery", "not json").kind is ToolKind.OTHER


def test_an_incremental_view_equals_one_built_from_scratch() -> None:
    events = HostLog().render(
        [
            User("Fix it"),
            Read("a.py"),
            Shell("pytest", 1),
            Answer("Looking."),
            User("Go on"),
            Edit("a.py"),
            Shell("pytest"),
            Answer("Fixed."),
        ]
    )
    builder = ViewBuilder()
    middle = events[len(events) // 2].seq
    builder.extend(events, middle)
    assert builder.view() == view_of(events, middle)
    builder.extend(events, events[-1].seq)
    assert builder.consumed == len(events)
    assert builder.view() == view_of(events, events[-1].seq)


def test_refs_outside_the_allowlist_are_dropped_and_so_is_unseen_evidence() -> None:
    events = HostLog().render(
        [User("Fix add()"), Read("src/app.py"), Shell("pytest -q", 1), Answer("All tests pass now.")]
    )
    view = view_of(events, events[-1].seq)
    (finding,) = run_checks(view)
    call, result, answer = finding.refs
    (narrowed,) = run_checks(view, {result, answer})
    assert narrowed.refs == (result, answer)
    assert run_checks(view, {call, answer}) == []  # the failed result is the evidence: not shown, not reported


_PATHS = st.sampled_from(["src/app.py", "src/util.py", "tests/test_app.py", "config.yml", "build"])
_STEPS: st.SearchStrategy[Step] = st.one_of(
    st.builds(User, st.sampled_from(["Fix it", "Don't touch `tests/`", "Please delete build", "Explain"])),
    st.builds(
        Shell,
        st.sampled_from(["pytest -q", "ruff check .", "rm -rf src", "git push -f", "ls", "rm -rf build"]),
        st.sampled_from([0, 1]),
    ),
    st.builds(Read, _PATHS, st.booleans()),
    st.builds(Search, st.just("add"), st.sampled_from(["", "src/app.py:1:def add"])),
    st.builds(Edit, _PATHS, st.booleans()),
    st.builds(Write, _PATHS, st.booleans()),
    st.builds(
        Answer,
        st.sampled_from(
            ["Done.", "All tests pass.", "I updated `src/app.py`.", "See `helper()` in src/util.py.", "Fixed."]
        ),
    ),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_STEPS, min_size=1, max_size=14), st.data())
def test_every_ref_is_a_rendered_seq(steps: list[Step], data: st.DataObject) -> None:
    events = HostLog().render([User("Start"), *steps])
    watermark = data.draw(st.integers(min_value=0, max_value=events[-1].seq))
    projection = project(events, watermark)
    shown = set(projection.seqs)
    # a prompt bound may leave the oldest entries out: the allowlist is then a newest suffix
    kept = data.draw(st.integers(min_value=0, max_value=len(shown)))
    allowlist = set(sorted(shown)[len(shown) - kept :])
    for finding in check_session(events, watermark, allowlist):
        assert set(finding.refs) <= allowlist and finding.evidence in allowlist
        assert validate(finding, allowlist).ok


def test_a_different_log_or_a_lower_watermark_starts_the_view_over() -> None:
    first = HostLog().render(
        [User("Fix it"), Read("a.py"), Answer("Read."), User("More"), Read("c.py"), Answer("Read.")]
    )
    other = HostLog().render([User("Something else"), Read("b.py"), Shell("pytest", 1), Answer("Failed.")])
    builder = ViewBuilder()
    builder.extend(first, first[-1].seq)
    builder.extend(other, other[-1].seq)
    assert builder.view() == view_of(other, other[-1].seq)
    builder.extend(other, 2)
    assert builder.view() == view_of(other, 2)


_PEOPLE = st.sampled_from(
    [
        "Fix it",
        "Don't touch `tests/`",
        "Please delete build",
        "Explain",
        "Leave config.yml alone",
        "Change config.yml now",
    ]
)
_WINDOWED_STEPS = st.one_of(_STEPS, st.builds(User, _PEOPLE))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_WINDOWED_STEPS, min_size=1, max_size=16), st.lists(st.integers(0, 200), min_size=1, max_size=4), st.data()
)
def test_a_view_fed_from_the_last_person_message_checks_as_a_whole_one(
    steps: list[Step], cuts: list[int], data: st.DataObject
) -> None:
    """A long log seen first is fed from its last person message; the people
    before it are read alone, the rest only when a check asks (issue 20, 8a)."""
    events = HostLog().render([User("Start"), *steps])
    windowed = ViewBuilder(window_from=0)
    for cut in sorted(cuts):
        watermark = events[min(cut, len(events) - 1)].seq
        windowed.extend(events, watermark)
        whole = view_of(events, watermark)
        shown = set(project(events, watermark).seqs)
        kept = data.draw(st.integers(min_value=0, max_value=len(shown)))
        allowlist = set(sorted(shown)[len(shown) - kept :])
        view = windowed.view()
        assert run_checks(view, allowlist) == run_checks(whole, allowlist)
        assert (view.people, view.protected, view.window, view.in_window()) == (
            whole.people,
            whole.protected,
            whole.window,
            whole.in_window(),
        )
        assert view == whole


def test_a_long_log_reads_only_the_person_s_words_before_the_turn_unless_a_check_asks() -> None:
    history = [step for n in range(300) for step in (User(f"Explain {n}"), Read("src/app.py"), Answer("Read."))]
    turn = [User("Check it"), Read("tests/test_app.py"), Shell("pytest -q", 1), Answer("All tests pass.")]
    events = HostLog().render([User("Don't touch `tests/`"), *history, *turn])
    whole = view_of(events, events[-1].seq)
    builder = ViewBuilder()
    builder.extend(events, events[-1].seq)
    skipped = builder.skipped
    assert skipped > len(events) - 20  # fed from the last person message
    view = builder.view()
    assert (
        [f.kind.value for f in run_checks(view)] == ["unverified-success"] == [f.kind.value for f in run_checks(whole)]
    )
    assert view.protected == whole.protected and builder.skipped == skipped  # the person's words, read alone
    assert view.actions == whole.actions  # asked: the whole history, fed as if from the start
    assert builder.skipped == 0 and builder.consumed == len(events)
    assert builder.view() == whole


def test_a_target_lifted_before_the_turn_and_protected_again_keeps_its_place() -> None:
    words = ["Leave config.yml alone", "Don't touch `tests/`", "Change config.yml now", "Leave config.yml alone"]
    events = HostLog().render([*(User(w) for w in words), Read("a.py"), Answer("Read.")])
    builder = ViewBuilder(window_from=0)
    builder.extend(events, events[-1].seq)
    assert builder.skipped
    assert (
        [t for t, _ in builder.view().protected]
        == ["config.yml", "tests/"]
        == [t for t, _ in view_of(events, events[-1].seq).protected]
    )


_WORDS = st.sampled_from(
    ["Do not", "don't", "DONT", "never", "without", "Leave", "leave the file", "touch", "edit", "modifying", "alone"]
    + ["unchanged", "is", "are", "off-limits", "off limits", "Read-only", "frozen", "`tests/`", "src/app.py", "the"]
    # ignore-case matching equates these with ASCII letters; lower() does not
    + ["off-limit\u017f", "w\u0131thout", "\u0130gnore", "\u212a", "DON\u2019T", "d\u00e9j\u00e0", "NEVER"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORDS, max_size=8).map(" ".join))
@example("src/app.py is off-limit\u017f")
@example("w\u0131thout editing `tests/`")
def test_the_quick_word_check_before_the_protection_patterns_changes_no_answer(text: str) -> None:
    assert protected_in(text) == protect._scan(text)
