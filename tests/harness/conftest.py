"""Shared fixtures for host tests."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

#: ``make(dist_name, files=..., plugins=..., bundles=...) -> sys.path entry``
FakeDistribution = Callable[..., Path]


@pytest.fixture
def fake_distribution(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDistribution]:
    """A helper that installs a tiny distribution on disk, visible to ``importlib.metadata``.

    ``make("demo-plugin", files={"demo_pkg/__init__.py": src, "demo_pkg/bundle.yml": yml},
    plugins={"demo": "demo_pkg:DemoPlugin"}, bundles={"demo": "demo_pkg:bundle.yml"})``
    writes the files (dedented) and ``demo_plugin-0.1.dist-info/{METADATA,entry_points.txt}``
    under a fresh directory, prepends it to ``sys.path`` and returns it. Modules
    imported from it are dropped from ``sys.modules`` at teardown.
    """
    roots: list[Path] = []

    def make(
        dist_name: str,
        *,
        files: Mapping[str, str] = {},
        plugins: Mapping[str, str] = {},
        bundles: Mapping[str, str] = {},
        version: str = "0.1",
    ) -> Path:
        root = tmp_path / f"site-{len(roots)}"
        root.mkdir()
        for rel, text in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(text), encoding="utf-8")
        dist_info = root / f"{dist_name.replace('-', '_')}-{version}.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n", encoding="utf-8"
        )
        sections = []
        for group, entries in (("dsh.plugins", plugins), ("dsh.bundles", bundles)):
            if entries:
                sections.append(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
        (dist_info / "entry_points.txt").write_text("\n".join(sections), encoding="utf-8")
        monkeypatch.syspath_prepend(str(root))  # also invalidates import caches
        importlib.invalidate_caches()
        roots.append(root)
        return root

    try:
        yield make
    finally:
        for mod_name, module in list(sys.modules.items()):
            mod_file = getattr(module, "__file__", None) or ""
            if any(mod_file.startswith(str(root)) for root in roots):
                del sys.modules[mod_name]
