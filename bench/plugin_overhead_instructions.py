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
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _callgrind import callgrind_check, callgrind_count, callgrind_main, callgrind_parser, callgrind_per_turn
from _common import verdict
from plugin_overhead import RUNTIME_ROW, TARGET, TOOLS_ROW, running

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
    env = dict(os.environ, PYTHONHASHSEED="0")
    return callgrind_count(__file__, args, host, turns, out, env, ["--aa"] if args.aa else [])


def compare(args: argparse.Namespace) -> None:
    callgrind_check(args)
    print(
        f"plugin overhead in instructions: {args.warmup} warm-up turns, then {args.low} or {args.high} "
        f"scripted root tool turns, one callgrind process per host and size{' [A/A]' if args.aa else ''}"
    )
    per_turn = callgrind_per_turn(args, HOSTS, partial(count, args), width=11, keep=args.keep)
    ratio = per_turn["shadow p=0"] / per_turn["absent"]
    extra = per_turn["shadow p=0"] - per_turn["absent"]
    print(f"  shadow p=0 adds {extra:,.0f} Ir per turn")
    print(f"  shadow p=0 / absent, instructions per root tool turn: {ratio:.4f}{verdict(ratio, TARGET, False)}")


def main() -> None:
    parser = callgrind_parser(__doc__, HOSTS)
    parser.add_argument("--aa", action="store_true", help="A/A check: the 'shadow p=0' side gets no Shadow rows")
    parser.add_argument("--keep", default=None, help="keep the callgrind files in this folder")
    callgrind_main(parser.parse_args(), compare, child)


if __name__ == "__main__":
    main()
