"""Shared parts of the callgrind benches (``plugin_overhead_instructions.py``,
``telemetry_overhead.py``).

Each host runs in its own process under callgrind, ``--warmup`` turns then
``--low`` turns, and again with ``--high``; ``(Ir(high) - Ir(low)) / (high - low)``
is one turn's instructions with process start, imports and warm-up cancelled.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import trio
from _common import temp_dsh_home

_TOTALS = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)


def callgrind_parser(doc: str | None, hosts: Sequence[str]) -> argparse.ArgumentParser:
    """The options every callgrind bench takes, its child's hidden ones included."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--warmup", type=int, default=20, help="turns before the counted ones (both sizes)")
    parser.add_argument("--low", type=int, default=20, help="turns of the smaller run")
    parser.add_argument("--high", type=int, default=120, help="turns of the larger run")
    parser.add_argument("--jobs", type=int, default=2, help="callgrind processes at once")
    parser.add_argument("--dir", default=None, help="parent of the temporary DSH_HOME (e.g. /dev/shm)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--host", choices=hosts, default="absent", help=argparse.SUPPRESS)
    parser.add_argument("--turns", type=int, default=0, help=argparse.SUPPRESS)
    return parser


def callgrind_total(out: Path) -> int:
    """Instructions callgrind counted into ``out`` (and ``out.*``, one file per
    thread with ``--separate-threads``): a file's first total, as it writes both
    ``summary:`` and ``totals:`` with the same number."""
    totals = [int(m.group(1)) for path in out.parent.glob(f"{out.name}*") if (m := _TOTALS.search(path.read_text()))]
    if not totals:
        raise SystemExit(f"no instruction total in {out}")
    return sum(totals)


def callgrind_count(
    script: str,
    args: argparse.Namespace,
    host: str,
    turns: int,
    out: Path,
    env: Mapping[str, str],
    extra: Sequence[str] = (),
) -> int:
    """Instructions of one child process of ``script`` under callgrind."""
    command = [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
        sys.executable, script, "--child", "--host", host,
        "--turns", str(turns), "--warmup", str(args.warmup),
    ]  # fmt: skip
    if args.dir:
        command += ["--dir", args.dir]
    command += extra
    done = subprocess.run(command, env=dict(env), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{host} ({turns} turns) failed under callgrind:\n{done.stderr[-2000:]}")
    return callgrind_total(out)


def callgrind_check(args: argparse.Namespace) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH (Debian: apt-get install valgrind)")
    if args.high <= args.low:
        raise SystemExit("--high must be greater than --low")


def callgrind_per_turn(
    args: argparse.Namespace,
    hosts: Sequence[str],
    count: Callable[[str, int, Path], int],
    *,
    width: int,
    keep: str | None = None,
) -> dict[str, float]:
    """Count every host at ``--low`` and ``--high`` turns (``--jobs`` at once), print
    one line a host, and return each host's instructions per turn."""
    runs = [(host, turns) for host in hosts for turns in (args.low, args.high)]
    with tempfile.TemporaryDirectory(prefix="cg-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        where = Path(keep) if keep else Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        files = {run: where / f"{run[0].replace(' ', '-')}-{run[1]}.callgrind" for run in runs}
        futures = {run: pool.submit(count, run[0], run[1], files[run]) for run in runs}
        totals = {run: future.result() for run, future in futures.items()}
    if keep:
        print(f"  callgrind files kept in {where} (callgrind_annotate FILE)")
    per_turn = {host: (totals[host, args.high] - totals[host, args.low]) / (args.high - args.low) for host in hosts}
    for host in hosts:
        print(
            f"  {host:{width}} {totals[host, args.low]:>15,} Ir ({args.low} turns)  "
            f"{totals[host, args.high]:>15,} Ir ({args.high} turns)  -> {per_turn[host]:>12,.0f} Ir per turn"
        )
    return per_turn


def callgrind_main(
    args: argparse.Namespace,
    compare: Callable[[argparse.Namespace], None],
    child: Callable[[argparse.Namespace, Path, Path], Awaitable[None]],
) -> None:
    """Compare the hosts, or (``--child``) run one host's turns in a temporary DSH_HOME."""
    if not args.child:
        compare(args)
        return
    with temp_dsh_home(parent=args.dir) as home:
        trio.run(child, args, home.parent, home)
