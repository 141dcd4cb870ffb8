"""What a Stop costs the agent that waits for ``harness shadow hook`` (issue 20).

Every row is the CPU time of whole processes, as the agent pays it: the
median over ``--reps`` runs of ``resource.getrusage(RUSAGE_CHILDREN)``
(user + system) before and after ``subprocess.run`` of the command (the
hook's forked worker is waited for by the hook, so it is counted). All rows
run side by side in one run, interleaved rep by rep, and each is shown with
bytecode cached and not cached:

* **cached**: ``PYTHONPYCACHEPREFIX`` names a private cache warmed by one
  untimed run of the same command, so every module loads from its ``.pyc``;
* **not cached**: ``PYTHONDONTWRITEBYTECODE=1`` and ``PYTHONPYCACHEPREFIX``
  an empty directory, so every module, the standard library's too, is
  compiled from source (what an environment that never writes bytecode pays,
  and a bit more: there the standard library's own ``.pyc`` may exist).

The rows:

* ``python -c pass`` and ``python -c "import json"``: the floor for a Python
  hook (the issue's reference);
* ``<format> N lines, unchanged``: the hook on a transcript of N lines it saw
  at the last Stop (its state file says so): nothing is new;
* ``<format> N lines, +10, disabled``: the transcript grew by 10 lines since
  the last Stop (appended before every run, untimed) and the default Shadow
  is ``enabled: false``, so no review is admitted; the profile routes the
  reviewer to a closed local port that is never contacted;
* ``<format> N lines, +10, not rolled``: the same growth with the default
  Shadow enabled at activation probability 1e-9: the new turn goes through
  the host and the plugin, whose roll admits no review (the review itself is
  not measured here: it costs a model call).

Transcripts are generated, seeded: turns of a user prompt, assistant text,
tool calls with ~1 kB results (about 1.1 kB a line, as the issue's 20k-line,
22 MB transcript), in the Claude Code or Codex format.

The ``x floor`` column divides by ``python -c "import json"`` (cached). The
issue's targets: the 20k-line ``+10, disabled`` row at most 1.5x the 100-line
one, and a small no-review Stop at most 5x the floor, both cached.

Run::

    python bench/hook_stop.py [--lines 100 20000] [--reps 3] [--formats claude-code codex] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
KEY_ENV = "BENCH_HOOK_REVIEWER_KEY"
DEFINITION = "---\nid: default\nname: Bench Reviewer\nenabled: {enabled}\nactivation_probability: {probability}\n---\n\nReview.\n"
#: the homes of the rows: Shadow disabled, and enabled with a roll that (all but) never hits
HOMES = {"disabled": ("false", "1"), "not rolled": ("true", "0.000000001")}
PROFILE = """
- id: local
  name: openai-compatible
  config:
    provider: local
    base_url: http://127.0.0.1:9/v1
    api_key_env: {key}
    models: [{{id: m, context_window: 64000}}]
- id: agent-loop
  name: agent-loop
  config: {{model: local/m}}
