"""Installed entry points, read once per process, without ``importlib.metadata``.

``importlib.metadata.entry_points(group=...)`` reads the entry points of every
installed distribution on each call, and a ``harness run`` asks for several
groups (the CLI's extensions, the bundles, each profile row's plugin): one
read serves them all. The read is kept for the ``sys.path`` it was made
under, so a distribution put on the path later (a test's) is seen.

Importing ``importlib.metadata`` (its e-mail header parser above all) costs
about as much as the interpreter's own start, paid by every ``harness``
command. So the read is done here, the way the standard library does it for
what is on ``sys.path``: each path entry's ``*.dist-info`` / ``*.egg-info``
directories in listing order, the first distribution of a normalized name
wins, ``entry_points.txt`` parsed as ``importlib.metadata`` parses it. Anything
else (a zip or egg on the path, a finder of its own that lists distributions,
a line that does not parse) is left to ``importlib.metadata``, so the result
is always the one it gives.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Iterator
from importlib import import_module
from importlib.machinery import PathFinder
from typing import Any

#: (the sys.path it was read under, every entry point: ours, or ``importlib.metadata``'s
#: when the path holds what only it reads)
_READ: tuple[tuple[str, ...], Any] | None = None

#: ``importlib.metadata.EntryPoint.pattern``
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
_INFO_SUFFIXES = (".dist-info", ".egg-info")
#: a header line as ``email.feedparser`` reads one: a field name, a colon, its value
_HEADER = re.compile(r"([\041-\071\073-\176]+):(.*)")
#: a ``Name`` header only the e-mail parser reads as ``importlib.metadata`` does
_LEFT_TO_METADATA = "\0"


class Unreadable(Exception):
    """Something this reader does not handle: ``importlib.metadata`` reads it."""


class Distribution:
    """The installed distribution an entry point comes from (``ep.dist``)."""

    def __init__(self, path: str) -> None:
        self.path = path

    @functools.cached_property
    def name(self) -> str | None:
        """The ``Name`` header of its metadata, as ``importlib.metadata`` reads it."""
        text = _read(self.path, "METADATA") or _read(self.path, "PKG-INFO") or _read(self.path, "")
        name = _name_header(text or "")
        if name is _LEFT_TO_METADATA:
            from importlib import metadata
            from pathlib import Path

            return metadata.PathDistribution(Path(self.path)).name
        return name


class EntryPoint:
    """One entry point: the attributes and :meth:`load` of ``importlib.metadata.EntryPoint``."""

    __slots__ = ("dist", "group", "name", "value")

    def __init__(self, name: str, value: str, group: str | None, dist: Distribution | None = None) -> None:
        self.name, self.value, self.group, self.dist = name, value, group, dist

    def load(self) -> Any:
        match = _VALUE.match(self.value)
        assert match is not None, self.value  # as importlib.metadata: a bad value fails here
        module = import_module(match.group("module"))
        return functools.reduce(getattr, filter(None, (match.group("attr") or "").split(".")), module)

    @property
    def module(self) -> str:
        match = _VALUE.match(self.value)
        assert match is not None, self.value
        return match.group("module")

    @property
    def attr(self) -> str:
        match = _VALUE.match(self.value)
        assert match is not None, self.value
        return match.group("attr")

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r}, group={self.group!r})"


def entry_points(group: str) -> tuple[Any, ...]:
    """The installed entry points of ``group``, as ``importlib.metadata.entry_points(group=group)``."""
    global _READ
    path = tuple(sys.path)
    read = _READ
    if read is None or read[0] != path:
        read = _READ = (path, _read_all())
    if isinstance(read[1], tuple):
        return tuple(ep for ep in read[1] if ep.group == group)
    return tuple(read[1].select(group=group))


def _read_all() -> Any:
    try:
        return tuple(_scan())
    except Unreadable:
        from importlib import metadata

        return metadata.entry_points()


def _scan() -> Iterator[EntryPoint]:
    if any(getattr(f, "find_distributions", None) for f in sys.meta_path if f is not PathFinder):
        raise Unreadable("a finder lists distributions of its own")
    seen: set[str] = set()
    for entry in sys.path:
        for dist_path, normalized in _metadata_dirs(entry):
            if normalized in seen:
                continue
            seen.add(normalized)
            yield from _parse(_read(dist_path, "entry_points.txt") or "", Distribution(dist_path))


def _metadata_dirs(entry: str) -> list[tuple[str, str]]:
    """``(path, normalized name)`` of each distribution in ``entry``, in
    ``importlib.metadata``'s order: names by first appearance in the listing."""
    root = entry or "."
    try:
        children = os.listdir(root)
    except Exception:
        if os.path.isfile(root):
            raise Unreadable(f"{entry}: a zip on sys.path") from None
        return []  # missing or unlistable: importlib.metadata finds nothing there either
    if os.path.basename(entry).lower().endswith(".egg") and any(c.lower() == "egg-info" for c in children):
        raise Unreadable(f"{entry}: an egg")
    by_name: dict[str, list[str]] = {}
    for child in children:
        low = child.lower()
        if not low.endswith(_INFO_SUFFIXES):
            continue
        normalized = _normalize(low.rpartition(".")[0].partition("-")[0])
        if os.path.splitext(child)[1] not in _INFO_SUFFIXES or not normalized:
            # ``PathDistribution._name_from_stem`` names it by none: its name would come from its metadata
            raise Unreadable(f"{child}: no name in its stem")
        by_name.setdefault(normalized, []).append(os.path.join(entry, child))
    # the first-wins key, ``PathDistribution._normalized_name``, is this grouping key
    return [(path, normalized) for normalized, paths in by_name.items() for path in paths]


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _read(dist_path: str, name: str) -> str | None:
    """A metadata file's text, None when it cannot be read (as ``PathDistribution.read_text``)."""
    try:
        with open(os.path.join(dist_path, name) if name else dist_path, encoding="utf-8") as handle:
            return handle.read()
    except (FileNotFoundError, IsADirectoryError, KeyError, NotADirectoryError, PermissionError):
        return None


def _parse(text: str, dist: Distribution) -> Iterator[EntryPoint]:
    """``importlib.metadata``'s ``Sectioned`` parse of ``entry_points.txt``."""
    group: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            group = line.strip("[]")
            continue
        name, sep, value = line.partition("=")
        if not sep:
            raise Unreadable(f"{dist.path}: {line!r} is not name = value")
        yield EntryPoint(name.strip(), value.strip(), group, dist)


def _name_header(text: str) -> str | None:
    """The first ``Name`` header of an RFC 822 metadata text as the e-mail
    parser (``compat32``) gives it: the headers end at the first empty line, a
    line starting with a blank continues the header before it, the value
    keeps all but its leading blanks. :data:`_LEFT_TO_METADATA` for a folded
    or encoded ``Name``, or a line no plain header reads (``From ``, no colon)."""
    lines = text.split("\n")  # read with universal newlines: the parser's line ends are all "\n"
    for index, line in enumerate(lines):
        if not line:
            return None
        header = _HEADER.fullmatch(line)
        if header is None:
            if line[0] in " \t":
                continue
            return _LEFT_TO_METADATA
        if header[1].lower() == "name":
            following = lines[index + 1] if index + 1 < len(lines) else ""
            if following[:1] in (" ", "\t") or "=?" in header[2]:
                return _LEFT_TO_METADATA
            return header[2].lstrip(" \t")
    return None
