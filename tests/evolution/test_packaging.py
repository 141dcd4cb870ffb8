"""The built wheel ships the evolution-review plugin: its package, bundle and entry points."""

from __future__ import annotations

import zipfile
from pathlib import Path

from tests.shadow.test_packaging import REPO, wheel

__all__ = ["wheel"]  # the module-scoped fixture, built once for this module


def test_the_wheel_ships_the_plugin_its_bundle_and_entry_points(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert {"evolution_review_plugin/plugin.py", "evolution_review_plugin/py.typed", "hookspecs/stores.py"} <= names
        bundle = archive.read("evolution_review_plugin/bundle.yml")
        assert bundle == (REPO / "evolution_review_plugin" / "bundle.yml").read_bytes()
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        declared = archive.read(entry_points).decode("utf-8")
    assert "evolution-review = evolution_review_plugin.plugin:EvolutionReviewPlugin" in declared
    assert "evolution-review = evolution_review_plugin:bundle.yml" in declared
