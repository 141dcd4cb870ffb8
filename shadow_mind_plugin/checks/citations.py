"""A path, function or test the answer cites that nothing in the session showed."""

from __future__ import annotations

from typing import Final

from ..vocabulary import Verdict
from .finding import CheckFinding, CheckKind
from .text import cited
from .view import SessionView

_SHOWN: Final = 3
#: citations looked up per answer: each is a search of the session's text
_LOOKED_UP: Final = 16


def uncited_reference(view: SessionView) -> list[CheckFinding]:
    """Fires once per answer of a tool turn when it cites (backticked paths,
    ``name()`` functions, test ids; unticked paths with a directory) something
    whose name no earlier tool argument or output, user message or summary
    contains."""
    answer = view.answer()
    if answer is None or not view.in_window():
        return []
    missing = [c for c, name in cited(answer.text)[:_LOOKED_UP] if not view.shown_before(name, answer.seq)]
    if not missing:
        return []
    names = ", ".join(f"`{c}`" for c in missing[:_SHOWN]) + (
        f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
    )
    return [
        CheckFinding(
            kind=CheckKind.UNCITED_REFERENCE,
            verdict=Verdict.GAP,
            severity=0.5,
            refs=(answer.seq,),
            evidence=answer.seq,
            text=f"The final answer (seq {answer.seq}) cites {names}, which no tool output or argument in the session showed.",
        )
    ]
