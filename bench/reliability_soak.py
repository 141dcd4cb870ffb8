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
import sys

from _common import soak_run

TEST = "tests/shadow/test_reliability_stateful.py::test_random_interleavings_keep_the_invariants"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2000)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    args = parser.parse_args()
    env = {**os.environ, "SHADOW_RELIABILITY_EXAMPLES": str(args.examples)}
    results = [
        soak_run(TEST, f"seed {seed}: {args.examples} examples", env=env, args=[f"--hypothesis-seed={seed}"])
        for seed in args.seeds
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
