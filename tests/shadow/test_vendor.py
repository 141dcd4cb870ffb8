"""Vendor families, the independence label and provider/model routes."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from shadow_mind_plugin.routes import (
    EFFORT_WITHOUT_ROUTE_ERROR,
    ROUTE_PATTERN,
    ROUTE_SELECTION_ERROR,
    ModelSelection,
    model_selection,
    normalize_route,
    parse_route,
    root_route,
)
from shadow_mind_plugin.vendor import independence, vendor_family
from shadow_mind_plugin.vocabulary import Independence


@pytest.mark.parametrize(
    ("route", "vendor"),
    [
        ("anthropic/claude-sonnet-4", "anthropic"),
        ("aws-bedrock/anything", "amazon"),
        ("bedrock/anthropic.claude-3", "amazon"),  # the provider wins over the model marker
        ("codex/gpt-5", "openai"),
        ("openai/whatever", "openai"),
        ("deepseek/deepseek-chat", "deepseek"),
        ("deepseek-official/x", "deepseek"),
        ("google/gemini-2.5-pro", "google"),
        ("google-vertex/x", "google"),
        ("vertex/x", "google"),
        ("OpenAI/x", "openai"),  # provider is lowercased
        ("openai-compatible/claude-3-opus", "anthropic"),  # unknown provider: model marker
        ("openai-compatible/DeepSeek-V3", "deepseek"),
        ("openrouter/google/gemini-flash", "google"),
        ("openrouter/openai/gpt-4o", "openai"),
        ("local/o1-mini", "openai"),
        ("local/o3", "openai"),
        ("local/claude-deepseek-merge", "anthropic"),  # markers in order: claude first
        ("openai-compatible/llama-3", "unknown"),
        ("ollama/qwen", "unknown"),
        ("claude", "unknown"),  # no slash: the whole route is the provider, no model
        ("anthropic", "anthropic"),
    ],
)
def test_vendor_family(route: str, vendor: str) -> None:
    assert vendor_family(route) == vendor


@pytest.mark.parametrize(
    ("root", "shadow", "label"),
    [
        (None, "anthropic/claude", Independence.UNAVAILABLE),
        ("anthropic/claude", None, Independence.UNAVAILABLE),
        (None, None, Independence.UNAVAILABLE),
        ("ollama/qwen", "anthropic/claude", Independence.UNVERIFIED),
        ("anthropic/claude", "openai-compatible/llama", Independence.UNVERIFIED),
        ("anthropic/claude-opus", "bedrock/claude", Independence.INDEPENDENT),  # vendor is amazon
        ("deepseek/deepseek-chat", "openai-compatible/deepseek-r1", Independence.SAME_VENDOR),
        ("openai/gpt-5", "codex/gpt-5-codex", Independence.SAME_VENDOR),
        ("deepseek/deepseek-chat", "anthropic/claude-sonnet", Independence.INDEPENDENT),
        ("google/gemini", "openai/gpt-4o", Independence.INDEPENDENT),
    ],
)
def test_independence(root: str | None, shadow: str | None, label: Independence) -> None:
    assert independence(root, shadow) is label
    assert str(independence(root, shadow)) == label.value


# --- routes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "parsed"),
    [
        ("deepseek/deepseek-chat", ("deepseek", "deepseek-chat")),
        ("openrouter/org/model", ("openrouter", "org/model")),
        ("  a/b  ", ("a", "b")),
        ("p/m:latest", ("p", "m:latest")),
        ("p//m", ("p", "/m")),
        ("\u3000p/m\ufeff", ("p", "m")),  # JS trim semantics
    ],
)
def test_parse_route(route: str, parsed: tuple[str, str]) -> None:
    assert parse_route(route, "run_with_model") == parsed


@pytest.mark.parametrize("route", ["", "   ", "model", "/model", "provider/", "pro vider/m", "p/mo del", "p/m\nx", "a/b\n\n/c", "p/\u00a0"])
def test_parse_route_rejects(route: str) -> None:
    with pytest.raises(ValueError, match="^run_with_model must use provider/model$"):
        parse_route(route, "run_with_model")


def test_route_pattern_needs_fullmatch() -> None:
    assert ROUTE_PATTERN.fullmatch("a/b")
    assert not ROUTE_PATTERN.fullmatch("a/b\n")
    assert normalize_route(" a/b\n", "frugalShadowModel") == "a/b"


def _agent(route: object) -> Any:
    # only ``resolved_route`` is read
    return SimpleNamespace(resolved_route=route)


def test_root_route_is_the_hosts_resolved_route() -> None:
    assert root_route(_agent("deepseek/deepseek-chat")) == "deepseek/deepseek-chat"
    assert root_route(_agent(None)) is None
    # not a provider/model route: no root route rather than a wrong one
    assert root_route(_agent("deepseek")) is None
    assert root_route(_agent("p/")) is None
    assert root_route(_agent(42)) is None


def test_model_selection_inherits_when_nothing_set() -> None:
    assert model_selection(run_with_model=None, reasoning_effort=None, root="a/b") is None


def test_model_selection_route_and_effort() -> None:
    assert model_selection(run_with_model="p/org/m", reasoning_effort=None, root=None) == ModelSelection(
        provider="p", model="org/m"
    )
    chosen = model_selection(run_with_model=None, reasoning_effort="high", root="deepseek/deepseek-chat")
    assert chosen == ModelSelection(provider="deepseek", model="deepseek-chat", reasoning_effort="high")
    assert chosen is not None and chosen.route == "deepseek/deepseek-chat"


def test_model_selection_overrides_win() -> None:
    chosen = model_selection(
        run_with_model="a/b", reasoning_effort="low", root="r/m", override_route="f/cheap", override_effort="medium"
    )
    assert chosen == ModelSelection(provider="f", model="cheap", reasoning_effort="medium")
    only_effort = model_selection(run_with_model="a/b", reasoning_effort="low", root=None, override_effort="high")
    assert only_effort == ModelSelection(provider="a", model="b", reasoning_effort="high")


def test_effort_without_any_route_fails() -> None:
    with pytest.raises(ValueError) as info:
        model_selection(run_with_model=None, reasoning_effort="high", root=root_route(_agent(None)))
    assert str(info.value) == EFFORT_WITHOUT_ROUTE_ERROR
    assert EFFORT_WITHOUT_ROUTE_ERROR == "reasoning_effort needs run_with_model or a complete root provider/model route"


@pytest.mark.parametrize("route", ["nomodel", "/m", "p/"])
def test_malformed_selected_route_fails(route: str) -> None:
    with pytest.raises(ValueError, match=f"^{ROUTE_SELECTION_ERROR}$"):
        model_selection(run_with_model=route, reasoning_effort=None, root=None)
