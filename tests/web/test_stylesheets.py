"""Plugin stylesheets: plain CSS, bounded, one per plugin."""

from __future__ import annotations

import logging

import pytest

from harness.client import ClientServiceImpl
from hookspecs.errors import DshError
from hookspecs.values import Stylesheet
from hookspecs.values.client import MAX_STYLESHEET_CHARS


@pytest.mark.parametrize(
    "css",
    [
        "a { background: url(https://evil.test/x.png) }",
        "a { background: URL ( x ) }",
        "@import 'https://evil.test/x.css';",
        "</style><script>alert(1)</script>",
        "a { width: expression(alert(1)) }",
        "x" * (MAX_STYLESHEET_CHARS + 1),
    ],
)
def test_a_stylesheet_that_fetches_escapes_or_is_huge_is_refused(css: str) -> None:
    with pytest.raises(ValueError, match="css"):
        Stylesheet(plugin="p", css=css)


def test_one_stylesheet_per_plugin_in_name_order() -> None:
    client = ClientServiceImpl(logging.getLogger("test"))
    remove_b = client.contribute(Stylesheet(plugin="b", css=".b { color: red }"))
    client.contribute(Stylesheet(plugin="a", css=".a { color: blue }"))
    with pytest.raises(DshError, match="'a'"):
        client.contribute(Stylesheet(plugin="a", css=""))
    assert [s.plugin for s in client.stylesheets()] == ["a", "b"]
    remove_b()
    assert [s.plugin for s in client.stylesheets()] == ["a"]
