"""Installed entry points, read once per process.

``importlib.metadata.entry_points(group=...)`` reads the entry points of every
installed distribution on each call, and a ``harness run`` asks for several
groups (the CLI's extensions, the bundles, each profile row's plugin): one
read serves them all. The read is kept for the ``sys.path`` it was made
under, so a distribution put on the path later (a test's) is seen.
"""

from __future__ import annotations

import sys
from importlib import metadata
from typing import Any

#: (the sys.path it was read under, every entry point; Python 3.11 types it by its deprecated dict view)
_READ: tuple[tuple[str, ...], Any] | None = None


def entry_points(group: str) -> metadata.EntryPoints:
    """The installed entry points of ``group``, as ``metadata.entry_points(group=group)``."""
    global _READ
    path = tuple(sys.path)
    read = _READ
    if read is None or read[0] != path:
        read = _READ = (path, metadata.entry_points())
    found: metadata.EntryPoints = read[1].select(group=group)
    return found
