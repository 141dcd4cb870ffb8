"""The secret detector's pre-filter: one RE2 scan that clears a clean text.

:mod:`hookspecs.secrets_detect` runs its rules only on a text this gate hits.
The gate holds every rule's opening literal (key words only when a separator
follows, as in the rules) and, once secrets are registered
(:class:`KnownSecrets`), every run of :data:`PARTIAL_SECRET` characters of
each. So a text without a hit has nothing to hide, which is nearly every
string of a session, and costs one scan whatever the number of rules and
registered secrets (a substring search per registered window used to cost
more than the rest of an import).

RE2 scans in linear time with a DFA, hundreds of MB/s. The gate also holds
on the JSON text of a value (see ``may_hold_credentials``): quotes and
backslashes may repeat and escaped white space may separate.

Importing this module has no side effects.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from typing import Any, Final

import re2  # type: ignore[import-untyped]

from .secret_rules import BREAK, SPACE

__all__ = ["CONTROLS", "CONTROL_GATE", "CREDENTIAL", "PARTIAL_SECRET", "RULE_GATE", "Gate", "KnownSecrets", "splice"]

CREDENTIAL: Final = "[credential]"
#: Consecutive characters of a known secret that count as an echo of it.
PARTIAL_SECRET: Final = 8

_GATE_KEYWORDS = r"key|token|secret|pass(?:word|wd|phrase)?|pwd|author[iı]zat[iı]on|credent[iı]als?"
_GATE_KEYWORD_PART = rf"(?i)(?:{_GATE_KEYWORDS})[\"'`\]\\]*(?:[{SPACE}]|\\[nrtfb]|\\u00[0-9a-f]{{2}})*(?::=|=>|[:=])"
_GATE_LITERALS = (
    r"|sk-|xox|xapp-|hooks\.slack\.com/|bearer"
    r"|(?-i:[sr]k_live_|[sr]k_test_|AKIA|ASIA|ABIA|ACCA|A3T|gh[pousr]_|github_pat_|gl[a-z]{1,5}-|AIza|eyJ|PRIVATE KEY)"
)
#: every rule's opening literal: where the rules are tried
GATE_PATTERN: Final = f"{_GATE_KEYWORD_PART}{_GATE_LITERALS}|://"
#: what the first scan asks: as :data:`GATE_PATTERN`, but a URL counts only
#: with a password (the URL rule's whole shape, linear in RE2; as in the
#: rule, ``[^…]`` also takes a JSON text's escapes), since links are common
#: in tool output and nearly all carry none
_FIRST_PATTERN: Final = f"{_GATE_KEYWORD_PART}{_GATE_LITERALS}|://[^{BREAK}/?#@:]*:[^{BREAK}/?#@]+@"

#: What may not reach a terminal as it is (:func:`hookspecs.scrub.visible`):
#: C0 controls but tab and newline, DEL, C1 controls, and the bidirectional
#: embeddings, overrides and isolates (they reorder what follows on screen).
_CONTROL_RANGES: Final = ((0x00, 0x08), (0x0B, 0x1F), (0x7F, 0x9F), (0x202A, 0x202E), (0x2066, 0x2069))
#: the same as a character class's body for Python's ``re``
CONTROLS: Final = "".join(f"{chr(a)}-{chr(b)}" for a, b in _CONTROL_RANGES)
_CONTROLS_RE2: Final = "(?-i:[" + "".join(f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in _CONTROL_RANGES) + "])"


class Gate:
    """A compiled gate over UTF-8 bytes (handing RE2 a ``str`` costs more than
    encoding it: the binding maps every offset back to characters)."""

    __slots__ = ("_compiled", "_match", "_raw")

    def __init__(self, pattern: str) -> None:
        self._compiled = re2.compile(pattern.encode("utf-8"))
        # The binding's public search/finditer wrap every hit in Python objects
        # (about 8 us each, more than the scan of a whole event); its compiled
        # RE2 object answers with plain spans. The public API stays the fallback.
        self._raw: Any = getattr(self._compiled, "_regexp", None)
        self._match: Any = None if self._raw is None else self._raw.Match  # bound once: a gate runs per text

    def first(self, data: bytes, pos: int = 0) -> int:
        """Where the first hit in ``data`` at or after ``pos`` starts, or -1."""
        if pos > len(data):
            return -1  # RE2 would log an invalid range to stderr
        match = self._match
        if match is None:
            hit = self._compiled.search(data, pos)
            return -1 if hit is None else int(hit.start())
        return int(match(_UNANCHORED, data, pos, len(data))[0][0])

    def hits(self, data: bytes, pos: int = 0) -> Iterator[tuple[int, int]]:
        """The (start, end) of each hit in ``data``, non-overlapping, in order."""
        if self._raw is None:
            yield from (hit.span() for hit in self._compiled.finditer(data, pos))
            return
        end = len(data)
        while pos <= end:
            start, stop = self._raw.Match(_UNANCHORED, data, pos, end)[0]
            if start < 0:
                return
            yield start, stop
            pos = stop if stop > start else stop + 1


_UNANCHORED: Final = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
#: the rules' literals only: where :mod:`.secrets_detect` tries its rules
RULE_GATE: Final = Gate(GATE_PATTERN)
_FIRST_GATE: Final = Gate(_FIRST_PATTERN)
_PLAIN_GATE: Final = Gate(f"{_FIRST_PATTERN}|{_CONTROLS_RE2}")
#: the control characters alone (Python's ``re`` scans a character class at a
#: fraction of RE2's speed)
CONTROL_GATE: Final = Gate(_CONTROLS_RE2)


class KnownSecrets:
    """The registered secrets, their :data:`PARTIAL_SECRET`-character windows,
    and the gate that also hits every window.

    Windows and gate are built once per registration, not per scrub: session
    appends scrub every value, and most texts contain none of them.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._windows: frozenset[str] = frozenset()
        #: windows RE2 cannot hold as UTF-8 literals (a lone surrogate from an
        #: undecodable environment value) or that hold a NUL (``suspects``
        #: joins texts with NUL): looked up by substring search instead
        self._odd: tuple[str, ...] = ()
        self._odd_bytes: tuple[bytes, ...] = ()
        #: the first scan: a text it does not hit has nothing to hide
        self.gate: Gate = _FIRST_GATE
        #: :attr:`gate` that also hits a control character (see :data:`CONTROLS`)
        self.plain_gate: Gate = _PLAIN_GATE
        #: the windows alone (None: none registered)
        self._window_gate: Gate | None = None

    @property
    def windows(self) -> frozenset[str]:
        return self._windows

    def add(self, value: str) -> None:
        with self._lock:
            windows = self._windows | windows_of({value})
            regular = sorted(w for w in windows if _regular(w))
            pattern = _FIRST_PATTERN + "|(?-i:" + "|".join(map(_literal, regular)) + ")" if regular else _FIRST_PATTERN
            odd = tuple(w for w in windows if not _regular(w))
            self._windows, self._odd = windows, odd
            self.gate, self.plain_gate = Gate(pattern), Gate(f"{pattern}|{_CONTROLS_RE2}")
            self._window_gate = Gate("|".join(map(_literal, regular))) if regular else None
            self._odd_bytes = tuple(w.encode("utf-8", "surrogatepass") for w in odd)

    def clear(self) -> None:
        with self._lock:
            self._windows, self._odd, self._odd_bytes = frozenset(), (), ()
            self.gate, self.plain_gate, self._window_gate = _FIRST_GATE, _PLAIN_GATE, None

    def may_occur(self, text: str, data: bytes) -> bool:
        """True when ``text`` (``data``: its UTF-8 bytes) holds a rule's literal
        or a registered window: one scan."""
        return self.gate.first(data) >= 0 or self.odd_in(text)

    def may_occur_bytes(self, data: bytes) -> bool:
        """:meth:`may_occur` of the UTF-8 bytes ``data`` (a JSON line) alone."""
        return self.gate.first(data) >= 0 or (bool(self._odd_bytes) and any(w in data for w in self._odd_bytes))

    def _registered_in(self, text: str, data: bytes | None) -> bool:
        """True when a registered window occurs in ``text``: one scan, not a search per window."""
        gate = self._window_gate
        if gate is not None:
            if gate.first(text.encode("utf-8", "surrogatepass") if data is None else data) >= 0:
                return True
        return self.odd_in(text)

    def odd_in(self, text: str) -> bool:
        """True when a window the gate does not hold occurs in ``text``."""
        # (no generator for the usual empty tuple: this runs for every text)
        return bool(self._odd) and any(w in text for w in self._odd)

    def hide(self, text: str, extra: set[str], data: bytes | None = None) -> str:
        """``text`` with every stretch of a registered or ``extra`` secret's
        windows, and every shorter ``extra`` secret, replaced (``data``:
        ``text`` as UTF-8, when the caller has it)."""
        if extra:
            windows = self._windows | windows_of(extra)
            # one C-speed substring search per window before the character-by-character pass
            found = any(window in text for window in windows)
        elif self._window_gate is not None and not self._odd and text.isascii():
            # the gate holds every window: it finds each stretch's start, and
            # only the stretches are walked (byte and character offsets agree)
            data = text.encode("ascii") if data is None else data
            return _hide_windows_at(text, self._windows, PARTIAL_SECRET, self._window_gate, data)
        else:
            windows = self._windows
            found = self._registered_in(text, data)
        if found:
            text = _hide_windows(text, windows, PARTIAL_SECRET)
        for short in sorted((s for s in extra if len(s) < PARTIAL_SECRET), key=len, reverse=True):
            text = text.replace(short, CREDENTIAL)
        return text


