"""The web tests' browser fixtures, and a closing line saying why the browser
tests were skipped (a bare ``N skipped`` hides it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import CHROMIUM, FLAGS, require_browser


@pytest.fixture
def browser() -> Iterator[Any]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: a temporary folder under pytest's base temporary directory."""
    return tmp_path_factory.mktemp("screenshots")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else ""
        if "browser tests skipped" in str(reason):
            reason = str(reason).removeprefix("Skipped: ")
            reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in sorted(reasons.items()):
        terminalreporter.write_line(f"{reason} ({count} tests)", yellow=True)
