"""Checks of the final answer's claims against the turn's tool results.

Window: the turn since the last real user message; the claim is the final
answer (the last assistant text after the turn's last tool call).
"""

from __future__ import annotations

from typing import Final

from ..vocabulary import Verdict
from . import text as read
from .finding import CheckFinding, CheckKind
from .shell import Category, categories, had_nothing_to_do, only_looks
from .tools import LOOKS, MUTATIONS, basename, same_file
from .view import Action, SessionView

_QUOTE: Final = 120
_PHRASES: Final = {Category.TESTS: "the tests pass", Category.BUILD: "the build succeeds", Category.LINT: "lint passes"}


def quote(sentence: str) -> str:
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= _QUOTE else sentence[: _QUOTE - 1] + "…"


def _refs(action: Action, *more: int) -> tuple[int, ...]:
    return (action.call_seq, *((action.result_seq,) if action.result_seq is not None else ()), *more)


def unverified_success(view: SessionView) -> list[CheckFinding]:
    """Fires when the answer says tests, build or lint pass (or, generically,
    "fixed") and the turn's last command of that category failed: a later
    green run of the same category, or no such command at all, is silence."""
    answer = view.answer()
    if answer is None:
        return []
    last: dict[Category, Action] = {}
    latest: Action | None = None
    for action in view.in_window():
        if action.result_seq is None or not action.shape.command:
            continue
        found = categories(action.shape.command)
        for category in found:
            last[category] = action
        if found:
            latest = action
    out: list[CheckFinding] = []
    for category, action in last.items():
        sentence = read.claims(answer.text, category) if action.failed else None
        if sentence is not None:
            out.append(_success_finding(_PHRASES[category], sentence, action, answer.seq))
    if not out and latest is not None and latest.failed:
        sentence = read.claims_fixed(answer.text)
        if sentence is not None:
            out.append(_success_finding("it is fixed", sentence, latest, answer.seq))
    return out


def _success_finding(claim: str, sentence: str, action: Action, answer: int) -> CheckFinding:
    return CheckFinding(
        kind=CheckKind.UNVERIFIED_SUCCESS,
        verdict=Verdict.CHALLENGE,
        severity=0.9,
        refs=_refs(action, answer),
        evidence=action.result_seq or action.call_seq,
        text=(
            f'The final answer (seq {answer}) says {claim} ("{quote(sentence)}"), but `{action.describe()}` at seq '
            f"{action.call_seq} {action.outcome()} and was not re-run green before the answer."
        ),
    )


def unbacked_change(view: SessionView) -> list[CheckFinding]:
    """Fires when a plain sentence of the answer says a named file was changed
    and no write, edit or patch of that file succeeded in the session before
    it (a successful shell command naming the file that does more than look
    counts as a possible change)."""
    answer = view.answer()
    if answer is None:
        return []
    out: list[CheckFinding] = []
    for path, sentence in read.changed_paths(answer.text):
        failed: Action | None = None
        backed = False
        for action in view.actions:
            if action.call_seq > answer.seq or action.result_seq is None:
                break
            shape = action.shape
            if shape.kind in MUTATIONS and any(same_file(p, path) for p in shape.paths):
                backed = backed or not action.failed
                failed = action if action.failed else failed
            elif (
                shape.command
                and not action.failed
                and basename(path) in shape.command
                and not only_looks(shape.command)
            ):
                backed = True
        if backed:
            continue
        tail = f"; `{failed.describe()}` at seq {failed.call_seq} {failed.outcome()}" if failed else ""
        out.append(
            CheckFinding(
                kind=CheckKind.UNBACKED_CHANGE,
                verdict=Verdict.CHALLENGE,
                severity=0.8,
                refs=(*(_refs(failed) if failed else ()), answer.seq),
                evidence=failed.result_seq or failed.call_seq if failed else answer.seq,
                text=(
                    f'The final answer (seq {answer.seq}) says `{path}` was changed ("{quote(sentence)}"), '
                    f"but no write or edit of `{path}` succeeded{tail}."
                ),
            )
        )
    return out


def done_after_error(view: SessionView) -> list[CheckFinding]:
    """Fires when the answer claims completion, admits no problem anywhere, and
    a tool error of the turn (not a read, search, listing or read-only shell
    command, nor a command that failed for having nothing to do, such as a
    commit of a clean tree) was followed by no call of the same tool or on the
    same file."""
    answer = view.answer()
    if answer is None:
        return []
    sentence = read.claims_done(answer.text)
    if sentence is None:
        return []
    window = view.in_window()
    for index in range(len(window) - 1, -1, -1):
        error = window[index]
        if not error.failed or error.shape.kind in LOOKS or (error.shape.command and only_looks(error.shape.command)):
            continue
        if error.shape.command and had_nothing_to_do(error.output):
            continue
        if any(_addresses(later, error) for later in window[index + 1 :]):
            continue
        return [
            CheckFinding(
                kind=CheckKind.DONE_AFTER_ERROR,
                verdict=Verdict.CHALLENGE,
                severity=0.7,
                refs=_refs(error, answer.seq),
                evidence=error.result_seq or error.call_seq,
                text=(
                    f'The final answer (seq {answer.seq}) says the work is done ("{quote(sentence)}"), but '
                    f"`{error.describe()}` at seq {error.call_seq} {error.outcome()} and no later call retried or addressed it."
                ),
            )
        ]
    return []


def _addresses(later: Action, error: Action) -> bool:
    """A later call retried or worked around the error: another shell command that
    does more than look (or runs the same program), the same tool again, or a
    call on the same file."""
    if error.shape.command and later.shape.command:
        return not only_looks(later.shape.command) or _program(later) == _program(error)
    if later.tool == error.tool and not error.shape.command:
        return True
    names = {basename(p) for p in error.shape.paths}
    return any(same_file(a, b) for a in later.shape.paths for b in error.shape.paths) or any(
        name in later.shape.command for name in names if name
    )


def _program(action: Action) -> str:
    words = action.shape.command.split()
    return words[0] if words else ""
