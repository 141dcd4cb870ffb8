"""A hostile document nested thousands of levels deep is refused for no more
work than loading the deepest document the host accepts.

ruamel's scanner revisits one saved key per open ``[`` for every token, so
work grew with the square of the depth until the composer's recursion gave
up: a line of 5000 brackets took seconds. The loaders now stop at the first
collection past ``MAX_DEPTH``. Work is counted as Python lines executed (a
tracer, not a clock), which an O(depth²) scan cannot hide from.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from harness.llm.script import ScriptError, parse_script_text
from harness.profiles import parse_profile
from harness.settings.document import parse as parse_settings
from harness.yaml_tree import MAX_DEPTH, NestedTooDeeply, bounded_yaml
from hookspecs.errors import ProfileError, SettingsError


class WorkExceeded(Exception):
    pass


@contextmanager
def counting_lines(budget: int) -> Iterator[list[int]]:
    """Counts every Python line run inside; past ``budget`` aborts the load,
    so a quadratic loader fails the test quickly instead of running on."""
    count = [0]

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            count[0] += 1
            if count[0] > budget:
                raise WorkExceeded(f"more than {budget} lines run")
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        yield count
    finally:
        sys.settrace(previous)


def lines_run(load: Callable[[], object], budget: int = 10**9) -> tuple[int, Exception | None]:
    """How many lines ``load()`` ran, and the project error it raised."""
    with counting_lines(budget) as count:
        try:
            load()
        except (ProfileError, SettingsError, ScriptError) as exc:
            return count[0], exc
    return count[0], None


def flow(depth: int) -> str:
    return "[" * depth + "]" * depth


#: (loader, a document it accepts at the deepest legal nesting, a hostile one, the error type and message)
LOADERS: list[tuple[str, Callable[[str], object], Callable[[int], str], type[Exception], str]] = [
    (
        "profile",
        lambda text: parse_profile(text, source="p.yml"),
        lambda d: "- " + flow(d - 1) + "\n",
        ProfileError,
        "p.yml: invalid YAML: nested too deeply (more than 100 levels) (line 1, column 102)",
    ),
    (
        "settings",
        lambda text: parse_settings(text, where="settings.yaml"),
        lambda d: "demo: " + flow(d - 1) + "\n",
        SettingsError,
        "settings.yaml: invalid YAML: nested too deeply (more than 100 levels) (line 1, column 106)",
    ),
    (
        "script",
        lambda text: parse_script_text(text),
        lambda d: "responses: " + flow(d - 1) + "\n",
        ScriptError,
        "<script>: invalid YAML: nested too deeply (more than 100 levels) (line 1, column 111)",
    ),
]


@pytest.mark.parametrize(
    ("load", "document", "error", "message"), [row[1:] for row in LOADERS], ids=[row[0] for row in LOADERS]
)
def test_refusing_a_deep_document_costs_no_more_than_the_deepest_legal_one(
    load: Callable[[str], object], document: Callable[[int], str], error: type[Exception], message: str
) -> None:
    accepted, error = lines_run(lambda: load(document(MAX_DEPTH)))
    assert "nested" not in str(error)  # loaded (a profile or script of bare lists then fails its schema)
    _, error = lines_run(lambda: load(document(MAX_DEPTH + 1)))
    assert str(error) == message
    for depth in (1_000, 100_000):
        hostile = document(depth)
        # the budget aborts a quadratic scan early rather than letting it run on
        _, error = lines_run(lambda text=hostile: load(text), budget=2 * accepted)  # type: ignore[misc]
        assert str(error) == message, depth


def test_the_bound_counts_block_and_flow_levels_together() -> None:
    # 99 nested mappings, then a flow sequence at level 100 (allowed) or 101
    block = "".join(" " * level + "k:\n" for level in range(MAX_DEPTH - 2))
    bounded_yaml("rt").load(block + " " * (MAX_DEPTH - 2) + "k: [v]\n")
    with pytest.raises(NestedTooDeeply, match=rf"^nested too deeply \(more than {MAX_DEPTH} levels\)$") as info:
        bounded_yaml("rt").load(block + " " * (MAX_DEPTH - 2) + "k: [[v]]\n")
    assert (info.value.line, info.value.column) == (MAX_DEPTH - 1, MAX_DEPTH + 3)
    bounded_yaml("safe").load("- " * MAX_DEPTH + "x\n")
    with pytest.raises(NestedTooDeeply):
        bounded_yaml("safe").load("- " * (MAX_DEPTH + 1) + "x\n")


def test_a_deep_profile_file_is_refused_in_one_line(tmp_path: Path) -> None:
    from harness.profiles import compose_profile

    path = tmp_path / "deep.yml"
    path.write_text("- id: a\n  name: b\n  config: " + flow(50_000) + "\n")
    with pytest.raises(ProfileError) as info:
        compose_profile(path, dsh_home=tmp_path / "home")
    assert info.value.message == f"{path}: invalid YAML: nested too deeply (more than {MAX_DEPTH} levels) (line 3, column 109)"
