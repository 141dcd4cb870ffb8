"""Walking the workspace and matching globs, shared by ``grep`` and ``glob``.

Walks never descend into symlinked directories (loops, escapes) and skip hidden
directories such as ``.git`` unless asked; a file symlink is only yielded when
it leads to a regular file inside the workspace. ``stop`` lets an abandoned
worker thread notice that nobody waits for it any more.
"""

from __future__ import annotations

import os
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from hookspecs.errors import ToolArgsError

from ..workspace import is_inside

_MAX_BRACE_EXPANSIONS = 64
_GLOB_CHARS = frozenset("*?[{")


def walk_files(
    base: Path,
    root: Path,
    *,
    include_hidden: bool = False,
    stop: threading.Event | None = None,
) -> Iterator[Path]:
    """Regular files under ``base`` (a realpath inside ``root``), or ``base`` itself
    when it is a file. Each directory is listed sorted; callers sort globally."""
    if base.is_file():
        yield base
        return
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        if stop is not None and stop.is_set():
            return
        dirnames[:] = sorted(d for d in dirnames if include_hidden or not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if _confined_regular_file(path, root):
                yield path


def _confined_regular_file(path: Path, root: Path) -> bool:
    try:
        if path.is_symlink() and not is_inside(root, Path(os.path.realpath(path))):
            return False
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:  # dangling link, permission denied, vanished file
        return False


# --- glob patterns ------------------------------------------------------------------------


def expand_braces(pattern: str, *, argument: str = "pattern") -> list[str]:
    """``*.{ts,tsx}`` -> ``["*.ts", "*.tsx"]`` (innermost braces first, nesting works)."""
    match = re.search(r"\{([^{}]*)\}", pattern)
    if match is None:
        return [pattern]
    out: list[str] = []
    for alternative in match.group(1).split(","):
        variant = pattern[: match.start()] + alternative + pattern[match.end() :]
        out.extend(expand_braces(variant, argument=argument))
        if len(out) > _MAX_BRACE_EXPANSIONS:
            raise ToolArgsError(f"{argument}: braces expand to more than {_MAX_BRACE_EXPANSIONS} patterns")
    return out


def split_pattern(pattern: str, *, argument: str = "pattern") -> list[str]:
    """The ``/``-separated segments of a relative glob, ``.`` segments dropped."""
    if pattern.startswith("/"):
        raise ToolArgsError(f"{argument}: must be relative (choose the directory with `path`)")
    segments = [s for s in pattern.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise ToolArgsError(f"{argument}: must not contain '..' (choose the directory with `path`)")
    if not segments:
        raise ToolArgsError(f"{argument}: matches nothing")
    return segments


def is_literal(segment: str) -> bool:
    return not any(c in _GLOB_CHARS for c in segment)


def compile_segments(segments: list[str]) -> re.Pattern[str]:
    """A regex matching a whole ``/``-separated relative path: ``*`` and ``?`` stay
    within one segment, ``**`` spans any number of directories (zero included)."""
    parts: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append(".*" if last else "(?:[^/]+/)*")
        else:
            parts.append(_translate_segment(segment) + ("" if last else "/"))
    return re.compile("".join(parts), re.DOTALL)


def _translate_segment(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        c = segment[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = segment.find("]", i + 2 if segment[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = segment[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                out.append("[" + ("^" if negate else "") + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)
