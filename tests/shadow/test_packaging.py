"""Packaging: entry points, the ``shadow-mind`` bundle, and the starters
shipped inside the distribution (also checked in a freshly built wheel)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from importlib import metadata, resources
from pathlib import Path

import pytest

from harness.profiles import available_bundles, compose_profile
from shadow_mind_plugin.definitions import list_starters, load_starter
from shadow_mind_plugin.definitions.starters import STARTER_SPECS, render_starter, starter_source
from shadow_mind_plugin.plugin import ShadowMindRuntimePlugin
from shadow_mind_plugin.tools_plugin import ShadowMindToolsPlugin

REPO = Path(__file__).resolve().parents[2]
STARTERS = ["architect", "contrarian", "evidence", "failure-path", "simplification"]
STARTER_FILES = {f"{name}.md" for name in STARTERS}
PLUGINS = {
    "shadow-mind-runtime": "shadow_mind_plugin.plugin:ShadowMindRuntimePlugin",
    "tool-shadow-mind": "shadow_mind_plugin.tools_plugin:ShadowMindToolsPlugin",
}


def test_plugin_entry_points_are_declared() -> None:
    declared = {ep.name: ep for ep in metadata.entry_points(group="dsh.plugins")}
    for name, target in PLUGINS.items():
        assert declared[name].value == target
    assert declared["shadow-mind-runtime"].load() is ShadowMindRuntimePlugin
    assert declared["tool-shadow-mind"].load() is ShadowMindToolsPlugin
    (dist,) = {declared[name].dist.name for name in PLUGINS}  # type: ignore[union-attr]
    assert dist == "shadow-mind"


def test_bundle_entry_point_is_declared() -> None:
    (bundle,) = [ep for ep in metadata.entry_points(group="dsh.bundles") if ep.name == "shadow-mind"]
    assert bundle.value == "shadow_mind_plugin:bundle.yml"
    assert available_bundles()["shadow-mind"].value == "shadow_mind_plugin:bundle.yml"


def test_a_profile_with_only_the_bundle_gets_exactly_both_rows(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    profile = tmp_path / "profile.yml"
    profile.write_text("- bundle: shadow-mind\n")
    composed = compose_profile(profile, dsh_home=home)
    assert [(row.id, row.name) for row in composed.rows] == [
        ("shadow-mind-runtime", "shadow-mind-runtime"),
        ("tool-shadow-mind", "tool-shadow-mind"),
    ]
    assert all(not row.disabled and not row.config for row in composed.rows)
    assert all(row.layer == "bundle:shadow-mind" for row in composed.rows)
    assert composed.warnings == ()


def test_profile_rows_can_override_the_bundle(tmp_path: Path) -> None:
    """The bundle's rows are a base layer: the profile may configure or disable them."""
    home = tmp_path / "home"
    home.mkdir()
    profile = tmp_path / "profile.yml"
    profile.write_text(
        "- bundle: shadow-mind\n"
        "- {id: shadow-mind-runtime, name: shadow-mind-runtime, config: {maxReportChars: 100}}\n"
        "- {id: tool-shadow-mind, name: tool-shadow-mind, disabled: true}\n"
    )
    rows = {row.id: row for row in compose_profile(profile, dsh_home=home).rows}
    assert list(rows) == ["shadow-mind-runtime", "tool-shadow-mind"]
    assert rows["shadow-mind-runtime"].config == {"maxReportChars": 100}
    assert rows["tool-shadow-mind"].disabled is True


def test_the_five_starters_ship_in_the_package() -> None:
    package = resources.files("shadow_mind_plugin.starters")
    shipped = {entry.name for entry in package.iterdir() if entry.name.endswith(".md")}
    assert shipped == STARTER_FILES
    assert list_starters() == STARTERS
    assert resources.files("shadow_mind_plugin").joinpath("bundle.yml").is_file()


@pytest.mark.parametrize("name", STARTERS)
def test_each_starter_parses_and_matches_its_generator(name: str) -> None:
    starter = load_starter(name)
    assert starter.id == name
    assert starter.enabled is False  # examples: never scheduled until installed
    assert starter.holdout is False
    spec = next(p for p in STARTER_SPECS if p.id == name)
    assert starter.name == spec.name
    assert starter_source(name) == render_starter(spec)


