"""Where the host keeps its files: ``$DSH_HOME`` (default ``~/.dsh``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import attrs

from hookspecs.layout import SESSIONS_DIR


def resolve_dsh_home(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    raw = env.get("DSH_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".dsh"


@attrs.frozen
class HostPaths:
    """Implements :class:`hookspecs.protocols.Paths`."""

    dsh_home: Path

    @property
    def sessions_dir(self) -> Path:
        return self.dsh_home / SESSIONS_DIR

    @property
    def settings_file(self) -> Path:
        return self.dsh_home / "settings.yaml"

    @property
    def profiles_dir(self) -> Path:
        return self.dsh_home / "profiles"
