"""The ``telemetry`` switches: the environment variables and the row's config schema.

Imports nothing but ``attrs``: the host reads it on every start.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

#: ``DSH_OTEL=1`` (or ``true``/``yes``/``on``) loads the plugin as a built-in
ENABLE_ENV = "DSH_OTEL"
#: the OpenTelemetry switch every SDK honours: ``true`` turns the plugin off
SDK_DISABLED_ENV = "OTEL_SDK_DISABLED"
#: the GenAI instrumentations' content switch (``true``: message content is exported, scrubbed)
CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
#: the registration name of the built-in and the entry point of the profile row
PLUGIN_NAME = "telemetry"

_TRUE = frozenset({"1", "true", "yes", "on"})


def flag(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").strip().lower() in _TRUE


@attrs.frozen(kw_only=True)
class TelemetryConfig:
    """The ``telemetry`` row's ``config``; everything else comes from ``OTEL_*``."""

    #: ``false`` keeps the row without exporting anything (no hooks, no import)
    enabled: bool = True
    #: export message text, tool arguments and tool results (scrubbed, bounded);
    #: also on when ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``
    capture_content: bool = attrs.field(default=False, alias="captureContent")
    #: characters kept of each exported text (after scrubbing)
    max_content_chars: int = attrs.field(
        default=2000, alias="maxContentChars", validator=attrs.validators.and_(attrs.validators.ge(16), attrs.validators.le(100_000))
    )
    #: seconds the host waits at shutdown for the last batches; the rest is dropped
    shutdown_seconds: float = attrs.field(
        default=2.0, alias="shutdownSeconds", validator=attrs.validators.and_(attrs.validators.ge(0), attrs.validators.le(30))
    )
