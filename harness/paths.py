"""Where the host keeps its files: ``$DSH_HOME`` (default ``~/.dsh``)."""

from __future__ import annotations

from pathlib import Path

import attrs

from hookspecs.layout import SESSIONS_DIR

from .home import resolve_dsh_home

__all__ = ["HostPaths", "resolve_dsh_home"]


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
