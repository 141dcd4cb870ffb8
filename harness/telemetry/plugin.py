"""The exporting ``telemetry`` plugin: host hooks in, spans and evaluation events out.

Every hook only records (the SDK's batch processors queue finished spans and
events; their worker threads export them), so a slow or dead collector costs
a turn nothing. ``dsh_plugin_setup`` builds the pipeline, importing the SDK
then and only then; a host without the ``otel`` extra fails to start with one
line saying what to install. ``dsh_plugin_teardown`` flushes in a worker
thread for at most ``shutdownSeconds`` and drops what is left.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import trio

from hookspecs import event_types, hookimpl
from hookspecs.errors import PluginError
from hookspecs.values import Card, StreamStart

from .config import TelemetryConfig
from .evaluations import EVENT_NAME, SHADOW_CARD_KIND, Evaluation, SettledRuns, evolution_evaluation

if TYPE_CHECKING:
    from hookspecs.protocols import Host

    from .pipeline import Pipeline
    from .spans import SpanTracker

#: what ``dsh_session_event`` is called for (mirrors ``spans.EVENT_TYPES``, which
#: needs the SDK: this module must import without it)
_EVENT_TYPES = (
    "turn/start",
    "turn/end",
    "step/end",
    "user/message",
    "request/context",
    "assistant/message",
    "tool/call",
    "tool/result",
    "subagent/descriptor",
)


class TelemetryPlugin:
    config_schema = TelemetryConfig

    def __init__(self, config: TelemetryConfig | None = None) -> None:
        self.config = config or TelemetryConfig()
        self.host: Host | None = None
        self.pipeline: Pipeline | None = None
        #: batches exported and failed (kept after teardown, for diagnostics and tests)
        self.counts: Any = None
        self.spans: SpanTracker | None = None
        self._settled = SettledRuns()
        self._unsubscribe: Any = None

    @hookimpl
    def dsh_plugin_setup(self, host: Host) -> None:
        try:
            from .content import Content
            from .pipeline import Pipeline
            from .spans import SpanTracker
        except ImportError as exc:
            raise PluginError(
                f"telemetry: the OpenTelemetry SDK is missing ({exc.name or exc}); "
                "install the extra: pip install 'shadow-mind[otel]'"
            ) from None
        self.host = host
        self.pipeline = Pipeline(host.logger)
        self.counts = self.pipeline.counts
        self.spans = SpanTracker(
            self.pipeline.tracer, Content(enabled=self.config.capture_content, max_chars=self.config.max_content_chars)
        )
        self._unsubscribe = host.client.subscribe(self._on_client_item)

    @hookimpl
    async def dsh_plugin_teardown(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        pipeline, self.pipeline = self.pipeline, None
        spans, self.spans = self.spans, None
        if spans is not None:
            spans.close_all()
        if pipeline is None:
            return
        timeout = self.config.shutdown_seconds
        # a worker thread: flushing blocks on the network; abandoned when it overruns
        with trio.move_on_after(timeout + 1):
            await trio.to_thread.run_sync(pipeline.close, timeout, abandon_on_cancel=True)

    @hookimpl
    @event_types(*_EVENT_TYPES)
    def dsh_session_event(self, session: Any, event: Any) -> None:
        if self.spans is not None:
            self.spans.on_event(session, event)

    @hookimpl
    def dsh_agent_stream(self, agent: Any, frame: Any) -> None:
        if self.spans is not None and isinstance(frame, StreamStart):
            self.spans.on_stream_start(agent.id, frame.step)

    @hookimpl
    def dsh_session_disposed(self, session: Any) -> None:
        if self.spans is not None:
            self.spans.close_session(session.id)

    @hookimpl
    def dsh_process_event(self, name: str, payload: Mapping[str, Any]) -> None:
        evaluation = evolution_evaluation(name, payload)
        if evaluation is not None:
            self._emit(evaluation)

    # --- evaluations ---------------------------------------------------------------------

    def _on_client_item(self, item: object) -> None:
        if isinstance(item, Card) and item.kind == SHADOW_CARD_KIND and isinstance(item.data, Mapping):
            for evaluation in self._settled.from_card(item.session_id, item.data):
                self._emit(evaluation)

    def _emit(self, evaluation: Evaluation) -> None:
        if self.pipeline is None or self.spans is None:
            return
        value = evaluation.attributes.get("gen_ai.evaluation.score.value")
        if isinstance(value, float) and not math.isfinite(value):
            evaluation.attributes.pop("gen_ai.evaluation.score.value")
        self.pipeline.events.emit(
            event_name=EVENT_NAME,
            attributes=evaluation.attributes,
            context=self.spans.turn_context(evaluation.session_id, evaluation.seq),
        )
