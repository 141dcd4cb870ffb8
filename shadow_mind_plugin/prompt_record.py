"""The stored form of a reviewer prompt in the child's log, and rebuilding it.

The child log keeps the prompt's header verbatim and one reference line instead
of a second copy of the trajectory: the body is a projection of the root's own
log through the watermark, so the root session id, watermark, capture,
disclosure and what was shown (seq range, elided count, a cut) rebuild it, and
a digest says whether the rebuilt text is the text sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from hookspecs.values import SessionEvent, StoredPrompt, TextBlock

from .projection import ENTRY_SEPARATOR, project
from .prompt import EMPTY_TRAJECTORY, cut_note, elision_marker
from .utf16 import u16len, u16slice

if TYPE_CHECKING:
    from .prompt import FramedPrompt

#: ``reference["kind"]`` of a Shadow reviewer prompt.
REFERENCE_KIND: Final = "shadow-mind/root-trajectory"
REFERENCE_VERSION: Final = 1


def stored_prompt(
    framed: FramedPrompt,
    *,
    root_session_id: str,
    watermark: int,
    capture: str,
    disclosure: str,
    holdout: bool,
    leads: Sequence[Mapping[str, Any]] = (),
) -> StoredPrompt:
    """The child's first message as its log keeps it (no trajectory text)."""
    reference: dict[str, Any] = {
        "kind": REFERENCE_KIND,
        "version": REFERENCE_VERSION,
        "root_session_id": root_session_id,
        "watermark": watermark,
        "capture": capture,
        "disclosure": disclosure,
        "holdout": holdout,
        "entries": framed.entries,
        "shown": len(framed.seqs),
        "shown_seqs": list(framed.shown_seqs) if framed.shown_seqs else None,
        "elided": framed.elided,
        "elided_seqs": list(framed.elided_seqs) if framed.elided_seqs else None,
        "cut_seq": framed.cut_seq,
        "cut_chars": framed.cut_chars,
        "prompt_chars": u16len(framed.text),
        "body_chars": u16len(framed.body),
        "body_digest": framed.body_digest,
    }
    if leads:
        # the header kept verbatim carries their text; this says which checks they were
        reference["leads"] = [dict(lead) for lead in leads]
    return StoredPrompt(content=(TextBlock(text=framed.header), TextBlock(text=reference_line(reference))), reference=reference)


def reference_line(reference: Mapping[str, Any]) -> str:
    """What the stored message says in place of the trajectory body."""
    shown = reference.get("shown_seqs")
    seqs = f"seqs {shown[0]} to {shown[1]}" if isinstance(shown, list) and len(shown) == 2 else "no entries"
    return (
        f"[trajectory not stored here: the projection of root session {reference.get('root_session_id')} "
        f"through seq {reference.get('watermark')} (capture {reference.get('capture')}, "
        f"disclosure {reference.get('disclosure')}); {reference.get('shown')} of {reference.get('entries')} entries "
        f"shown ({seqs}), {reference.get('elided')} left out; {reference.get('body_chars')} characters, "
        f"{reference.get('body_digest')}]"
    )


def rebuild_body(events: Sequence[SessionEvent], reference: Mapping[str, Any]) -> str | None:
    """The trajectory body the reference names, re-projected from the root's
    events; None when the reference cannot say (unknown form, a holdout run
    whose text was redacted with keys not at hand)."""
    if reference.get("kind") != REFERENCE_KIND or reference.get("holdout"):
        return None
    watermark, elided = reference.get("watermark"), reference.get("elided")
    capture, disclosure = reference.get("capture"), reference.get("disclosure")
    if not isinstance(watermark, int) or not isinstance(elided, int) or elided < 0:
        return None
    if capture not in ("full", "since-compaction") or disclosure not in ("redacted", "full"):
        return None
    entries = project(events, watermark, disclosure=disclosure, capture=capture).entries
    if not entries:
        return u16slice(EMPTY_TRAJECTORY, 0, _int(reference.get("body_chars")))
    if elided > len(entries):
        return None
    parts = [entry.text for entry in entries[elided:]]
    cut = reference.get("cut_seq")
    if cut is not None and parts and entries[-1].seq == cut:
        room = _int(reference.get("cut_chars"))
        if room is None:
            return None
        head = u16slice(parts[-1], 0, room)
        parts[-1] = f"{head}\n{cut_note(cut, u16len(head), u16len(parts[-1]))}"
    if elided:
        marker = elision_marker(elided, entries[0].seq, entries[elided - 1].seq)
        if not parts:
            marker = u16slice(marker, 0, _int(reference.get("body_chars")))
        parts.insert(0, marker)
    return ENTRY_SEPARATOR.join(parts)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
