"""The reviewer prompt against the reviewer's window, and what the child log keeps (issue 9).

The trajectory: a synthetic projection of ``N`` entries (1k / 10k / 100k by
default), seeded, in the projector's own entry format (user messages,
assistant text, tool calls and tool-result summaries, 40-600 characters each).

(a) Sizes, no timing: for each session length and reviewer window (8k and
    128k tokens, and no known window), the framed prompt's estimated tokens
    against the prompt budget (half the window), the entries shown and left
    out. The budget must never be exceeded.

(b) Child-log bytes per review: the JSON of the child's first ``user/message``
    as the log stored it before (the whole prompt) and now (header plus
    reference, ``SubagentRequest.stored_prompt``). Both sides serialise the
    same message with ``json.dumps``; only the content differs.

(c) Framing time at the longest session, side by side in one run: both sides
    call ``build_prompt`` on the same projection; one with the 128k window
    (elision walk from the newest entry), the other with no window (the whole
    text, measured in one pass). Informational: the bounded side should not
    cost more than the unbounded one.

Run::

    python bench/prompt_window.py [--entries 1000,10000,100000] [--reps 5]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compare

from hookspecs.values import ModelInfo, create_user_message, message_to_json
from shadow_mind_plugin.projection import Entry, Projection
from shadow_mind_plugin.prompt import FramedPrompt, build_prompt, window_token_budget
from shadow_mind_plugin.prompt_record import stored_prompt
from shadow_mind_plugin.tokens import estimate_tokens

WORDS = (
    "the deploy target is staging and the service reads its config from the environment before it starts "
    "we should check whether the migration ran on every replica then compare the schema with the model"
).split()
KINDS = ("user:user", "assistant", "tool call", "tool result")
WINDOWS = {"8k": 8192, "128k": 128_000, "none": None}


def synthetic(count: int, seed: int = 7) -> Projection:
    rng = random.Random(seed)
    entries = []
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 100)))
        entries.append(Entry(i * 3, f"[seq={i * 3} {kind}]\n{words}"))
    return Projection.of(entries)


def frame(projection: Projection, window: int | None) -> FramedPrompt:
    info = ModelInfo(id="reviewer", context_window=window) if window else None
    return build_prompt(
        "Reviewer", "default", "Check the root's claims against its tool results.", projection,
        projection.entries[-1].seq, think_first=False, max_prompt_tokens=window_token_budget(info),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", default="1000,10000,100000", help="comma-separated session lengths (entries)")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    lengths = [int(n) for n in args.entries.split(",")]
    projections = {n: synthetic(n) for n in lengths}

    print("(a) prompt vs window (estimated tokens)")
    print(f"{'entries':>8} {'window':>6} {'budget':>7} {'prompt':>8} {'shown':>7} {'left out':>8}  ok")
    failures = 0
    for n, projection in projections.items():
        for label, window in WINDOWS.items():
            framed = frame(projection, window)
            budget = window_token_budget(ModelInfo(id="r", context_window=window)) if window else 0
            tokens = estimate_tokens(framed.text)
            ok = not budget or tokens <= budget
            failures += not ok
            shown = len(framed.seqs)
            print(f"{n:>8} {label:>6} {budget or '-':>7} {tokens:>8} {shown:>7} {framed.elided:>8}  {'yes' if ok else 'NO'}")

    print("\n(b) child-log bytes of the reviewer's first user/message")
    print(f"{'entries':>8} {'window':>6} {'full prompt':>12} {'stored form':>12} {'ratio':>8}")
    for n, projection in projections.items():
        for label, window in WINDOWS.items():
            framed = frame(projection, window)
            full = create_user_message(framed.text)
            stored = stored_prompt(
                framed, root_session_id="0" * 32, watermark=projection.entries[-1].seq,
                capture="full", disclosure="redacted", holdout=False,
            )
            kept = create_user_message(stored.content, source={"kind": "user", "stored_prompt": stored.reference})
            a = len(json.dumps(message_to_json(full)))
            b = len(json.dumps(message_to_json(kept)))
            print(f"{n:>8} {label:>6} {a:>12} {b:>12} {a / b:>7.1f}×")

    longest = projections[max(lengths)]
    print(f"\n(c) build_prompt at {max(lengths)} entries")

    def unbounded() -> None:
        frame(longest, None)

    def bounded() -> None:
        frame(longest, 128_000)

    compare("no window", unbounded, "128k window", bounded, reps=args.reps)
    if failures:
        print(f"FAIL: {failures} prompt(s) over the budget")
        sys.exit(1)


if __name__ == "__main__":
    main()
