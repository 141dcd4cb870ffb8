"""Parsing ``/name raw-input`` lines."""

from __future__ import annotations

import re

COMMAND_NAME = re.compile(r"^[a-z][a-z0-9_-]*$")
_LINE = re.compile(r"^/([a-z][a-z0-9_-]*)(?=\s|$)")


def parse_command(line: str) -> tuple[str, str] | None:
    """``(name, raw_input)`` for a slash-command line, else None.

    The slash must be the first character and the name must be followed by
    whitespace or the end. Everything after the name (leading whitespace
    included) is the raw input: each command owns its grammar.
    """
    match = _LINE.match(line)
    if match is None:
        return None
    return match.group(1), line[match.end() :]