- bundle: shadow-mind
"""


def cpu_of(argv: list[str], *, env: dict[str, str], stdin: bytes) -> float:
    """CPU seconds (user + system) of one run of ``argv`` and every process it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(argv, env=env, input=stdin, capture_output=True, check=False, cwd=REPO)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0 or (b"harness" in run.stderr and b"shadow hook" in run.stderr):
        raise SystemExit(f"{argv[2:]} failed: {run.stderr.decode(errors='replace')[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# --- transcripts --------------------------------------------------------------------


def claude_lines(count: int, rng: random.Random, start: int = 0) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    i = start
    while len(lines) < count:
        i += 1
        base = {"sessionId": "bench", "cwd": "/home/u/proj", "uuid": f"u{i}"}
        if i % 6 == 1:
            text = f"Please look at module {i} " + "and check it " * rng.randint(3, 30)
            lines.append({**base, "type": "user", "message": {"role": "user", "content": text}})
        elif i % 2 == 0:
            call = {"type": "tool_use", "id": f"toolu_{i}", "name": "Read", "input": {"file_path": f"src/m{i}.py"}}
            content = [{"type": "text", "text": "Reading it. " * rng.randint(1, 8)}, call]
            lines.append({**base, "type": "assistant", "message": {"role": "assistant", "model": "m", "content": content}})
        else:
            result = {"type": "tool_result", "tool_use_id": f"toolu_{i - 1}", "content": _code(rng)}
            lines.append({**base, "type": "user", "message": {"role": "user", "content": [result]}})
    return lines


def codex_lines(count: int, rng: random.Random, start: int = 0) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    i = start
    if start == 0:
        lines.append(_codex("session_meta", {"id": "bench", "cwd": "/home/u/proj"}))
    while len(lines) < count:
        i += 1
        if i % 6 == 1:
            text = f"Please look at module {i} " + "and check it " * rng.randint(3, 30)
            item = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
        elif i % 2 == 0:
            item = {"type": "function_call", "name": "shell", "call_id": f"call_{i}", "arguments": json.dumps({"command": ["cat", f"m{i}.py"]})}
        else:
            item = {"type": "function_call_output", "call_id": f"call_{i - 1}", "output": _code(rng)}
        lines.append(_codex("response_item", item))
    return lines


def _codex(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-12-01T00:00:00.000Z", "type": kind, "payload": payload}


def _code(rng: random.Random) -> str:
    return "\n".join(f"def f{n}(a, b):\n    return a + b  # {rng.random():.6f}" for n in range(rng.randint(10, 16)))


GENERATORS: dict[str, Callable[[int, random.Random, int], list[dict[str, Any]]]] = {
    "claude-code": claude_lines,
    "codex": codex_lines,
}


def write_lines(path: Path, entries: list[dict[str, Any]], mode: str = "w") -> None:
    with path.open(mode) as out:
        out.writelines(json.dumps(entry) + "\n" for entry in entries)


# --- the rows -------------------------------------------------------------------


class Row:
    """One command measured repeatedly; ``prepare`` runs untimed before every sample."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        stdin: bytes = b"",
        prepare: Callable[[], None] | None = None,
        home: str = "disabled",
    ) -> None:
        self.name, self.argv, self.stdin, self.prepare, self.home = name, argv, stdin, prepare, home
        self.samples: dict[str, list[float]] = {"cached": [], "not cached": []}


def hook_rows(root: Path, fmt: str, lines: int, seed: int) -> list[Row]:
    rng = random.Random(seed)
    generate = GENERATORS[fmt]
    made: list[Row] = []
    for case in ("unchanged", "+10, disabled", "+10, not rolled"):
        where = root / f"{fmt}-{lines}-{case.replace(' ', '').replace(',', '-')}"
        where.mkdir()
        transcript = where / "t.jsonl"
        write_lines(transcript, generate(lines, rng, 0))
        stdin = json.dumps(
            {"session_id": where.name, "transcript_path": str(transcript), "cwd": "/nowhere", "stop_hook_active": False}
        ).encode()
        argv = [sys.executable, "-m", "harness", "shadow", "hook", fmt, "--profile", str(root / "profile.yml")]
        grown = [lines]

        def grow(transcript: Path = transcript, grown: list[int] = grown) -> None:
            write_lines(transcript, generate(10, rng, grown[0]), mode="a")
            grown[0] += 10

        home = "not rolled" if case.endswith("not rolled") else "disabled"
        made.append(Row(f"{fmt} {lines} lines, {case}", argv, stdin, grow if case != "unchanged" else None, home))
    return made


def environments(root: Path) -> dict[str, dict[str, str]]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "PYTHON"))}
    base.update({KEY_ENV: "sk-bench-0123456789"})
    (root / "pyc-cached").mkdir()
    (root / "pyc-empty").mkdir()
    return {
        "cached": {**base, "PYTHONPYCACHEPREFIX": str(root / "pyc-cached")},
        "not cached": {**base, "PYTHONPYCACHEPREFIX": str(root / "pyc-empty"), "PYTHONDONTWRITEBYTECODE": "1"},
    }


def run(args: argparse.Namespace) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-hook-") as tmp:
        root = Path(tmp)
        for name, (enabled, probability) in HOMES.items():
            minds = root / "homes" / name.replace(" ", "-") / "shadow-minds"
            minds.mkdir(parents=True, mode=0o700)
            (minds / "default.md").write_text(DEFINITION.format(enabled=enabled, probability=probability))
            os.utime(minds / "default.md", (0, 0))  # settled: the hook may trust its stamp at once
        (root / "profile.yml").write_text(PROFILE.format(key=KEY_ENV))
        os.utime(root / "profile.yml", (0, 0))
        envs = environments(root)
        rows = [
            Row("python -c pass", [sys.executable, "-c", "pass"]),
            Row('python -c "import json"', [sys.executable, "-c", "import json"]),
        ]
        for fmt in args.formats:
            for lines in args.lines:
                rows += hook_rows(root, fmt, lines, args.seed)
        for row in rows:  # warm the cache; the hook's state now records what it saw
            if row.prepare:
                row.prepare()
            cpu_of(row.argv, env=_with_home(envs["cached"], root, row), stdin=row.stdin)
        for rep in range(args.reps):
            order = rows if rep % 2 == 0 else rows[::-1]
            for row in order:
                for mode in ("cached", "not cached") if rep % 2 == 0 else ("not cached", "cached"):
                    if row.prepare:
                        row.prepare()
                    row.samples[mode].append(cpu_of(row.argv, env=_with_home(envs[mode], root, row), stdin=row.stdin))
            print(f"rep {rep + 1}/{args.reps} done", file=sys.stderr, flush=True)
        return rows


def _with_home(env: dict[str, str], root: Path, row: Row) -> dict[str, str]:
    return {**env, "DSH_HOME": str(root / "homes" / row.home.replace(" ", "-"))}


def report(rows: list[Row]) -> None:
    floor = statistics.median(rows[1].samples["cached"])
    print(f"{'case':<44} {'CPU cached':>11} {'x floor':>8} {'CPU not cached':>15} {'x floor':>8}")
    for row in rows:
        cached, cold = statistics.median(row.samples["cached"]), statistics.median(row.samples["not cached"])
        print(f"{row.name:<44} {cached:>10.3f}s {cached / floor:>8.1f} {cold:>14.3f}s {cold / floor:>8.1f}")
    by_name = {row.name: statistics.median(row.samples["cached"]) for row in rows}
    for name in by_name:
        for case in ("+10, disabled", "+10, not rolled"):
            if name.endswith(case) and not name.split()[1] == str(min(_sizes(rows))):
                fmt = name.split()[0]
                small = by_name.get(f"{fmt} {min(_sizes(rows))} lines, {case}")
                if small:
                    print(f"{fmt}: large / small {case} = {by_name[name] / small:.2f}x (target <= 1.5x)")


def _sizes(rows: list[Row]) -> set[int]:
    return {int(row.name.split()[1]) for row in rows if row.name.split()[1].isdigit()}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[100, 20000], help="transcript sizes (lines)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--formats", nargs="+", choices=sorted(GENERATORS), default=sorted(GENERATORS))
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="100 and 2,000 lines, one format, one rep")
    args = parser.parse_args()
    if args.quick:
        args.lines, args.reps, args.formats = [100, 2000], 1, ["claude-code"]
    report(run(args))


if __name__ == "__main__":
    main()
