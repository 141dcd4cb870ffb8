"""Profile parsing, patch layers, bundles and ``--dump-config``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.profiles import ComposedProfile, compose_profile, dump_config, parse_profile
from hookspecs.errors import InputFileError, ProfileError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty ``$DSH_HOME``."""
    path = tmp_path / "dsh-home"
    path.mkdir()
    return path


def compose_text(tmp_path: Path, home: Path, text: str, **kwargs: object) -> ComposedProfile:
    return compose_profile(write(tmp_path / "profile.yml", text), dsh_home=home, **kwargs)  # type: ignore[arg-type]


def profile_error(tmp_path: Path, home: Path, text: str) -> str:
    with pytest.raises(ProfileError) as info:
        compose_text(tmp_path, home, text)
    assert info.value.code == "PROFILE_INVALID"
    return info.value.message


# ---------------------------------------------------------------------------
# parsing errors name file, row and field
# ---------------------------------------------------------------------------


def test_unknown_key_names_file_row_and_field(tmp_path: Path, home: Path) -> None:
    """An unknown row key is reported with file, line, row index, id and key."""
    msg = profile_error(tmp_path, home, "- id: a\n  name: x:Y\n- id: b\n  name: x:Y\n  colour: red\n")
    assert f"{tmp_path / 'profile.yml'}:5: row 2 (id 'b'): unknown field(s): colour" in msg


@pytest.mark.parametrize("bad_id", ["Bad", "-lead", "has space", "a.b", "''"])
def test_bad_id(tmp_path: Path, home: Path, bad_id: str) -> None:
    """Ids match ^[a-z0-9][a-z0-9_-]*$."""
    msg = profile_error(tmp_path, home, f"- id: {bad_id}\n  name: x:Y\n")
    assert "profile.yml:1: row 1" in msg and "field 'id': invalid id" in msg


def test_duplicate_id(tmp_path: Path, home: Path) -> None:
    """A second row with the same id names both rows."""
    msg = profile_error(tmp_path, home, "- {id: a, name: 'x:Y'}\n- {id: b, name: 'x:Y'}\n- {id: a, name: 'x:Z'}\n")
    assert "profile.yml:3: row 3 (id 'a'): field 'id': duplicate id (first used by row 1)" in msg


@pytest.mark.parametrize(
    ("row", "field", "problem"),
    [
        ("{id: a, name: 1}", "name", "got the number 1"),
        ("{id: a, name: ''}", "name", "got the string ''"),
        ("{id: 7, name: 'x:Y'}", "id", "expected a string, got the number 7"),
        ("{id: a, name: 'x:Y', config: [1, 2]}", "config", "expected a mapping, got a list"),
        ("{id: a, name: 'x:Y', config: {1: 2}}", "config", "mapping keys must be strings"),
        ("{id: a, name: 'x:Y', disabled: 'no'}", "disabled", "expected true or false, got the string 'no'"),
        ("{id: a, name: 'x:Y', disabled: null}", "disabled", "expected true or false, got null"),
    ],
)
def test_wrong_types(tmp_path: Path, home: Path, row: str, field: str, problem: str) -> None:
    """Wrong field types name the row and the field."""
    msg = profile_error(tmp_path, home, f"- {{id: ok, name: 'x:Y'}}\n- {row}\n")
    assert "profile.yml:2: row 2" in msg
    assert f"field {field!r}: " in msg and problem in msg


def test_every_problem_is_reported(tmp_path: Path, home: Path) -> None:
    """All problems of one file come in one error, one per line."""
    msg = profile_error(tmp_path, home, "- {id: a, name: 1}\n- {id: B, name: 'x:Y'}\n- 5\n")
    lines = msg.splitlines()
    assert len(lines) == 3
    assert "row 1 (id 'a'): field 'name'" in lines[0]
    assert "row 2 (id 'B'): field 'id'" in lines[1]
    assert "row 3: expected a mapping" in lines[2]


