"""Importers of foreign agents' transcripts (Claude Code, Codex CLI) into the session-log format.

The names are loaded on first use: the Stop hook imports :mod:`.hook` and,
for a Stop that finds nothing new, must not load the importers.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ImportedEvent", "ImportedTranscript", "TranscriptError", "import_transcript"]


def __getattr__(name: str) -> Any:
    if name in ("ImportedEvent", "ImportedTranscript", "TranscriptError"):
        from . import model

        return getattr(model, name)
    if name == "import_transcript":
        from .reader import import_transcript

        return import_transcript
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
