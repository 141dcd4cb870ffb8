"""Check findings handed to a model reviewer as leads to confirm or dismiss.

A lead sits in the framed prompt's header, before the trajectory, so the
prompt's bounds count it (:func:`shadow_mind_plugin.prompt.build_prompt`). A
lead may cite only seqs the reviewer is shown: one that names a seq the bounded
prompt left out is withdrawn and the prompt framed again (fewer leads leave
more room, so the entries shown only grow and the loop ends).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, Final

from ..tokens import estimate_tokens
from ..utf16 import u16len
from .finding import CheckFinding

#: at most this many leads, the most severe first (ties: the checks' priority)
MAX_LEADS: Final = 4
#: the share of a prompt bound the leads section may take; the trajectory is the point
LEADS_SHARE: Final = 0.25
LEADS_HEADING: Final = "## Evidence-check leads"
LEADS_INTRO: Final = (
    "Deterministic evidence checks flagged the items below. They are leads, not findings: confirm or "
    "dismiss each against the trajectory, and report only what the trajectory supports."
)
_SEQ_MENTION: Final = re.compile(r"\bseqs? (\d+)")


def lead_line(finding: CheckFinding) -> str:
    refs = ", ".join(str(seq) for seq in finding.refs) or "none"
    return f"- [{finding.kind}] {finding.verdict}, severity {finding.severity:g}, refs {refs}: {finding.text}"


def leads_section(leads: Sequence[CheckFinding]) -> str:
    """The header section (empty without leads, so the prompt is as before)."""
    if not leads:
        return ""
    return "\n".join([LEADS_HEADING, LEADS_INTRO, *(lead_line(lead) for lead in leads)])


def cited(finding: CheckFinding) -> set[int]:
    """Every seq the lead names: its refs, its evidence and the seqs its text mentions."""
    return {*finding.refs, finding.evidence, *(int(m) for m in _SEQ_MENTION.findall(finding.text))}


def ranked(findings: Sequence[CheckFinding]) -> tuple[CheckFinding, ...]:
    order = sorted(range(len(findings)), key=lambda i: (-findings[i].severity, i))
    return tuple(findings[i] for i in order[:MAX_LEADS])


def within_share(section: str, max_prompt_chars: int, max_prompt_tokens: int) -> bool:
    """A bound ≤ 0 is no bound, as for the prompt itself."""
    if max_prompt_chars > 0 and u16len(section) > max_prompt_chars * LEADS_SHARE:
        return False
    return not (max_prompt_tokens > 0 and estimate_tokens(section) > max_prompt_tokens * LEADS_SHARE)


def fit_leads(
    build: Callable[[str], Any],
    findings: Sequence[CheckFinding],
    *,
    max_prompt_chars: int = 0,
    max_prompt_tokens: int = 0,
) -> tuple[Any, tuple[CheckFinding, ...]]:
    """The framed prompt ``build(section)`` returns and the leads it carries:
    the most severe that fit the share, each citing only seqs shown."""
    leads: tuple[CheckFinding, ...] = ()
    for finding in ranked(findings):  # greedy: a long lead does not crowd out a shorter one
        if within_share(leads_section((*leads, finding)), max_prompt_chars, max_prompt_tokens):
            leads = (*leads, finding)
    while True:
        framed = build(leads_section(leads))
        shown: AbstractSet[int] = framed.seqs
        kept = tuple(lead for lead in leads if cited(lead) <= shown)
        if kept == leads:
            return framed, leads
        leads = kept


def lead_record(finding: CheckFinding) -> dict[str, Any]:
    """What run views, journals and traces keep of a lead (never its text)."""
    return {"kind": str(finding.kind), "verdict": str(finding.verdict), "refs": list(finding.refs)}
