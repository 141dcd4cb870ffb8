"""Paths, functions and tests the answer cites that no tool output showed."""

from __future__ import annotations

from pathlib import Path

import pytest

from .dialects import DIALECTS, Answer, Read, Search, User, run

pytestmark = pytest.mark.parametrize("dialect", DIALECTS)


def test_an_answer_citing_unseen_names_fires(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Where is the config parsed?"),
        Read("src/app.py"),
        Answer("It is parsed by `parse_config()` in `src/config.py`."),
    ]
    out = run(dialect, steps, tmp_path)
    finding = out.of("uncited-reference")
    assert finding.verdict == "gap" and "`parse_config()`" in finding.text and "`src/config.py`" in finding.text
    assert finding.refs == (out.seq_of("assistant/message"),)


def test_an_unseen_test_id_fires(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Which test covers add()?"),
        Read("src/app.py"),
        Answer("`tests/test_app.py::test_add_negative` covers it."),
    ]
    assert run(dialect, steps, tmp_path).kinds() == ["uncited-reference"]


def test_names_a_search_showed_are_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Where is the config parsed?"),
        Search("parse_config", "src/config.py:10:def parse_config(path):"),
        Answer("It is parsed by `parse_config()` in `src/config.py`."),
    ]
    assert run(dialect, steps, tmp_path).findings == []


def test_builtins_library_calls_and_names_the_person_gave_are_silent(dialect: str, tmp_path: Path) -> None:
    steps = [
        User("Should docs/setup.md mention caching?"),
        Read("src/app.py"),
        Answer("Yes: `functools.lru_cache()` would do, with `len()` as the key; docs/setup.md is the place."),
    ]
    assert run(dialect, steps, tmp_path).findings == []
