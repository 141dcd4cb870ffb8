"""Unloadable settings documents and profiles give one-line errors naming the file.

At start-up a broken ``settings.yaml`` is a clear ``SettingsError``; a hand edit
that breaks it while running keeps every last good value. A profile is refused
with a ``ProfileError`` naming the profile file.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import attrs
import pytest

from harness.profiles import compose_profile, parse_profile
from harness.settings import SettingsService
from hookspecs.errors import ProfileError, SettingsError
from hookspecs.values.settings import SettingsOp, SettingsSpec

NS = "demo"


@attrs.frozen(kw_only=True)
class Demo:
    ratio: float = 0.5


def spec() -> SettingsSpec:
    return SettingsSpec(namespace=NS, schema=Demo)


def service_for(path: Path) -> SettingsService:
    service = SettingsService(path=path, on_updated=lambda *args: None)
    service.register(spec())
    return service


DEEP = ("demo: " + "[" * 5000 + "]" * 5000 + "\n").encode()

#: (id, how the file is made, what the message says after "<path>: ")
BROKEN_SETTINGS = [
    ("not utf-8", b"demo:\n  ratio: \xff\n", "not UTF-8 text (invalid start byte at byte 15)"),
    ("a bad float tag", b"demo:\n  ratio: !!float xyz\n", "invalid YAML: a tagged value cannot be built (could not convert string to float: 'xyz')"),
    ("a bad int tag", b"demo:\n  ratio: !!int xyz\n", "invalid YAML: a tagged value cannot be built ("),
    ("nested too deeply", DEEP, "invalid YAML: nested too deeply (more than 100 levels) (line 1, column 106)"),
    ("a recursive alias", b"&top [*top]\n", "invalid YAML: recursive alias at $[0]"),
    ("a directory", None, "cannot read the settings document: a directory, not a regular file"),
]


def make_broken(path: Path, content: bytes | None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_file():
        path.unlink()
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)


@pytest.mark.parametrize(("content", "problem"), [(c, p) for _, c, p in BROKEN_SETTINGS], ids=[n for n, _, _ in BROKEN_SETTINGS])
def test_a_broken_settings_document_fails_startup_in_one_line(tmp_path: Path, content: bytes | None, problem: str) -> None:
    path = tmp_path / "home" / "settings.yaml"
    make_broken(path, content)
    service = service_for(path)
    with pytest.raises(SettingsError) as info:
        service.load()
    assert info.value.message.startswith(f"{path}: {problem}")
    assert "\n" not in info.value.message


@pytest.mark.parametrize(("content", "problem"), [(c, p) for _, c, p in BROKEN_SETTINGS], ids=[n for n, _, _ in BROKEN_SETTINGS])
def test_a_broken_hand_edit_keeps_the_last_good_value(
    tmp_path: Path, content: bytes | None, problem: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "home" / "settings.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(f"{NS}:\n  ratio: 0.75\n")
    service = service_for(path)
    service.load()
    make_broken(path, content)
    with caplog.at_level(logging.WARNING):
        [reported] = service.reload()
    assert reported.startswith(f"{path}: {problem}")
    assert service.get(NS) == Demo(ratio=0.75)
    assert "keeping every value" in caplog.text


async def test_a_write_over_a_broken_document_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "home" / "settings.yaml"
    service = service_for(path)
    service.load()
    make_broken(path, b"demo:\n  ratio: !!float xyz\n")
    with pytest.raises(SettingsError, match=r"invalid YAML: a tagged value cannot be built"):
        await service.mutate(NS, [SettingsOp.set("ratio", 0.25)])
    assert path.read_bytes() == b"demo:\n  ratio: !!float xyz\n"  # nothing written


# --- profiles -----------------------------------------------------------------------------

BROKEN_PROFILES = [
    ("a recursive alias", "- &row {id: a, name: b, config: {self: *row}}\n", ": invalid YAML: recursive alias at $[0].config.self"),
    ("a recursive list", "&rows [*rows]\n", ": invalid YAML: recursive alias at $[0]"),
    ("a bad float tag", "- id: a\n  name: b\n  config: {ratio: !!float xyz}\n", ": invalid YAML: a tagged value cannot be built (could not convert string to float: 'xyz')"),
    ("a bad bool tag", "- id: a\n  name: b\n  disabled: !!bool maybe\n", ": invalid YAML: a tagged value cannot be built ("),
    ("nested too deeply", "- " + "[" * 5000 + "]" * 5000 + "\n", ": invalid YAML: nested too deeply (more than 100 levels) (line 1, column "),
]


@pytest.mark.parametrize(("text", "problem"), [(t, p) for _, t, p in BROKEN_PROFILES], ids=[n for n, _, _ in BROKEN_PROFILES])
def test_a_broken_profile_is_one_line_naming_the_file(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "broken.yml"
    path.write_text(text)
    with pytest.raises(ProfileError) as info:
        compose_profile(path, dsh_home=tmp_path / "home")
    assert info.value.message.startswith(f"{path}{problem}")
    assert "\n" not in info.value.message


def test_shared_aliases_still_load() -> None:
    doc = parse_profile("- id: a\n  name: x\n  config: &shared {k: [1, 2]}\n- id: b\n  name: y\n  config: *shared\n", source="p.yml")
    assert [row.config for row in doc.rows] == [{"k": [1, 2]}, {"k": [1, 2]}]


# --- one wording ------------------------------------------------------------------------------

#: (broken text, the one wording every reader gives after "<source>: ")
ONE_WORDING = [
    ("key: [unclosed\n", "invalid YAML: expected ',' or ']', but got '<stream end>' (line 2, column 1)"),
    ("a: 1\na: 2\n", 'invalid YAML: found duplicate key "a" with value "2" (original value: "1") (line 2, column 1)'),
    ("&top [*top]\n", "invalid YAML: recursive alias at $[0]"),
    ("a: !!float xyz\n", "invalid YAML: a tagged value cannot be built (could not convert string to float: 'xyz')"),
]


@pytest.mark.parametrize(("text", "wording"), ONE_WORDING)
def test_every_yaml_reader_words_a_broken_document_the_same_way(tmp_path: Path, text: str, wording: str) -> None:
    from harness.evaluation.corpus import CorpusError, load_corpus
    from harness.llm.script import ScriptError, parse_script_text
    from harness.settings.document import parse as parse_settings

    readers: list[tuple[type[Exception], Any]] = [
        (ProfileError, lambda: parse_profile(text, source="p.yml")),
        (SettingsError, lambda: parse_settings(text, where="p.yml")),
        (ScriptError, lambda: parse_script_text(text, source="p.yml")),
    ]
    (tmp_path / "corpus.yml").write_text(text)
    readers.append((CorpusError, lambda: load_corpus(tmp_path)))
    for error, read in readers:
        with pytest.raises(error) as info:
            read()
        message = str(getattr(info.value, "message", info.value))
        assert message.split(": ", 1)[1] == wording, (error.__name__, message)
        assert message.split(": ", 1)[0] in ("p.yml", "corpus.yml")


def test_a_frontmatter_problem_has_the_same_wording_at_its_line_in_the_file() -> None:
    from shadow_mind_plugin.definitions.errors import DefinitionError
    from shadow_mind_plugin.definitions.parse import load_frontmatter

    with pytest.raises(DefinitionError) as info:
        load_frontmatter("key: [unclosed\n")
    # the frontmatter starts on the file's second line, below ---
    assert str(info.value).endswith("expected ',' or ']', but got '<stream end>' (line 3, column 1)")
