"""Routes and the LLM service registry."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing

import pytest

from harness.llm.routes import format_route, parse_route
from harness.llm.service import LlmService
from hookspecs.errors import DshError, LlmError
from hookspecs.protocols import LlmAdapter
from hookspecs.values.cancel import CancelToken
from hookspecs.values.llm import FinishChunk, LlmRequest, ModelInfo, StreamChunk, TextDelta
from hookspecs.values.messages import create_user_message

# --- routes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "expected"),
    [
        ("deepseek-official/deepseek-v4-flash", ("deepseek-official", "deepseek-v4-flash")),
        ("openrouter/org/model", ("openrouter", "org/model")),
        ("p/a/b/c", ("p", "a/b/c")),
        ("p/m/", ("p", "m/")),
        ("p//m", ("p", "/m")),
    ],
)
def test_parse_route_splits_at_first_slash(route: str, expected: tuple[str, str]) -> None:
    assert parse_route(route) == expected


@pytest.mark.parametrize(
    "route",
    ["", "noslash", "/model", "provider/", "pro vider/model", "provider/mo del", "provider/model\n", "\tp/m", "/"],
)
def test_parse_route_rejects(route: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_route(route)
    assert str(info.value) == f"model must use provider/model (got '{route}')"


def test_parse_route_error_names_where() -> None:
    with pytest.raises(ValueError, match=r"^shadow\.model must use provider/model \(got 'x'\)$"):
        parse_route("x", where="shadow.model")


def test_parse_route_rejects_non_string() -> None:
    with pytest.raises(ValueError, match="must use provider/model"):
        parse_route(None)  # type: ignore[arg-type]


def test_format_route_round_trips() -> None:
    assert format_route("openrouter", "org/model") == "openrouter/org/model"
    assert parse_route(format_route("a", "b/c")) == ("a", "b/c")


@pytest.mark.parametrize(("provider", "model"), [("a/b", "c"), ("", "m"), ("p", ""), ("p q", "m"), ("p", "m m")])
def test_format_route_rejects_unparseable_parts(provider: str, model: str) -> None:
    with pytest.raises(ValueError, match="must use provider/model"):
        format_route(provider, model)


# --- service --------------------------------------------------------------------------


class FakeAdapter:
    def __init__(self, provider: str, models: Sequence[ModelInfo] = ()) -> None:
        self._provider = provider
        self._models = tuple(models)
        self.seen: list[LlmRequest] = []
        self.closed = False

    @property
    def provider(self) -> str:
        return self._provider

    def models(self) -> Sequence[ModelInfo]:
        return self._models

    async def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]:
        self.seen.append(request)
        try:
            yield TextDelta(text=f"{self._provider}:{request.model}")
            yield TextDelta(text="more")
            yield FinishChunk(reason="stop")
        finally:
            self.closed = True


def request(provider: str, model: str) -> LlmRequest:
    return LlmRequest(provider=provider, model=model, system="", messages=(create_user_message("hi"),))


async def collect(stream: AsyncIterator[StreamChunk]) -> list[StreamChunk]:
    async with aclosing(stream) as chunks:  # type: ignore[type-var]
        return [chunk async for chunk in chunks]


def test_fake_adapter_satisfies_protocol() -> None:
    assert isinstance(FakeAdapter("x"), LlmAdapter)


def test_register_lists_providers_in_registration_order() -> None:
    service = LlmService()
    service.register_adapter(FakeAdapter("zeta"))
    service.register_adapter(FakeAdapter("alpha"))
    assert service.providers() == ["zeta", "alpha"]


def test_duplicate_provider_is_refused_and_named() -> None:
    service = LlmService()
    service.register_adapter(FakeAdapter("dup"))
    with pytest.raises(DshError) as info:
        service.register_adapter(FakeAdapter("dup"))
    assert info.value.code == "DUPLICATE_PROVIDER"
    assert "'dup'" in info.value.message


@pytest.mark.parametrize("name", ["", "a/b", "a b"])
def test_invalid_provider_name_is_refused(name: str) -> None:
    with pytest.raises(DshError) as info:
        LlmService().register_adapter(FakeAdapter(name))
    assert info.value.code == "INVALID_PROVIDER"


def test_disposer_removes_and_is_idempotent() -> None:
    service = LlmService()
    first = FakeAdapter("p")
    dispose = service.register_adapter(first)
    dispose()
    assert service.providers() == []
    second = FakeAdapter("p")
    service.register_adapter(second)
    dispose()  # must not remove the newer adapter that reused the name
    assert service.adapter("p") is second


def test_models_and_model_info() -> None:
    info = ModelInfo(id="m1", context_window=1000)
    service = LlmService()
    service.register_adapter(FakeAdapter("p", [info, ModelInfo(id="m2")]))
    service.register_adapter(FakeAdapter("open"))
    assert [m.id for m in service.models("p")] == ["m1", "m2"]
    assert service.models("open") == []
    assert service.model_info("p", "m1") is info
    assert service.model_info("p", "nope") is None
    assert service.model_info("open", "anything") is None
    assert service.model_info("ghost", "m1") is None
    with pytest.raises(LlmError) as err:
        service.models("ghost")
    assert err.value.code == "UNKNOWN_PROVIDER"


def test_resolve_validates_route_provider_and_model() -> None:
    service = LlmService()
    service.register_adapter(FakeAdapter("p", [ModelInfo(id="org/m")]))
    service.register_adapter(FakeAdapter("open"))
    assert service.resolve("p/org/m") == ("p", "org/m")
    assert service.resolve("open/whatever/x") == ("open", "whatever/x")
    cases = {"bad": "INVALID_ROUTE", "ghost/m": "UNKNOWN_PROVIDER", "p/other": "UNKNOWN_MODEL"}
    for route, code in cases.items():
        with pytest.raises(LlmError) as err:
            service.resolve(route, where="shadow.model")
        assert err.value.code == code, route
    with pytest.raises(LlmError, match=r"shadow\.model must use provider/model \(got 'bad'\)"):
        service.resolve("bad", where="shadow.model")
    with pytest.raises(LlmError, match="'p' has no model 'other' \\(known: org/m\\)"):
        service.resolve("p/other")


async def test_stream_delegates_to_the_adapter_for_the_provider() -> None:
    service = LlmService()
    a, b = FakeAdapter("a"), FakeAdapter("b", [ModelInfo(id="m")])
    service.register_adapter(a)
    service.register_adapter(b)
    chunks = await collect(service.stream(request("b", "m"), CancelToken()))
    assert chunks == [TextDelta(text="b:m"), TextDelta(text="more"), FinishChunk(reason="stop")]
    assert [r.provider for r in b.seen] == ["b"] and a.seen == []


@pytest.mark.parametrize(("provider", "model", "code"), [("ghost", "m", "UNKNOWN_PROVIDER"), ("b", "x", "UNKNOWN_MODEL")])
async def test_stream_routing_errors_raise_on_iteration(provider: str, model: str, code: str) -> None:
    service = LlmService()
    adapter = FakeAdapter("b", [ModelInfo(id="m")])
    service.register_adapter(adapter)
    stream = service.stream(request(provider, model), CancelToken())  # no error yet
    with pytest.raises(LlmError) as err:
        await collect(stream)
    assert err.value.code == code
    assert adapter.seen == []


async def test_stream_accepts_any_model_when_adapter_lists_none() -> None:
    service = LlmService()
    service.register_adapter(FakeAdapter("open"))
    chunks = await collect(service.stream(request("open", "org/any"), CancelToken()))
    assert chunks[0] == TextDelta(text="open:org/any")


async def test_closing_the_service_stream_closes_the_adapter_stream() -> None:
    service = LlmService()
    adapter = FakeAdapter("p")
    service.register_adapter(adapter)
    async with aclosing(service.stream(request("p", "m"), CancelToken())) as stream:  # type: ignore[type-var]
        async for _chunk in stream:
            break
        assert not adapter.closed
    assert adapter.closed