def test_examples_list_the_same_five_starters() -> None:
    examples = REPO / "examples" / "shadow-minds"
    assert {p.name for p in examples.glob("*.md")} == STARTER_FILES
    for name in STARTERS:
        assert (examples / f"{name}.md").read_text(encoding="utf-8") == starter_source(name), name


# --- a real wheel ---------------------------------------------------------------------------------

SOURCES = ("pyproject.toml", "README.md", "LICENSE", "hookspecs", "harness", "shadow_mind_plugin", "evolution_review_plugin")
BUILD_TIMEOUT = 300
#: the module's wheel is built inside the first of these tests: above the build's own bound
WHEEL_TIMEOUT = pytest.mark.timeout(2 * BUILD_TIMEOUT)


def build_wheel(tmp_path: Path) -> Path:
    """Build from a copy of the sources so the working tree gets no build/ or egg-info.

    No build isolation: the backend (setuptools, a test dependency) is already
    installed, so the build needs no index and always runs."""
    source = tmp_path / "src"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist")
    for name in SOURCES:
        item = REPO / name
        if item.is_dir():
            shutil.copytree(item, source / name, ignore=ignore)
        else:
            shutil.copy2(item, source / name)
    out = tmp_path / "wheels"
    out.mkdir()
    # the source is an absolute path: a bare name would be looked up on the index
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet"]
    result = subprocess.run(
        [*command, "-w", str(out), str(source.resolve())],
        capture_output=True, text=True, timeout=BUILD_TIMEOUT, check=False,
    )
    assert result.returncode == 0, result.stderr or result.stdout
    (wheel,) = out.glob("shadow_mind-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@WHEEL_TIMEOUT
def test_the_built_wheel_contains_the_starters_and_the_bundle(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        starters = {n for n in names if n.startswith("shadow_mind_plugin/starters/") and n.endswith(".md")}
        assert starters == {f"shadow_mind_plugin/starters/{f}" for f in STARTER_FILES}
        assert "shadow_mind_plugin/bundle.yml" in names
        for name in STARTERS:
            shipped = archive.read(f"shadow_mind_plugin/starters/{name}.md").decode("utf-8")
            assert shipped == starter_source(name)
        assert archive.read("shadow_mind_plugin/bundle.yml") == (REPO / "shadow_mind_plugin" / "bundle.yml").read_bytes()
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        declared = archive.read(entry_points).decode("utf-8")
    for name, target in PLUGINS.items():
        assert f"{name} = {target}" in declared
    bundles = declared.split("[dsh.bundles]\n", 1)[1].split("\n\n", 1)[0].splitlines()  # other bundles may sort first
    assert "shadow-mind = shadow_mind_plugin:bundle.yml" in bundles


DEMO_FILES = {"demo.yml", "profile.yml", "script.yml", "workspace/pyproject.toml", "workspace/README.md"}


@WHEEL_TIMEOUT
def test_the_built_wheel_ships_the_demo(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for name in DEMO_FILES:
            shipped = archive.read(f"shadow_mind_plugin/demo/{name}")
            assert shipped == (REPO / "shadow_mind_plugin" / "demo" / name).read_bytes(), name
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        declared = archive.read(entry_points).decode("utf-8")
    assert "[dsh.demos]\nshadow-mind = shadow_mind_plugin:demo" in declared
    assert "[pytest11]\ndsh = harness.testing" in declared


@WHEEL_TIMEOUT
def test_the_built_wheel_metadata(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata_file,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        fields = archive.read(metadata_file).decode("utf-8").split("\n\n", 1)[0].splitlines()
        assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
        for package in ("hookspecs", "harness", "shadow_mind_plugin"):
            assert f"{package}/py.typed" in names
    assert "License-Expression: MIT" in fields
    assert "License-File: LICENSE" in fields
    classifiers = {line.removeprefix("Classifier: ") for line in fields if line.startswith("Classifier: ")}
    assert {"Typing :: Typed", "Programming Language :: Python :: 3.11", "Framework :: Pytest"} <= classifiers
    assert not any(c.startswith("License ::") for c in classifiers)  # the expression says it (PEP 639)
    assert not any(line.startswith("Project-URL:") for line in fields)  # no public home yet: none invented
