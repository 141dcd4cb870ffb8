"""A loopback OTLP/HTTP receiver for the telemetry tests.

A real HTTP server on 127.0.0.1 (a thread) that accepts ``POST /v1/traces``
and ``POST /v1/logs``, decodes the protobuf bodies with ``opentelemetry-proto``
(``ExportTraceServiceRequest`` / ``ExportLogsServiceRequest``) and keeps the
spans and log records as plain dictionaries; it answers 200 with the empty
response message, as a collector does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


def value_of(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [value_of(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return attributes_of(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def attributes_of(pairs: Any) -> dict[str, Any]:
    return {pair.key: value_of(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


class Received:
    """What the receiver has decoded so far (read it after the host closed)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.spans: list[dict[str, Any]] = []
        self.logs: list[dict[str, Any]] = []
        self.resources: list[dict[str, Any]] = []
        self.paths: list[str] = []

    def add_traces(self, body: bytes) -> None:
        request = ExportTraceServiceRequest.FromString(body)
        with self.lock:
            for resource_spans in request.resource_spans:
                self.resources.append(attributes_of(resource_spans.resource.attributes))
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        self.spans.append(
                            {
                                "name": span.name,
                                "trace_id": span.trace_id.hex(),
                                "span_id": span.span_id.hex(),
                                "parent_id": span.parent_span_id.hex(),
                                "kind": span.kind,
                                "attributes": attributes_of(span.attributes),
                                "status": span.status.code,
                                "scope": scope_spans.scope.name,
                                "start": span.start_time_unix_nano,
                            }
                        )

    def add_logs(self, body: bytes) -> None:
        request = ExportLogsServiceRequest.FromString(body)
        with self.lock:
            for resource_logs in request.resource_logs:
                for scope_logs in resource_logs.scope_logs:
                    for record in scope_logs.log_records:
                        self.logs.append(
                            {
                                "event_name": record.event_name,
                                "trace_id": record.trace_id.hex(),
                                "span_id": record.span_id.hex(),
                                "attributes": attributes_of(record.attributes),
                            }
                        )


class _Handler(BaseHTTPRequestHandler):
    received: Received

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.received.paths.append(self.path)
        if self.path == "/v1/traces":
            self.received.add_traces(body)
            answer = ExportTraceServiceResponse().SerializeToString()
        elif self.path == "/v1/logs":
            self.received.add_logs(body)
            answer = ExportLogsServiceResponse().SerializeToString()
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:  # quiet test output
        return


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, Received]]:
    """``(endpoint, received)``: the base URL to put in ``OTEL_EXPORTER_OTLP_ENDPOINT``."""
    received = Received()
    handler = type("Handler", (_Handler,), {"received": received})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="otlp-receiver", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def tree(spans: list[dict[str, Any]], root: dict[str, Any]) -> list[str]:
    """A text rendering of ``root``'s subtree: one span per line, indented by depth."""
    by_parent: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        by_parent.setdefault(span["parent_id"], []).append(span)
    lines: list[str] = []

    def walk(span: dict[str, Any], depth: int) -> None:
        lines.append("  " * depth + span["name"])
        for child in sorted(by_parent.get(span["span_id"], []), key=lambda s: s["start"]):
            walk(child, depth + 1)

    walk(root, 0)
    return lines
