"""What counts as a secret or a private path: the one scrubber hosts and plugins share.

Text that crosses the host/plugin boundary or lands somewhere durable (host
logs, session events, plugin journals, ``SubagentResult.diagnostic``, error
payloads) is passed through :func:`scrub_text` or :func:`scrub_secrets` so
both sides agree on what is hidden. Credentials become ``[credential]``,
absolute paths ``[absolute-path]``.

Credentials are found by the one secret detector,
:func:`hookspecs.secrets_detect.hide_credentials` (its docstring lists the
rules): known secret values (``secrets=`` and the process-wide registered
provider keys, whole or any :data:`PARTIAL_SECRET` or more of their
characters), PEM private keys, secret-named assignments (only the value is
replaced), vendor tokens, URL passwords and ``Bearer`` tokens. Both scrubbers
run it first, so no path rule or cut can leave part of a secret behind.

:func:`scrub_text` then replaces absolute paths, in this order:

1. a quoted Windows path (``"C:\\Program Files\\x"``), spaces included;
2. a bare Windows path (``C:\\Users\\me\\x.txt``);
3. a quoted POSIX path (``'/etc/passwd'``);
4. a bare POSIX path of two or more segments, after the start of the text,
   white space, ``(``, a quote or ``=``; the character before it is kept;

and bounds the length. :func:`scrub_secrets` stops after the credentials.

:func:`visible` makes control characters printable (text from outside must
not drive a terminal), and :func:`scrub_visible` does both that and
:func:`scrub_secrets`: one scan settles a text that needs neither.

Names match case-insensitively (``ſ`` counts as ``s`` and the Kelvin sign as
``k``, as under JavaScript's ``iu`` flags) and only as whole words.
White space is the union of Python's and ECMAScript's sets where it separates
and only what both call white space where it ends a value or path, so
everything either former scrubber (the host's and the Shadow Mind plugin's)
hid is still hidden. Every pattern runs in linear time: none nests
quantifiers (an unclosed quote used to backtrack exponentially).

Importing this module has no side effects.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from typing import Any, Final

from .secret_gate import CONTROL_GATE, CONTROLS
from .secret_rules import BREAK, SPACE
from .secrets_detect import (
    CREDENTIAL,
    PARTIAL_SECRET,
    hide_credentials,
    hide_in_visible,
    may_hold_credentials,
    suspects,
)

__all__ = [
    "ABSOLUTE_PATH",
    "CREDENTIAL",
    "DEFAULT_LIMIT",
    "PARTIAL_SECRET",
    "json_strings",
    "scrub_json",
    "scrub_secrets",
    "scrub_text",
    "scrub_visible",
    "visible",
]

ABSOLUTE_PATH: Final = "[absolute-path]"
#: Characters :func:`scrub_text` keeps by default (an ellipsis marks a cut).
DEFAULT_LIMIT: Final = 500

_DRIVE_START = r"(?<![0-9A-Z_a-z])"


@functools.cache
def _path_rules() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The absolute-path rules, compiled at the first :func:`scrub_text`: a process
    that never scrubs a path (a run up to its first model request) skips them."""
    return (
        (re.compile(r"([\"'])[A-Za-z]:[\\/][\s\S]*?\1"), ABSOLUTE_PATH),
        (re.compile(rf"{_DRIVE_START}[A-Za-z]:[\\/][^{BREAK}\"'<>|]*"), ABSOLUTE_PATH),
        # The nested form (["'])/(?:[^\r\n"']+/)*[^\r\n"']*\1 accepts exactly the
        # strings of [^\r\n"'], so this matches the same spans without backtracking
        # exponentially on an unclosed quote.
        (re.compile(r"([\"'])/[^\r\n\"']*\1"), ABSOLUTE_PATH),
        # \g<1>, not \1: a marker that starts with digits (a session id) must not extend the group number
        (re.compile(rf"(^|[{SPACE}(\"'=])/(?:[^{BREAK}/\"'<>]+/)+[^{BREAK}\"'<>]*"), rf"\g<1>{ABSOLUTE_PATH}"),
    )


