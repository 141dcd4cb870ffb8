"""Safe error summaries (docs/shadow-mind.md §7 "Diagnostics"): sanitize, safe_error, failure codes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shadow_mind_plugin.governance.safe_errors import (
    Failure,
    failure_at,
    failure_code_for_stage,
    safe_error,
    sanitize,
)
from shadow_mind_plugin.utf16 import u16len
from shadow_mind_plugin.vocabulary import ReasonCode, Stage

C = "[credential]"
P = "[absolute-path]"


# ---- sanitize: one test per rule ------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("header Bearer abcdEFGH1234.x/y=", f"header Bearer {C}"),  # the scheme word is kept
        ("BEARER\tabcdefgh", f"BEARER\t{C}"),  # case-insensitive, any JS white space
        ("Bearer short", "Bearer short"),  # fewer than 8 token characters
        ("key sk-proj_abc123XYZ", f"key {C}"),
        ("ask-abcdefghij", "ask-abcdefghij"),  # \b: "sk-" inside a word is not a key prefix
    ],
)
def test_rule1_bearer_and_sk_tokens(raw: str, clean: str) -> None:
    assert sanitize(raw) == clean


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ('token = "two words"; next', f'token = "{C}"; next'),  # only the value is replaced
        ("API_KEY:'x y z' tail", f"API_KEY:'{C}' tail"),
        ('apikey="" end', 'apikey="" end'),  # an empty value hides nothing
        ('Authorization: "Basic dXNlcg=="', f'Authorization: "Basic {C}"'),  # the scheme word is kept
    ],
)
def test_rule2_quoted_named_secrets(raw: str, clean: str) -> None:
    assert sanitize(raw) == clean


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("secret=hunter2, user=bob", f"secret={C}, user=bob"),
        ("api-key: abc;def", f"api-key: {C};def"),
        ("Token=xyz next", f"Token={C} next"),
        ("mytoken=abc", "mytoken=abc"),  # \b: only the whole word
        ("tokens=3", "tokens=3"),
    ],
)
def test_rule3_unquoted_named_secrets(raw: str, clean: str) -> None:
    assert sanitize(raw) == clean


def test_rule2_runs_before_rule3() -> None:
    # rule 3 alone would stop at the space and leave `words"`
    assert sanitize('secret="two words"') == f'secret="{C}"'


def test_rule4_quoted_windows_path_may_contain_spaces() -> None:
    assert sanitize(r'open "C:\Program Files\app\x.txt" failed') == f"open {P} failed"
    assert sanitize("load 'd:/data set/a.csv'") == f"load {P}"


def test_rule5_bare_windows_path() -> None:
    # the path class stops only at white space, quotes, <, > and |: a comma goes with it
    assert sanitize(r"ENOENT C:\Users\me\file.txt, retry") == f"ENOENT {P} retry"
    assert sanitize("at e:/x/y<z") == f"at {P}<z"
    assert sanitize(r"drive C:\ root") == f"drive {P} root"


def test_rule6_quoted_posix_path() -> None:
    assert sanitize('cannot open "/home/me/my file.txt": denied') == f"cannot open {P}: denied"
    assert sanitize("'/etc'") == P


def test_rule6_needs_the_same_closing_quote() -> None:
    # an unclosed quote falls through to rule 7, which keeps the quote
    assert sanitize("\"/home/me/x.txt'") == f"\"{P}'"


def test_rule6_is_linear_on_an_unclosed_quote() -> None:
    # the reference's nested quantifier backtracks exponentially here
    text = '"/' + "a/" * 5000 + "b"
    assert sanitize(text).startswith(f'"{P}')


def test_rule7_bare_posix_path_keeps_its_lead() -> None:
    assert sanitize("/usr/lib/x.so missing") == f"{P} missing"
    assert sanitize("see (/var/log/app.log) now") == f"see ({P} now"  # ")" is part of the path
    assert sanitize("a\t/tmp/x/y") == f"a\t{P}"


def test_rule7_needs_two_segments() -> None:
    assert sanitize("ratio 3/4 and /tmp alone") == "ratio 3/4 and /tmp alone"
    assert sanitize("x/usr/lib/y") == "x/usr/lib/y"  # no white space or bracket before the slash


def test_non_ascii_white_space_is_js_white_space() -> None:
    assert sanitize("token=\u00a0abc") == f"token=\u00a0{C}"
    assert sanitize("x\u3000/opt/app/bin") == f"x\u3000{P}"


def test_js_case_folding_of_long_s() -> None:
    # under the JS `iu` flags U+017F folds to "s"; the original text is kept elsewhere
    assert sanitize("\u017fecret=abc ſ") == f"\u017fecret={C} ſ"


def test_truncates_to_500_utf16_units() -> None:
    assert sanitize("x" * 600) == "x" * 500
    out = sanitize("😀" * 300)
    assert u16len(out) == 500 and out == "😀" * 250


def test_truncation_never_splits_a_pair() -> None:
    out = sanitize("x" + "😀" * 300)
    assert u16len(out) == 499  # the pair cut at 500 is dropped


def test_replacement_happens_before_truncation() -> None:
    out = sanitize("/home/" + "a" * 600 + "/x tail")
    assert out == f"{P} tail"


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["token=abc", "Bearer abcdefghij", " /usr/local/bin/x", r" C:\Temp\x", "'/a b/c'", "word", " ", "\n", "é"]
        ),
        max_size=30,
    ).map(" ".join)
)
def test_sanitize_removes_known_secrets_and_paths(text: str) -> None:
    out = sanitize(text)
    for leaked in ("abcdefghij", "/usr/local", "Temp", "/a b/c", "=abc"):
        assert leaked not in out
    assert sanitize(out) == out  # idempotent on its own output


# ---- safe_error ------------------------------------------------------------------


class CodedError(Exception):
    def __init__(self, message: str, code: object) -> None:
        super().__init__(message)
        self.code = code


def test_plain_exception() -> None:
    assert safe_error(ValueError("bad value")) == {"name": "ValueError", "message": "bad value"}


def test_message_and_code_are_sanitized() -> None:
    err = CodedError("read /home/me/.ssh/id failed with token=abc", "E_/srv/data/x")
    assert safe_error(err) == {
        "name": "CodedError",
        "message": f"read {P} failed with token={C}",
        "code": "E_/srv/data/x",
    }


@pytest.mark.parametrize(("code", "expected"), [("ENOENT", "ENOENT"), (404, "404"), (2.0, "2"), (1.5, "1.5")])
def test_code_strings_and_numbers(code: object, expected: str) -> None:
    assert safe_error(CodedError("x", code))["code"] == expected


@pytest.mark.parametrize("code", [None, True, ["E"], {"c": 1}])
def test_other_codes_are_dropped(code: object) -> None:
    assert "code" not in safe_error(CodedError("x", code))


def test_system_exit_code() -> None:
    assert safe_error(SystemExit(3)) == {"name": "SystemExit", "message": "3", "code": "3"}


def test_explicit_cause_chain() -> None:
    try:
        try:
            raise KeyError("k")
        except KeyError as inner:
            raise RuntimeError("outer") from inner
    except RuntimeError as exc:
        summary = safe_error(exc)
    assert summary == {
        "name": "RuntimeError",
        "message": "outer",
        "causes": [{"name": "KeyError", "message": "'k'"}],
    }


def test_implicit_context_is_not_a_cause() -> None:
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise RuntimeError("outer")  # noqa: B904 - the point of the test
    except RuntimeError as exc:
        assert "causes" not in safe_error(exc)


def test_group_lists_its_first_eight_members() -> None:
    group = ExceptionGroup("many", [ValueError(f"v{i}") for i in range(10)])
    summary = safe_error(group)
    assert summary["name"] == "ExceptionGroup"
    assert summary["message"] == "many"
    assert [c["message"] for c in summary["causes"]] == [f"v{i}" for i in range(8)]


def test_nested_groups_recurse() -> None:
    inner = ExceptionGroup("inner", [OSError("disk")])
    summary = safe_error(ExceptionGroup("outer", [inner, TypeError("t")]))
    assert summary["causes"][0] == {
        "name": "ExceptionGroup",
        "message": "inner",
        "causes": [{"name": "OSError", "message": "disk"}],
    }


def test_self_cycle() -> None:
    err = ValueError("loop")
    err.__cause__ = err
    assert safe_error(err) == {
        "name": "ValueError",
        "message": "loop",
        "causes": [{"name": "CircularError", "message": "Circular error cause omitted"}],
    }


def test_two_step_cycle() -> None:
    a, b = ValueError("a"), TypeError("b")
    a.__cause__, b.__cause__ = b, a
    summary = safe_error(a)
    assert summary["causes"][0]["causes"] == [{"name": "CircularError", "message": "Circular error cause omitted"}]


def test_shared_cause_is_reported_once() -> None:
    shared = OSError("shared")
    group = ExceptionGroup("g", [shared, shared])
    causes = safe_error(group)["causes"]
    assert causes[0] == {"name": "OSError", "message": "shared"}
    assert causes[1]["name"] == "CircularError"


@pytest.mark.parametrize(
    ("value", "message"),
    [("plain string /etc/app/conf", f"plain string {P}"), (42, "42"), (None, "null"), (True, "true"), (1.0, "1")],
)
def test_non_errors(value: object, message: str) -> None:
    assert safe_error(value) == {"name": "NonError", "message": message}


def test_never_carries_a_stack() -> None:
    try:
        raise ValueError("boom")
    except ValueError as exc:
        summary = safe_error(exc)
    text = json.dumps(summary)
    assert "Traceback" not in text and "test_safe_errors" not in text
    assert set(summary) == {"name", "message"}


def test_long_messages_are_bounded() -> None:
    assert len(safe_error(ValueError("x" * 2000))["message"]) == 500


# ---- failure codes ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stage", "code"),
    [
        ("prepare", "TRAJECTORY_BUILD_FAILED"),
        ("start", "SUBAGENT_START_FAILED"),
        ("run", "SUBAGENT_RESULT_FAILED"),
        ("dispose", "SUBAGENT_DISPOSE_FAILED"),
        ("validate", "INVALID_STRUCTURED_OUTPUT"),
        ("relay", "REPORT_DELIVERY_FAILED"),
    ],
)
def test_failure_code_for_stage(stage: str, code: str) -> None:
    assert failure_code_for_stage(stage) == code
    assert failure_code_for_stage(Stage(stage)) is ReasonCode(code)


def test_unknown_stage_is_an_error() -> None:
    with pytest.raises(ValueError):
        failure_code_for_stage("teardown")


def test_failure_at() -> None:
    failure = failure_at("relay", RuntimeError("Shadow relay retained a holdout literal"))
    assert failure == Failure(
        stage=Stage.RELAY,
        reason_code=ReasonCode.REPORT_DELIVERY_FAILED,
        error={"name": "RuntimeError", "message": "Shadow relay retained a holdout literal"},
    )
