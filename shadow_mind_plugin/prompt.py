"""Frame the Shadow's task prompt and trim the trajectory to the prompt bounds.

Building never fails: when the complete prompt would exceed the character bound
(``maxPromptChars``) or the model's token budget, the oldest trajectory parts
are dropped behind :data:`TRIM_MARKER` so the newest context survives. Sizes
are UTF-16 units (the reference counts JavaScript string lengths).
"""

from __future__ import annotations

import math
from typing import Final

from .tokens import estimate_tokens
from .utf16 import u16len, u16slice

#: Replaces the trajectory when nothing model-visible was captured or no room is left.
EMPTY_TRAJECTORY: Final = "[no model-visible trajectory content]"
#: Prefixed to a trimmed trajectory (59 UTF-16 units, an estimated 30 tokens).
TRIM_MARKER: Final = "[earlier trajectory events trimmed to fit the prompt bound]"
PART_SEPARATOR: Final = "\n\n"
_MAX_SAFE_INTEGER: Final = 2**53 - 1

#: Sent to a think-first child once its planning turn ends.
THINK_FIRST_CONTINUATION: Final = (
    "Your plan is done. Investigate it now with the tools you have, "
    "then submit the required final result."
)


def prompt_header(
    definition_name: str,
    definition_id: str,
    instructions: str,
    watermark: int,
    *,
    think_first: bool,
) -> str:
    """Everything before the trajectory body, ending with the trajectory heading."""
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
        f"## Root trajectory (captured through session seq {watermark})",
    ]
    return "\n".join(lines)


def build_prompt(
    definition_name: str,
    definition_id: str,
    instructions: str,
    trajectory_text: str,
    watermark: int,
    *,
    think_first: bool,
    max_prompt_chars: int = 0,
    max_prompt_tokens: int = 0,
) -> str:
    """The complete child prompt. A bound ≤ 0 is no bound; the header is never cut."""
    header = prompt_header(definition_name, definition_id, instructions, watermark, think_first=think_first)
    body = trajectory_text or EMPTY_TRAJECTORY
    char_budget = max_prompt_chars - u16len(header) - 1 if max_prompt_chars > 0 else math.inf
    token_budget = max_prompt_tokens - estimate_tokens(header) if max_prompt_tokens > 0 else math.inf
    if u16len(body) > char_budget or estimate_tokens(body) > token_budget:
        if char_budget <= 0 or token_budget <= 0:
            body = EMPTY_TRAJECTORY
        else:
            body = trim_trajectory(body, char_budget, token_budget)
    return f"{header}\n{body}"


def trim_trajectory(text: str, char_budget: float, token_budget: float) -> str:
    """Keep the newest ``\\n\\n``-separated parts that fit both budgets behind the marker.

    Parts are paragraphs, not whole events. The last part is always kept (cut
    from its end when it alone is too large: its head survives).
    """
    content_chars = char_budget - u16len(TRIM_MARKER) - u16len(PART_SEPARATOR)
    content_tokens = token_budget - estimate_tokens(TRIM_MARKER) - estimate_tokens(PART_SEPARATOR)
    if content_chars <= 0 or content_tokens <= 0:
        return u16slice(TRIM_MARKER, 0, int(max(0, min(char_budget, _MAX_SAFE_INTEGER))))
    parts = text.split(PART_SEPARATOR)
    start = _first_fitting_part(parts, content_chars, content_tokens)
    kept = PART_SEPARATOR.join(parts[start:])
    if u16len(kept) > content_chars:
        kept = u16slice(kept, 0, int(content_chars))
    if estimate_tokens(kept) > content_tokens:
        kept = u16slice(kept, 0, int(content_tokens))
    return f"{TRIM_MARKER}{PART_SEPARATOR}{kept}"


def _first_fitting_part(parts: list[str], char_budget: float, token_budget: float) -> int:
    """The smallest index before the last whose suffix fits both budgets, else the last."""
    last = len(parts) - 1
    chars = u16len(parts[last])
    tokens = estimate_tokens(parts[last])
    start = last
    # suffix sums only grow going left, so stop at the first index that no longer fits
    for index in range(last - 1, -1, -1):
        chars += u16len(parts[index]) + 2
        tokens += estimate_tokens(parts[index]) + 1
        if chars > char_budget or tokens > token_budget:
            break
        start = index
    return start