def test_missing_fields(tmp_path: Path, home: Path) -> None:
    """A row without id, or a new row without name, is an error."""
    assert "row 1: field 'id': required field missing" in profile_error(tmp_path, home, "- {name: 'x:Y'}\n")
    msg = profile_error(tmp_path, home, "- {id: a}\n")
    assert "row 1 (id 'a'): field 'name': required field missing (no bundle defines id 'a')" in msg


def test_malformed_yaml_names_the_line(tmp_path: Path, home: Path) -> None:
    """A YAML syntax error names the file and line."""
    msg = profile_error(tmp_path, home, "- id: a\n  name: x:Y\n- id: b\n  name: [unclosed\n")
    assert msg.startswith(f"{tmp_path / 'profile.yml'}: invalid YAML: ") and "(line 5, column 1)" in msg
    duplicate = profile_error(tmp_path, home, "- id: a\n  name: x:Y\n  id: b\n")
    assert "profile.yml: invalid YAML: found duplicate key" in duplicate and "(line 3, column 3)" in duplicate


@pytest.mark.parametrize(("text", "problem"), [("", "empty profile"), ("id: a\n", "YAML list at top level, got a mapping")])
def test_profile_must_be_a_list(tmp_path: Path, home: Path, text: str, problem: str) -> None:
    """An empty file or a mapping at top level is refused."""
    assert problem in profile_error(tmp_path, home, text)


def test_empty_list_profile_is_fine(tmp_path: Path, home: Path) -> None:
    """``[]`` is a profile without plugins."""
    assert compose_text(tmp_path, home, "[]\n").rows == ()


def test_rows_and_defaults(tmp_path: Path, home: Path) -> None:
    """Rows keep file order; config defaults to {} and disabled to false; YAML types become plain."""
    composed = compose_text(
        tmp_path,
        home,
        """\
        - id: b
          name: pkg:B
          config:
            text: |
              two lines
              here
            n: 0x10
        - id: a
          name: entry-name
          disabled: true
          config:
        """,
    )
    assert [r.id for r in composed.rows] == ["b", "a"]
    b, a = composed.rows
    assert b.config == {"text": "two lines\nhere\n", "n": 16}
    assert type(b.config["text"]) is str and type(b.config["n"]) is int
    assert (a.name, a.config, a.disabled) == ("entry-name", {}, True)
    assert b.layer == f"profile:{tmp_path / 'profile.yml'}"
    assert b.origin == f"{tmp_path / 'profile.yml'}:1: row 1 (id 'b')"


def test_parse_profile_from_text() -> None:
    """The parser works on text with any source label."""
    doc = parse_profile("- {bundle: base}\n- {id: a, name: 'm:A'}\n", source="inline")
    assert [b.name for b in doc.bundles] == ["base"] and [r.id for r in doc.rows] == ["a"]


# ---------------------------------------------------------------------------
# patch files
# ---------------------------------------------------------------------------

BASE = """\
- id: alpha
  name: pkg:Alpha
  config: {keep: {nested: 1}, other: 2}
- id: beta
  name: pkg:Beta
"""


def test_patch_insert(tmp_path: Path, home: Path) -> None:
    """``insert`` adds rows after the existing ones."""
    patch = write(tmp_path / "p.yml", "- insert:\n    - {id: gamma, name: 'pkg:Gamma', config: {x: 1}}\n")
    composed = compose_text(tmp_path, home, BASE, patches=[patch])
    assert [r.id for r in composed.rows] == ["alpha", "beta", "gamma"]
    gamma = composed.get("gamma")
    assert gamma is not None and gamma.config == {"x": 1} and gamma.layer == f"patch:{patch}"


def test_patch_insert_existing_id_names_both_layers(tmp_path: Path, home: Path) -> None:
    """Inserting an id that exists is an error naming both layers."""
    patch = write(tmp_path / "p.yml", "- insert: [{id: beta, name: 'pkg:Other'}]\n")
    with pytest.raises(ProfileError) as info:
        compose_text(tmp_path, home, BASE, patches=[patch])
    msg = info.value.message
    assert f"{patch}:1: op 1 insert row 1 (id 'beta')" in msg
    assert f"layer 'patch:{patch}'" in msg and f"layer 'profile:{tmp_path / 'profile.yml'}'" in msg


