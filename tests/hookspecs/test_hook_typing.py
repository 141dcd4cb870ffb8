"""The hook specifications say in their types what the host does with a
result: observers and awaited broadcasts may return an awaitable, register
hooks get a typed callback, and docs/hooks.md spells every type the same way."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import hookspecs
from hookspecs.protocols import EventTypeRegistrar

HOOKS_MD = Path(__file__).resolve().parents[2] / "docs" / "hooks.md"


def _specs() -> dict[str, Callable[..., object]]:
    return {
        name: fn
        for module in hookspecs.SPEC_MODULES
        for name, fn in inspect.getmembers(module, inspect.isfunction)
        if name.startswith("dsh_")
    }


SPECS = _specs()


def _slot(fn: Callable[..., object], slot: str) -> str:
    doc = inspect.getdoc(fn) or ""
    match = re.search(rf"^{slot}: (.*?)(?:\n\n|\Z)", doc, re.M | re.S)
    assert match, f"{fn.__name__} has no {slot} slot"
    return " ".join(match.group(1).split())


#: Hooks whose result the host awaits or runs in the background.
MAY_AWAIT = sorted(name for name, fn in SPECS.items() if _slot(fn, "Semantics").startswith(("observer", "awaited")))


def _section(name: str) -> str:
    text = HOOKS_MD.read_text(encoding="utf-8")
    return text.split(f"\n### {name}(", 1)[1].split("\n### ", 1)[0]


def test_the_hook_kinds_are_found() -> None:
    assert "dsh_session_event" in MAY_AWAIT and "dsh_plugin_setup" in MAY_AWAIT and "dsh_tool_result" in MAY_AWAIT
    assert "dsh_agent_request" not in MAY_AWAIT and "dsh_register_tools" not in MAY_AWAIT


@pytest.mark.parametrize("name", MAY_AWAIT)
def test_an_observer_or_awaited_hook_says_it_may_return_an_awaitable(name: str) -> None:
    fn = SPECS[name]
    assert fn.__annotations__["return"] == "Awaitable[None] | None", name
    assert "awaitable" in _slot(fn, "Return").lower(), name
    documented = re.search(r"^\*\*Return:\*\* (.*?)(?:\n\n|\Z)", _section(name), re.M | re.S)
    assert documented and "awaitable" in documented.group(1).lower(), f"docs/hooks.md: {name} Return slot"


@pytest.mark.parametrize("name", sorted(SPECS))
def test_callbacks_are_typed_and_documented_as_typed(name: str) -> None:
    section = _section(name)
    for arg, annotation in SPECS[name].__annotations__.items():
        if arg == "return":
            continue
        if arg != "call_next":  # a chain's call_next takes keyword overrides of any input
            assert "Callable[...," not in annotation, f"{name}({arg}) has an untyped callback: {annotation}"
        bullet = re.search(rf"^- `{arg}` — `([^`]*)`", section, re.M)
        assert bullet and bullet.group(1) == annotation, f"docs/hooks.md: {name}({arg}) must be typed `{annotation}`"


def test_the_event_type_registrar_signature() -> None:
    parameters = inspect.signature(EventTypeRegistrar.__call__).parameters
    assert list(parameters) == ["self", "name", "ignorable"]
    assert parameters["name"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert parameters["ignorable"].kind is inspect.Parameter.KEYWORD_ONLY and parameters["ignorable"].default is False
    assert SPECS["dsh_register_event_types"].__annotations__["register"] == "EventTypeRegistrar"
