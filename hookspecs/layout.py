"""Where session logs live in a DSH home, for hosts and for plugins that read
logs without a running host (diagnostics, importers). The format itself is
documented in ``docs/events.md``. Importing this module has no side effects."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["SESSIONS_DIR", "SESSION_FILE", "SESSION_HEADER_TYPE", "SESSION_ID_PATTERN"]

#: ``$DSH_HOME/<SESSIONS_DIR>/<session id>/<SESSION_FILE>``
SESSIONS_DIR: Final = "sessions"
SESSION_FILE: Final = "session.jsonl"
#: the ``type`` of a session log's first line (its header)
SESSION_HEADER_TYPE: Final = "session"
#: a session id is also a directory name (a host also refuses ``..`` inside one)
SESSION_ID_PATTERN: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$")
