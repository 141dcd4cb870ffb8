"""The ``config`` of an ``openai-compatible`` profile row, validated strictly.

The API key never appears here: ``api_key_env`` names the environment variable
that holds it, and the variable is read at request time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

import attrs

from hookspecs.errors import ProfileError
from hookspecs.values.llm import ModelInfo
from hookspecs.values.wire import make_converter, structure

from ..routes import provider_name_problem

EffortParam = Literal["reasoning_effort", "none"]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 token
_CONFIG = make_converter()  # private: this wire format owns its converter


def _invalid(text: str) -> TypeError:
    # The shared wire formatter shows a TypeError starting with "expected " verbatim
    # (cattrs reduces a ValueError to "invalid value"), so the field name survives
    # both this module's converter and the host's plugin-config converter.
    return TypeError(f"expected {text}")


def _positive(_instance: object, attribute: attrs.Attribute[Any], value: float | None) -> None:
    if value is not None and not value > 0:
        raise _invalid(f"{attribute.name} to be > 0, got {value!r}")


def _non_negative(_instance: object, attribute: attrs.Attribute[Any], value: float) -> None:
    if not value >= 0:
        raise _invalid(f"{attribute.name} to be >= 0, got {value!r}")


@attrs.frozen(kw_only=True)
class ModelSpec:
    """One entry of ``models``: the :class:`ModelInfo` the adapter reports."""

    id: str
    name: str = ""
    context_window: int | None = attrs.field(default=None, validator=_positive)
    max_output_tokens: int | None = attrs.field(default=None, validator=_positive)
    reasoning_efforts: tuple[str, ...] = ()
    default_effort: str | None = None

    def __attrs_post_init__(self) -> None:
        where = f"models[id={self.id!r}]"
        if not self.id or any(ch.isspace() for ch in self.id):
            raise _invalid(f"models: id to be non-empty without whitespace, got {self.id!r}")
        if any(not effort or any(ch.isspace() for ch in effort) for effort in self.reasoning_efforts):
            raise _invalid(f"{where}.reasoning_efforts to be non-empty ids without whitespace")
        if len(set(self.reasoning_efforts)) != len(self.reasoning_efforts):
            raise _invalid(f"{where}.reasoning_efforts without duplicates")
        if self.default_effort is not None and self.default_effort not in self.reasoning_efforts:
            raise _invalid(
                f"{where}.default_effort to be one of reasoning_efforts "
                f"({', '.join(self.reasoning_efforts) or 'none listed'}), got {self.default_effort!r}"
            )

    def info(self) -> ModelInfo:
        return ModelInfo(
            id=self.id,
            name=self.name,
            context_window=self.context_window,
            max_output_tokens=self.max_output_tokens,
            reasoning_efforts=self.reasoning_efforts,
            default_effort=self.default_effort,
        )


def _check_provider(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    problem = provider_name_problem(value)
    if problem is not None:
        raise _invalid(f"{attribute.name} to be a provider name: it {problem}")


def _check_base_url(_instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    # checked first and never echoed: the part before "@" may be a password; the
    # HTTP client sends no URL credentials, so they would be dropped silently
    authority = value.partition("://")[2].split("/", 1)[0]
    if "@" in authority:
        raise _invalid(f"{attribute.name} without user:password@ (name the key's variable in api_key_env)")
    if not re.match(r"https?://[^/\s?#]+", value) or any(ch.isspace() for ch in value) or "?" in value or "#" in value:
        raise _invalid(f"{attribute.name} to be an http(s) URL without query or fragment, got {value!r}")


def _check_env_name(_instance: object, attribute: attrs.Attribute[str | None], value: str | None) -> None:
    # The value is deliberately not echoed: a key pasted here by mistake must not reach logs.
    if value is not None and not _ENV_NAME.fullmatch(value):
        raise _invalid(
            f"{attribute.name} to be the NAME of an environment variable (letters, digits and _), "
            "not the key itself"
        )


def _check_headers(_instance: object, attribute: attrs.Attribute[Any], value: dict[str, str]) -> None:
    for name, text in value.items():
        if not _HEADER_NAME.fullmatch(name):
            raise _invalid(f"{attribute.name} names to be HTTP header names, got {name!r}")
        if name.lower() == "authorization":
            # Keys come from api_key_env only, so they never sit in a profile file.
            raise _invalid(f"{attribute.name} without Authorization: name the key's variable in api_key_env")
        if "\r" in text or "\n" in text:
            raise _invalid(f"{attribute.name}[{name!r}] without line breaks")


def _check_models(_instance: object, attribute: attrs.Attribute[Any], value: tuple[ModelSpec, ...]) -> None:
    seen: set[str] = set()
    for spec in value:
        if spec.id in seen:
            raise _invalid(f"{attribute.name} with unique ids, got {spec.id!r} twice")
        seen.add(spec.id)


@attrs.frozen(kw_only=True)
class OpenAICompatibleConfig:
    """Config of one OpenAI-compatible provider (see the package docs)."""

    provider: str = attrs.field(validator=_check_provider)
    base_url: str = attrs.field(validator=_check_base_url)
    api_key_env: str | None = attrs.field(default=None, validator=_check_env_name)
    models: tuple[ModelSpec, ...] = attrs.field(default=(), validator=_check_models)
    request_timeout_seconds: float = attrs.field(default=300.0, validator=_positive)
    connect_timeout_seconds: float = attrs.field(default=30.0, validator=_positive)
    max_retries: int = attrs.field(default=3, validator=_non_negative)
    retry_base_seconds: float = attrs.field(default=1.0, validator=_non_negative)
    retry_max_seconds: float = attrs.field(default=30.0, validator=_non_negative)
    extra_headers: dict[str, str] = attrs.field(factory=dict, validator=_check_headers)
    reasoning_effort_param: EffortParam = "reasoning_effort"

    @property
    def chat_url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def model(self, model_id: str) -> ModelSpec | None:
        return next((spec for spec in self.models if spec.id == model_id), None)


def parse_config(data: Mapping[str, Any], *, where: str = "openai-compatible config") -> OpenAICompatibleConfig:
    """Structure a row's ``config`` mapping; errors are ``ProfileError`` naming the field."""
    return structure(_CONFIG, dict(data), OpenAICompatibleConfig, where=where, error=ProfileError)
