"""``active_for_models``: whether a definition reviews the root's resolved model.

An entry matches the root's resolved route (``provider/model``) or its model id
alone, as a case-sensitive shell-style glob (``*``, ``?``, ``[...]``; an entry
without wildcards is an exact match). An empty list means every model. A root
whose route the host cannot resolve matches no entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from ..routes import root_route
from ..vocabulary import DEFAULT_SHADOW_ID, ReasonCode

if TYPE_CHECKING:
    from hookspecs.protocols import Agent

    from ..definitions.model import Catalog


def model_is_active(patterns: Sequence[str], route: str | None) -> bool:
    if not patterns:
        return True
    if route is None:
        return False
    model = route.partition("/")[2]
    return any(fnmatchcase(route, pattern) or fnmatchcase(model, pattern) for pattern in patterns)


def model_skip(patterns: Sequence[str], route: str | None) -> dict[str, Any] | None:
    """The ``skipped`` record of a cycle the model filter stops, else None."""
    if model_is_active(patterns, route):
        return None
    return {
        "reason_code": str(ReasonCode.MODEL_NOT_ACTIVE),
        "root_route": route,
        "active_for_models": list(patterns),
    }


def default_model_skip(catalog: Catalog, agent: Agent) -> dict[str, Any] | None:
    """For ``/shadow status``: the skip the ``default`` definition's filter would
    give ``agent`` now (None when it reviews it, or no default is defined)."""
    definition = catalog.get(DEFAULT_SHADOW_ID)
    if definition is None:
        return None
    return model_skip(definition.active_for_models, root_route(agent))
