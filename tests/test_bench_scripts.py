"""Every bench script still starts: its imports resolve and it parses ``--help``
(the benches themselves are long and run by hand, not in the suite). The
benches that broke unnoticed before (a renamed runtime API, a server in the
wrong process) also run end to end in their ``--quick`` mode: small sizes,
few repetitions, every variant and the closing summary."""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(p for p in BENCH.glob("*.py") if not p.name.startswith("_"))

#: script -> a line its quick run prints only once every variant ran
QUICK = {
    "adapter_overhead.py": "per-event ratio",
    "governance_overhead.py": "accept path, governance on / off",
    "plugin_overhead.py": "shadow default (p=0.7, scripted silent reviewer) / absent",
    "review_cycle.py": "after resume / warm at",
}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_bench_script_starts(script: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(script), "--help"], cwd=BENCH.parent, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.timeout(900)  # above the suite's 300 s: the run has its own 600 s bound
@pytest.mark.parametrize("name", sorted(QUICK))
def test_bench_quick_run(name: str, tmp_path: Path) -> None:
    environ = {**os.environ, "TMPDIR": str(tmp_path)}
    environ.pop("DSH_HOME", None)
    result = subprocess.run(
        [sys.executable, str(BENCH / name), "--quick"],
        cwd=BENCH.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env=environ,
    )
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-2000:])
    assert QUICK[name] in result.stdout, result.stdout[-2000:]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not on PATH")
def test_callgrind_total_counts_a_file_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Callgrind writes a file's total twice (``summary:`` and ``totals:``): the
    callgrind benches read it once, as valgrind's own ``Collected`` line says."""
    monkeypatch.syspath_prepend(str(BENCH))
    callgrind = importlib.import_module("_callgrind")
    out = tmp_path / "pass.callgrind"
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", "pass"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    collected = re.search(r"Collected : (\d+)", done.stderr)
    assert collected is not None, done.stderr[-2000:]
    assert callgrind.callgrind_total(out) == int(collected.group(1))
