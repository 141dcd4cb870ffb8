"""The one secret detector: which parts of a text would let someone act as the person.

:func:`hide_credentials` replaces each credential it finds by ``[credential]``
and leaves everything else verbatim (names, separators, quotes, URL hosts),
so hidden tool output, code and config still read as what they were.
:mod:`hookspecs.scrub` builds both of its scrubbers on it; nothing else in the
project should carry its own credential patterns.

What is found, in this order:

1. known secret values: the ones a caller passes and the ones registered
   process-wide with :func:`register_secret` (the configured provider keys),
   whole or any run of :data:`PARTIAL_SECRET` or more of their characters;
2. PEM private key blocks (``-----BEGIN … PRIVATE KEY-----`` through its
   ``END`` line, also with JSON-escaped ``\\n`` line breaks; without an ``END``
   line, through the end of the base64 body);
3. then every rule below; overlapping finds are joined into one hidden span:

   * an assignment to a secret-looking name: a name whose last segment is
     one of the key words (``KEYWORD_RULES``: ``api_key``, ``OPENAI_API_KEY``, ``client_secret``,
     ``access_token``, ``DB_PASSWORD``, ``aws_secret_access_key``,
     ``private_key``, ``Authorization``, …), optionally quoted or escaped-quoted
     (JSON, ``\\"`` inside JSON text), then ``:``, ``=``, ``:=`` or ``=>``, then
     an optional auth scheme (``Bearer``/``Basic``/``Token``/…) and the value,
     quoted or bare (JSON, YAML, env, ``export``, INI, keyword arguments,
     HTTP headers). Only the value is replaced, and not when it is plainly no
     secret: empty, a placeholder (``${VAR}``, ``<key>``, ``***``, ``null``,
     a type name such as ``str``) or an identifier that is itself a
     secret-looking name or a call (``api_key=api_key``, ``token=self.token``,
     ``password=get_password()``);
   * vendor tokens, whole: OpenAI/Anthropic-style ``sk-…`` (``sk-proj-``,
     ``sk-ant-``), Stripe ``sk_live_``/``rk_live_``/``sk_test_``/``rk_test_``,
     AWS key ids (``AKIA``/``ASIA``/``ABIA``/``ACCA``/``A3T…``), GitHub
     (``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``/``github_pat_``), GitLab
     (``glpat-`` and its siblings), Slack (``xoxb-``/``xoxp-``/``xoxa-``/…,
     ``xapp-``), Google API keys (``AIza…``) and JWTs (``eyJ….….…``);
   * the path of a Slack webhook URL (``hooks.slack.com/services/…``);
   * the password of a URL (``scheme://user:password@host``; user and host kept);
   * a bare ``Bearer <token>`` (the word kept).

The vendor token shapes are ported from Yelp's detect-secrets
(https://github.com/Yelp/detect-secrets, ``detect_secrets/plugins``:
aws, github_token, gitlab_token, slack, stripe, jwt, private_key, basic_auth,
and the key words of keyword.py; detect-secrets is Apache-2.0), loosened to hide prefixes of truncated
tokens and extended with Google, ``sk-``, ``xapp-``, ``github_pat_`` and
``token``-named values. detect-secrets itself is not used at run time: its
keyword patterns backtrack and it scans far slower than the budget for
session appends (see ``bench/secret_scan.py``).

Speed: one RE2 pattern (the gate) holds every rule's opening literal (key
words only when a separator follows); a text it does not hit is returned at
once, which is nearly every string of a session, and :func:`may_hold_credentials`
asks the same of a whole event's JSON line. On a hit, in ASCII text each rule
is tried only where the gate hit (every rule opens on its literal); other
text is scanned by each rule whose literal occurs. Every pattern runs in
linear time: no quantifier is nested, and a rule that could start at many
places inside one run (``eyJ-eyJ-…``) is barred from starting inside it.

Importing this module has no side effects.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Final

import re2  # type: ignore[import-untyped]

from .secret_rules import BY_EXACT_START, BY_FOLDED_START, RULES, SPACE, Rule

__all__ = [
    "CREDENTIAL",
    "MIN_REGISTERED_SECRET",
    "PARTIAL_SECRET",
    "forget_registered_secrets",
    "hide_credentials",
    "may_hold_credentials",
    "suspects",
    "register_secret",
]

CREDENTIAL: Final = "[credential]"
#: Consecutive characters of a known secret that count as an echo of it.
PARTIAL_SECRET: Final = 8
#: Shortest value :func:`register_secret` accepts: keyless local servers take
#: dummy keys such as ``ollama`` or ``EMPTY``, and hiding those words in every
#: stored event would mangle ordinary text while protecting nothing.
MIN_REGISTERED_SECRET: Final = 16


# Every rule's literal in one RE2 pattern (RE2 scans in linear time with a
# DFA, hundreds of MB/s, whatever the number of literals): a text without a
# hit has nothing to hide, which is nearly every string of a session. Key
# words count only when a separator follows, as in the rules. It also holds
# on the JSON text of a value (see may_hold_credentials): quotes and
# backslashes may repeat and escaped white space may separate.
_GATE_KEYWORDS = r"key|token|secret|pass(?:word|wd|phrase)?|pwd|author[iı]zat[iı]on|credent[iı]als?"
_GATE_PATTERN: Final = (
    rf"(?i)(?:{_GATE_KEYWORDS})[\"'`\]\\]*(?:[{SPACE}]|\\[nrtfb]|\\u00[0-9a-f]{{2}})*(?::=|=>|[:=])"
    r"|sk-|xox|xapp-|hooks\.slack\.com/|://|bearer"
    r"|(?-i:[sr]k_live_|[sr]k_test_|AKIA|ASIA|ABIA|ACCA|A3T|gh[pousr]_|github_pat_|gl[a-z]{1,5}-|AIza|eyJ|PRIVATE KEY)"
)
_GATE_BYTES: Final = re2.compile(_GATE_PATTERN.encode())
# The binding's public search/finditer wrap every hit in Python objects (about
# 8 us each, more than the scan of a whole event); its compiled RE2 object
# answers with plain spans. The public API stays the fallback.
_GATE_RAW: Final = getattr(_GATE_BYTES, "_regexp", None)
_UNANCHORED: Final = re2._Anchor.UNANCHORED if _GATE_RAW is not None else None

_PEM_BEGIN: Final = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_PEM_END: Final = re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
# A truncated block (no END line): its body runs over base64 and line breaks,
# raw or JSON-escaped.
_PEM_BODY: Final = re.compile(r"(?:[A-Za-z0-9+/=\r\n]|\\[nr])*")

# Values that name or stand for a secret rather than being one.
_PLACEHOLDER: Final = re.compile(
    r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{[^{}]*\}\}|%\([A-Za-z_]+\)s|<[^<>]*>|\*+|x{3,}|\.{3}|…"
    r"|none|null|nil|true|false|undefined|str|string|int|bytes|bool|float|number|any|optional|secretstr"
    r"|\[credential\]",
    re.IGNORECASE,
)
_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_NAMES_A_SECRET: Final = re.compile(
    r"(?<![0-9a-z])(?:key|token|secret|pass(?:word|wd|phrase)?|pwd|authorization|credentials?)(?![0-9a-z])"
)


def hide_credentials(text: str, *, secrets: Iterable[str] = ()) -> str:
    """``text`` with every credential the detector finds replaced by ``[credential]``.

    ``secrets`` are values known to be secret for this call, on top of the
    ones registered with :func:`register_secret`.
    """
    text = _KNOWN.hide(text, {s for s in secrets if s})
    data = text.encode("utf-8", "surrogatepass")
    if _gate_hit(data, 0) < 0:
        return text
    if "PRIVATE KEY" in text:
        text = _hide_pem_blocks(text)
        data = text.encode("utf-8", "surrogatepass")
    spans = _spans_at_hits(text, data) if text.isascii() else _spans_everywhere(text)
    return _splice(text, _merged(spans))


def may_hold_credentials(text: str | bytes) -> bool:
    """False when no string that ``text`` holds could lose anything to
    :func:`hide_credentials`.

    ``text`` is a string or the JSON text of a value (compact, non-ASCII kept,
    as str or UTF-8): one scan of a whole session event's line instead of a
    walk over its strings.
    """
    if isinstance(text, bytes):
        return _gate_hit(text, 0) >= 0 or _KNOWN.occurs_in_bytes(text)
    return _gate(text) or _KNOWN.occurs_in(text)


def suspects(texts: Sequence[str]) -> list[bool]:
    """For each of ``texts``, False when :func:`hide_credentials` would surely
    leave it as it is.

    One scan over all of them (an event's string values): the gate costs a
    few microseconds a call, and an event holds dozens of short strings.
    """
    if _KNOWN.occurs_in("\0".join(texts)):
        return [True] * len(texts)
    encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
    data = b"\0".join(encoded)
    starts = list(accumulate((len(e) + 1 for e in encoded), initial=0))
    flags = [False] * len(texts)
    pos = 0
    while (at := _gate_hit(data, pos)) >= 0:
        index = bisect_right(starts, at) - 1
        flags[index] = True
        pos = starts[index + 1]  # the rest of that text is scrubbed anyway
    return flags


def register_secret(value: str) -> bool:
    """Make ``value`` (a configured API key) known to every later scrub in
    this process; True if it was taken.

    Values shorter than :data:`MIN_REGISTERED_SECRET` are refused (see there).
    """
    value = value.strip()
    if len(value) < MIN_REGISTERED_SECRET:
        return False
    _KNOWN.add(value)
    return True


def forget_registered_secrets() -> None:
    """Drop every registered secret (tests; a host that reloads its profiles)."""
    _KNOWN.clear()


class _KnownSecrets:
    """The registered secrets and their :data:`PARTIAL_SECRET`-character windows.

    The windows are computed once per registration, not per scrub: session
    appends scrub every value, and most texts contain none of them.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: frozenset[str] = frozenset()
        self._windows: frozenset[str] = frozenset()
        self._encoded: frozenset[bytes] = frozenset()

    def add(self, value: str) -> None:
        with self._lock:
            self._values |= {value}
            self._windows |= _windows_of({value})
            self._encoded = frozenset(w.encode("utf-8", "surrogatepass") for w in self._windows)

    def clear(self) -> None:
        with self._lock:
            self._values = frozenset()
            self._windows = frozenset()
            self._encoded = frozenset()

    def occurs_in(self, text: str) -> bool:
        """True when a registered secret's window occurs in ``text``."""
        return any(window in text for window in self._windows)

    def occurs_in_bytes(self, data: bytes) -> bool:
        return any(window in data for window in self._encoded)

    def hide(self, text: str, extra: set[str]) -> str:
        windows = self._windows | _windows_of(extra) if extra else self._windows
        # Cheap check first (one C-speed substring search per window): the
        # character-by-character pass below only runs on a hit.
        if windows and any(window in text for window in windows):
            text = _hide_windows(text, windows, PARTIAL_SECRET)
        for short in sorted((s for s in extra if len(s) < PARTIAL_SECRET), key=len, reverse=True):
            text = text.replace(short, CREDENTIAL)
        return text


_KNOWN: Final = _KnownSecrets()


def _windows_of(secrets: Iterable[str]) -> frozenset[str]:
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
    return _splice(text, [(start, stop) for start, stop in spans])


def _hide_pem_blocks(text: str) -> str:
    spans: list[tuple[int, int]] = []
    pos = 0
    ends_left = True  # once an END search fails, later ones would too (and cost O(n) each)
    while (begin := _PEM_BEGIN.search(text, pos)) is not None:
        end = _PEM_END.search(text, begin.end()) if ends_left else None
        ends_left = end is not None
        stop = end.end() if end is not None else _end_of_body(text, begin.end())
        spans.append((begin.start(), stop))
        pos = stop
    return _splice(text, spans)


def _end_of_body(text: str, start: int) -> int:
    body = _PEM_BODY.match(text, start)
    return body.end() if body is not None else start


def _splice(text: str, spans: list[tuple[int, int]]) -> str:
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


def _gate(text: str) -> bool:
    # RE2 over UTF-8 bytes: handing it a str costs more than encoding it here
    # (the binding maps every offset back to characters)
    return _gate_hit(text.encode("utf-8", "surrogatepass"), 0) >= 0


def _gate_hit(data: bytes, pos: int) -> int:
    """Where the gate's first hit in ``data`` at or after ``pos`` starts, or -1."""
    return next(_gate_hits(data, pos), (-1, -1))[0]


def _gate_hits(data: bytes, pos: int = 0) -> Iterator[tuple[int, int]]:
    """The (start, end) of each gate hit in ``data``, non-overlapping, in order."""
    if _GATE_RAW is None:
        yield from (hit.span() for hit in _GATE_BYTES.finditer(data, pos))
        return
    end = len(data)
    while pos <= end:
        start, stop = _GATE_RAW.Match(_UNANCHORED, data, pos, end)[0]
        if start < 0:
            return
        yield start, stop
        pos = stop if stop > start else stop + 1


def _spans_at_hits(text: str, data: bytes) -> list[tuple[int, int]]:
    """What the rules hide in ASCII ``text``, trying them only where the gate
    hit (``data`` is ``text`` as bytes, so byte and character offsets agree).

    Every rule's match opens on a literal the gate matches, so this finds what
    :func:`_spans_everywhere` finds, without scanning big texts once per rule.
    """
    folded = text.lower()
    spans: list[tuple[int, int]] = []
    for at, _ in _gate_hits(data):
        for rule in (*BY_FOLDED_START.get(folded[at], ()), *BY_EXACT_START.get(text[at], ())):
            target = folded if rule.folded else text
            match = rule.pattern.match(target, at)
            if match is not None:
                spans += _spans_of(rule, match, text)
    return spans


def _spans_everywhere(text: str) -> list[tuple[int, int]]:
    """What the rules hide in ``text`` (any text: each rule scans all of it)."""
    folded = _fold(text)
    spans: list[tuple[int, int]] = []
    for rule in RULES:
        target = folded if rule.folded else text
        if any(literal in target for literal in rule.literals):
            for match in rule.pattern.finditer(target):
                spans += _spans_of(rule, match, text)
    return spans


def _fold(text: str) -> str:
    """``text`` in lower case, position for position (see the rules' comment)."""
    if text.isascii():
        return text.lower()
    # U+0130 lowers to two characters; the long s and the dotless i stay
    # themselves under lower() but count as s and i for names.
    folded = text.replace("\u0130", "i").lower().replace("\u017f", "s").replace("\u0131", "i")
    # (no other character changes length under lower(); should one ever, the
    # rules still see the text as given rather than shifted spans)
    return folded if len(folded) == len(text) else text


def _spans_of(rule: Rule, match: re.Match[str], text: str) -> list[tuple[int, int]]:
    """The span ``rule`` hides of its ``match`` (none for a value that is no secret)."""
    if rule.kind == "token":
        return [match.span()]
    if rule.kind == "part":
        return [match.span("secret")]
    group = next(g for g in ("dq", "sq", "bare") if match.group(g) is not None)
    start, end = match.span(group)
    if _not_a_secret(text[start:end], folded_value=match.group(group), next_char=text[end : end + 1]):
        return []
    return [(start, end)]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Non-empty ``spans`` in order, overlapping or touching ones joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(span for span in spans if span[0] < span[1]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _not_a_secret(value: str, *, folded_value: str, next_char: str) -> bool:
    """True when an assigned value names or stands for a secret instead of being one."""
    if not value or _PLACEHOLDER.fullmatch(value):
        return True
    if _IDENTIFIER.fullmatch(value) is None:
        return False
    # a reference (api_key=api_key, token=self.token) or a call (password=get_password())
    return _NAMES_A_SECRET.search(folded_value) is not None or next_char in ("(", "[")