def _regular(window: str) -> bool:
    return "\0" not in window and not any("\ud800" <= c <= "\udfff" for c in window)


def _literal(window: str) -> str:
    """``window`` as an RE2 literal: every character but a letter or digit by its code point."""
    return "".join(c if c.isascii() and c.isalnum() else f"\\x{{{ord(c):x}}}" for c in window)


def windows_of(secrets: Iterable[str]) -> frozenset[str]:
    n = PARTIAL_SECRET
    return frozenset(s[i : i + n] for s in secrets if len(s) >= n for i in range(len(s) - n + 1))


def _hide_windows(text: str, windows: frozenset[str], n: int) -> str:
    """``text`` with each stretch covered by windows replaced by ``[credential]``.

    Linear in ``len(text)``: every window of ``n`` characters is looked up in
    the set; overlapping or touching matches merge into one span.
    """
    spans: list[list[int]] = []
    for i in range(len(text) - n + 1):
        if text[i : i + n] in windows:
            if spans and i <= spans[-1][1]:
                spans[-1][1] = i + n
            else:
                spans.append([i, i + n])
    return splice(text, [(start, stop) for start, stop in spans])


def _hide_windows_at(text: str, windows: frozenset[str], n: int, gate: Gate, data: bytes) -> str:
    """:func:`_hide_windows` of an ASCII ``text`` whose windows ``gate`` all
    matches (``data``: ``text`` as bytes): each stretch starts where the gate
    next hits and runs on while windows start in it or right at its end."""
    spans: list[tuple[int, int]] = []
    last = len(text) - n
    at = gate.first(data)
    while at >= 0:
        end = at + n
        pos = at + 1
        while pos <= end and pos <= last:
            if text[pos : pos + n] in windows:
                end = pos + n
            pos += 1
        spans.append((at, end))
        at = gate.first(data, end + 1)
    return splice(text, spans)


def splice(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each (start, stop) span, in order and apart, replaced by ``[credential]``."""
    if not spans:
        return text
    parts: list[str] = []
    end = 0
    for start, stop in spans:
        parts += [text[end:start], CREDENTIAL]
        end = stop
    parts.append(text[end:])
    return "".join(parts)
