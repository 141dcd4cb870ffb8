"""Session log costs: append throughput, and cold load + repair.

(a) append: 100,000 representative events (the mix a real turn writes:
    ``turn/start``, ``step/start``, ``user/message``, many ``assistant/chunk``
    deltas, ``assistant/message``, ``tool/call``, ``tool/result``, ``step/end``,
    ``turn/end``) through ``SessionLog.append`` with a JSONL writer, against a
    baseline of ``json.dumps`` + one unbuffered write per line of the same
    payloads (the same syscall pattern the log uses: every line reaches the OS
    at once; a buffered file measured the same here, so syscalls are not the
    cost). Appends run inside ``trio.run`` as in a host (the host clock reads
    trio's time); publication goes to a no-op observer (a host adds its
    ``dsh_session_event`` walk, ~0.5 us/event with no observers).

(b) load: a 100,000-event log written by ``SessionLog`` and ending in an open
    turn with an unanswered tool call, opened cold with ``SessionStore.open``
    and closed by ``SessionStore.repair`` (3 closing events appended), against
    reading the file, splitting lines and ``json.loads`` of each. Target:
    open + repair <= 2.0x the plain parse. ``--history`` adds an informational
    ``open+repair+history`` (also rebuilding the model history the way a
    resumed agent does).

Variants run interleaved; medians are compared. Run::

    python bench/session_log.py [--events 100000] [--reps 5] [--dir /dev/shm] [--history] [--profile]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import compare_many, profile, temp_dsh_home

from harness.clock import HostClock
from harness.sessions import SessionStore, derive_messages
from harness.sessions.jsonl import SESSION_FILE
from hookspecs.values import (
    EventTypes,
    FinishChunk,
    Message,
    SessionHeader,
    TextBlock,
    TextDelta,
    ToolCallBlock,
    ToolCallDelta,
    ToolResultBlock,
    UsageChunk,
    chunk_to_json,
    create_user_message,
    message_to_json,
)

LOAD_TARGET = 2.0
CHUNK = 16  # characters per streamed text delta, like the scripted adapter

ANSWER = (
    "The configuration loader reads the profile rows in order, applies the user's patch and then "
    "validates every plugin's settings against its schema before the host starts; nothing is "
    "written back unless a setting changes at run time."
)
#: what a ``read`` of a 40-line file returns (numbered lines)
FILE_TEXT = "\n".join(f"{n:>6}\tline {n} of the file under review, with ordinary code-ish text;" for n in range(1, 41))

Event = tuple[str, Any]


def _chunk(turn: int, step: int, chunk: Any) -> Event:
    return (EventTypes.ASSISTANT_CHUNK, {"turn": turn, "step": step, "chunk": chunk_to_json(chunk)})


def _chunks(turn: int, step: int, text: str) -> list[Event]:
    return [_chunk(turn, step, TextDelta(text=text[i : i + CHUNK])) for i in range(0, len(text), CHUNK)]


def _assistant(turn: int, step: int, text: str, call: ToolCallBlock | None) -> Event:
    content: list[Any] = [TextBlock(text=text)]
    if call is not None:
        content.append(call)
    message = Message(
        id=f"m-{turn}-{step}",
        role="assistant",
        content=tuple(content),
        source={"kind": "model", "provider": "scripted", "model": "m"},
    )
    data = {
        "turn": turn,
        "step": step,
        "message": message_to_json(message),
        "usage": {"input_tokens": 1200 + turn, "output_tokens": 80, "reasoning_tokens": 0},
        "stop": "tool-calls" if call is not None else "stop",
    }
    return (EventTypes.ASSISTANT_MESSAGE, data)


def _open_turn(turn: int) -> list[Event]:
    """A turn up to an unanswered tool call: what a crash mid-tool leaves."""
    call_id = f"call-{turn}-0"
    args = json.dumps({"path": f"src/module_{turn % 50}.py"})
    call = ToolCallBlock(id=call_id, name="read", arguments=args)
    lead = "Let me read the module that defines the loader first."
    prompt = create_user_message(f"How is the config loaded? ({turn})")
    out: list[Event] = [
        (EventTypes.TURN_START, {"turn": turn}),
        (EventTypes.STEP_START, {"turn": turn, "step": 0}),
        (EventTypes.USER_MESSAGE, {"turn": turn, "step": 0, "message": message_to_json(prompt)}),
    ]
    out += _chunks(turn, 0, lead)
    out += [
        _chunk(turn, 0, ToolCallDelta(index=0, id=call_id, name="read", arguments=args[:10])),
        _chunk(turn, 0, ToolCallDelta(index=0, arguments=args[10:])),
        _chunk(turn, 0, UsageChunk(input_tokens=1200, output_tokens=40)),
        _chunk(turn, 0, FinishChunk(reason="tool-calls")),
        _assistant(turn, 0, lead, call),
        (EventTypes.TOOL_CALL, {"turn": turn, "step": 0, "call_id": call_id, "name": "read", "arguments": args}),
    ]
    return out


def _full_turn(turn: int) -> list[Event]:
    out = _open_turn(turn)
    call_id = f"call-{turn}-0"
    result = Message(
        id=f"result-{call_id}",
        role="tool",
        content=(ToolResultBlock(tool_call_id=call_id, content=(TextBlock(text=FILE_TEXT),)),),
        source={"kind": "tool", "call_id": call_id},
    )
    out.append(
        (
            EventTypes.TOOL_RESULT,
            {"turn": turn, "step": 0, "call_id": call_id, "name": "read", "message": message_to_json(result)},
        )
    )
    out.append((EventTypes.STEP_END, {"turn": turn, "step": 0}))
    out.append((EventTypes.STEP_START, {"turn": turn, "step": 1}))
    out += _chunks(turn, 1, ANSWER)
    out.append(_chunk(turn, 1, FinishChunk(reason="stop")))
    out.append(_assistant(turn, 1, ANSWER, None))
    out.append((EventTypes.STEP_END, {"turn": turn, "step": 1}))
    out.append((EventTypes.TURN_END, {"turn": turn, "reason": {"kind": "completed"}}))
    return out


def build_events(total: int) -> list[Event]:
    """``total`` events: whole turns, then one turn left open at an unanswered call."""
    events: list[Event] = []
    turn = 1
    while len(events) + len(_full_turn(turn)) + len(_open_turn(turn + 1)) <= total:
        events += _full_turn(turn)
        turn += 1
    tail = _open_turn(turn)
    # pad the open turn with text deltas (before its assistant/message) to hit ``total`` exactly
    pad = [_chunk(turn, 0, TextDelta(text=" ...")) for _ in range(total - len(events) - len(tail))]
    return events + tail[:-2] + pad + tail[-2:]


_QUIET = logging.getLogger("bench-sessions")
_QUIET.setLevel(logging.ERROR)  # repair warns once per run


def new_store(sessions_dir: Path) -> SessionStore:
    return SessionStore(
        sessions_dir=sessions_dir, on_event=lambda _s, _e: None, now_ms=HostClock().now_ms, logger=_QUIET
    )


def header(session_id: str) -> SessionHeader:
    return SessionHeader(id=session_id, created_at=time.time() * 1000, cwd="/work")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--dir", default=None, help="parent of the temporary DSH_HOME (e.g. /dev/shm)")
    parser.add_argument("--profile", action="store_true", help="cProfile one append run and one load run")
    parser.add_argument("--history", action="store_true", help="also time open + repair + history rebuild")
    args = parser.parse_args()
    events = build_events(args.events)
    counts: dict[str, int] = {}
    for etype, _ in events:
        counts[etype] = counts.get(etype, 0) + 1
    payload_bytes = sum(len(json.dumps(d)) for _, d in events)

    with temp_dsh_home(parent=args.dir) as home:
        sessions = home / "sessions"
        scratch = home.parent / "scratch"
        scratch.mkdir()
        serial = iter(range(1_000_000))

        # --- (a) append ----------------------------------------------------------------
        async def append_all() -> float:
            # inside trio.run, as in a host: the clock reads trio's time
            store = new_store(sessions)
            log = store.create(header(f"append-{next(serial)}"))
            append = log.append
            start = time.perf_counter()
            for etype, data in events:
                append(etype, data)
            elapsed = time.perf_counter() - start
            store.close(log.id)
            store.discard(log.id)  # free the ~25 MB file
            return elapsed

        def append_log() -> float:
            return trio.run(append_all)

        def baseline() -> Any:
            dumps = json.dumps
            now = time.time

            def run() -> float:
                path = scratch / f"base-{next(serial)}.jsonl"
                with open(path, "ab", buffering=0) as handle:
                    write = handle.write
                    start = time.perf_counter()
                    for seq, (etype, data) in enumerate(events):
                        line = dumps(
                            {"type": etype, "seq": seq, "time": now() * 1000, "data": data},
                            separators=(",", ":"),
                            ensure_ascii=False,
                        )
                        write((line + "\n").encode("utf-8"))
                    handle.flush()
                    elapsed = time.perf_counter() - start
                path.unlink()
                return elapsed

            return run

        # --- (b) cold load + repair ------------------------------------------------------------
        store = new_store(sessions)
        source = store.create(header("load-source"))
        for etype, data in events:
            source.append(etype, data)
        store.close(source.id)
        log_path = sessions / "load-source" / SESSION_FILE
        size = log_path.stat().st_size

        def open_repair(history: bool) -> Any:
            def run() -> float:
                os.truncate(log_path, size)  # undo the previous run's repair
                cold = new_store(sessions)
                start = time.perf_counter()
                log = cold.open("load-source")
                closed = cold.repair(log)
                if history:
                    derive_messages(log.events)
                elapsed = time.perf_counter() - start
                if closed != 3 or log.seq != args.events + 3:
                    raise SystemExit(f"repair closed {closed} (want 3), seq {log.seq}")
                cold.close("load-source")
                return elapsed

            return run

        def plain_parse() -> None:
            raw = log_path.read_bytes()
            loads = json.loads
            [loads(line) for line in raw.split(b"\n") if line]

        if args.profile:
            print("--- SessionLog.append")
            profile(append_log, top=25, sort="tottime")
            print("--- SessionStore.open + repair")
            profile(open_repair(False), top=25, sort="tottime")
            return

        mix = ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))
        print(f"session log: {len(events):,} events ({payload_bytes / len(events):.0f} B data/event avg; {mix})")
        print(f"DSH_HOME under {home.parent}; {args.reps} interleaved reps, medians\n")
        appended = compare_many(
            [("json.dumps+write", baseline()), ("SessionLog.append", append_log)],
            reps=args.reps,
            warmup=0,
            units=len(events),
            unit="events",
            title="(a) append",
        )
        print()
        load_variants = [("json.loads lines", plain_parse), ("open+repair", open_repair(False))]
        if args.history:
            load_variants.append(("open+repair+history", open_repair(True)))
        loaded = compare_many(
            load_variants,
            reps=args.reps,
            warmup=0,
            targets={"open+repair": LOAD_TARGET},
            units=len(events),
            unit="events",
            title=f"(b) cold load + repair ({size / 1e6:.1f} MB file)",
        )
        a, b = appended["SessionLog.append"], loaded["open+repair"]
        print(
            f"\nappend: {len(events) / a.b.median:,.0f} events/s vs baseline {len(events) / a.a.median:,.0f} events/s"
            f" -> ratio {a.ratio:.2f}x"
            f"\nload:   {len(events) / b.b.median:,.0f} events/s vs json.loads {len(events) / b.a.median:,.0f} events/s"
            f" -> ratio {b.ratio:.2f}x (target <= {LOAD_TARGET}) {'OK' if b.ok else 'OVER'}"
        )


if __name__ == "__main__":
    main()
