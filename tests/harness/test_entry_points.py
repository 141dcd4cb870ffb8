"""Entry points are read once per process (issue 20, item 7): a ``harness
run`` asks for the CLI's extensions, the bundles and each profile row's plugin,
and each ``importlib.metadata.entry_points`` call reads every installed
distribution. A distribution put on ``sys.path`` later is still seen."""

from __future__ import annotations

import argparse
from importlib import metadata
from typing import Any

import pytest

from harness import entry_points as entry_points_module
from harness.cli.extensions import add_extension_parsers
from harness.entry_points import entry_points
from harness.plugins import installed_plugin_names, resolve_plugin
from harness.profiles.bundles import available_bundles


def test_one_read_serves_every_group(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[dict[str, Any]] = []
    real = metadata.entry_points

    def counted(**params: Any) -> Any:
        reads.append(params)
        return real(**params)

    monkeypatch.setattr(metadata, "entry_points", counted)
    monkeypatch.setattr(entry_points_module, "_READ", None)

    add_extension_parsers(argparse.ArgumentParser().add_subparsers())
    available_bundles()
    assert "openai-compatible" in installed_plugin_names()
    resolve_plugin("openai-compatible", where="profile row 1")
    resolve_plugin("agent-loop", where="profile row 2")
    assert reads == [{}]


def test_a_distribution_added_later_is_seen(fake_distribution: Any) -> None:
    assert "late-demo" not in {ep.name for ep in entry_points(group="dsh.plugins")}
    fake_distribution(
        "late-plugin", files={"late_pkg/__init__.py": "class P:\n    pass\n"}, plugins={"late-demo": "late_pkg:P"}
    )
    assert "late-demo" in {ep.name for ep in entry_points(group="dsh.plugins")}
