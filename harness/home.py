"""``$DSH_HOME`` (default ``~/.dsh``), resolved without loading anything else:
the Stop hook needs it before it decides whether to load the host."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def resolve_dsh_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    raw = env.get("DSH_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".dsh"