def test_patch_replaces_whole_config(tmp_path: Path, home: Path) -> None:
    """An id-targeted ``config`` replaces the row's config; nothing is deep-merged."""
    patch = write(tmp_path / "p.yml", "- id: alpha\n  config: {keep: {new: 2}}\n")
    alpha = compose_text(tmp_path, home, BASE, patches=[patch]).get("alpha")
    assert alpha is not None
    assert alpha.config == {"keep": {"new": 2}}
    assert alpha.name == "pkg:Alpha" and alpha.layer == f"patch:{patch}"
    assert alpha.origin == f"{patch}:1: op 1 (id 'alpha')"


def test_patch_toggles_disabled_and_renames(tmp_path: Path, home: Path) -> None:
    """``disabled`` and ``name`` change only what they name."""
    patch = write(tmp_path / "p.yml", "- {id: beta, disabled: true}\n- {id: alpha, name: 'pkg:Alpha2'}\n")
    composed = compose_text(tmp_path, home, BASE, patches=[patch])
    alpha, beta = composed.rows
    assert beta.disabled is True and beta.config == {}
    assert alpha.name == "pkg:Alpha2" and alpha.config == {"keep": {"nested": 1}, "other": 2}
    again = write(tmp_path / "q.yml", "- {id: beta, disabled: false}\n")
    assert compose_text(tmp_path, home, BASE, patches=[patch, again]).rows[1].disabled is False


def test_patch_absent_id_is_a_warning(tmp_path: Path, home: Path) -> None:
    """An op naming an absent id is ignored with a warning, not an error."""
    patch = write(tmp_path / "p.yml", "- {id: nope, disabled: true}\n")
    composed = compose_text(tmp_path, home, BASE, patches=[patch])
    assert [r.id for r in composed.rows] == ["alpha", "beta"]
    assert composed.warnings == (f"{patch}:1: op 1 (id 'nope'): no row with id 'nope' to patch in layer 'patch:{patch}'; op ignored",)


def test_empty_patch_is_an_error_and_empty_list_disables(tmp_path: Path, home: Path) -> None:
    """An empty file throws; ``[]`` is a layer that changes nothing."""
    empty = write(tmp_path / "empty.yml", "# nothing here\n")
    with pytest.raises(ProfileError, match=r"empty\.yml: empty patch file; write \[\] to disable this layer"):
        compose_text(tmp_path, home, BASE, patches=[empty])
    off = write(tmp_path / "off.yml", "[]\n")
    composed = compose_text(tmp_path, home, BASE, patches=[off])
    assert composed.layers[-1] == f"patch:{off}"
    assert all(r.layer.startswith("profile:") for r in composed.rows)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("- {id: alpha}\n", "op 1 (id 'alpha'): nothing to change"),
        ("- {id: alpha, config: 3}\n", "op 1 (id 'alpha'): field 'config': expected a mapping, got the number 3"),
        ("- {id: alpha, disabled: true, colour: red}\n", "op 1 (id 'alpha'): unknown field(s): colour"),
        ("- {insert: [], id: x}\n", "op 1: an insert op takes no other keys; unknown field(s): id"),
        ("- {insert: {id: x}}\n", "op 1: field 'insert': expected a list of rows, got a mapping"),
        ("- {insert: [{id: x}]}\n", "op 1 insert row 1 (id 'x'): field 'name': required field missing"),
        ("- {remove: alpha}\n", "op 1: expected {insert: [rows...]} or {id: ..."),
        ("- alpha\n", "op 1: expected {insert: [rows...]} or {id: ..., config/disabled/name: ...}, got the string 'alpha'"),
        ("{id: alpha}\n", "must be a YAML list at top level"),
    ],
)
def test_bad_patch_ops(tmp_path: Path, home: Path, text: str, problem: str) -> None:
    """Malformed ops name the patch file, the op and the field."""
    patch = write(tmp_path / "p.yml", text)
    with pytest.raises(ProfileError) as info:
        compose_text(tmp_path, home, BASE, patches=[patch])
    assert str(patch) in info.value.message and problem in info.value.message


