"""The type checker and the linter are part of the test command.

Both read their configuration from ``pyproject.toml`` (``[tool.mypy]`` names the
four packages; ``[tool.ruff]`` holds the rule set), so ``mypy`` and
``ruff check`` run by hand report exactly what these tests report. Both come
with the ``test`` extra.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# above the suite's 300 s: each run has its own 600 s bound, which names the tool when it fires
pytestmark = pytest.mark.timeout(900)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_is_clean() -> None:
    result = _run("mypy", "--no-error-summary")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean() -> None:
    result = _run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr
