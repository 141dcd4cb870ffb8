"""Fixtures: a loopback server per test and adapters pointed at it.

Socket tests run on the real clock (MockClock's autojump would fire while a
task waits on loopback I/O and expire deadlines spuriously); backoff sleeps
go through an injected recorder instead, and the schedule itself is tested
as pure functions in ``test_retry.py``.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config
from hookspecs.secrets_detect import forget_registered_secrets

from .server import ScriptedServer

API_KEY = "sk-test-7d1f0c9e4b2a8f6e5d3c1b0a"
KEY_ENV = "SHADOW_TEST_DEEPSEEK_KEY"


@pytest.fixture(autouse=True)
def _forget_keys() -> Iterator[None]:
    """The adapter registers the key it reads process-wide; other tests must not inherit it."""
    yield
    forget_registered_secrets()


def write_profile(path: Path, base_url: str, *, more_rows: str = "") -> Path:
    """A profile with an ``openai-compatible`` row for ``base_url`` (key from
    ``KEY_ENV``, no backoff) routing the root to it, then ``more_rows``."""
    path.write_text(
        f"""
- id: deepseek
  name: openai-compatible
  config:
    provider: deepseek
    base_url: {base_url}
    api_key_env: {KEY_ENV}
    retry_base_seconds: 0
    request_timeout_seconds: 20
    models: [{{id: deepseek-chat}}]
- id: agent-loop
  name: agent-loop
  config: {{model: deepseek/deepseek-chat}}
"""
        + more_rows
    )
    return path


class SleepRecorder:
    """Stands in for ``trio.sleep`` in backoff: records, then only checkpoints."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await trio.lowlevel.checkpoint()


@pytest.fixture
async def server(nursery: trio.Nursery) -> ScriptedServer:
    srv = ScriptedServer()
    await srv.start(nursery)
    return srv


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


MakeAdapter = Callable[..., OpenAICompatibleAdapter]


@pytest.fixture
async def make_adapter(server: ScriptedServer, sleeps: SleepRecorder) -> AsyncIterator[MakeAdapter]:
    """``make_adapter(**config_overrides, environ=..., sleep=...)``; closed at teardown."""
    made: list[OpenAICompatibleAdapter] = []

    def make(*, environ: dict[str, str] | None = None, sleep: Any = None, **overrides: Any) -> OpenAICompatibleAdapter:
        config: dict[str, Any] = {
            "provider": "deepseek",
            "base_url": server.base_url,
            "api_key_env": KEY_ENV,
            "models": [
                {"id": "deepseek-chat", "reasoning_efforts": ["off", "low", "high", "max"], "default_effort": "high"},
                {"id": "deepseek-reasoner"},
            ],
            "request_timeout_seconds": 10.0,
            "retry_base_seconds": 0.5,
        }
        config.update(overrides)
        adapter = OpenAICompatibleAdapter(
            parse_config(config),
            environ={KEY_ENV: API_KEY} if environ is None else environ,
            sleep=sleeps if sleep is None else sleep,
            rng=random.Random(7),
            trust_env=False,  # a proxy from the environment must not intercept loopback
        )
        made.append(adapter)
        return adapter

    yield make
    for adapter in made:
        await adapter.aclose()


#: what the HTTP client reads from the environment (proxies, CA certificates)
ENVIRONMENT = ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "REQUEST_METHOD", "SSL_CERT_FILE", "SSL_CERT_DIR")


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No proxy or certificate setting of the machine's leaks into a test."""
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    return monkeypatch
