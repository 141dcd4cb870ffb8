"""Turning failed HTTP exchanges into ``LlmError``s that are safe to show.

Every provider-supplied text that is stored or shown (error messages, request
ids from ``x-request-id`` or a body's ``id`` / ``error.id``, finish reasons)
passes through :func:`cleaner`: the contract's
``hookspecs.scrub.scrub_text`` replaces the known API key first, whole or
partly echoed (so truncation can never leave part of it behind), then removes other credentials and absolute
paths and bounds length.
Errors are always raised ``from None`` by callers so no HTTP client exception
(or request, whose headers hold the key) hangs off the exception chain.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from hookspecs.errors import LlmError
from hookspecs.scrub import scrub_text

from ..http1_transport import TransportError
from .retry import code_for_status, is_retryable_status, parse_retry_after

#: Bytes of an error body read at most (the rest is discarded).
MAX_ERROR_BODY = 64 * 1024
#: Characters of a provider's request id kept.
MAX_ID = 200

@functools.cache
def _overflow() -> re.Pattern[str]:
    """How a provider words a context overflow (compiled at the first error, not at every start)."""
    return re.compile(r"context[ _-]?(length|window)|maximum context|too many tokens", re.IGNORECASE)


def cleaner(secret: str | None) -> Callable[[str], str]:
    def clean(text: str) -> str:
        return scrub_text(text, secrets=[secret] if secret else [])

    return clean


def status_error(
    provider: str,
    status: int,
    headers: Mapping[str, str],
    body: bytes,
    *,
    clean: Callable[[str], str],
    now: float,
) -> LlmError:
    """The error for a non-2xx response.

    ``code`` follows :func:`code_for_status`, except that a context-length
    complaint becomes ``CONTEXT_OVERFLOW`` (so a host can compact and retry).
    ``retryable`` is set for the statuses the adapter itself retries.
    """
    data = _json(body)
    message, provider_code = provider_error(data, body)
    code = code_for_status(status)
    if status in (400, 413, 422) and (provider_code == "context_length_exceeded" or _overflow().search(message)):
        code = "CONTEXT_OVERFLOW"
    reason = _reason(status)
    text = f"{provider}: HTTP {status} ({reason.lower()})"
    if message:
        text += f": {clean(message)}"
    return LlmError(
        text,
        code=code,
        status=status,
        request_id=request_id(headers, data, clean=clean),
        retry_after=parse_retry_after(headers, now=now),
        retryable=is_retryable_status(status),
    )


def provider_error(data: Any, body: bytes) -> tuple[str, str | None]:
    """(message, provider code) from ``{"error": {"message", "code"}}`` and common variants."""
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            code = error.get("code") or error.get("type")
            return (str(message) if message else ""), (str(code) if code else None)
        for key in ("message", "detail", "error"):
            value = data.get(key)
            if isinstance(value, str) and value:
                return value, None
    text = body.decode("utf-8", "replace").strip()
    return text, None


def request_id(headers: Mapping[str, str], data: Any = None, *, clean: Callable[[str], str]) -> str | None:
    """The provider's id for the exchange: ``x-request-id``, else the body's
    ``id`` or ``error.id``; scrubbed (a provider may echo the key in it)."""
    value = headers.get("x-request-id")
    if not value and isinstance(data, dict):
        for holder in (data, data.get("error")):
            if isinstance(holder, dict) and isinstance(holder.get("id"), str):
                value = holder["id"]
                break
    return clean_id(value, clean)


def clean_id(value: object, clean: Callable[[str], str]) -> str | None:
    """A provider-supplied id as it may be stored: scrubbed and bounded, or None."""
    if not isinstance(value, str) or not value:
        return None
    return clean(value)[:MAX_ID]


def transport_error(provider: str, exc: Exception, *, clean: Callable[[str], str], during: str) -> LlmError:
    """``CONNECTION_ERROR`` for an HTTP client failure before a response;
    retryable only for transport failures (connect, read, write, proxy,
    timeouts, a malformed or missing answer)."""
    detail = clean(str(exc)) or "no detail"
    return LlmError(
        f"{provider}: connection failed {during}: {type(exc).__name__}: {detail}",
        code="CONNECTION_ERROR",
        retryable=isinstance(exc, TransportError),
    )


def interrupted_error(
    provider: str, exc: Exception, *, clean: Callable[[str], str], request_id: str | None
) -> LlmError:
    detail = clean(str(exc)) or "no detail"
    return LlmError(
        f"{provider}: the response stream was interrupted: {type(exc).__name__}: {detail}",
        code="STREAM_INTERRUPTED",
        request_id=request_id,
        retryable=True,
    )


def _reason(status: int) -> str:
    """The status's standard phrase, or ``error`` (imported at the first error, not at every start)."""
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "error"


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None
