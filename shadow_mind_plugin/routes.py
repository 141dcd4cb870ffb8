"""``provider/model`` routes: syntax, parsing and the per-run model selection."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

import attrs

from .utf16 import JS_SPACE

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

#: A non-empty provider without ``/`` or whitespace, ``/``, then a whitespace-free
#: model id that may hold more slashes (``provider/org/model``); whitespace is JS ``\s``
#: (the reference pattern is a JS regex). Use ``fullmatch``:
#: ``$`` would also accept a trailing newline.
ROUTE_PATTERN: Final = re.compile(f"[^/{JS_SPACE}]+/[^{JS_SPACE}]+")

ROUTE_SELECTION_ERROR: Final = "Shadow model route must use provider/model"
EFFORT_WITHOUT_ROUTE_ERROR: Final = "reasoning_effort needs run_with_model or a complete root provider/model route"


def js_trim(text: str) -> str:
    """``String.prototype.trim``: strips JS whitespace and line terminators."""
    return text.strip(JS_SPACE)


def is_route(value: str) -> bool:
    return ROUTE_PATTERN.fullmatch(value) is not None


def normalize_route(value: str, key: str) -> str:
    """The trimmed route, or ``ValueError("<key> must use provider/model")``."""
    trimmed = js_trim(value)
    if not is_route(trimmed):
        raise ValueError(f"{key} must use provider/model")
    return trimmed


def parse_route(route: str, key: str) -> tuple[str, str]:
    """Split a (trimmed) route at its first ``/`` into ``(provider, model)``."""
    provider, _, model = normalize_route(route, key).partition("/")
    return provider, model


def root_route(agent: Agent) -> str | None:
    """The root's resolved route (``Agent.resolved_route``: its options, else the
    host's default such as the profile's model), or None when the host resolves
    none or hands over something that is not ``provider/model``."""
    route = agent.resolved_route
    return route if isinstance(route, str) and is_route(route) else None


@attrs.frozen(kw_only=True)
class ModelSelection:
    """A request-time route (and effort) for a Shadow child."""

    provider: str
    model: str
    reasoning_effort: str | None = None

    @property
    def route(self) -> str:
        return f"{self.provider}/{self.model}"


def model_selection(
    *,
    run_with_model: str | None,
    reasoning_effort: str | None,
    root: str | None,
    override_route: str | None = None,
    override_effort: str | None = None,
) -> ModelSelection | None:
    """The child's model selection, or None to inherit the root's route unchanged.

    ``override_*`` come from governance (frugal tier route, escalated effort) and
    win over the definition. An effort alone is applied on the root's route, which
    must then be complete (see :func:`root_route`).
    """
    route = override_route if override_route is not None else run_with_model
    effort = override_effort if override_effort is not None else reasoning_effort
    if route is None and effort is None:
        return None
    selected = route if route is not None else root
    if selected is None:
        raise ValueError(EFFORT_WITHOUT_ROUTE_ERROR)
    provider, slash, model = selected.partition("/")
    if not slash or not provider or not model:
        raise ValueError(ROUTE_SELECTION_ERROR)
    return ModelSelection(provider=provider, model=model, reasoning_effort=effort)
