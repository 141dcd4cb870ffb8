"""Where an HTTP/1.1 request goes and the byte stream it goes over, for
:mod:`harness.llm.http1`: URLs, proxies from the environment, TCP, TLS and
CONNECT tunnels, and the client's exceptions.

Supported: ``http`` and ``https`` URLs (IPv6 literals in brackets, non-ASCII
hosts IDNA-encoded); TLS through an ``ssl.SSLContext`` with SNI and the
hostname checked (``trio.SSLStream``, ALPN ``http/1.1``); with ``trust_env``,
proxies as httpx took them: ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY``
(lower-case names first, as ``urllib`` reads them; a value without a scheme
is ``http://``), an ``http`` or ``https`` proxy, its URL's user and password
sent as ``Proxy-Authorization: Basic``, ``https`` origins through a
``CONNECT`` tunnel and ``http`` ones in absolute form; ``NO_PROXY`` entries
are ``*`` (no proxy at all), a host or address (that host and its
subdomains), ``.suffix`` (subdomains only), optionally with a scheme or a
port. SOCKS proxies are not supported (an error, never a direct connection).
"""

from __future__ import annotations

import base64
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, NamedTuple

import trio

if TYPE_CHECKING:
    import ssl

DEFAULT_PORTS = {"http": 80, "https": 443}
#: bytes of a proxy's answer to CONNECT read at most before it is refused
MAX_PROXY_HEAD = 64 * 1024


class HttpError(Exception):
    """Any failure of the client; the message never holds request headers."""


class UnsupportedURL(HttpError):
    """A URL (or proxy URL) the client cannot send to: not retried."""


class TransportError(HttpError):
    """The network or the peer failed (httpx's ``TransportError``): worth a retry."""


class ConnectError(TransportError):
    """No connection: refused, unreachable, name not resolved, TLS handshake failed."""


class ConnectTimeout(TransportError):
    """Connecting (TCP, TLS, a proxy tunnel) took longer than the connect timeout."""


class ProxyError(TransportError):
    """The proxy refused the tunnel (its status and reason are the message)."""


class ReadError(TransportError):
    """Reading from the connection failed (reset, closed under us)."""


class WriteError(TransportError):
    """Sending the request failed."""


class RemoteProtocolError(TransportError):
    """The server broke HTTP/1.1: malformed answer, or closed mid-response."""


class DecodingError(HttpError):
    """A body in a content-encoding that is unknown or does not decode: not retried."""