def test_missing_patch_file(tmp_path: Path, home: Path) -> None:
    """A ``--patch`` that does not exist is an error naming it."""
    with pytest.raises(InputFileError, match="patch .*nope.yml: no such file"):
        compose_text(tmp_path, home, BASE, patches=[tmp_path / "nope.yml"])


# ---------------------------------------------------------------------------
# layer order, profile names, bundles
# ---------------------------------------------------------------------------

BUNDLE_PKG = {
    "layerbundle/__init__.py": "",
    "layerbundle/base.yml": """\
        - insert:
            - {id: one, name: 'pkg:One', config: {level: bundle}}
            - {id: two, name: 'pkg:Two', config: {level: bundle}}
            - {id: three, name: 'pkg:Three', config: {level: bundle}}
            - {id: four, name: 'pkg:Four', config: {level: bundle}}
            - {id: five, name: 'pkg:Five', config: {level: bundle}}
        """,
    "layerbundle/data/extra.yml": """\
        - {id: five, disabled: true}
        - {id: ghost, disabled: true}
        - insert: [{id: six, name: 'pkg:Six'}]
        """,
}


def test_layer_order(tmp_path: Path, home: Path, fake_distribution) -> None:  # type: ignore[no-untyped-def]
    """bundles (profile order) -> profile rows -> home patch -> --patch files (argv order)."""
    fake_distribution(
        "layer-bundle",
        files=BUNDLE_PKG,
        bundles={"base": "layerbundle:base.yml", "extra": "layerbundle:data/extra.yml"},
    )
    profile = write(
        tmp_path / "profile.yml",
        """\
        - {id: two, config: {level: profile}}
        - {bundle: base}
        - {id: own, name: 'pkg:Own'}
        - {bundle: extra}
        """,
    )
    write(home / "profile.patch.yml", "- {id: three, config: {level: home}}\n- {id: four, config: {level: home}}\n")
    p1 = write(tmp_path / "p1.yml", "- {id: four, config: {level: p1}}\n- {id: one, name: 'pkg:Uno'}\n")
    p2 = write(tmp_path / "p2.yml", "- {id: four, config: {level: p2}}\n")
    composed = compose_profile(profile, dsh_home=home, patches=[p1, p2])
    got = {r.id: (r.name, r.config.get("level"), r.disabled, r.layer) for r in composed.rows}
    assert list(got) == ["one", "two", "three", "four", "five", "six", "own"]
    assert got == {
        "one": ("pkg:Uno", "bundle", False, f"patch:{p1}"),
        "two": ("pkg:Two", "profile", False, f"profile:{profile}"),
        "three": ("pkg:Three", "home", False, "home-patch"),
        "four": ("pkg:Four", "p2", False, f"patch:{p2}"),
        "five": ("pkg:Five", "bundle", True, "bundle:extra"),
        "six": ("pkg:Six", None, False, "bundle:extra"),
        "own": ("pkg:Own", None, False, f"profile:{profile}"),
    }
    assert composed.layers == (
        "bundle:base", "bundle:extra", f"profile:{profile}", "home-patch", f"patch:{p1}", f"patch:{p2}",
    )
    assert len(composed.warnings) == 1 and "bundle 'extra' (layerbundle:data/extra.yml):2: op 2 (id 'ghost')" in composed.warnings[0]


def test_unknown_bundle_lists_available(tmp_path: Path, home: Path, fake_distribution) -> None:  # type: ignore[no-untyped-def]
    """An unknown bundle names the profile file and lists every available bundle."""
    fake_distribution("layer-bundle", files=BUNDLE_PKG, bundles={"base": "layerbundle:base.yml", "extra": "layerbundle:data/extra.yml"})
    msg = profile_error(tmp_path, home, "- {id: a, name: 'pkg:A'}\n- {bundle: nope}\n")
    assert f"{tmp_path / 'profile.yml'}:2: item 2 (bundle 'nope'): unknown bundle 'nope'; available bundles: " in msg
    assert "base" in msg and "extra" in msg