def scrub_text(
    text: str,
    *,
    limit: int | None = DEFAULT_LIMIT,
    secrets: Iterable[str] = (),
    path_marker: str = ABSOLUTE_PATH,
) -> str:
    """Hide credentials and absolute paths in ``text``, then bound its length.

    ``path_marker`` replaces each absolute path (a diagnostics view that has
    already rewritten paths under a known root may prefer ``<path>``).

    ``secrets`` are values known to be secret (a configured API key) on top
    of the registered ones; each non-empty one is replaced by ``[credential]``
    wherever it appears, and so is every stretch of text made of slices of
    :data:`PARTIAL_SECRET` or more characters of one, before the rules run,
    so no rule or cut can leave part of it behind. ``limit`` bounds the result in characters, the last one being ``…``
    when text was cut; ``None`` keeps the whole text (for callers that bound it
    their own way).
    """
    text = hide_credentials(text, secrets=secrets)
    marker = path_marker.replace("\\", "\\\\")  # a literal in re.sub templates
    for pattern, replacement in _path_rules():
        if path_marker != ABSOLUTE_PATH:
            replacement = replacement.replace(ABSOLUTE_PATH, marker)
        text = pattern.sub(replacement, text)
    if limit is not None and len(text) > limit:
        text = text[: max(limit - 1, 0)] + "…"
    return text


def scrub_secrets(text: str, *, secrets: Iterable[str] = ()) -> str:
    """Hide credentials in ``text`` and nothing else: no path rule, no length bound.

    For values that are kept whole (session events, imported transcripts, tool
    output): paths are the person's own and must survive verbatim; only what
    would let someone act as the person is replaced by ``[credential]``.
    """
    return hide_credentials(text, secrets=secrets)


@functools.cache
def _shown_differently() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Control characters, and lone surrogates (JSON allows "\\ud800"; no terminal
    can encode one): compiled at the first text :func:`visible` changes."""
    return re.compile(f"[{CONTROLS}]"), re.compile("[\ud800-\udfff]")


def _stand_in(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20 or code == 0x7F:
        return "^" + chr(code ^ 0x40)  # caret notation: ESC -> ^[, BEL -> ^G, DEL -> ^?
    return f"<U+{code:04X}>"


def visible(text: str) -> str:
    """``text`` with every control character made visible (``^[``, ``^G``, a
    lone CR as ``^M``, ``<U+009B>``; tabs and newlines kept) and every lone
    surrogate shown as U+FFFD; ``\r\n`` becomes ``\n``."""
    try:
        if CONTROL_GATE.first(text.encode("utf-8")) < 0:
            return text  # one scan: nothing to replace (``\r`` is a control character)
    except UnicodeEncodeError:
        pass  # a lone surrogate
    control, surrogate = _shown_differently()
    return control.sub(_stand_in, surrogate.sub("\ufffd", text.replace("\r\n", "\n")))


def scrub_visible(text: str) -> str:
    """``scrub_secrets(visible(text))``: a text from outside as it is kept whole
    (an imported transcript's). A text with nothing to change costs one scan
    (:func:`hookspecs.secrets_detect.is_plain`)."""
    return hide_in_visible(text, visible)


def scrub_json(value: Any, *, secrets: Iterable[str] = (), serialized: str | bytes | None = None) -> Any:
    """``value`` (parsed JSON) with every string value passed through :func:`scrub_secrets`.

    Keys, numbers and the structure are kept. A value in which nothing was
    hidden is returned as is (not copied): nearly every event of a session
    hides nothing, and the session log scrubs every one it stores. So a
    caller that holds ``value``'s JSON text passes it as ``serialized`` and
    one scan of it settles most values without walking them; otherwise the
    strings are checked together in one scan (:func:`suspects`).
    """
    known = tuple(s for s in secrets if s)
    if known:
        return _scrub_value(value, known)
    if serialized is not None and not may_hold_credentials(serialized):
        return value
    strings = json_strings(value)
    return _scrub_value(value, known, iter(suspects(strings))) if strings else value


def json_strings(value: Any) -> list[str]:
    """The string values (not keys) of parsed JSON ``value``, in the order
    :func:`_scrub_value` visits them."""
    out: list[str] = []
    _collect_strings(value, out)
    return out


def _collect_strings(value: Any, out: list[str]) -> None:
    # appends rather than yields: nested generators cost more than the scan they feed
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _collect_strings(item, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _collect_strings(item, out)


def _scrub_value(value: Any, secrets: tuple[str, ...], flags: Iterator[bool] | None = None) -> Any:
    """``value`` with its strings scrubbed (only those ``flags`` marks, when
    given, in :func:`_strings` order); containers copied only where something changed."""
    if isinstance(value, str):
        if flags is not None and not next(flags):
            return value
        return hide_credentials(value, secrets=secrets)
    if isinstance(value, dict):
        changed = False
        items = {}
        for key, item in value.items():
            new = items[key] = _scrub_value(item, secrets, flags)
            changed = changed or new is not item
        return items if changed else value
    if isinstance(value, (list, tuple)):
        news = [_scrub_value(item, secrets, flags) for item in value]
        if all(new is old for new, old in zip(news, value, strict=True)):
            return value
        return type(value)(news) if isinstance(value, tuple) else news
    return value
