"""A response body's content-encodings undone a bounded piece at a time, for
:mod:`harness.llm.http1`.

``gzip`` (``x-gzip``) and ``deflate`` (zlib-wrapped, or raw as some servers
send it) are undone with zlib; ``identity`` passes through; any other coding
is a ``DecodingError``, as are more than :data:`MAX_LAYERS` codings (each
layer holds a zlib window; urllib3 refuses long chains for the same reason).
No step yields more than :data:`MAX_STEP` decoded bytes: a small compressed
body may expand a thousandfold per layer, so what a read received is held
compressed (zlib's ``unconsumed_tail``) and inflated as it is asked for,
never all at once.
"""

from __future__ import annotations

import zlib

from .http1_transport import DecodingError

#: content-codings undone at most (more is refused, not decoded)
MAX_LAYERS = 5
#: decoded bytes one step yields at most
MAX_STEP = 64 * 1024


class Decoder:
    """Undoes the codings ``header`` names (a ``Content-Encoding`` value):
    :meth:`feed` what arrived, :meth:`end` at the body's end, and take
    :meth:`next` until it returns ``b""`` (it wants more input, or after
    :meth:`end` the body is all decoded)."""

    def __init__(self, header: str) -> None:
        self.layers = _layers(header)
        self.ended = False

    def feed(self, data: bytes) -> None:
        self.layers[0].give(data)

    def end(self) -> None:
        self.ended = True

    def next(self) -> bytes:
        return self._pull(len(self.layers) - 1)

    def _pull(self, i: int) -> bytes:
        """At most MAX_STEP bytes out of layer ``i``, pulling from the layer before as needed."""
        layer = self.layers[i]
        while True:
            out = layer.step()
            if out:
                return out
            more = self._pull(i - 1) if i else b""
            if more:
                layer.give(more)
                continue
            return layer.finish() if self.ended else b""


class _Inflate:
    """One zlib layer; ``deflate`` is tried zlib-wrapped, then raw (servers send both)."""

    def __init__(self, wbits: int, *, raw_fallback: bool = False) -> None:
        self._zlib = zlib.decompressobj(wbits)
        self._fallback = raw_fallback
        self._pending = b""
        self._finished = False

    def give(self, data: bytes) -> None:
        self._pending += data  # empty when given: a layer is given input only once it is starved

    def step(self) -> bytes:
        if self._finished:
            return b""
        data, self._pending = self._pending, b""
        try:
            out = self._zlib.decompress(data, MAX_STEP)
        except zlib.error as exc:
            if not self._fallback:
                raise DecodingError(f"content does not decode: {exc}") from None
            self._fallback = False
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            self._pending = data
            return self.step()
        self._fallback = self._fallback and not data
        self._pending = self._zlib.unconsumed_tail
        return out

    def finish(self) -> bytes:
        """What zlib still holds, once (a step yielded nothing: it is little)."""
        if self._finished:
            return b""
        self._finished = True
        try:
            return self._zlib.flush()
        except zlib.error as exc:
            raise DecodingError(f"content does not decode: {exc}") from None


def _layers(header: str) -> list[_Inflate]:
    """The layers to undo, outermost (last applied) first."""
    layers: list[_Inflate] = []
    for name in reversed([part.strip().lower() for part in header.split(",")]):
        if name in ("gzip", "x-gzip"):
            layers.append(_Inflate(zlib.MAX_WBITS | 16))
        elif name == "deflate":
            layers.append(_Inflate(zlib.MAX_WBITS, raw_fallback=True))
        elif name not in ("", "identity"):
            raise DecodingError(f"unsupported content-encoding {name[:40]!r}")
        if len(layers) > MAX_LAYERS:
            raise DecodingError(f"more than {MAX_LAYERS} content-encodings")
    return layers
