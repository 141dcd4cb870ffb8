"""Entry points are read once per process (issue 20, item 7): a ``harness
run`` asks for the CLI's extensions, the bundles and each profile row's plugin,
and each ``importlib.metadata.entry_points`` call reads every installed
distribution. A distribution put on ``sys.path`` later is still seen."""

from __future__ import annotations

import argparse
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from harness import entry_points as entry_points_module
from harness.cli.extensions import add_extension_parsers
from harness.entry_points import entry_points
from harness.plugins import installed_plugin_names, resolve_plugin
from harness.profiles.bundles import available_bundles


def test_one_read_serves_every_group(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[dict[str, Any]] = []
    real = entry_points_module._read_all

    def counted(**params: Any) -> Any:
        reads.append(params)
        return real(**params)

    monkeypatch.setattr(entry_points_module, "_read_all", counted)
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


def _listed(eps: Any) -> list[tuple[Any, ...]]:
    return [(ep.name, ep.value, ep.group, ep.dist.name if ep.dist else None) for ep in eps]


def test_every_group_reads_as_importlib_metadata_reads_it(fake_distribution: Any) -> None:
    """The reader that spares ``importlib.metadata``'s import finds what it finds,
    in its order, first distribution of a name winning (two copies of one on the path)."""
    for copy in ("1", "2"):
        fake_distribution("twice-demo", plugins={f"twice-{copy}": "twice_pkg:P"}, version=copy)
    groups = {ep.group for dist in metadata.distributions() for ep in dist.entry_points}
    assert {"dsh.plugins", "dsh.bundles", "dsh.cli", "console_scripts"} <= groups
    for group in groups:
        assert _listed(entry_points(group)) == _listed(metadata.entry_points(group=group)), group
    names = {ep.name for ep in entry_points("dsh.plugins")}
    assert "twice-2" in names and "twice-1" not in names
    assert isinstance(entry_points_module._READ[1], tuple)  # read here, not by importlib.metadata


def test_what_it_does_not_read_is_left_to_importlib_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A zip on the path (or an egg, or a finder listing distributions of its
    own) is read by ``importlib.metadata``; the answer is the same."""
    archive = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("zipped_demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped-demo\n")
        zipped.writestr("zipped_demo-1.0.dist-info/entry_points.txt", "[dsh.plugins]\nzipped = zipped_pkg:P\n")
    monkeypatch.syspath_prepend(str(archive))
    found = entry_points("dsh.plugins")
    assert not isinstance(entry_points_module._READ[1], tuple)
    assert "zipped" in {ep.name for ep in found}
    assert _listed(found) == _listed(metadata.entry_points(group="dsh.plugins"))


def test_a_header_only_the_mail_parser_reads_is_left_to_it(fake_distribution: Any) -> None:
    root = fake_distribution("folded-demo", plugins={"folded": "folded_pkg:P"})
    (meta,) = root.glob("*.dist-info/METADATA")
    meta.write_text("Metadata-Version: 2.1\nName: folded-\n demo\nVersion: 0.1\n", encoding="utf-8")
    (ours,) = [ep for ep in entry_points("dsh.plugins") if ep.name == "folded"]
    (theirs,) = [ep for ep in metadata.entry_points(group="dsh.plugins") if ep.name == "folded"]
    assert ours.dist.name == theirs.dist.name
    assert ours.load is not None and ours.module == theirs.module and ours.attr == theirs.attr


@pytest.mark.parametrize(
    "metadata_text",
    [
        "Metadata-Version: 2.1\nName: spaced-demo  \nVersion: 0.1\n",  # the mail parser keeps trailing blanks
        "Metadata-Version: 2.1\n \nName: blank-line-demo\n",  # a blank-only line continues a header
        "Metadata-Version: 2.1\n Name: continued-demo\nName: real-demo\n",  # a continuation, not a header
        "Metadata-Version: 2.1\nSummary without a colon\nName: body-demo\n",  # the headers ended before it
    ],
    ids=["trailing-blanks", "blank-only-line", "continuation", "after-the-headers"],
)
def test_a_name_header_reads_as_the_mail_parser_reads_it(fake_distribution: Any, metadata_text: str) -> None:
    root = fake_distribution("header-demo", plugins={"header": "header_pkg:P"})
    (meta,) = root.glob("*.dist-info/METADATA")
    meta.write_text(metadata_text, encoding="utf-8")
    (ours,) = [ep for ep in entry_points("dsh.plugins") if ep.name == "header"]
    (theirs,) = [ep for ep in metadata.entry_points(group="dsh.plugins") if ep.name == "header"]
    assert ours.dist.name == theirs.dist.name


@pytest.mark.parametrize("stem", ["-0.1", "."])
def test_a_directory_its_stem_names_no_distribution_is_named_by_its_metadata(fake_distribution: Any, stem: str) -> None:
    """``importlib.metadata`` tells such a directory's distribution by its
    ``Name`` header, not its stem: of two with one name, the later on the path is left out."""
    root = fake_distribution("stemless-demo", plugins={"stemless-1": "stemless_pkg:P"})
    (first,) = root.glob("*.dist-info")
    second = fake_distribution("other-demo", plugins={"stemless-2": "stemless_pkg:P"})
    (other,) = second.glob("*.dist-info")
    (other / "METADATA").write_text((first / "METADATA").read_text(encoding="utf-8"), encoding="utf-8")
    other.rename(second / f"{stem}.dist-info")
    assert _listed(entry_points("dsh.plugins")) == _listed(metadata.entry_points(group="dsh.plugins"))
