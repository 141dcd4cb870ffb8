"""The web tests' browser fixtures, and a closing line saying why the browser
tests were skipped (a bare ``N skipped`` hides it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browser import CHROMIUM, FLAGS, require_browser


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One Chromium per test module: launching it is a good part of a browser test's cost."""
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()


class Pages:
    """The module's Chromium as a test sees it: ``new_page`` and ``new_context``
    (each page of its own context: its own storage), all closed when the test
    ends, so no page of one test keeps a stream open into the next."""

    def __init__(self, launched: Any) -> None:
        self._browser = launched
        self._contexts: list[Any] = []

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        self._contexts.append(context)
        return context

    def new_page(self, **options: Any) -> Any:
        return self.new_context(**options).new_page()

    def close(self) -> None:
        for context in self._contexts:
            context.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Pages]:
    pages = Pages(chromium)
    try:
        yield pages
    finally:
        pages.close()


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
