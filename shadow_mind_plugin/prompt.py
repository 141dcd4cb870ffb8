"""Frame the Shadow's task prompt, bounded by the reviewer's model window.

Building never fails. When the whole projection does not fit, the oldest
**entries** (whole projected events) are left out behind one marker line that
says how many and which seqs; if even the newest entry does not fit, its head
is kept and a note says it was cut. The rendered-seq allowlist of the result
(:attr:`FramedPrompt.seqs`) is exactly the entries shown. Sizes are UTF-16 units
(the reference counts JavaScript string lengths) and estimated tokens.

Two bounds apply together: the token budget of the reviewer's model
(:func:`window_token_budget`) and ``maxPromptChars``.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Final

import attrs

from .core.ports import ShownSeqs
from .governance.holdout import redact
from .rendered import ENTRY_SEPARATOR
from .tokens import estimate_tokens
from .utf16 import u16len, u16slice

if TYPE_CHECKING:
    from hookspecs.values import ModelInfo

    from .projection import Entry, Projection

#: Replaces the trajectory when nothing model-visible was captured.
EMPTY_TRAJECTORY: Final = "[no model-visible trajectory content]"
#: Share of the reviewer's context window its framed prompt may use; the rest is
#: left for the host's system prompt and tool schemas, the reviewer's own tool
#: calls and results, and its answer.
PROMPT_WINDOW_SHARE: Final = 0.5

#: Sent to a think-first child once its planning turn ends.
THINK_FIRST_CONTINUATION: Final = (
    "Your plan is done. Investigate it now with the tools you have, "
    "then submit the required final result."
)


def elision_marker(count: int, first: int, last: int) -> str:
    """The one line standing for the ``count`` oldest entries (seqs ``first``..``last``)."""
    noun = "entry" if count == 1 else "entries"
    seqs = f"seq {first}" if first == last else f"seqs {first} to {last}"
    return f"[{count} earlier trajectory {noun} ({seqs}) left out to fit the reviewer's prompt bound; cite only the entries shown]"


def cut_note(seq: int, shown: int, total: int) -> str:
    """Follows the head of an entry too large for the bound on its own."""
    return f"[entry seq={seq} cut to fit the reviewer's prompt bound: {shown} of {total} characters shown]"


def window_token_budget(model_info: ModelInfo | None) -> int:
    """Estimated tokens the framed prompt may use on the reviewer's model:
    :data:`PROMPT_WINDOW_SHARE` of its context window, and no more than the
    window minus ``max_output_tokens`` when the catalog gives that and it is
    smaller. 0 means "window unknown, no model bound"."""
    window = model_info.context_window if model_info is not None else None
    if not _positive(window):
        return 0
    assert window is not None and model_info is not None
    budget = math.floor(window * PROMPT_WINDOW_SHARE)
    output = model_info.max_output_tokens
    if _positive(output) and output is not None and 0 < window - output < budget:
        budget = math.floor(window - output)
    return max(budget, 1)


def _positive(value: object) -> bool:
    # hosts may hand over floats from JSON; bool is not a size
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) and value > 0


@attrs.frozen(kw_only=True)
class FramedPrompt:
    """The prompt as sent and what it shows of the trajectory."""

    #: the complete prompt (holdout literals already redacted)
    text: str
    #: everything before the trajectory body
    header: str
    #: the rendered-seq allowlist: the seqs of the entries shown, and nothing else
    seqs: AbstractSet[int]
    #: entries of the projection, and how many of them were left out (the oldest)
    entries: int = 0
    elided: int = 0
    #: first and last seq left out, when any
    elided_seqs: tuple[int, int] | None = None
    #: first and last seq shown, when any
    shown_seqs: tuple[int, int] | None = None
    #: the seq of the newest entry when only its head was shown
    cut_seq: int | None = None
    #: how many UTF-16 units of that entry were shown
    cut_chars: int | None = None
    #: ``sha256:<hex>`` of the trajectory body as sent (UTF-8)
    body_digest: str = ""

    @property
    def shown(self) -> ShownSeqs:
        """The refs allowlist of the review this prompt frames."""
        return ShownSeqs(self.seqs)

    @property
    def body(self) -> str:
        return self.text[len(self.header) + 1 :]


def prompt_header(
    definition_name: str,
    definition_id: str,
    instructions: str,
    watermark: int,
    *,
    think_first: bool,
    leads: str = "",
) -> str:
    """Everything before the trajectory body, ending with the trajectory heading.

    ``leads`` (the evidence checks' section, :mod:`.checks.leads`) goes after the
    instructions: part of the header, so the prompt's bounds count it."""
    lines = [
        f'You are the independent Shadow "{definition_name}" ({definition_id}).',
        "Review the root agent's captured trajectory below. Its hidden reasoning and any "
        "omitted tool output are not available to you; do not assume what they contained.",
        'Answer with status "not_relevant" if your specialty does not apply, "silent" if it applies '
        'but you have nothing actionable to add, or "report" with a concise, self-contained finding.',
        'With "not_relevant" or "silent", content must be the empty string; only a "report" has body text.',
        'A report must set verdict to "challenge", "gap", "confirm", or "uncertain"; refs lists at most '
        "eight rendered seq values, ascending and without repeats; severity is optional and lies from 0 through 1.",
        "Write a report that helps the root agent decide or act; do not narrate that you reviewed the trajectory.",
    ]
    if think_first:
        lines.append(
            "Before you use any tool, write a numbered plan naming the rendered seq values you intend to challenge or verify."
        )
    lines += [
        "",
        "## Shadow instructions",
        instructions,
        "",
        *((leads, "") if leads else ()),
        f"## Root trajectory (captured through session seq {watermark})",
    ]
    return "\n".join(lines)


def build_prompt(
    definition_name: str,
    definition_id: str,
    instructions: str,
    projection: Projection,
    watermark: int,
    *,
    think_first: bool,
    max_prompt_chars: int = 0,
    max_prompt_tokens: int = 0,
    keys: Iterable[str] = (),
    leads: str = "",
) -> FramedPrompt:
    """The complete child prompt. A bound ≤ 0 is no bound; the header is never
    cut. Holdout ``keys`` are redacted before anything is measured, so the
    bounds hold for the text sent."""
    keys = tuple(keys)
    header = prompt_header(definition_name, definition_id, instructions, watermark, think_first=think_first, leads=leads)
    if keys:
        header = redact(header, keys)
    char_room = max_prompt_chars - u16len(header) - 1 if max_prompt_chars > 0 else math.inf
    token_room = max_prompt_tokens - estimate_tokens(header) - 1 if max_prompt_tokens > 0 else math.inf
    entries = projection.entries
    if not entries:
        return _framed(header, u16slice(EMPTY_TRAJECTORY, 0, _units(char_room)), (), 0, None, keys)
    if char_room == math.inf and token_room == math.inf:
        # _framed redacts the body: the whole trajectory once, not twice
        return _framed(header, projection.text, entries, 0, None, keys, seqs=projection.seqs)
    return _bounded(header, projection, char_room, token_room, keys)


def _bounded(
    header: str, projection: Projection, char_room: float, token_room: float, keys: tuple[str, ...]
) -> FramedPrompt:
    """The newest entries that fit, behind the marker when any is left out.

    Walks from the newest and stops at the first entry that does not fit, with
    each entry's size measured once (:func:`_sizes`): the cost follows what is
    shown, not the length of the session."""
    entries = projection.entries
    separator_chars = u16len(ENTRY_SEPARATOR)
    shown: list[str] = []
    sizes: list[tuple[int, int]] = []
    used_chars = used_tokens = 0
    index = len(entries)
    while index > 0:
        text = _text(entries[index - 1], keys)
        chars, tokens = _sizes(text)
        if shown:
            chars, tokens = chars + separator_chars, tokens + 1
        if used_chars + chars > char_room or used_tokens + tokens > token_room:
            break
        shown.append(text)
        sizes.append((chars, tokens))
        used_chars, used_tokens = used_chars + chars, used_tokens + tokens
        index -= 1
    if index == 0:
        body = projection.text if not keys else ENTRY_SEPARATOR.join(reversed(shown))
        return _framed(header, body, entries, 0, None, keys, seqs=projection.seqs)
    # room for the widest marker this projection can need (its numbers only shrink)
    widest = elision_marker(len(entries), entries[0].seq, entries[-1].seq)
    marker_chars, marker_tokens = u16len(widest) + separator_chars, estimate_tokens(widest) + 1
    while shown and (used_chars + marker_chars > char_room or used_tokens + marker_tokens > token_room):
        chars, tokens = sizes.pop()  # the oldest shown entry makes room for the marker
        shown.pop()
        used_chars, used_tokens = used_chars - chars, used_tokens - tokens
        index += 1
    chars_left = char_room - marker_chars - used_chars
    tokens_left = token_room - marker_tokens - used_tokens
    cut: tuple[int, int] | None = None
    if not shown and index == len(entries):
        newest = entries[-1]
        text = _text(newest, keys)
        note = cut_note(newest.seq, u16len(text), u16len(text))
        room = min(chars_left, tokens_left) - u16len(note) - 1  # a token is at least one unit
        if room > 0:
            head = u16slice(text, 0, _units(room))
            shown.append(f"{head}\n{cut_note(newest.seq, u16len(head), u16len(text))}")
            cut = (newest.seq, u16len(head))
            index -= 1
    elided = index
    parts = list(reversed(shown))
    if elided:
        marker = elision_marker(elided, entries[0].seq, entries[elided - 1].seq)
        parts.insert(0, u16slice(marker, 0, _units(char_room)) if not shown else marker)
    return _framed(header, ENTRY_SEPARATOR.join(parts), entries[elided:], elided, cut, keys, entries)


@functools.lru_cache(maxsize=1 << 16)
def _sizes(text: str) -> tuple[int, int]:
    """UTF-16 units and estimated tokens of one entry's text. Entry texts are the
    projection's own string objects, reused review after review (their hashes
    are cached by Python), so a warm review measures only the new entries."""
    return u16len(text), estimate_tokens(text)


def digest(text: str) -> str:
    """``sha256:<hex>`` of ``text`` as UTF-8 (lone surrogates kept)."""
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _text(entry: Entry, keys: tuple[str, ...]) -> str:
    return redact(entry.text, keys) if keys else entry.text


def _units(room: float) -> int | None:
    return None if room == math.inf else max(0, int(room))


def _framed(
    header: str,
    body: str,
    shown: Sequence[Entry],
    elided: int,
    cut: tuple[int, int] | None,
    keys: tuple[str, ...],
    entries: Sequence[Entry] | None = None,
    *,
    seqs: AbstractSet[int] | None = None,
) -> FramedPrompt:
    every = shown if entries is None else entries
    if keys:
        body = redact(body, keys)  # backstop: a literal spanning the marker or a separator
    return FramedPrompt(
        text=f"{header}\n{body}",
        header=header,
        seqs=seqs if seqs is not None else frozenset(entry.seq for entry in shown),
        entries=len(every),
        elided=elided,
        elided_seqs=(every[0].seq, every[elided - 1].seq) if elided else None,
        shown_seqs=(shown[0].seq, shown[-1].seq) if shown else None,
        cut_seq=cut[0] if cut else None,
        cut_chars=cut[1] if cut else None,
        body_digest=digest(body),
    )