class Origin(NamedTuple):
    scheme: str  # "http" or "https"
    host: str  # ASCII; an IPv6 address without brackets
    port: int

    @property
    def authority(self) -> str:
        """``host[:port]`` as the Host header and CONNECT write it (port only when not the default)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if DEFAULT_PORTS[self.scheme] == self.port else f"{host}:{self.port}"


class Url(NamedTuple):
    origin: Origin
    target: str  # path and query, at least "/"
    userinfo: str  # "user:password" as written (proxy URLs), else ""


def parse_url(url: str) -> Url:
    """Split an ``http(s)`` URL; ``UnsupportedURL`` for anything else."""
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep or scheme not in DEFAULT_PORTS:
        raise UnsupportedURL(f"not an http or https URL: {_no_userinfo(url)!r}")
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, target = rest[:cut], rest[cut:].partition("#")[0]
    userinfo, _, hostport = authority.rpartition("@")
    if hostport.startswith("["):  # [v6]:port
        host, _, port_text = hostport[1:].partition("]")
        port_text = port_text.removeprefix(":")
    else:
        host, _, port_text = hostport.partition(":")
    port = int(port_text) if port_text.isascii() and port_text.isdigit() else -1 if port_text else DEFAULT_PORTS[scheme]
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:  # an empty or overlong label
            host = ""
    # only what a host name or an address is made of: no whitespace, control
    # characters or leading dot reach the resolver, the Host header or SNI
    if not _valid_host(host, bracketed=hostport.startswith("[")) or not 0 < port < 65536:
        raise UnsupportedURL(f"no valid host and port in {_no_userinfo(url)!r}")
    if not target.startswith("/"):
        target = "/" + target
    if not (target.isascii() and target.isprintable()) or " " in target:  # percent-encoded as httpx did
        from urllib.parse import quote

        target = quote(target, safe="!#$%&'()*+,/:;=?@[]~")
    return Url(Origin(scheme, host.lower(), port), target, userinfo)


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
_IPV6_CHARS = frozenset("0123456789abcdefABCDEF:.")


def _valid_host(host: str, *, bracketed: bool) -> bool:
    """A name of DNS's lengths (labels of letters, digits, ``-``, ``_``; a
    trailing dot), an IPv4 address, or in brackets an IPv6 one (no zone)."""
    if bracketed:
        return ":" in host and set(host) <= _IPV6_CHARS
    labels = host.removesuffix(".").split(".")
    return len(host) <= 253 and all(0 < len(label) <= 63 and set(label) <= _NAME_CHARS for label in labels)


def _no_userinfo(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    return f"{scheme}{sep}{rest.rpartition('@')[2]}" if sep else url


# --- proxies ------------------------------------------------------------------------------


class Proxy(NamedTuple):
    url: Url
    headers: tuple[tuple[str, str], ...]  # Proxy-Authorization when the URL names a user


def environment_proxy(origin: Origin, environ: Mapping[str, str]) -> Proxy | None:
    """The proxy the environment sets for ``origin``, or None (see the module docs)."""
    value = _env(environ, f"{origin.scheme}_proxy") or _env(environ, "all_proxy")
    if not value or _no_proxy(origin, _env(environ, "no_proxy")):
        return None
    url = parse_url(value if "://" in value else f"http://{value}")
    headers: tuple[tuple[str, str], ...] = ()
    if url.userinfo:
        from urllib.parse import unquote  # only for a proxy with a password

        user, _, password = url.userinfo.partition(":")
        token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode("ascii")
        headers = (("proxy-authorization", f"Basic {token}"),)
    return Proxy(url, headers)


def _env(environ: Mapping[str, str], lower: str) -> str:
    # lower case wins, even set empty (urllib's reading); HTTP_PROXY is
    # ignored under CGI (REQUEST_METHOD set), where a client's Proxy header sets it
    if lower in environ:
        return environ[lower].strip()
    if lower == "http_proxy" and "REQUEST_METHOD" in environ:
        return ""
    return environ.get(lower.upper(), "").strip()


def _no_proxy(origin: Origin, entries: str) -> bool:
    for entry in (e.strip().lower() for e in entries.split(",")):
        if entry == "*":
            return True
        if not entry:
            continue
        scheme, sep, rest = entry.rpartition("://")
        if sep and scheme != origin.scheme:
            continue
        host, port = rest, ""
        if rest.startswith("["):
            host, _, port = rest[1:].partition("]")
            port = port.removeprefix(":")
        elif rest.count(":") == 1:
            host, _, port = rest.partition(":")
        if port and port != str(origin.port):
            continue
        if host.startswith("."):  # subdomains only
            if origin.host.endswith(host):
                return True
        elif origin.host == host or origin.host.endswith("." + host.removeprefix("*.")):
            return True
    return False


# --- streams ------------------------------------------------------------------------------


Connect = Callable[[Origin], Awaitable[trio.abc.Stream]]


async def open_stream(
    origin: Origin, proxy: Proxy | None, tls: Callable[[], ssl.SSLContext], connect: Connect | None
) -> trio.abc.Stream:
    """A byte stream to ``origin``: ``connect`` when given (a test's stand-in:
    no proxy, no TLS), else TCP, through ``proxy`` when set (tunnelled for
    ``https``), with TLS for ``https``. Errors are ``ConnectError``/``ProxyError``."""
    if connect is not None:
        return await connect(origin)
    hop = origin if proxy is None else proxy.url.origin
    try:
        stream: trio.abc.Stream = await trio.open_tcp_stream(hop.host, hop.port)
    except (OSError, ValueError) as exc:  # ValueError: the resolver's IDNA codec refusing a name
        raise ConnectError(str(exc) or type(exc).__name__) from None
    try:
        if hop.scheme == "https":  # the origin, or an https proxy
            stream = await _start_tls(stream, hop.host, tls())
        if proxy is not None and origin.scheme == "https":  # TLS inside the tunnel
            await _tunnel(stream, origin, proxy)
            stream = await _start_tls(stream, origin.host, tls())
    except BaseException:
        await trio.aclose_forcefully(stream)
        raise
    return stream


async def _start_tls(stream: trio.abc.Stream, host: str, context: ssl.SSLContext) -> trio.SSLStream[trio.abc.Stream]:
    tls = trio.SSLStream(stream, context, server_hostname=host, https_compatible=True)
    try:
        await tls.do_handshake()
    except (trio.BrokenResourceError, OSError) as exc:
        cause = exc.__cause__ or exc  # trio wraps the ssl.SSLError that says why
        raise ConnectError(str(cause) or type(cause).__name__) from None
    return tls


async def _tunnel(stream: trio.abc.Stream, origin: Origin, proxy: Proxy) -> None:
    """``CONNECT host:port`` through the proxy; returns once it answered 2xx."""
    import h11

    target = f"{origin.host if ':' not in origin.host else f'[{origin.host}]'}:{origin.port}"
    conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_PROXY_HEAD)
    headers = [("host", target), ("accept", "*/*"), *proxy.headers]
    try:
        head = conn.send(h11.Request(method="CONNECT", target=target, headers=headers)) or b""
        await stream.send_all(head + (conn.send(h11.EndOfMessage()) or b""))
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(bytes(await stream.receive_some(MAX_PROXY_HEAD)))
            elif isinstance(event, h11.Response):
                break
            elif not isinstance(event, h11.InformationalResponse):
                raise ProxyError("the proxy closed the connection before answering CONNECT")
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError, h11.ProtocolError) as exc:
        raise ProxyError(f"tunnel through the proxy failed: {type(exc).__name__}: {exc}") from None
    if not 200 <= event.status_code < 300:
        raise ProxyError(f"{event.status_code} {event.reason.decode('ascii', 'ignore')}")
    # a 2xx to CONNECT switches the protocol: what follows is the tunnel's
    if conn.trailing_data[0]:
        raise ProxyError("the proxy sent data after its answer to CONNECT")


def default_tls_context(*, trust_env: bool) -> ssl.SSLContext:
    """What httpx verified with: ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when
    ``trust_env``, else certifi's bundle; hostnames checked. A bundle that
    does not load is an ``HttpError`` (not retried) naming it."""
    import ssl

    cafile = os.environ.get("SSL_CERT_FILE") if trust_env else None
    capath = os.environ.get("SSL_CERT_DIR") if trust_env and not cafile else None
    if not cafile and not capath:
        import certifi

        cafile = certifi.where()
    try:
        return ssl.create_default_context(cafile=cafile or None, capath=capath or None)
    except OSError as exc:  # ssl.SSLError included
        raise HttpError(f"the CA certificates at {cafile or capath} do not load: {exc}") from None
