"""A plain-``http`` endpoint (a local server) never loads the CA bundle.

Loading it cost several times the interpreter's start at every ``harness
run``; the context that replaces it trusts nothing, so a TLS connection
through it fails instead of going unverified.
"""

from __future__ import annotations

import ssl

import pytest

from harness.llm.openai_compat.adapter import tls_context

HTTP = "http://127.0.0.1:8000/v1/chat/completions"


def test_an_https_endpoint_keeps_the_default_verification() -> None:
    assert tls_context("https://api.deepseek.com/v1/chat/completions", trust_env=True) is True


def test_an_http_endpoint_gets_a_context_that_trusts_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    context = tls_context(HTTP, trust_env=True)
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0


@pytest.mark.parametrize("name", ["HTTP_PROXY", "all_proxy"])
def test_an_https_proxy_from_the_environment_keeps_the_default(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv(name, "https://proxy.example:3128")
    assert tls_context(HTTP, trust_env=True) is True
    assert isinstance(tls_context(HTTP, trust_env=False), ssl.SSLContext)  # the environment is not read
