"""Starters: the reviewer definitions shipped with the package (``shadow_mind_plugin/starters``).

They are examples: disabled, never copied into ``$DSH_HOME`` by the plugin. A
user who wants one copies the file into ``shadow-minds/`` (only ``default.md``
is scheduled, so usually as ``default.md``). Files are read through
:mod:`importlib.resources`, so wheel and zip installs work too.

The shipped files are generated from :data:`STARTER_SPECS` and the probe
classes; regenerate them with
``python -m shadow_mind_plugin.definitions.regen_starters --write``.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

import attrs

from .errors import DefinitionError
from .model import ShadowDefinition
from .parse import parse_definition
from .probes import STARTER_PROBES, render_probe_checklist
from .serialize import serialize_definition

STARTERS_PACKAGE: Final = "shadow_mind_plugin.starters"
STARTER_ACTIVATION_PROBABILITY: Final = 0.3

CLOSING_RULE: Final = (
    "When you report, say which probe class you applied and give an anchored verdict "
    "whose refs cite only sequence numbers shown in the trajectory."
)


@attrs.frozen
class StarterSpec:
    """What a starter file is generated from: its id, name and opening sentence."""

    id: str
    name: str
    opening: str


STARTER_SPECS: Final[tuple[StarterSpec, ...]] = (
    StarterSpec(
        "architect",
        "Architecture Shadow",
        "You are the Architecture Shadow: check that the root's steps still fit together across the turn, "
        "watching for work built on inputs that have since changed and for claims that do not follow "
        "from the results the root actually saw.",
    ),
    StarterSpec(
        "contrarian",
        "Contrarian Shadow",
        "You are the Contrarian Shadow: take the root's strongest claim and try to break it, "
        "preferably with a concrete counterexample drawn from the trajectory.",
    ),
    StarterSpec(
        "evidence",
        "Evidence Shadow",
        "You are the Evidence Shadow: for each conclusion the root draws, ask whether visible evidence "
        "supports it; data that was omitted or hidden is an evidence gap, never support.",
    ),
    StarterSpec(
        "failure-path",
        "Failure-path Shadow",
        "You are the Failure-path Shadow: follow what happens when things go wrong, how the root handles "
        "errors and operations it repeats, and name the probe class behind each finding.",
    ),
    StarterSpec(
        "simplification",
        "Simplification Shadow",
        "You are the Simplification Shadow: point out repeated work or machinery the task does not need, "
        "but only where the trajectory demonstrates it.",
    ),
)


def list_starters() -> list[str]:
    """Names of the packaged starter files (without ``.md``), sorted."""
    root = resources.files(STARTERS_PACKAGE)
    return sorted(e.name.removesuffix(".md") for e in root.iterdir() if e.name.endswith(".md") and e.is_file())


def load_starter(name: str) -> ShadowDefinition:
    """Parse one packaged starter; an unknown name lists the available ones."""
    available = list_starters()
    if name not in available:
        raise DefinitionError(f"unknown starter {name!r}; available: {', '.join(available)}")
    resource = _resource(name)
    definition = parse_definition(resource.read_text(encoding="utf-8"), Path(f"{name}.md"))
    # a real file when installed as a directory; zip imports have no path
    return attrs.evolve(definition, source_path=resource if isinstance(resource, Path) else None)


def starter_source(name: str) -> str:
    """The raw packaged text of a starter."""
    if name not in list_starters():
        raise DefinitionError(f"unknown starter {name!r}; available: {', '.join(list_starters())}")
    return _resource(name).read_text(encoding="utf-8")


def render_starter(spec: StarterSpec) -> str:
    """The canonical file text of a starter."""
    body = "\n\n".join([spec.opening, render_probe_checklist(STARTER_PROBES[spec.id]), CLOSING_RULE])
    return serialize_definition(
        ShadowDefinition(
            id=spec.id,
            name=spec.name,
            enabled=False,
            activation_probability=STARTER_ACTIVATION_PROBABILITY,
            capture="since-compaction",
            prompt=body,
        )
    )


def _resource(name: str) -> Traversable:
    return resources.files(STARTERS_PACKAGE) / f"{name}.md"
