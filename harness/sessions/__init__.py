"""Durable session logs: JSONL persistence, crash repair and publication."""

from .history import derive_messages
from .log import SessionLog
from .store import SessionStore

__all__ = ["SessionLog", "SessionStore", "derive_messages"]
