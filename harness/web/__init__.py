"""``harness serve``: the web client (an ASGI app on loopback, a plain static page)."""
