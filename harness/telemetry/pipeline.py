"""The OpenTelemetry SDK pipeline: a tracer and an event logger exporting
OTLP/HTTP in batches from the SDK's worker threads.

Imported only when telemetry is on (``harness.telemetry.plugin`` imports it
in ``dsh_plugin_setup``). Everything is configured by the standard ``OTEL_*``
variables, read by the SDK itself: ``OTEL_EXPORTER_OTLP_ENDPOINT`` (and the
per-signal ``..._TRACES_ENDPOINT`` / ``..._LOGS_ENDPOINT``), ``..._HEADERS``,
``..._TIMEOUT``, ``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``,
``OTEL_TRACES_SAMPLER`` (+ ``_ARG``), ``OTEL_BSP_*`` and ``OTEL_BLRP_*``.
Providers are private to the plugin, never installed globally, so a host
application's own OpenTelemetry setup is left alone.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Generic, Protocol, TypeVar

from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor, LogRecordExporter, LogRecordExportResult
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from hookspecs.markers import PROJECT_NAME

#: the instrumentation scope of every span and event
SCOPE = "harness.telemetry"
#: ``service.name`` unless ``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES`` name one
DEFAULT_SERVICE = f"{PROJECT_NAME}-harness"


class ExportCounts:
    """Batches exported and failed, per signal: a dead collector shows up here
    (and once in the host log), never in a turn."""

    def __init__(self, logger: Any) -> None:
        self._lock = threading.Lock()
        self._logger = logger
        self.ok: dict[str, int] = {"spans": 0, "events": 0}
        self.failed: dict[str, int] = {"spans": 0, "events": 0}
        #: the threads exports ran in (never the event loop's)
        self.threads: set[int] = set()

    def record(self, signal: str, success: bool) -> None:
        with self._lock:
            self.threads.add(threading.get_ident())
            bucket = self.ok if success else self.failed
            bucket[signal] += 1
            first_failure = not success and self.failed[signal] == 1
        if first_failure:  # once per signal: a dead collector fails every batch
            self._logger.warning("telemetry: exporting %s failed; later failures are counted, not logged", signal)


R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class _Inner(Protocol[R_co]):
    def export(self, batch: Sequence[Any], /) -> R_co: ...
    def shutdown(self) -> None: ...
    def force_flush(self, timeout_millis: int = 30000) -> bool: ...


class _Counting(Generic[R]):
    """An exporter wrapper that counts each batch (ok or failed) under ``signal``."""

    def __init__(self, inner: _Inner[R], counts: ExportCounts, signal: str, ok: R, failed: R) -> None:
        self._inner, self._counts, self._signal = inner, counts, signal
        self._ok, self._failed = ok, failed
        self._closed = False

    def _export(self, batch: Sequence[Any]) -> R:
        if self._closed:  # dropped at shutdown (the inner exporter would warn about each batch)
            self._counts.record(self._signal, False)
            return self._failed
        try:
            result = self._inner.export(batch)
        except Exception:  # an exporter that raises must not kill the worker thread
            result = self._failed
        self._counts.record(self._signal, result is self._ok)
        return result

    def shutdown(self) -> None:
        if not self._closed:  # called early by Pipeline.close, then again by the processor
            self._closed = True
            self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._inner.force_flush(timeout_millis)


class _CountingSpans(_Counting[SpanExportResult], SpanExporter):
    def __init__(self, inner: SpanExporter, counts: ExportCounts) -> None:
        super().__init__(inner, counts, "spans", SpanExportResult.SUCCESS, SpanExportResult.FAILURE)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self._export(spans)


class _CountingEvents(_Counting[LogRecordExportResult], LogRecordExporter):
    def __init__(self, inner: LogRecordExporter, counts: ExportCounts) -> None:
        super().__init__(inner, counts, "events", LogRecordExportResult.SUCCESS, LogRecordExportResult.FAILURE)

    def export(self, batch: Sequence[Any]) -> LogRecordExportResult:
        return self._export(batch)


class Pipeline:
    """One tracer and one event logger; :meth:`close` flushes and stops them."""

    def __init__(self, logger: Any) -> None:
        resource = Resource.create()  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
        if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
            resource = resource.merge(Resource({"service.name": DEFAULT_SERVICE}))
        self.counts = ExportCounts(logger)
        self._spans = _CountingSpans(OTLPSpanExporter(), self.counts)
        self._events = _CountingEvents(OTLPLogExporter(), self.counts)
        # shutdown_on_exit=False: the host closes them (an atexit hook would keep
        # every host's providers alive for the life of the process)
        self.tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        self.tracer_provider.add_span_processor(BatchSpanProcessor(self._spans))
        self.logger_provider = LoggerProvider(resource=resource, shutdown_on_exit=False)
        self.logger_provider.add_log_record_processor(BatchLogRecordProcessor(self._events))
        self.tracer = self.tracer_provider.get_tracer(SCOPE)
        self.events = self.logger_provider.get_logger(SCOPE)

    def close(self, timeout_seconds: float) -> None:
        """Flush for at most ``timeout_seconds``, then shut down (blocking: run it in a thread)."""
        millis = int(timeout_seconds * 1000)
        self.tracer_provider.force_flush(millis)
        self.logger_provider.force_flush(millis)
        # the exporters first: that aborts a retry backing off against a dead
        # collector, so the processors' shutdown (which joins their worker) is quick
        self._spans.shutdown()
        self._events.shutdown()
        self.tracer_provider.shutdown()
        self.logger_provider.shutdown()
