"""Config validation, models() and the plugin wiring."""

from __future__ import annotations

from importlib import metadata
from typing import Any

import pluggy
import pytest

import hookspecs.llm
from harness.llm import LlmService
from harness.llm.openai_compat import (
    ModelSpec,
    OpenAICompatibleAdapter,
    OpenAICompatibleConfig,
    OpenAICompatiblePlugin,
    parse_config,
)
from harness.plugins import instantiate_plugin
from hookspecs import PROJECT_NAME
from hookspecs.errors import ProfileError
from hookspecs.values.llm import ModelInfo

BASE = {"provider": "deepseek", "base_url": "https://api.deepseek.com/v1"}


def config(**extra: Any) -> dict[str, Any]:
    return {**BASE, **extra}


def test_defaults() -> None:
    cfg = parse_config(BASE)
    assert cfg == OpenAICompatibleConfig(provider="deepseek", base_url="https://api.deepseek.com/v1")
    assert (cfg.api_key_env, cfg.models, cfg.extra_headers) == (None, (), {})
    assert (cfg.request_timeout_seconds, cfg.connect_timeout_seconds) == (300.0, 30.0)
    assert (cfg.max_retries, cfg.retry_base_seconds, cfg.retry_max_seconds) == (3, 1.0, 30.0)
    assert cfg.reasoning_effort_param == "reasoning_effort"
    assert cfg.chat_url == "https://api.deepseek.com/v1/chat/completions"
    assert parse_config(config(base_url="http://h:8000/v1/")).chat_url == "http://h:8000/v1/chat/completions"


def test_full_config_and_models() -> None:
    cfg = parse_config(
        config(
            api_key_env="DEEPSEEK_API_KEY",
            models=[
                {
                    "id": "deepseek-chat",
                    "name": "DeepSeek Chat",
                    "context_window": 128000,
                    "max_output_tokens": 8192,
                    "reasoning_efforts": ["off", "low", "high", "max"],
                    "default_effort": "high",
                },
                {"id": "deepseek-reasoner"},
            ],
            request_timeout_seconds=60,
            max_retries=0,
            extra_headers={"X-Title": "shadow"},
            reasoning_effort_param="none",
        )
    )
    assert cfg.models[0] == ModelSpec(
        id="deepseek-chat",
        name="DeepSeek Chat",
        context_window=128000,
        max_output_tokens=8192,
        reasoning_efforts=("off", "low", "high", "max"),
        default_effort="high",
    )
    adapter = OpenAICompatibleAdapter(cfg)
    assert adapter.provider == "deepseek"
    assert adapter.models() == (
        ModelInfo(
            id="deepseek-chat",
            name="DeepSeek Chat",
            context_window=128000,
            max_output_tokens=8192,
            reasoning_efforts=("off", "low", "high", "max"),
            default_effort="high",
        ),
        ModelInfo(id="deepseek-reasoner"),
    )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"provider": "deepseek"}, "required field missing @ $.base_url"),
        (config(base_url="api.deepseek.com"), "base_url to be an http(s) URL"),
        (config(base_url="https://h/v1?x=1"), "base_url to be an http(s) URL"),
        (config(provider="deep seek"), "provider to be a provider name: it must not contain whitespace"),
        (config(provider="a/b"), "provider to be a provider name"),
        (config(max_retries="3"), "expected an integer, got the string '3' @ $.max_retries"),
        (config(max_retries=-1), "max_retries to be >= 0, got -1"),
        (config(request_timeout_seconds=0), "request_timeout_seconds to be > 0, got 0"),
        (config(connect_timeout_seconds=-2.5), "connect_timeout_seconds to be > 0"),
        (config(retry_base_seconds=-1), "retry_base_seconds to be >= 0"),
        (config(reasoning_effort_param="effort"), "expected one of 'reasoning_effort', 'none' @ $.reasoning_effort_param"),
        (config(bogus=1), "unknown field(s): bogus"),
        (config(models=[{"id": "m", "window": 1}]), "unknown field(s): window @ $.models[0]"),
        (config(models=[{"id": "m", "context_window": 0}]), "context_window to be > 0"),
        (config(models=[{"id": "m", "default_effort": "high"}]), "default_effort to be one of reasoning_efforts"),
        (config(models=[{"id": "m", "reasoning_efforts": ["a", "a"]}]), "reasoning_efforts without duplicates"),
        (config(models=[{"id": ""}]), "id to be non-empty"),
        (config(models=[{"id": "m"}, {"id": "m"}]), "models with unique ids, got 'm' twice"),
        (config(extra_headers={"Authorization": "Bearer x"}), "extra_headers without Authorization"),
        (config(extra_headers={"X-A": 1}), "expected a string, got the number 1 @ $.extra_headers['X-A']"),
        (config(extra_headers={"bad name": "v"}), "extra_headers names to be HTTP header names"),
        (config(api_key_env=""), "api_key_env to be the NAME of an environment variable"),
    ],
)
def test_invalid_config_names_the_field(data: dict[str, Any], expected: str) -> None:
    with pytest.raises(ProfileError) as info:
        parse_config(data)
    assert expected in str(info.value)


def test_a_key_pasted_into_api_key_env_is_not_echoed() -> None:
    key = "sk-live-0123456789abcdef"
    with pytest.raises(ProfileError) as info:
        parse_config(config(api_key_env=key))
    assert "api_key_env" in str(info.value)
    assert key not in str(info.value)


@pytest.mark.parametrize(
    "url", ["https://user:hunter2-pw@api.example.test/v1", "http://hunter2-pw@127.0.0.1:8080/v1 x"]
)
def test_credentials_in_base_url_are_refused_and_not_echoed(url: str) -> None:
    # the HTTP client sends no URL credentials (httpx sent them as Basic auth):
    # dropping them silently would fail later with a confusing 401
    with pytest.raises(ProfileError) as info:
        parse_config(config(base_url=url))
    assert "base_url" in str(info.value) and "api_key_env" in str(info.value)
    assert "hunter2" not in str(info.value)


def test_the_host_config_path_keeps_field_names() -> None:
    with pytest.raises(ProfileError) as info:
        instantiate_plugin(OpenAICompatiblePlugin, config(max_retries=-1), name="openai-compatible", where="row deepseek")
    assert "row deepseek: field 'config': expected max_retries to be >= 0, got -1" in str(info.value)


def test_plugin_registers_its_adapter() -> None:
    plugin = instantiate_plugin(
        OpenAICompatiblePlugin,
        config(models=[{"id": "deepseek-chat"}]),
        name="openai-compatible",
        where="row deepseek",
    )
    assert isinstance(plugin, OpenAICompatiblePlugin)
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs.llm)
    pm.register(plugin, name="deepseek")
    service = LlmService()
    pm.hook.dsh_register_llm_adapters(register=service.register_adapter)
    assert service.providers() == ["deepseek"]
    assert service.resolve("deepseek/deepseek-chat") == ("deepseek", "deepseek-chat")


def test_plugin_accepts_a_plain_mapping() -> None:
    plugin = OpenAICompatiblePlugin(config(provider="local"))
    assert plugin.adapter.provider == "local"


def test_entry_point_is_published() -> None:
    eps = metadata.entry_points(group="dsh.plugins", name="openai-compatible")
    assert [ep.value for ep in eps] == ["harness.llm.openai_compat:OpenAICompatiblePlugin"]
    assert next(iter(eps)).load() is OpenAICompatiblePlugin
