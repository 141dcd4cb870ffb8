"""What the ``telemetry`` plugin costs a root turn when it is off, in instructions.

The turns of ``bench/plugin_overhead.py`` (the user asks, the scripted model
calls ``read`` on a small file, the tool runs, the model answers: two model
requests, ~22 session events), no Shadow Mind rows, on hosts that differ only
in telemetry:

* ``absent``        — no ``telemetry`` row and ``DSH_OTEL`` unset: the host as
  shipped (the plugin-off path);
* ``telemetry off`` — a ``telemetry`` profile row with ``OTEL_SDK_DISABLED=true``
  in the environment: the row resolves to the inert ``TelemetryOff`` (no
  hooks), so every turn must run exactly the code ``absent`` runs. Target:
  ``telemetry off`` / ``absent`` <= 1.01;
* ``telemetry on``  — with ``--on``, informational: the row enabled, exporting
  to a closed loopback port (every batch fails in the SDK's worker thread,
  which callgrind counts too): what the spans cost when someone turns it on.

Counted by ``valgrind --tool=callgrind``, as ``bench/plugin_overhead_instructions.py``:
each host in its own process, twice (``--warmup`` turns then ``--low`` turns,
and ``--warmup`` then ``--high``), so ``(Ir(high) - Ir(low)) / (high - low)``
is one turn's instruction count with process start, imports, host start and
warm-up cancelled out. ``PYTHONHASHSEED=0`` keeps hashing alike. Needs
``valgrind`` on PATH; a run takes a few minutes. Run::

    python bench/telemetry_overhead.py [--warmup 20 --low 20 --high 120] [--jobs 2] [--dir /dev/shm] [--on]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import temp_dsh_home, verdict
from plugin_overhead import running

from harness.profiles import ProfileRow

TARGET = 1.01
_TOTALS = re.compile(r"^(?:summary|totals):\s+(\d+)", re.MULTILINE)
HOSTS = ("absent", "telemetry off", "telemetry on")
TELEMETRY_ROW = ProfileRow(id="telemetry", name="telemetry", config={"shutdownSeconds": 0}, layer="bench")


async def child(args: argparse.Namespace, root: Path, home: Path) -> None:
    """One host: warm-up turns, then ``--turns`` turns (what callgrind counts)."""
    work = root / "work"
    work.mkdir()
    (work / "notes.txt").write_text("the deploy target is staging\n")
    rows = () if args.host == "absent" else (TELEMETRY_ROW,)
    async with running(args.host, home, work, rows) as runner:
        await runner.block(args.warmup)
        await runner.block(args.turns)


def host_env(host: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "DSH_"))}
    env["PYTHONHASHSEED"] = "0"
    if host == "telemetry off":
        env["OTEL_SDK_DISABLED"] = "true"
    elif host == "telemetry on":
        with socket.socket() as sock:  # a port nothing listens on: every export is refused
            sock.bind(("127.0.0.1", 0))
            env["OTEL_EXPORTER_OTLP_ENDPOINT"] = f"http://127.0.0.1:{sock.getsockname()[1]}"
        env["OTEL_EXPORTER_OTLP_TIMEOUT"] = "0.1"
    return env


def count(args: argparse.Namespace, host: str, turns: int, out: Path) -> int:
    """Instructions of one child process under callgrind."""
    command = [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
        sys.executable, __file__, "--child", "--host", host,
        "--turns", str(turns), "--warmup", str(args.warmup),
    ]  # fmt: skip
    if args.dir:
        command += ["--dir", args.dir]
    done = subprocess.run(command, env=host_env(host), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{host} ({turns} turns) failed under callgrind:\n{done.stderr[-2000:]}")
    totals = [int(m) for path in out.parent.glob(f"{out.name}*") for m in _TOTALS.findall(path.read_text())]
    if not totals:
        raise SystemExit(f"no instruction total in {out}")
    return sum(totals)  # one file per thread with --separate-threads; one here


def compare(args: argparse.Namespace) -> None:
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH (Debian: apt-get install valgrind)")
    if args.high <= args.low:
        raise SystemExit("--high must be greater than --low")
    hosts = HOSTS if args.on else HOSTS[:2]
    runs = [(host, turns) for host in hosts for turns in (args.low, args.high)]
    print(
        f"telemetry overhead in instructions: {args.warmup} warm-up turns, then {args.low} or {args.high} "
        "scripted root tool turns, one callgrind process per host and size"
    )
    with tempfile.TemporaryDirectory(prefix="cg-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        files = {run: Path(tmp) / f"{run[0].replace(' ', '-')}-{run[1]}.callgrind" for run in runs}
        futures = {run: pool.submit(count, args, run[0], run[1], files[run]) for run in runs}
        totals = {run: future.result() for run, future in futures.items()}
    per_turn = {host: (totals[host, args.high] - totals[host, args.low]) / (args.high - args.low) for host in hosts}
    for host in hosts:
        print(
            f"  {host:13} {totals[host, args.low]:>15,} Ir ({args.low} turns)  "
            f"{totals[host, args.high]:>15,} Ir ({args.high} turns)  -> {per_turn[host]:>12,.0f} Ir per turn"
        )
    ratio = per_turn["telemetry off"] / per_turn["absent"]
    print(f"  telemetry off / absent, instructions per root tool turn: {ratio:.4f}{verdict(ratio, TARGET, False)}")
    if args.on:
        on = per_turn["telemetry on"] / per_turn["absent"]
        print(f"  telemetry on / absent (informational: spans made and exported to a dead port): {on:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--warmup", type=int, default=20, help="turns before the counted ones (both sizes)")
    parser.add_argument("--low", type=int, default=20, help="turns of the smaller run")
    parser.add_argument("--high", type=int, default=120, help="turns of the larger run")
    parser.add_argument("--jobs", type=int, default=2, help="callgrind processes at once")
    parser.add_argument("--dir", default=None, help="parent of the temporary DSH_HOME (e.g. /dev/shm)")
    parser.add_argument("--on", action="store_true", help="also count the host with telemetry on (informational)")
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
