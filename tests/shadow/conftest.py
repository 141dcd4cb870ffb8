"""Fixtures shared by the Shadow Mind tests: a DSH home and its definition store."""

from __future__ import annotations

from pathlib import Path

import pytest

from shadow_mind_plugin.definitions.registry import ShadowRegistry


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def registry(home: Path) -> ShadowRegistry:
    return ShadowRegistry(home)
