"""Shadow Mind's cost on root turns at activation probability 0, in instructions.

The same work as ``bench/plugin_overhead.py`` (scripted root tool turns: the
user asks, the model calls ``read`` on a small file, the tool runs, the model
answers; two hosts, ``absent`` with no Shadow Mind rows and ``shadow p=0``
with the bundle and ``default.md`` at ``activation_probability: 0``: each
turn passes the plugin's session-event, inbox, status and pre-step hooks, and
its turn end reads the definition catalog, which says no review; nothing is
launched), counted by ``valgrind --tool=callgrind`` instead of
timed: instruction counts do not move with the load on the machine, so a 2 %
target can be read off one run.

Each host runs in its own process under callgrind, twice: ``--warmup`` turns
and then ``--low`` timed turns, and ``--warmup`` turns and then ``--high``
timed turns. Process start, imports, host start and warm-up are the same in
both runs of a host, so ``(Ir(high) - Ir(low)) / (high - low)`` is the
instruction count of one root tool turn, session growth included; the verdict
is ``shadow p=0`` per turn over ``absent`` per turn (target <= 1.02).
``PYTHONHASHSEED=0`` keeps hashing alike across runs. ``--aa`` runs the
``shadow p=0`` side with no Shadow rows (an A/A check: the ratio should read
1.000 within the noise of random ids and temp paths).

Needs ``valgrind`` on PATH. A run takes a few minutes (Python under callgrind
is ~50x slower; ``--jobs 2`` runs two processes at once). Run::

    python bench/plugin_overhead_instructions.py [--warmup 20 --low 20 --high 120] [--jobs 2] [--dir /dev/shm] [--aa] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import temp_dsh_home, verdict
from plugin_overhead import RUNTIME_ROW, TARGET, TOOLS_ROW, running

_TOTALS = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)
HOSTS = ("absent", "shadow p=0")


async def child(args: argparse.Namespace, root: Path, home: Path) -> None:
    """One host: warm-up turns, then ``--turns`` turns (what callgrind counts)."""
    work = root / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the deploy target is staging\n")
    rows = (RUNTIME_ROW, TOOLS_ROW) if args.host == "shadow p=0" and not args.aa else ()
    async with running(args.host, home, work, rows) as runner:
        await runner.block(args.warmup)
        await runner.block(args.turns)


def count(args: argparse.Namespace, host: str, turns: int, out: Path) -> int:
    """Instructions of one child process under callgrind."""
    command = [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
        sys.executable, __file__, "--child", "--host", host,
        "--turns", str(turns), "--warmup", str(args.warmup),
    ]  # fmt: skip
    if args.dir:
        command += ["--dir", args.dir]
    if args.aa:
        command.append("--aa")
    env = dict(os.environ, PYTHONHASHSEED="0")
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{host} ({turns} turns) failed under callgrind:\n{done.stderr[-2000:]}")
    match = _TOTALS.search(out.read_text())
    if match is None:
        raise SystemExit(f"no instruction total in {out}")
    return int(match.group(1))


def compare(args: argparse.Namespace) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH (Debian: apt-get install valgrind)")
    if args.high <= args.low:
        raise SystemExit("--high must be greater than --low")
    runs = [(host, turns) for host in HOSTS for turns in (args.low, args.high)]
    print(
        f"plugin overhead in instructions: {args.warmup} warm-up turns, then {args.low} or {args.high} "
        f"scripted root tool turns, one callgrind process per host and size{' [A/A]' if args.aa else ''}"
    )
    with tempfile.TemporaryDirectory(prefix="cg-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        where = Path(args.keep) if args.keep else Path(tmp)
        where.mkdir(parents=True, exist_ok=True)
        files = {run: where / f"{run[0].split()[0]}-{run[1]}.callgrind" for run in runs}
        futures = {run: pool.submit(count, args, run[0], run[1], files[run]) for run in runs}
        totals = {run: future.result() for run, future in futures.items()}
    if args.keep:
        print(f"  callgrind files kept in {where} (callgrind_annotate FILE)")
    per_turn = {host: (totals[host, args.high] - totals[host, args.low]) / (args.high - args.low) for host in HOSTS}
    for host in HOSTS:
        print(
            f"  {host:11} {totals[host, args.low]:>15,} Ir ({args.low} turns)  "
            f"{totals[host, args.high]:>15,} Ir ({args.high} turns)  -> {per_turn[host]:>12,.0f} Ir per turn"
        )
    ratio = per_turn["shadow p=0"] / per_turn["absent"]
    extra = per_turn["shadow p=0"] - per_turn["absent"]
    print(f"  shadow p=0 adds {extra:,.0f} Ir per turn")
    print(f"  shadow p=0 / absent, instructions per root tool turn: {ratio:.4f}{verdict(ratio, TARGET, False)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--warmup", type=int, default=20, help="turns before the counted ones (both sizes)")
    parser.add_argument("--low", type=int, default=20, help="turns of the smaller run")
    parser.add_argument("--high", type=int, default=120, help="turns of the larger run")
    parser.add_argument("--jobs", type=int, default=2, help="callgrind processes at once")
    parser.add_argument("--dir", default=None, help="parent of the temporary DSH_HOME (e.g. /dev/shm)")
    parser.add_argument("--aa", action="store_true", help="A/A check: the 'shadow p=0' side gets no Shadow rows")
    parser.add_argument("--keep", default=None, help="keep the callgrind files in this folder")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--host", choices=HOSTS, default="absent", help=argparse.SUPPRESS)
    parser.add_argument("--turns", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.child:
        compare(args)
        return
    with temp_dsh_home(parent=args.dir) as home:
        trio.run(child, args, home.parent, home)


if __name__ == "__main__":
    main()
