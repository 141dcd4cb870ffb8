"""The ``bash`` tool's sandbox modes, apart from the tool: ``--sandbox`` lists
them in ``harness run --help`` without loading the built-in tools."""

from __future__ import annotations

UNCONFINED = "danger-full-access"
WORKSPACE_WRITE = "workspace-write"
READ_ONLY = "read-only"
SANDBOX_MODES = (WORKSPACE_WRITE, READ_ONLY, UNCONFINED)
