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
import socket
import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _callgrind import callgrind_check, callgrind_count, callgrind_main, callgrind_parser, callgrind_per_turn
from _common import verdict
from plugin_overhead import running

from harness.profiles import ProfileRow

TARGET = 1.01
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
    return callgrind_count(__file__, args, host, turns, out, host_env(host))


def compare(args: argparse.Namespace) -> None:
    callgrind_check(args)
    hosts = HOSTS if args.on else HOSTS[:2]
    print(
        f"telemetry overhead in instructions: {args.warmup} warm-up turns, then {args.low} or {args.high} "
        "scripted root tool turns, one callgrind process per host and size"
    )
    per_turn = callgrind_per_turn(args, hosts, partial(count, args), width=13)
    ratio = per_turn["telemetry off"] / per_turn["absent"]
    print(f"  telemetry off / absent, instructions per root tool turn: {ratio:.4f}{verdict(ratio, TARGET, False)}")
    if args.on:
        on = per_turn["telemetry on"] / per_turn["absent"]
        print(f"  telemetry on / absent (informational: spans made and exported to a dead port): {on:.3f}")


def main() -> None:
    parser = callgrind_parser(__doc__, HOSTS)
    parser.add_argument("--on", action="store_true", help="also count the host with telemetry on (informational)")
    callgrind_main(parser.parse_args(), compare, child)


if __name__ == "__main__":
    main()
