"""Fuzz every on-disk input at a high example count (not part of the test suite).

Runs the targets of ``tests/fuzz_targets.py`` — session-log lines (the loader,
``sessions list`` and ``sessions show``), ``settings.yaml`` documents (start-up
and hand-edit reload), profiles and patch files, Shadow definitions, the holdout
sidecar and scripted-adapter scripts — and checks that only the project's own
error types (``DshError`` subclasses) escape. The default suite runs the same
targets with a few dozen examples each (``tests/test_fuzz_inputs.py``); this
script runs thousands. Run from the repository root::

    python bench/fuzz_inputs.py [--examples 5000] [--only session_log,profile_text] [--seed N]

Exit status 0 when every target held, 1 otherwise (the falsifying input is printed).
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hypothesis import HealthCheck, given, seed, settings

from tests.fuzz_targets import TARGETS


def run(name: str, examples: int, chosen_seed: int | None) -> bool:
    strategy, target = TARGETS[name]

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def fuzz(value: Any) -> None:
        target(value)

    if chosen_seed is not None:
        fuzz = seed(chosen_seed)(fuzz)
    started = time.perf_counter()
    try:
        fuzz()
    except Exception:
        traceback.print_exc()
        print(f"{name}: FAILED after {time.perf_counter() - started:.1f}s", flush=True)
        return False
    print(f"{name}: {examples} examples ok in {time.perf_counter() - started:.1f}s", flush=True)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--only", default="", help="comma-separated target names: " + ", ".join(sorted(TARGETS)))
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or sorted(TARGETS)
    unknown = sorted(set(names) - set(TARGETS))
    if unknown:
        parser.error(f"unknown target(s): {', '.join(unknown)}")
    results = [run(name, args.examples, args.seed) for name in names]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