def test_bundle_errors(tmp_path: Path, home: Path, fake_distribution) -> None:  # type: ignore[no-untyped-def]
    """A missing resource or a malformed bundle patch names the bundle."""
    fake_distribution(
        "broken-bundle",
        files={"brokenbundle/__init__.py": "", "brokenbundle/bad.yml": "- {id: x}\n"},
        bundles={"gone": "brokenbundle:missing.yml", "bad": "brokenbundle:bad.yml"},
    )
    msg = profile_error(tmp_path, home, "- {bundle: gone}\n")
    assert "item 1 (bundle 'gone')" in msg and "resource 'missing.yml' not found in package 'brokenbundle'" in msg
    msg = profile_error(tmp_path, home, "- {bundle: bad}\n")
    assert "bundle 'bad' (brokenbundle:bad.yml):1: op 1 (id 'x'): nothing to change" in msg
    assert "already listed as item 1" in profile_error(tmp_path, home, "- {bundle: bad}\n- {bundle: bad}\n")
    assert "a bundle reference takes no other keys" in profile_error(tmp_path, home, "- {bundle: bad, id: x}\n")


def test_bundles_inserting_the_same_id(tmp_path: Path, home: Path, fake_distribution) -> None:  # type: ignore[no-untyped-def]
    """Two bundles inserting one id is an error naming both bundle layers."""
    fake_distribution(
        "twin-bundles",
        files={"twins/__init__.py": "", "twins/a.yml": "- insert: [{id: x, name: 'p:A'}]\n", "twins/b.yml": "- insert: [{id: x, name: 'p:B'}]\n"},
        bundles={"a": "twins:a.yml", "b": "twins:b.yml"},
    )
    msg = profile_error(tmp_path, home, "- {bundle: a}\n- {bundle: b}\n")
    assert "layer 'bundle:b'" in msg and "layer 'bundle:a'" in msg


def test_profile_by_name(tmp_path: Path, home: Path) -> None:
    """A bare name is ``$DSH_HOME/profiles/<name>.yml``; an unknown one lists what exists."""
    write(home / "profiles" / "dev.yml", "- {id: a, name: 'pkg:A'}\n")
    composed = compose_profile("dev", dsh_home=home)
    assert composed.path == home / "profiles" / "dev.yml" and [r.id for r in composed.rows] == ["a"]
    with pytest.raises(ProfileError, match="profile 'prod' not found at .*; available profiles: dev"):
        compose_profile("prod", dsh_home=home)
    with pytest.raises(InputFileError, match="profile .*elsewhere.yml: no such file"):
        compose_profile(str(tmp_path / "elsewhere.yml"), dsh_home=home)


# ---------------------------------------------------------------------------
# --dump-config
# ---------------------------------------------------------------------------


def test_dump_config_shows_layers_and_round_trips(tmp_path: Path, home: Path) -> None:
    """Each row is preceded by ``# == <layer>``; the output is itself a profile."""
    patch = write(tmp_path / "p.yml", "- {id: beta, config: {a: [1, 2], s: 'x: y'}}\n- {id: zzz, disabled: true}\n")
    composed = compose_text(tmp_path, home, BASE, patches=[patch])
    text = dump_config(composed)
    lines = text.splitlines()
    assert lines[0] == f"# profile: {tmp_path / 'profile.yml'}"
    assert lines[1] == f"# layers: profile:{tmp_path / 'profile.yml'}, patch:{patch}"
    assert lines[2].startswith("# warning: ") and "zzz" in lines[2]
    assert [line for line in lines if line.startswith("# == ")] == [f"# == profile:{tmp_path / 'profile.yml'}", f"# == patch:{patch}"]
    assert lines.index(f"# == patch:{patch}") + 1 == lines.index("- id: beta")
    again = compose_text(tmp_path, home, text)
    assert [(r.id, r.name, r.config, r.disabled) for r in again.rows] == [
        (r.id, r.name, r.config, r.disabled) for r in composed.rows
    ]


def test_dump_config_empty(tmp_path: Path, home: Path) -> None:
    """No rows dump as ``[]``."""
    assert dump_config(compose_text(tmp_path, home, "[]\n")).splitlines()[-1] == "[]"
