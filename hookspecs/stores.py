"""Host-neutral stores a plugin may provide or find: memory notes, a skill
library, the process-event channel, and the directory that holds them.

A host that offers the optional services exposes ``host.services`` (a
:class:`ServiceDirectory`) and ``host.emit`` (a :class:`ProcessEvents`);
:func:`services_of` and :func:`process_events_of` find them without assuming
they exist, so a plugin runs on hosts that lack them. A plugin providing a
store registers it with ``services.provide(name, store)`` in
``dsh_plugin_setup``; one finding it calls ``services.get(name)``.

Importing this module has no side effects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal, Protocol, runtime_checkable

import attrs

#: ``services.get(MEMORY_SERVICE)`` -> a :class:`MemoryStore`
MEMORY_SERVICE: Final = "memory"
#: ``services.get(SKILLS_SERVICE)`` -> a :class:`SkillLibrary`
SKILLS_SERVICE: Final = "skills"

MemoryTarget = Literal["memory", "user"]
MemoryAction = Literal["add", "replace", "remove"]
SkillAction = Literal["write", "patch"]


@attrs.frozen(kw_only=True)
class MemoryOp:
    """One change to the notes. ``memory`` holds what the agent learned about
    the work, ``user`` what it learned about the person.

    ``add`` appends ``text``; ``replace`` swaps ``old_text`` for ``text``;
    ``remove`` deletes ``old_text``. ``old_text`` must occur exactly once.
    """

    action: MemoryAction
    target: MemoryTarget
    text: str = ""
    old_text: str = ""


@attrs.frozen(kw_only=True)
class MemorySnapshot:
    """Both notes files as they are now (empty strings when absent)."""

    memory: str = ""
    user: str = ""


@attrs.frozen(kw_only=True)
class OpOutcome:
    """What happened to one operation: ``applied`` or the reason it was not."""

    index: int
    applied: bool
    reason: str = ""


@attrs.frozen(kw_only=True)
class SkillInfo:
    """One entry of the library listing."""

    name: str
    description: str
    chars: int
    protected: bool


class MemoryStore(Protocol):
    """Bounded plain-text notes (``memory`` and ``user``)."""

    def snapshot(self) -> MemorySnapshot: ...

    def apply_batch(self, ops: Sequence[MemoryOp]) -> list[OpOutcome]:
        """Apply every op in order; each fails alone (a missing ``old_text``, a
        result over the target's size cap). The file is rewritten atomically
        once. Raises :class:`~hookspecs.errors.DshError` only when the write
        itself fails."""
        ...


class SkillLibrary(Protocol):
    """Named Markdown skills, one ``SKILL.md`` per name.

    ``write`` and ``patch`` raise :class:`~hookspecs.errors.ToolArgsError` with a
    model-facing reason (protected name, size cap, bad name, no unique match).
    """

    def list(self) -> list[SkillInfo]: ...

    def read(self, name: str) -> str:
        """The skill's text; raises ``ToolArgsError`` when there is none."""
        ...

    def exists(self, name: str) -> bool: ...

    def is_protected(self, name: str) -> bool: ...

    def write(self, name: str, content: str, *, origin: str) -> None:
        """Create or replace ``name``; ``origin`` says who wrote it (``tool``,
        ``background_review``)."""
        ...

    def patch(self, name: str, old: str, new: str, *, origin: str) -> None:
        """Replace the one occurrence of ``old`` with ``new``."""
        ...


@runtime_checkable
class ServiceDirectory(Protocol):
    """Optional services by name."""

    def get(self, name: str) -> Any:
        """The service, or None when nobody provides it."""
        ...

    def provide(self, name: str, service: object) -> Callable[[], None]:
        """Publish ``service`` under ``name``; raises ``DshError`` when the name
        is taken. Returns the disposer that withdraws it."""
        ...


@runtime_checkable
class ProcessEvents(Protocol):
    """Process-local events: observers see them through ``dsh_process_event``;
    they are never written to a session log."""

    def emit(self, name: str, payload: Mapping[str, Any]) -> None: ...


def services_of(host: object) -> ServiceDirectory | None:
    """``host.services`` when the host offers a service directory, else None."""
    services = getattr(host, "services", None)
    return services if isinstance(services, ServiceDirectory) else None


def process_events_of(host: object) -> ProcessEvents | None:
    """``host`` itself when it can ``emit`` process events, else None."""
    return host if isinstance(host, ProcessEvents) else None


__all__ = [
    "MEMORY_SERVICE",
    "SKILLS_SERVICE",
    "MemoryOp",
    "MemorySnapshot",
    "MemoryStore",
    "OpOutcome",
    "ProcessEvents",
    "ServiceDirectory",
    "SkillInfo",
    "SkillLibrary",
    "process_events_of",
    "services_of",
]
