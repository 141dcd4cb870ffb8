"""Review window: accepted report envelopes, stale-report decay and the four
stagnation detectors (docs/shadow-mind.md §7 "Stagnation, cooldown and escalation" and "Stale-report decay").

An *envelope* is a report's verdict plus its refs. A reviewer that keeps
returning the same envelope, flips between two verdicts on the same refs, or
confirms the same refs over and over is stagnating; the runtime then cools it
down (or escalates its reasoning effort, see :mod:`.ladder`).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter, deque
from collections.abc import Iterable, Sequence

import attrs

from ..vocabulary import StagnationPattern, Verdict


def refs_key(refs: Iterable[int]) -> str:
    """``JSON.stringify(refs)``: compact, so keys match the reference's."""
    return json.dumps(list(refs), separators=(",", ":"))


def envelope_key(verdict: str, refs: Iterable[int]) -> str:
    """``"<verdict>:" + JSON.stringify(refs)``."""
    return f"{verdict}:{refs_key(refs)}"


def _refs_tuple(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


@attrs.frozen(kw_only=True)
class ReviewEntry:
    """One accepted report as the review window keeps it (also shown in status
    as ``recentReviews``)."""

    shadow_id: str
    run_id: str
    verdict: str
    refs: tuple[int, ...] = attrs.field(converter=_refs_tuple)
    captured_through_seq: int
    finished_at: str  # ISO 8601, as written at acceptance
    #: ``"<verdict>:<refs JSON>"``, computed once: detectors compare it many times
    envelope: str = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "envelope", envelope_key(self.verdict, self.refs))


@attrs.frozen(kw_only=True)
class ReviewWindowOptions:
    """Detector thresholds (settings defaults)."""

    spinning_repeat_count: int = 3
    oscillation_periods: int = 2
    no_drift_repeat_count: int = 3
    diminishing_window_size: int = 5
    diminishing_novelty_threshold: float = 0.4


@attrs.frozen(kw_only=True)
class Detection:
    """A stagnation pattern ending at a definition's latest entry."""

    shadow_id: str
    pattern: StagnationPattern
    run_ids: tuple[str, ...]


def _suffix(entries: Sequence[ReviewEntry], length: int) -> Sequence[ReviewEntry] | None:
    # JS ``slice(-length)``; ``[-0:]`` is the whole list there and here alike
    if len(entries) < length:
        return None
    return entries[-length:]


def _detect_one(shadow_id: str, own: Sequence[ReviewEntry], options: ReviewWindowOptions) -> list[Detection]:
    found: list[Detection] = []

    def hit(pattern: StagnationPattern, span: Sequence[ReviewEntry]) -> None:
        found.append(Detection(shadow_id=shadow_id, pattern=pattern, run_ids=tuple(e.run_id for e in span)))

    spinning = _suffix(own, options.spinning_repeat_count)
    if spinning:
        first_env = spinning[0].envelope
        if all(e.envelope == first_env for e in spinning):
            hit(StagnationPattern.SPINNING, spinning)

    oscillating = _suffix(own, options.oscillation_periods * 2)
    if oscillating is not None and len(oscillating) >= 2:
        first, second = oscillating[0], oscillating[1]
        if (
            first.verdict != second.verdict
            and all(e.refs == first.refs for e in oscillating)
            and all(e.verdict == (first.verdict if i % 2 == 0 else second.verdict) for i, e in enumerate(oscillating))
        ):
            hit(StagnationPattern.OSCILLATION, oscillating)

    no_drift = _suffix(own, options.no_drift_repeat_count)
    if no_drift:
        first_refs = no_drift[0].refs
        if all(e.verdict == Verdict.CONFIRM and e.refs == first_refs for e in no_drift):
            hit(StagnationPattern.NO_DRIFT, no_drift)

    diminishing = _suffix(own, options.diminishing_window_size)
    if diminishing:
        novel = len({e.envelope for e in diminishing})
        if novel / len(diminishing) < options.diminishing_novelty_threshold:
            hit(StagnationPattern.DIMINISHING, diminishing)
    return found


def detect_patterns(entries: Iterable[ReviewEntry], options: ReviewWindowOptions) -> list[Detection]:
    """Every pattern ending at each definition's latest entry.

    Definitions appear in first-seen order; per definition the order is
    spinning, oscillation, no-drift, diminishing.
    """
    groups: dict[str, list[ReviewEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.shadow_id, []).append(entry)
    found: list[Detection] = []
    for shadow_id, own in groups.items():
        found.extend(_detect_one(shadow_id, own, options))
    return found


@attrs.define
class _Slot:
    """One definition's window: entries (with insertion order) and a count of
    their envelopes, so the repeat check is O(1)."""

    entries: deque[tuple[int, ReviewEntry, str]] = attrs.field(factory=deque)
    envelopes: Counter[str] = attrs.field(factory=Counter)
    decay: float = 1.0


class ReviewWindow:
    """Per-root review window: entries per definition, oldest evicted first,
    plus each definition's stale-report decay factor.

    Recording is O(window) at worst (eviction and detection touch only the
    recorded definition's entries).
    """

    def __init__(self) -> None:
        self._slots: dict[str, _Slot] = {}
        self._order = itertools.count()

    def record(self, entry: ReviewEntry, *, window_size: int, decay: float = 0.0) -> bool:
        """Append an accepted report; return whether it repeated an envelope
        already in this definition's window while ``decay > 0`` (in which case
        the definition's factor was multiplied by ``1 - decay``).

        The repeat check runs before the push, as in the reference.
        """
        slot = self._slots.get(entry.shadow_id)
        if slot is None:
            slot = self._slots[entry.shadow_id] = _Slot()
        key = entry.envelope
        repeated = decay > 0 and slot.envelopes[key] > 0
        if repeated:
            slot.decay *= 1 - decay
        slot.entries.append((next(self._order), entry, key))
        slot.envelopes[key] += 1
        while len(slot.entries) > window_size:
            _, _, old = slot.entries.popleft()
            slot.envelopes[old] -= 1
            if not slot.envelopes[old]:
                del slot.envelopes[old]
        return repeated

    def detect(self, shadow_id: str, options: ReviewWindowOptions) -> list[Detection]:
        """Detections for one definition (what the stagnation action acts on)."""
        slot = self._slots.get(shadow_id)
        if slot is None or not slot.entries:
            return []
        return _detect_one(shadow_id, [e for _, e, _ in slot.entries], options)

    def decay_factor(self, shadow_id: str) -> float:
        slot = self._slots.get(shadow_id)
        return 1.0 if slot is None else slot.decay

    def effective_probability(self, shadow_id: str, activation_probability: float) -> float:
        """``min(1, activation_probability × decay)``."""
        return min(1.0, activation_probability * self.decay_factor(shadow_id))

    def entries(self, shadow_id: str | None = None) -> list[ReviewEntry]:
        """Retained entries in acceptance order (all definitions, or one)."""
        if shadow_id is not None:
            slot = self._slots.get(shadow_id)
            return [] if slot is None else [e for _, e, _ in slot.entries]
        merged = sorted(item for slot in self._slots.values() for item in slot.entries)
        return [e for _, e, _ in merged]

    def clear(self) -> None:
        """Forget entries and decay factors (a real user message resets session
        governance)."""
        self._slots.clear()
