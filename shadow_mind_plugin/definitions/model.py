"""Value types of the definition store: a parsed definition, a per-file
diagnostic and the catalog that groups them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Final, Literal

import attrs

from ..vocabulary import DEFAULT_ACTIVATION_PROBABILITY, DEFAULT_SHADOW_ID, DEFAULT_SHADOW_TOOLS

Capture = Literal["full", "since-compaction"]
ContextMode = Literal["standard", "minimal"]
#: who reviews: a model child (the default) or only the deterministic evidence checks
Reviewer = Literal["model", "checks"]
#: reviewing when an evidence check fires: not at all (only the roll), as well as the roll, or instead of it
ReviewOnCheck = Literal["off", "any", "only"]

CAPTURE_VALUES: Final[tuple[Capture, ...]] = ("full", "since-compaction")
CONTEXT_VALUES: Final[tuple[ContextMode, ...]] = ("standard", "minimal")
REVIEWER_VALUES: Final[tuple[Reviewer, ...]] = ("model", "checks")
REVIEW_ON_CHECK_VALUES: Final[tuple[ReviewOnCheck, ...]] = ("off", "any", "only")

#: Ids double as file and log names, so they are restricted to a safe alphabet.
#: Always use ``fullmatch``: Python's ``$`` also accepts a trailing newline.
SHADOW_ID_PATTERN: Final = re.compile(r"[a-z0-9][a-z0-9_-]*")
TOOL_NAME_PATTERN: Final = re.compile(r"[a-z][a-z0-9_-]*")
#: The patterns as the reference spells them in its (contractual) messages.
SHADOW_ID_PATTERN_TEXT: Final = "/^[a-z0-9][a-z0-9_-]*$/u"
TOOL_NAME_PATTERN_TEXT: Final = "/^[a-z][a-z0-9_-]*$/u"


# typed converters: ``converter=tuple`` leaves the element type unresolved for the type checker
def _strings(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(values)


def is_shadow_id(value: str) -> bool:
    return SHADOW_ID_PATTERN.fullmatch(value) is not None


@attrs.frozen(kw_only=True)
class ShadowDefinition:
    """One validated reviewer definition (a ``shadow-minds/*.md`` file).

    Defaults equal the parser's defaults for absent frontmatter keys.
    ``source_path`` records where the definition was read from; it is excluded
    from equality so a definition equals its own re-parsed serialization.
    """

    id: str
    name: str
    prompt: str
    enabled: bool = True
    debug: bool = False
    activation_probability: float = DEFAULT_ACTIVATION_PROBABILITY
    active_for_models: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    run_with_model: str | None = None
    reasoning_effort: str | None = None
    timeout_seconds: float | None = None
    tools: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    capture: Capture = "full"
    context: ContextMode = "standard"
    think_first: bool = False
    holdout: bool = False
    #: ``checks``: no child and no model; the evidence checks' most severe finding is the report
    reviewer: Reviewer = "model"
    #: ``any``: a turn whose checks fire is reviewed whatever the roll says; ``only``: and no other turn is
    review_on_check: ReviewOnCheck = "off"
    source_path: Path | None = attrs.field(default=None, eq=False)

    @property
    def is_default(self) -> bool:
        return self.id == DEFAULT_SHADOW_ID

    @property
    def reviewer_tools(self) -> tuple[str, ...]:
        """The tools a run of this definition is offered: the read-only defaults,
        then the definition's own, each once."""
        return tuple(dict.fromkeys((*DEFAULT_SHADOW_TOOLS, *self.tools)))


@attrs.frozen
class DefinitionDiagnostic:
    """A file that did not load. ``path`` is relative to the ``shadow-minds``
    directory (a file name); ``error`` is the reason, without the path."""

    path: str
    error: str


def _definitions(values: Iterable[ShadowDefinition]) -> tuple[ShadowDefinition, ...]:
    return tuple(values)


def _diagnostics(values: Iterable[DefinitionDiagnostic]) -> tuple[DefinitionDiagnostic, ...]:
    return tuple(values)


@attrs.frozen(kw_only=True)
class Catalog:
    """Valid definitions (sorted by file name, first id wins) plus diagnostics."""

    definitions: tuple[ShadowDefinition, ...] = attrs.field(default=(), converter=_definitions)
    diagnostics: tuple[DefinitionDiagnostic, ...] = attrs.field(default=(), converter=_diagnostics)

    def get(self, id: str) -> ShadowDefinition | None:
        for definition in self.definitions:
            if definition.id == id:
                return definition
        return None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(d.id for d in self.definitions)

    @property
    def legacy(self) -> tuple[ShadowDefinition, ...]:
        """Valid definitions other than ``default``: listed, never scheduled."""
        return tuple(d for d in self.definitions if not d.is_default)
