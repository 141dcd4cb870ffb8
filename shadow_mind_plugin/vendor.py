"""Which vendor family a route belongs to, and the honest independence label.

The label only annotates runs (status, journals); it changes no behaviour. An
unknown provider never proves independence, so it yields ``unverified``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from .vocabulary import Independence

UNKNOWN: Final = "unknown"

PROVIDER_VENDORS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "anthropic": "anthropic",
        "aws-bedrock": "amazon",
        "bedrock": "amazon",
        "codex": "openai",
        "deepseek": "deepseek",
        "deepseek-official": "deepseek",
        "google": "google",
        "google-vertex": "google",
        "openai": "openai",
        # a compatible endpoint can front any vendor's model: ask the model name
        "openai-compatible": UNKNOWN,
        "vertex": "google",
    }
)

#: Substrings of the lowercased model id, checked in this order.
MODEL_MARKERS: Final[tuple[tuple[str, str], ...]] = (
    ("claude", "anthropic"),
    ("deepseek", "deepseek"),
    ("gemini", "google"),
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
)


def vendor_family(route: str) -> str:
    """The vendor of a ``provider/model`` route: the provider's when known, else the
    first model marker that matches, else ``"unknown"``."""
    provider, slash, model = route.partition("/")
    vendor = PROVIDER_VENDORS.get(provider.lower(), UNKNOWN)
    if vendor != UNKNOWN:
        return vendor
    model = model.lower() if slash else ""
    for marker, family in MODEL_MARKERS:
        if marker in model:
            return family
    return UNKNOWN


def independence(root_route: str | None, shadow_route: str | None) -> Independence:
    """``unavailable`` without both routes, ``unverified`` when a vendor is unknown,
    else ``same_vendor`` or ``independent``."""
    if root_route is None or shadow_route is None:
        return Independence.UNAVAILABLE
    root_vendor = vendor_family(root_route)
    shadow_vendor = vendor_family(shadow_route)
    if UNKNOWN in (root_vendor, shadow_vendor):
        return Independence.UNVERIFIED
    return Independence.SAME_VENDOR if root_vendor == shadow_vendor else Independence.INDEPENDENT
