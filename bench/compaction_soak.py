"""Soak the compaction test at a long session length.

``tests/shadow/test_compaction_soak.py`` runs a 60-turn root session in the
default suite (a few seconds). This script runs the same test, unchanged, at
longer sessions and prints one line per length; it is not part of the default
suite and compares nothing (no ratio: one side only)::

    python bench/compaction_soak.py                  # 200 and 600 turns
    python bench/compaction_soak.py --turns 1000

The turn count reaches the test through ``SHADOW_SOAK_TURNS``; every check
(no overflow, regular compactions, reviews settled once, relays citing only
seqs their reviewer saw, the resumed history) scales with it. A failing length
prints pytest's report; the exit status is non-zero if any failed.
"""

from __future__ import annotations

import argparse
import os
import sys

from _common import soak_run

TEST = "tests/shadow/test_compaction_soak.py::test_a_long_session_compacts_reviews_and_resumes"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[200, 600])
    args = parser.parse_args()
    results = [
        soak_run(TEST, f"{turns} turns", env={**os.environ, "SHADOW_SOAK_TURNS": str(turns)}) for turns in args.turns
    ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
