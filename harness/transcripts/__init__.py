"""Importers of foreign agents' transcripts (Claude Code, Codex CLI) into the session-log format."""

from .model import ImportedEvent, ImportedTranscript, TranscriptError
from .reader import import_transcript

__all__ = ["ImportedEvent", "ImportedTranscript", "TranscriptError", "import_transcript"]
