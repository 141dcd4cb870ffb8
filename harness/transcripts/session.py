"""Writing an imported transcript into a new session of the DSH home.

The session is an ordinary root session: the reviewer reads it like any
other, and ``harness sessions show`` / ``harness shadow trace`` work on it.
Its header ``cwd`` is the transcript's recorded working directory when that
directory exists here (the reviewer's file tools are confined to it); else
an empty private directory, so the reviewer's tools see nothing of this machine.
"""

from __future__ import annotations

import re
import secrets
import time
from pathlib import Path

from harness.sessions.store import SessionStore
from hookspecs.fsutil import ensure_private_dir
from hookspecs.layout import SESSIONS_DIR
from hookspecs.values import SessionHeader

from .model import ImportedTranscript

#: under the DSH home: the workspace of imported sessions whose directory is not here
EMPTY_WORKSPACE = "imports/empty-workspace"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def workspace_for(transcript: ImportedTranscript, home: Path) -> Path:
    if transcript.cwd and Path(transcript.cwd).is_dir():
        return Path(transcript.cwd)
    return ensure_private_dir(home / EMPTY_WORKSPACE)


def new_session_id(transcript: ImportedTranscript) -> str:
    """``<format>-<source id>-<stamp>-<random>``: one fresh session per import."""
    source = _UNSAFE.sub("-", transcript.source_id or "transcript").strip("-.")[:60] or "transcript"
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    return f"{transcript.format}-{source}-{stamp}-{secrets.token_hex(3)}"


def write_session(transcript: ImportedTranscript, home: Path) -> tuple[str, Path]:
    """Create the session and append every imported event; returns its id and workspace."""
    workspace = workspace_for(transcript, home)
    store = SessionStore(sessions_dir=home / SESSIONS_DIR, on_event=lambda _log, _event: None, now_ms=_now_ms)
    header = SessionHeader(id=new_session_id(transcript), created_at=_now_ms(), cwd=str(workspace))
    log = store.create(header)
    try:
        for event in transcript.events:
            log.append(event.type, event.data)
    finally:
        log.close()
    return header.id, workspace


def _now_ms() -> float:
    return round(time.time() * 1000, 3)
