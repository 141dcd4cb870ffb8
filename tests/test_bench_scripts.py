"""Every bench script still starts: its imports resolve and it parses ``--help``
(the benches themselves are long and run by hand, not in the suite)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_bench_script_starts(script: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(script), "--help"], cwd=BENCH.parent, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
