"""The HTTP client's proxies (from the environment, as httpx took them) and
TLS (certificates, SNI and the hostname check), through the adapter against
loopback servers: a forward proxy (``proxy.py``) and the scripted server
over TLS with a throwaway CA (trustme)."""

from __future__ import annotations

import base64
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio
import trustme

from harness.llm.http1_transport import Origin, UnsupportedURL, environment_proxy
from harness.llm.openai_compat import OpenAICompatibleAdapter, parse_config
from hookspecs.errors import LlmError
from hookspecs.values.llm import RetryNotice, StreamChunk, TextDelta

from . import shapes
from .outcome import outcome as _outcome
from .proxy import LoopbackProxy
from .server import Reply, ScriptedServer


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def ca_file(ca: trustme.CA, tmp_path: Path) -> Iterator[str]:
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    yield str(path)


@pytest.fixture
def server_tls(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost").configure_cert(context)  # localhost only: 127.0.0.1 does not match
    return context


async def outcome(a: OpenAICompatibleAdapter) -> tuple[list[StreamChunk], LlmError | None]:
    return await _outcome(a, close=True)


def adapter(base_url: str, *, trust_env: bool = True, max_retries: int = 0) -> OpenAICompatibleAdapter:
    config = parse_config({"provider": "p", "base_url": base_url, "max_retries": max_retries, "retry_base_seconds": 0})
    return OpenAICompatibleAdapter(config, environ={}, trust_env=trust_env)


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


async def started(nursery: trio.Nursery, tls: ssl.SSLContext | None = None) -> ScriptedServer:
    server = ScriptedServer(default=Reply.sse(shapes.text_stream(["answered"])))
    await server.start(nursery, tls=tls)
    return server


# --- through a proxy --------------------------------------------------------------------------


async def test_http_goes_through_the_proxy_in_absolute_form(env: pytest.MonkeyPatch, nursery: trio.Nursery) -> None:
    server = await started(nursery)
    proxy = LoopbackProxy()
    await proxy.start(nursery)
    env.setenv("HTTP_PROXY", f"http://us%40er:p%3Ass@127.0.0.1:{proxy.port}")  # percent-encoded user and password
    chunks, error = await outcome(adapter(server.base_url))
    assert error is None and TextDelta(text="answered") in chunks
    [head] = proxy.heads
    assert (head.method, head.target) == ("POST", f"{server.base_url}/chat/completions")
    assert head.headers["proxy-authorization"] == basic("us@er", "p:ss")
    assert server.requests[0].target == "/v1/chat/completions"


async def test_https_goes_through_a_connect_tunnel(
    env: pytest.MonkeyPatch, nursery: trio.Nursery, server_tls: ssl.SSLContext, ca_file: str
) -> None:
    server = await started(nursery, server_tls)
    proxy = LoopbackProxy()
    await proxy.start(nursery)
    env.setenv("https_proxy", f"user:secret@127.0.0.1:{proxy.port}")  # no scheme: http://
    env.setenv("SSL_CERT_FILE", ca_file)
    chunks, error = await outcome(adapter(server.base_url))
    assert error is None and TextDelta(text="answered") in chunks
    [head] = proxy.heads
    assert (head.method, head.target, head.headers["host"]) == (
        "CONNECT",
        f"localhost:{server.port}",
        f"localhost:{server.port}",
    )
    assert head.headers["proxy-authorization"] == basic("user", "secret")
    [received] = server.requests  # inside the tunnel: origin form, no proxy credentials
    assert received.target == "/v1/chat/completions" and "proxy-authorization" not in received.headers
    assert received.headers["host"] == f"localhost:{server.port}"


async def test_https_through_an_https_proxy_is_tls_inside_tls(
    env: pytest.MonkeyPatch, nursery: trio.Nursery, server_tls: ssl.SSLContext, ca_file: str
) -> None:
    server = await started(nursery, server_tls)
    proxy = LoopbackProxy(tls=server_tls)
    await proxy.start(nursery)
    env.setenv("HTTPS_PROXY", proxy.url)  # https://localhost:port
    env.setenv("SSL_CERT_FILE", ca_file)
    chunks, error = await outcome(adapter(server.base_url))
    assert error is None and TextDelta(text="answered") in chunks
    assert [(h.method, h.target) for h in proxy.heads] == [("CONNECT", f"localhost:{server.port}")]


async def test_a_refused_tunnel_is_a_retried_connection_error(env: pytest.MonkeyPatch, nursery: trio.Nursery) -> None:
    proxy = LoopbackProxy(refuse=407)
    await proxy.start(nursery)
    env.setenv("ALL_PROXY", proxy.url)
    chunks, error = await outcome(adapter("https://api.example.test/v1", max_retries=1))
    assert [c.code for c in chunks if isinstance(c, RetryNotice)] == ["CONNECTION_ERROR"]
    assert error is not None and error.code == "CONNECTION_ERROR" and "ProxyError: 407" in error.message
    assert [h.target for h in proxy.heads] == ["api.example.test:443"] * 2


async def test_no_proxy_goes_direct(env: pytest.MonkeyPatch, nursery: trio.Nursery) -> None:
    server = await started(nursery)
    proxy = LoopbackProxy()
    await proxy.start(nursery)
    env.setenv("HTTP_PROXY", proxy.url)
    env.setenv("NO_PROXY", "example.com, 127.0.0.1")
    _, error = await outcome(adapter(server.base_url))
    assert error is None and proxy.heads == [] and len(server.requests) == 1


async def test_without_trust_env_the_environment_is_not_read(
    env: pytest.MonkeyPatch, nursery: trio.Nursery, server_tls: ssl.SSLContext, ca_file: str
) -> None:
    server = await started(nursery, server_tls)
    proxy = LoopbackProxy()
    await proxy.start(nursery)
    env.setenv("HTTPS_PROXY", proxy.url)
    env.setenv("SSL_CERT_FILE", ca_file)
    _, error = await outcome(adapter(server.base_url, trust_env=False))
    # direct, and verified against certifi's bundle, which does not hold the test CA
    assert proxy.heads == [] and error is not None and error.code == "CONNECTION_ERROR"
    assert "CERTIFICATE_VERIFY_FAILED" in error.message


async def test_a_socks_proxy_is_an_error_never_a_direct_connection(
    env: pytest.MonkeyPatch, nursery: trio.Nursery
) -> None:
    server = await started(nursery)
    env.setenv("ALL_PROXY", "socks5://127.0.0.1:1080")
    _, error = await outcome(adapter(server.base_url, max_retries=2))
    assert error is not None and (error.code, error.retryable) == ("CONNECTION_ERROR", False)
    assert "UnsupportedURL" in error.message and server.requests == []


# --- TLS ------------------------------------------------------------------------------------


async def test_https_verifies_the_certificate_for_the_host_named(
    env: pytest.MonkeyPatch, nursery: trio.Nursery, server_tls: ssl.SSLContext, ca_file: str
) -> None:
    server = await started(nursery, server_tls)
    env.setenv("SSL_CERT_FILE", ca_file)
    chunks, error = await outcome(adapter(server.base_url))  # https://localhost:port
    assert error is None and TextDelta(text="answered") in chunks
    _, error = await outcome(adapter(f"https://127.0.0.1:{server.port}/v1"))  # the certificate names localhost only
    assert error is not None and error.code == "CONNECTION_ERROR" and "ConnectError" in error.message
    assert "CERTIFICATE_VERIFY_FAILED" in error.message
    assert len(server.requests) == 1


# --- which proxy the environment sets ---------------------------------------------------------------


HTTPS = Origin("https", "api.example.com", 443)
HTTP = Origin("http", "api.example.com", 80)


@pytest.mark.parametrize(
    ("environ", "origin", "proxy"),
    [
        ({"HTTPS_PROXY": "proxy:3128"}, HTTPS, Origin("http", "proxy", 3128)),
        ({"HTTPS_PROXY": "https://proxy"}, HTTPS, Origin("https", "proxy", 443)),
        ({"HTTPS_PROXY": "http://proxy:1"}, HTTP, None),
        ({"ALL_PROXY": "http://proxy:1"}, HTTP, Origin("http", "proxy", 1)),
        ({"https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:1"}, HTTPS, Origin("http", "lower", 1)),
        ({"https_proxy": "", "HTTPS_PROXY": "http://upper:1"}, HTTPS, None),  # lower case set empty wins
        ({"HTTP_PROXY": "http://proxy:1", "REQUEST_METHOD": "GET"}, HTTP, None),  # CGI: a client set it
        ({"http_proxy": "http://proxy:1", "REQUEST_METHOD": "GET"}, HTTP, Origin("http", "proxy", 1)),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": "*"}, HTTPS, None),
        ({"ALL_PROXY": "http://proxy:1", "no_proxy": "other.org, example.com"}, HTTPS, None),  # and subdomains
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": "xample.com"}, HTTPS, Origin("http", "proxy", 1)),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": ".example.com"}, HTTPS, None),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": ".api.example.com"}, HTTPS, Origin("http", "proxy", 1)),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": "api.example.com:443"}, HTTPS, None),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": "api.example.com:8443"}, HTTPS, Origin("http", "proxy", 1)),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": "http://api.example.com"}, HTTP, None),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": "http://api.example.com"}, HTTPS, Origin("http", "proxy", 1)),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": "::1"}, Origin("http", "::1", 8000), None),
        ({"ALL_PROXY": "http://proxy:1", "NO_PROXY": "[::1]:8000"}, Origin("http", "::1", 8000), None),
    ],
)
def test_the_proxy_the_environment_sets(environ: dict[str, str], origin: Origin, proxy: Origin | None) -> None:
    found = environment_proxy(origin, environ)
    assert (found.url.origin if found else None) == proxy


