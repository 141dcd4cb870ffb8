"""The table people read and the JSON machines read, for one reviewer or two side by side."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .score import Scorecard, Tally, flagged, localised, tally_json

TIME_ROW = "time"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _catch(tally: Tally | None) -> str:
    if tally is None or not tally.cases:
        return "-"
    return (
        f"{tally.flagged}/{tally.cases} caught ({_pct(tally.rate)}), "
        f"{tally.localised} localised ({_pct(tally.localisation)})"
    )


def _tokens(card: Scorecard) -> str:
    if card.input_tokens is None and card.output_tokens is None:
        return "-"
    return f"{card.input_tokens or 0} in, {card.output_tokens or 0} out"


def rows(cards: Sequence[Scorecard]) -> list[tuple[str, list[str]]]:
    """``(row label, one cell per reviewer)``; the last row is the time."""
    kinds = sorted({kind for card in cards for kind in card.kinds})
    out: list[tuple[str, list[str]]] = [(kind, [_catch(card.kinds.get(kind)) for card in cards]) for kind in kinds]
    out.append(("all planted", [_catch(card.planted) for card in cards]))
    out.append(
        (
            "clean",
            [
                f"{card.clean.flagged}/{card.clean.cases} false alarms ({_pct(card.clean.rate)})" if card.clean.cases else "-"
                for card in cards
            ],
        )
    )
    out.append(("errors", [str(card.planted.errors + card.clean.errors) for card in cards]))
    out.append(("prompt chars", [str(card.prompt_chars) for card in cards]))
    out.append(("tokens", [_tokens(card) for card in cards]))
    out.append((TIME_ROW, [f"{card.seconds:.1f} s" for card in cards]))
    return out


def render_table(cards: Sequence[Scorecard], misses: Sequence[str] = ()) -> str:
    first = cards[0]
    planted, clean = first.planted.cases, first.clean.cases
    head = (
        f"Shadow eval: {planted + clean} cases ({planted} planted, {clean} clean); "
        f"a catch is a challenge or gap at severity >= {first.severity:g}"
    )
    table = [("", [card.reviewer for card in cards]), *rows(cards)]
    label_width = max(len(label) for label, _ in table)
    widths = [max(len(cells[i]) for _, cells in table) for i in range(len(cards))]
    lines = [head, ""]
    for label, cells in table:
        lines.append("  ".join([label.ljust(label_width), *(c.ljust(w) for c, w in zip(cells, widths, strict=True))]).rstrip())
    for card in cards:
        lines.extend(_cases_to_read(card))
    lines.extend(f"threshold missed: {miss}" for miss in misses)
    return "\n".join(lines) + "\n"


def _cases_to_read(card: Scorecard) -> list[str]:
    """The cases a person should open: plants missed or not localised, false alarms, errors."""
    missed, unlocated, alarms, errors = [], [], [], []
    for result in card.results:
        name = result.case.id
        if not result.settled:
            errors.append(f"{name} ({result.error})")
        elif result.case.planted and not flagged(result, card.severity):
            missed.append(f"{name} ({result.verdict or result.phase})")
        elif result.case.planted and not localised(result):
            unlocated.append(f"{name} (refs lines {', '.join(map(str, result.ref_lines)) or 'none'})")
        elif not result.case.planted and flagged(result, card.severity):
            alarms.append(f"{name} ({result.verdict})")
    out = []
    for title, names in (("missed", missed), ("not localised", unlocated), ("false alarms", alarms), ("errors", errors)):
        if names:
            out.append(f"{card.reviewer} {title}: {'; '.join(names)}")
    return out


def card_json(card: Scorecard) -> dict[str, Any]:
    return {
        "reviewer": card.reviewer,
        "kinds": {kind: tally_json(tally) for kind, tally in card.kinds.items()},
        "planted": tally_json(card.planted),
        "clean": tally_json(card.clean),
        "catch_rate": card.catch_rate,
        "localisation": card.planted.localisation,
        "false_alarm_rate": card.false_alarm_rate,
        "prompt_chars": card.prompt_chars,
        "input_tokens": card.input_tokens,
        "output_tokens": card.output_tokens,
        "seconds": round(card.seconds, 3),
        "cases": [
            {
                "id": r.case.id,
                "label": r.case.kind or "clean",
                "evidence_lines": list(r.case.evidence_lines),
                "phase": r.phase,
                "verdict": r.verdict,
                "severity": r.severity,
                "ref_lines": list(r.ref_lines),
                "leads": list(r.leads),
                "prompt_chars": r.prompt_chars,
                "input_tokens": r.input_tokens,
                "output_tokens": r.output_tokens,
                "seconds": round(r.seconds, 3),
                "error": r.error,
            }
            for r in card.results
        ],
    }


def render_json(cards: Sequence[Scorecard], misses: Sequence[str]) -> dict[str, Any]:
    return {
        "severity": cards[0].severity,
        "reviewers": [card_json(card) for card in cards],
        "passed": not misses,
        "misses": list(misses),
    }
