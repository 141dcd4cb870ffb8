"""``provider/model`` route strings.

A route names a registered provider (no ``/``, no whitespace) and a
provider-owned model id, which may itself contain ``/`` (for example
``openrouter/org/model``): only the first ``/`` separates the two parts.
"""

from __future__ import annotations


def provider_name_problem(provider: object) -> str | None:
    """Why ``provider`` cannot be a provider name, or None when it can."""
    if not isinstance(provider, str) or not provider:
        return "must be a non-empty string"
    if "/" in provider:
        return "must not contain '/'"
    if any(ch.isspace() for ch in provider):
        return "must not contain whitespace"
    return None


def parse_route(route: str, *, where: str = "model") -> tuple[str, str]:
    """Split ``provider/model``; ``where`` names the setting in the error.

    Raises ``ValueError("<where> must use provider/model (got '<route>')")`` when
    either part is empty or contains whitespace.
    """
    if isinstance(route, str):
        provider, sep, model = route.partition("/")
        if sep and model and provider_name_problem(provider) is None and not _has_space(model):
            return provider, model
    raise ValueError(f"{where} must use provider/model (got '{route}')")


def format_route(provider: str, model: str) -> str:
    """The route string for ``provider`` and ``model``; raises ``ValueError``
    when the result would not parse back to the same pair."""
    route = f"{provider}/{model}"
    if parse_route(route, where="route") != (provider, model):
        raise ValueError(f"route must use provider/model (got '{route}')")
    return route


def _has_space(text: str) -> bool:
    return any(ch.isspace() for ch in text)
