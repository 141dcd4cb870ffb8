"""The ``openai-compatible`` :class:`~hookspecs.protocols.LlmAdapter`.

One streaming ``POST {base_url}/chat/completions`` per attempt, retried with
backoff while nothing has been yielded yet; see the package docs for the
complete behaviour.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

import trio

from hookspecs.errors import LlmError
from hookspecs.secrets_detect import register_secret
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import LlmRequest, ModelInfo, RetryNotice, StreamChunk

from .. import http1
from .config import OpenAICompatibleConfig
from .failures import (
    MAX_ERROR_BODY,
    cleaner,
    interrupted_error,
    provider_error,
    request_id,
    status_error,
    transport_error,
)
from .guard import Guard, TimedOut
from .retry import RetryPolicy, retry_delay
from .sse import LineTooLong, SseDecoder
from .stream import DeltaAssembler
from .wire import build_body, resolve_effort

if TYPE_CHECKING:
    import ssl

log = logging.getLogger(__name__)

USER_AGENT = "shadow-mind-harness/0.1"
#: Upper bound for closing a response, shielded from the caller's cancellation.
CLOSE_GRACE_SECONDS = 2.0
#: How long to wait for the end of the body after [DONE] (keeps the connection reusable).
DRAIN_SECONDS = 0.25

Sleep = Callable[[float], Awaitable[None]]


class OpenAICompatibleAdapter:
    """Streams chat completions from one OpenAI-compatible endpoint.

    ``environ`` is where ``api_key_env`` is looked up (read per request, so a
    rotated key is picked up). ``sleep`` and ``rng`` drive the backoff (tests
    inject them). ``trust_env``: proxies and certificates from the environment
    (see :mod:`harness.llm.http1_transport`); ``connect`` replaces the network
    (a trio stream per connection, for tests on trio's MockClock). One
    :class:`harness.llm.http1.Client` is kept for connection reuse (its kept
    connections belong to one trio run: a later run closes them and opens
    its own); :meth:`aclose` closes it.
    """

    def __init__(
        self,
        config: OpenAICompatibleConfig,
        *,
        environ: Mapping[str, str] = os.environ,
        sleep: Sleep = trio.sleep,
        rng: random.Random | None = None,
        trust_env: bool = True,
        connect: http1.Connect | None = None,
    ) -> None:
        self._config = config
        self._environ = environ
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._trust_env = trust_env
        self._connect = connect
        self._policy = RetryPolicy(
            max_retries=config.max_retries, base_seconds=config.retry_base_seconds, max_seconds=config.retry_max_seconds
        )
        self._models = tuple(spec.info() for spec in config.models)
        self._client: http1.Client | None = None

    @property
    def provider(self) -> str:
        return self._config.provider

    @property
    def config(self) -> OpenAICompatibleConfig:
        return self._config

    def models(self) -> tuple[ModelInfo, ...]:
        return self._models

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    # --- streaming ----------------------------------------------------------------------

    async def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        """Yield chunks of one model call; see the package docs for errors and retries."""
        cancel.raise_if_cancelled()
        config = self._config
        secret = self._api_key()
        clean = cleaner(secret)
        effort = resolve_effort(request, config.model(request.model))
        body = build_body(request, effort=effort, effort_param=config.reasoning_effort_param)
        try:
            content = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except ValueError as exc:
            raise LlmError(f"{self.provider}: request is not valid JSON: {exc}", code="INVALID_REQUEST") from None
        client = self._http()
        send = functools.partial(client.send, "POST", config.chat_url, headers=self._headers(secret), content=content)
        guard = Guard(trio.current_time() + config.request_timeout_seconds, cancel)
        retries = 0
        try:
            while True:
                yielded = False
                response: http1.Response | None = None
                try:
                    response = await self._send(send, guard, clean)
                    assembler = DeltaAssembler(self.provider, request_id=request_id(response.headers, clean=clean), clean=clean)
                    decoder = SseDecoder()
                    blocks = response.aiter_bytes()
                    while not assembler.done:
                        block = await self._next_block(blocks, guard, clean, assembler.request_id)
                        if block is None:
                            break
                        for chunk in assembler.accept(decoder.feed(block)):
                            cancel.raise_if_cancelled()
                            yielded = True
                            yield chunk
                    if assembler.done:
                        await self._drain(blocks, guard)
                    else:
                        for chunk in assembler.accept(decoder.close()):
                            cancel.raise_if_cancelled()
                            yielded = True
                            yield chunk
                    tail = assembler.end()
                    for chunk in tail:
                        cancel.raise_if_cancelled()
                        yield chunk
                    return
                except LlmError as error:
                    if yielded or not error.retryable or retries >= config.max_retries:
                        raise _final(error, retries) from None
                    failure = error
                finally:
                    if response is not None:
                        await _close(response)
                retries += 1
                delay = retry_delay(retries, failure.retry_after, self._policy, self._rng)
                if delay >= guard.remaining():
                    raise _final(failure, retries - 1, note="the request deadline would pass before a retry") from None
                log.info(
                    "%s: %s (status %s); retry %d of %d in %.3fs",
                    self.provider,
                    failure.code,
                    failure.status,
                    retries,
                    config.max_retries,
                    delay,
                )
                yield RetryNotice(attempt=retries, delay_seconds=delay, code=failure.code, status=failure.status)
                await guard.run(functools.partial(self._sleep, delay))
        except TimedOut:
            raise LlmError(
                f"{self.provider}: request timed out after {config.request_timeout_seconds:g}s",
                code="TIMEOUT",
                retryable=True,
            ) from None
        except LineTooLong as exc:
            raise LlmError(f"{self.provider}: malformed stream: {exc}", code="MALFORMED_STREAM") from None
        finally:
            guard.close()

    # --- one attempt ----------------------------------------------------------------------

    async def _send(
        self, send: Callable[[], Awaitable[http1.Response]], guard: Guard, clean: Callable[[str], str]
    ) -> http1.Response:
        """Send and check the status; a non-stream answer becomes an ``LlmError``."""
        try:
            response = await guard.run(send)
        except http1.HttpError as exc:  # TransportError (retried) or a request the client refuses
            raise transport_error(self.provider, exc, clean=clean, during="before a response") from None
        try:
            if not 200 <= response.status_code < 300:
                body = await self._read_capped(response, guard, clean)
                raise status_error(
                    self.provider, response.status_code, response.headers, body, clean=clean, now=time.time()
                )
            ctype = response.headers.get("content-type", "")
            if "json" in ctype and "event-stream" not in ctype:
                # The server ignored stream=true (or wrapped an error in a 200).
                body = await self._read_capped(response, guard, clean)
                data = _loads(body)
                message, _code = provider_error(data, body)
                raise LlmError(
                    f"{self.provider}: expected an event stream, got {ctype}: {clean(message)}",
                    code="UNEXPECTED_RESPONSE",
                    status=response.status_code,
                    request_id=request_id(response.headers, data, clean=clean),
                )
        except BaseException:
            await _close(response)
            raise
        return response

    async def _read_capped(self, response: http1.Response, guard: Guard, clean: Callable[[str], str]) -> bytes:
        async def read() -> bytes:
            parts: list[bytes] = []
            size = 0
            async for part in response.aiter_bytes():
                parts.append(part)
                size += len(part)
                if size >= MAX_ERROR_BODY:
                    break
            return b"".join(parts)[:MAX_ERROR_BODY]

        try:
            return await guard.run(read)
        except http1.HttpError:
            return b""  # the status alone still says what failed

    async def _next_block(
        self, blocks: AsyncIterator[bytes], guard: Guard, clean: Callable[[str], str], request_id: str | None
    ) -> bytes | None:
        try:
            return await guard.run(functools.partial(anext, blocks, None))
        except http1.DecodingError as exc:  # a corrupt compressed body
            raise LlmError(
                f"{self.provider}: malformed stream: {type(exc).__name__}: {clean(str(exc))}",
                code="MALFORMED_STREAM",
                request_id=request_id,
            ) from None
        except http1.HttpError as exc:
            raise interrupted_error(self.provider, exc, clean=clean, request_id=request_id) from None

    async def _drain(self, blocks: AsyncIterator[bytes], guard: Guard) -> None:
        """Read what follows [DONE] (normally just the body's end) so the
        connection returns to the pool; never waits long, never fails."""

        async def drain() -> None:
            with trio.move_on_after(DRAIN_SECONDS):
                async for _ in blocks:
                    pass

        try:
            await guard.run(drain)
        except (http1.HttpError, TimedOut):
            pass

    # --- helpers --------------------------------------------------------------------------

    def _api_key(self) -> str | None:
        name = self._config.api_key_env
        if name is None:
            return None
        value = self._environ.get(name, "").strip()
        if not value:
            raise LlmError(
                f"{self.provider}: the API key variable {name} is not set in the environment",
                code="MISSING_API_KEY",
            )
        # Every later scrub in this process (session events, logs, journals)
        # hides the key, whole or echoed in part, wherever it turns up.
        register_secret(value)
        return value

    def _headers(self, secret: str | None) -> dict[str, str]:
        # identity: a compressed event stream is buffered by the compressor (a
        # server that compresses anyway is decoded).
        headers = {"content-type": "application/json", "accept": "text/event-stream", "accept-encoding": "identity"}
        headers.update(self._config.extra_headers)
        if secret is not None:
            headers["authorization"] = f"Bearer {secret}"
        return headers

    def _http(self) -> http1.Client:
        # One client: it reuses connections within a trio run only, and closes
        # an ended run's in the next (a client per run would leave them open)
        if self._client is None:
            self._client = http1.Client(
                connect_timeout=self._config.connect_timeout_seconds,
                headers={"user-agent": USER_AGENT},
                verify=functools.partial(_tls_context_or_default, self._config.chat_url, self._trust_env),
                trust_env=self._trust_env,
                connect=self._connect,
            )
        return self._client


def tls_context(url: str, *, trust_env: bool) -> ssl.SSLContext | bool:
    """What the client verifies TLS with (asked at its first TLS connection,
    never for plain ``http``): the default (True) for an ``https``
    endpoint, or a context with no trusted certificate for a plain ``http``
    one (a local server), which never speaks TLS: loading the CA bundle costs
    several times the interpreter's start, and a context that trusts nothing
    fails closed should TLS ever be attempted. An ``https`` proxy from the
    environment keeps the default."""
    if not url.startswith("http://"):
        return True
    if trust_env and any(
        os.environ.get(name, "").lower().startswith("https:")
        for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
    ):
        return True
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # verifies hostnames and certificates, trusts none


def _tls_context_or_default(url: str, trust_env: bool) -> ssl.SSLContext | None:
    # called by the client at its first TLS connection only (None: its default)
    context = tls_context(url, trust_env=trust_env)
    return None if isinstance(context, bool) else context


def _final(error: LlmError, retries: int, *, note: str | None = None) -> LlmError:
    """``error`` as raised to the caller, saying how many attempts were made."""
    if not retries and note is None:
        return error
    extra = [f"gave up after {retries + 1} attempts"] if retries else []
    if note:
        extra.append(note)
    return LlmError(
        f"{error.message} ({'; '.join(extra)})",
        code=error.code,
        status=error.status,
        request_id=error.request_id,
        retry_after=error.retry_after,
        retryable=error.retryable,
    )


async def _close(response: http1.Response) -> None:
    # Shielded: a cancelled caller must still release the connection.
    with trio.CancelScope(shield=True) as scope:
        scope.deadline = trio.current_time() + CLOSE_GRACE_SECONDS
        await response.aclose()


def _loads(body: bytes) -> object:
    try:
        return json.loads(body)
    except ValueError:
        return None
