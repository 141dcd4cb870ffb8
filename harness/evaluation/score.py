"""Scores of one reviewer's results: per kind and overall.

A result *flags* its case when the run reported a ``challenge`` or ``gap`` at
or above the severity threshold (a report without a severity counts by its
verdict alone). On a planted case a flag is a catch, and a catch is
*localised* when one of its refs is a labelled evidence line. On a clean case
a flag is a false alarm. A run that did not settle (failed, aborted, timed
out) is an error: no catch, no false alarm, counted apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import attrs

from .run import CaseResult

FLAG_VERDICTS: Final = frozenset({"challenge", "gap"})
DEFAULT_SEVERITY: Final = 0.5


def flagged(result: CaseResult, threshold: float) -> bool:
    if result.phase != "report" or result.verdict not in FLAG_VERDICTS:
        return False
    return result.severity is None or result.severity >= threshold


def localised(result: CaseResult) -> bool:
    return bool(set(result.ref_lines) & set(result.case.evidence_lines))


@attrs.frozen(kw_only=True)
class Tally:
    cases: int = 0
    flagged: int = 0
    localised: int = 0
    errors: int = 0

    def add(self, *, flag: bool, local: bool, error: bool) -> Tally:
        return Tally(
            cases=self.cases + 1,
            flagged=self.flagged + flag,
            localised=self.localised + (flag and local),
            errors=self.errors + error,
        )

    @property
    def rate(self) -> float | None:
        """Catch rate (planted) or false-alarm rate (clean); None without cases."""
        return self.flagged / self.cases if self.cases else None

    @property
    def localisation(self) -> float | None:
        """Of the catches, the share whose refs include the labelled evidence."""
        return self.localised / self.flagged if self.flagged else None


@attrs.frozen(kw_only=True)
class Scorecard:
    reviewer: str
    severity: float
    kinds: dict[str, Tally]
    planted: Tally
    clean: Tally
    prompt_chars: int
    #: None when no request reported usage
    input_tokens: int | None
    output_tokens: int | None
    seconds: float
    results: tuple[CaseResult, ...]

    @property
    def catch_rate(self) -> float | None:
        return self.planted.rate

    @property
    def false_alarm_rate(self) -> float | None:
        return self.clean.rate


def score(reviewer: str, results: Sequence[CaseResult], severity: float = DEFAULT_SEVERITY) -> Scorecard:
    kinds: dict[str, Tally] = {}
    planted, clean = Tally(), Tally()
    for result in results:
        flag, error = flagged(result, severity), not result.settled
        kind = result.case.kind
        if kind is None:
            clean = clean.add(flag=flag, local=False, error=error)
        else:
            local = localised(result)
            kinds[kind] = kinds.get(kind, Tally()).add(flag=flag, local=local, error=error)
            planted = planted.add(flag=flag, local=local, error=error)
    return Scorecard(
        reviewer=reviewer,
        severity=severity,
        kinds=dict(sorted(kinds.items())),
        planted=planted,
        clean=clean,
        prompt_chars=sum(r.prompt_chars for r in results),
        input_tokens=_total([r.input_tokens for r in results]),
        output_tokens=_total([r.output_tokens for r in results]),
        seconds=sum(r.seconds for r in results),
        results=tuple(results),
    )


def _total(values: Sequence[int | None]) -> int | None:
    reported = [v for v in values if v is not None]
    return sum(reported) if reported else None


def misses(card: Scorecard, *, min_catch: float | None, max_false_alarm: float | None) -> list[str]:
    """The thresholds ``card`` does not meet, as sentences (empty: it meets them)."""
    out = []
    if min_catch is not None and (card.catch_rate or 0.0) < min_catch:
        out.append(f"{card.reviewer}: catch rate {_pct(card.catch_rate)} is below --min-catch {_pct(min_catch)}")
    if max_false_alarm is not None and (card.false_alarm_rate or 0.0) > max_false_alarm:
        out.append(
            f"{card.reviewer}: false-alarm rate {_pct(card.false_alarm_rate)} is above "
            f"--max-false-alarm {_pct(max_false_alarm)}"
        )
    return out


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def tally_json(tally: Tally) -> dict[str, Any]:
    return {
        "cases": tally.cases,
        "flagged": tally.flagged,
        "localised": tally.localised,
        "errors": tally.errors,
        "rate": tally.rate,
        "localisation": tally.localisation,
    }
