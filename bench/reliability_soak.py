"""Soak the stateful reliability test at a high example count (issue 10).

``tests/shadow/test_reliability_stateful.py`` runs 25 Hypothesis examples in
the default suite (fast). This script runs the same test at a high count, once
per seed, and prints one line per seed; it is not part of the default suite::

    python bench/reliability_soak.py                     # 2,000 examples, seeds 1-4
    python bench/reliability_soak.py --examples 500 --seeds 1 2 3 4 5

The example count reaches the test through ``SHADOW_RELIABILITY_EXAMPLES``.
A failing seed prints Hypothesis' shrunk program; the exit status is non-zero
if any seed failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST = "tests/shadow/test_reliability_stateful.py::test_random_interleavings_keep_the_invariants"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    args = parser.parse_args()
    env = {**os.environ, "SHADOW_RELIABILITY_EXAMPLES": str(args.examples)}
    failed: list[int] = []
    for seed in args.seeds:
        started = time.monotonic()
        command = [sys.executable, "-m", "pytest", "-p", "no:randomly", "-n", "0", "-q", "-x", TEST, f"--hypothesis-seed={seed}"]
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        verdict = "ok" if result.returncode == 0 else "FAILED"
        print(f"seed {seed}: {args.examples} examples, {verdict} in {time.monotonic() - started:.0f}s", flush=True)
        if result.returncode != 0:
            failed.append(seed)
            print(result.stdout[-6000:], flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
