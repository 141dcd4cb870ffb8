"""The loopback reviewer fixture the transcript CLI tests use, shared here."""

from __future__ import annotations

from ..transcripts.conftest import server

__all__ = ["server"]
