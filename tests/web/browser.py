"""Headless Chromium for the web client's tests: Debian's ``chromium`` driven by
Playwright for Python (``executable_path``; no browser is ever downloaded).

Without a browser the tests skip and say why; under ``CI`` they fail instead,
so a CI run cannot pass without having driven the page.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("DSH_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: how long the page may take to show a state (a bound, not a timing assertion)
WAIT_MS = 30_000


def _missing() -> str | None:
    if not Path(CHROMIUM).is_file():
        return f"no chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    return None


def require_browser() -> None:
    missing = _missing()
    if missing is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run under CI: {missing}")
    pytest.skip(f"browser tests skipped: {missing}")
