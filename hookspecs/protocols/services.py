"""Settings, models, client cards and compaction (``host.settings``,
``host.llm``, ``host.client``, ``host.compaction``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # annotations only: a protocol's import loads no value class
    from ..values.cancel import CancelToken
    from ..values.client import Card, CardRenderer, CardView, Notice, SettingsTab, Stylesheet
    from ..values.compaction import CompactionResult, CompactionTrigger
    from ..values.events import SessionEvent
    from ..values.live import Agent
    from ..values.llm import LlmRequest, ModelInfo, StreamChunk
    from ..values.settings import SettingsDescriptor, SettingsOp, SettingsSpec
    from .disposer import Disposer

# --- settings -------------------------------------------------------------------------------


class SettingsService(Protocol):
    def register(self, spec: SettingsSpec) -> Disposer: ...

    def get(self, namespace: str) -> Any:
        """The resolved value (an instance of the namespace's schema class)."""
        ...

    def revision(self, namespace: str) -> str: ...

    def describe(self, *, redact_secrets: bool = True) -> list[SettingsDescriptor]: ...

    async def mutate(
        self,
        namespace: str,
        ops: Sequence[SettingsOp],
        *,
        expected_revision: str | None = None,
    ) -> Any:
        """Apply ``ops`` to the user document and persist it atomically; returns the
        new resolved value. Raises ``SettingsConflictError`` on a stale revision
        and ``SettingsError`` naming the field when the result would be invalid."""
        ...


# --- LLMs -------------------------------------------------------------------------------------


@runtime_checkable
class LlmAdapter(Protocol):
    """Talks to one provider. ``stream`` yields chunks and raises ``LlmError``."""

    @property
    def provider(self) -> str: ...

    def models(self) -> Sequence[ModelInfo]: ...

    def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]: ...


class LlmService(Protocol):
    def register_adapter(self, adapter: LlmAdapter) -> Disposer: ...

    def providers(self) -> list[str]: ...

    def models(self, provider: str) -> list[ModelInfo]: ...

    def model_info(self, provider: str, model: str) -> ModelInfo | None: ...

    def stream(self, request: LlmRequest, cancel: CancelToken) -> AsyncIterator[StreamChunk]: ...


# --- client -------------------------------------------------------------------------------------


class ClientService(Protocol):
    """Process-local cards and notices for user interfaces (``host.client``);
    nothing here becomes a session event. Every member is synchronous and quick."""

    def upsert_card(self, card: Card) -> None: ...

    def remove_card(self, session_id: str, key: str) -> None: ...

    def cards(self, session_id: str) -> list[Card]: ...

    def restore(self, session_id: str, events: Sequence[SessionEvent]) -> list[Card]:
        """When a client opens a session (after a restart its live cards are
        gone): each renderer's ``restore`` rebuilds cards from the session's
        durable ``events``; a live card with the same key wins, a renderer that
        raises is logged and skipped. Returns the session's cards, as ``cards``."""
        ...

    def view(self, card: Card) -> CardView:
        """The card's view model from its kind's renderer; a kind without a
        ``view`` (or one that raises, logged) shows its terminal text as the
        banner. Recomputed on every call, so it may read live settings."""
        ...

    def notice(self, notice: Notice) -> None: ...

    def notices(self) -> list[Notice]:
        """The latest notices (bounded, oldest first), for a client that connects late."""
        ...

    def subscribe(self, listener: Callable[[Card | Notice], None]) -> Disposer:
        """Call ``listener`` with every card pushed (a removed one once more, with
        ``visibility`` ``hidden``) and every notice, synchronously; a listener
        that raises is logged and stays subscribed."""
        ...

    def settings_tabs(self) -> list[SettingsTab]: ...

    def renderer(self, kind: str) -> CardRenderer | None: ...

    def stylesheets(self) -> list[Stylesheet]:
        """Plugin stylesheets in plugin-name order (rich clients load them)."""
        ...


# --- compaction ----------------------------------------------------------------------------


class CompactionEngine(Protocol):
    """The optional ``compaction`` service (``host.compaction``; None when off).

    An engine writes the durable trace (``compaction/start``,
    ``compaction/summary``, the checkpoint ``user/message`` with ``surface_op``
    ``replace``, ``compaction/end``); the host derives the compacted history
    from the log after every call, so an engine never edits live state.
    """

    async def compact_if_needed(
        self, agent: Agent, trigger: CompactionTrigger, cancel: CancelToken, *, request: LlmRequest | None = None
    ) -> CompactionResult:
        """Automatic compaction, called by the loop inside a turn: ``pressure``
        right before ``request`` is sent, ``context-overflow`` after the provider
        rejected it (the loop then retries once). Never raises for a failed
        compaction: the failure is recorded in ``compaction/end`` and the result
        says ``compacted=False``."""
        ...

    async def compact_now(
        self, agent: Agent, cancel: CancelToken, *, source_command_id: str | None = None
    ) -> CompactionResult:
        """Manual compaction from idle (``/compact``). Raises
        :class:`~hookspecs.errors.ManualCompactionError` (``busy``,
        ``cancelled``, ``changed``, ``summary``, ``commit``, ``persistence``)."""
        ...
