"""OpenTelemetry export of agent turns and Shadow reviews (the ``otel`` extra).

A host plugin, off unless asked for: a profile row ``{id: telemetry, name:
telemetry}`` or ``DSH_OTEL=1`` in the environment turns it on, and
``OTEL_SDK_DISABLED=true`` (or ``enabled: false`` in the row) turns it off again.
Off, nothing of it is registered and nothing from ``opentelemetry`` is
imported: :func:`telemetry_plugin` hands back an object without hooks, and
``DSH_OTEL`` unset adds no built-in at all. On, :mod:`.plugin` builds the SDK
pipeline (:mod:`.pipeline`) in ``dsh_plugin_setup``; the SDK reads the
standard ``OTEL_*`` variables itself (endpoint, headers, timeout, service name,
resource, sampler, batch sizes). See docs/telemetry.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import attrs

from .config import (
    CAPTURE_CONTENT_ENV,
    ENABLE_ENV,
    PLUGIN_NAME,
    SDK_DISABLED_ENV,
    TelemetryConfig,
    flag,
)


class TelemetryOff:
    """What a disabled row registers: no hooks, so the host's paths are unchanged."""

    config_schema = TelemetryConfig


def telemetry_plugin(config: TelemetryConfig | None = None, *, environ: Mapping[str, str] | None = None) -> object:
    """The plugin for a ``telemetry`` row: the exporting plugin when enabled,
    else :class:`TelemetryOff`. Importing this module imports no OpenTelemetry."""
    env = os.environ if environ is None else environ
    config = config or TelemetryConfig()
    if not config.enabled or flag(env, SDK_DISABLED_ENV):
        return TelemetryOff()
    if flag(env, CAPTURE_CONTENT_ENV) and not config.capture_content:
        config = attrs.evolve(config, captureContent=True)
    from .plugin import TelemetryPlugin

    return TelemetryPlugin(config)


telemetry_plugin.config_schema = TelemetryConfig  # type: ignore[attr-defined]


def builtin_telemetry(environ: Mapping[str, str], *, has_row: bool) -> list[tuple[str, object]]:
    """The built-in ``telemetry`` plugin when ``DSH_OTEL`` asks for it and no row
    names one; nothing otherwise (the common case costs one dictionary lookup)."""
    if has_row or not flag(environ, ENABLE_ENV):
        return []
    plugin = telemetry_plugin(environ=environ)
    return [] if isinstance(plugin, TelemetryOff) else [(PLUGIN_NAME, plugin)]


__all__ = [
    "CAPTURE_CONTENT_ENV",
    "ENABLE_ENV",
    "PLUGIN_NAME",
    "SDK_DISABLED_ENV",
    "TelemetryConfig",
    "TelemetryOff",
    "builtin_telemetry",
    "telemetry_plugin",
]