def test_a_proxy_url_without_credentials_sends_no_authorization() -> None:
    found = environment_proxy(HTTPS, {"HTTPS_PROXY": "http://proxy:1"})
    assert found is not None and found.headers == ()


def test_an_unsupported_proxy_scheme_is_refused_without_its_password() -> None:
    with pytest.raises(UnsupportedURL) as info:
        environment_proxy(HTTPS, {"ALL_PROXY": "socks5h://user:hunter2@proxy:1080"})
    assert "hunter2" not in str(info.value) and "socks5h://proxy:1080" in str(info.value)


async def test_a_ca_file_that_does_not_load_is_an_error_not_retried(
    env: pytest.MonkeyPatch, nursery: trio.Nursery, server_tls: ssl.SSLContext, tmp_path: Path
) -> None:
    server = await started(nursery, server_tls)
    env.setenv("SSL_CERT_FILE", str(tmp_path / "missing.pem"))
    _, error = await outcome(adapter(server.base_url, max_retries=2))
    assert error is not None and (error.code, error.retryable) == ("CONNECTION_ERROR", False)
    assert "do not load" in error.message and server.requests == []


async def test_a_tls_context_that_skips_the_hostname_check_is_refused(
    env: pytest.MonkeyPatch, nursery: trio.Nursery, server_tls: ssl.SSLContext, ca: trustme.CA
) -> None:
    from harness.llm import http1

    server = await started(nursery, server_tls)
    lax = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ca.configure_trust(lax)
    lax.check_hostname = False  # a caller's slip: the certificate names localhost, not 127.0.0.1
    client = http1.Client(verify=lambda: lax, trust_env=False)
    with pytest.raises(http1.HttpError, match="does not check") as info:
        await client.send("POST", f"https://127.0.0.1:{server.port}/v1/chat/completions", content=b"{}")
    assert not isinstance(info.value, http1.TransportError)  # not worth a retry
    await client.aclose()
    assert server.requests == []


async def test_ssl_cert_file_wins_over_ssl_cert_dir_as_in_httpx(
    env: pytest.MonkeyPatch, nursery: trio.Nursery, server_tls: ssl.SSLContext, ca_file: str, tmp_path: Path
) -> None:
    server = await started(nursery, server_tls)
    (tmp_path / "empty").mkdir()
    env.setenv("SSL_CERT_DIR", str(tmp_path / "empty"))  # trusts nothing: ignored while SSL_CERT_FILE is set
    env.setenv("SSL_CERT_FILE", ca_file)
    assert (await outcome(adapter(server.base_url)))[1] is None
    env.setenv("SSL_CERT_FILE", "")  # set empty: the directory is used (and trusts nothing)
    _, error = await outcome(adapter(server.base_url))
    assert error is not None and "CERTIFICATE_VERIFY_FAILED" in error.message
