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

Speed: one RE2 pattern (the gate, :mod:`hookspecs.secret_gate`) holds every
rule's opening literal (key words only when a separator follows) and every
window of the registered secrets; a text it does not hit is returned after
that one scan, which is nearly every string of a session, and
:func:`may_hold_credentials` asks the same of a whole event's JSON line. On a hit, in ASCII text each rule
is tried only where the gate hit (every rule opens on its literal); other
text is scanned by each rule whose literal occurs. Every pattern runs in
linear time: no quantifier is nested, and a rule that could start at many
places inside one run (``eyJ-eyJ-…``) is barred from starting inside it.

Importing this module has no side effects.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import accumulate
from typing import Final

from .secret_gate import CONTROL_GATE, CREDENTIAL, PARTIAL_SECRET, RULE_GATE, KnownSecrets, splice
from .secret_rules import BY_EXACT_START, BY_FOLDED_START, RULES, Rule

__all__ = [
    "CREDENTIAL",
    "MIN_REGISTERED_SECRET",
    "PARTIAL_SECRET",
    "forget_registered_secrets",
    "hide_credentials",
    "hide_in_visible",
    "is_plain",
    "may_hold_credentials",
    "suspects",
    "register_secret",
]

#: Shortest value :func:`register_secret` accepts: keyless local servers take
#: dummy keys such as ``ollama`` or ``EMPTY``, and hiding those words in every
#: stored event would mangle ordinary text while protecting nothing.
MIN_REGISTERED_SECRET: Final = 16

# The patterns below are compiled at first use: nearly every text is settled by
# the gate without them (a run up to its first model request never needs them).


@functools.cache
def _pem() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """A private key block's BEGIN and END lines, and the body of a truncated
    block (no END line), which runs over base64 and line breaks, raw or JSON-escaped."""
    return (
        re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"),
        re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"),
        re.compile(r"(?:[A-Za-z0-9+/=\r\n]|\\[nr])*"),
    )


# Values that name or stand for a secret rather than being one.
_PLACEHOLDER_WORDS: Final = frozenset(
    "none null nil true false undefined str string int bytes bool float number any optional secretstr".split()
)


@functools.cache
def _value_shapes() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """A placeholder value, an identifier-shaped value, and a name that names a secret."""
    placeholder = re.compile(
        r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{[^{}]*\}\}|%\([A-Za-z_]+\)s|<[^<>]*>|\*+|x{3,}|\.{3}|…|"
        + "|".join(sorted(_PLACEHOLDER_WORDS))
        + r"|\[credential\]",
        re.IGNORECASE,
    )
    identifier = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
    names_a_secret = re.compile(
        r"(?<![0-9a-z])(?:key|token|secret|pass(?:word|wd|phrase)?|pwd|authorization|credentials?)(?![0-9a-z])"
    )
    return placeholder, identifier, names_a_secret


def hide_credentials(text: str, *, secrets: Iterable[str] = ()) -> str:
    """``text`` with every credential the detector finds replaced by ``[credential]``.

    ``secrets`` are values known to be secret for this call, on top of the
    ones registered with :func:`register_secret`.
    """
    extra = {s for s in secrets if s}
    data = text.encode("utf-8", "surrogatepass")
    if not extra and not _KNOWN.may_occur(text, data):
        return text  # one scan: no rule can match, no registered secret occurs
    return _hide(text, data, extra)


def hide_in_visible(text: str, visible: Callable[[str], str]) -> str:
    """``hide_credentials(visible(text))`` where ``visible`` changes only a
    text holding a control character or a lone surrogate: one scan settles a
    text with nothing to change (:func:`is_plain`), and a text the scan hit
    with no control character in it goes to the rules without scanning again."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return hide_credentials(visible(text))  # a lone surrogate
    known = _KNOWN
    if known.plain_gate.first(data) < 0 and not known.odd_in(text):
        return text
    if CONTROL_GATE.first(data) >= 0:
        return hide_credentials(visible(text))
    # no control character: what hit was the credentials' gate (:meth:`KnownSecrets.may_occur`)
    return _hide(text, data, set())


def _hide(text: str, data: bytes, extra: set[str]) -> str:
    """:func:`hide_credentials` of a text the gate hit (``data``: its UTF-8 bytes)."""
    hidden = _KNOWN.hide(text, extra, data)
    if hidden is not text:
        text, data = hidden, hidden.encode("utf-8", "surrogatepass")
    if "PRIVATE KEY" in text:
        text = _hide_pem_blocks(text)
        data = text.encode("utf-8", "surrogatepass")
    if text.isascii():
        spans = _spans_at_hits(text, data)  # none when the rules' gate does not hit
    elif _gate_hit(data, 0) < 0:
        return text
    else:
        spans = _spans_everywhere(text)
    return _splice(text, _merged(spans))


def may_hold_credentials(text: str | bytes) -> bool:
    """False when no string that ``text`` holds could lose anything to
    :func:`hide_credentials`.

    ``text`` is a string or the JSON text of a value (compact, non-ASCII kept,
    as str or UTF-8): one scan of a whole session event's line instead of a
    walk over its strings.
    """
    if isinstance(text, bytes):
        return _KNOWN.may_occur_bytes(text)
    return _KNOWN.may_occur(text, text.encode("utf-8", "surrogatepass"))


def is_plain(text: str) -> bool:
    """True when ``text`` holds no control character (tab and newline aside,
    see :data:`~hookspecs.secret_gate.CONTROLS`), no lone surrogate and
    nothing :func:`hide_credentials` would hide: one scan, for callers that
    also make control characters visible (:func:`hookspecs.scrub.scrub_visible`)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return False  # a lone surrogate
    return _KNOWN.plain_gate.first(data) < 0 and not _KNOWN.odd_in(text)


def suspects(texts: Sequence[str]) -> list[bool]:
    """For each of ``texts``, False when :func:`hide_credentials` would surely
    leave it as it is.

    One scan over all of them (an event's string values): the gate costs a
    few microseconds a call, and an event holds dozens of short strings.
    """
    known = _KNOWN
    encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
    data = b"\0".join(encoded)
    starts = list(accumulate((len(e) + 1 for e in encoded), initial=0))
    flags = [known.odd_in(text) for text in texts]
    pos = 0
    # a hit flags the text it starts in, and the scan goes on from the next
    # text's start, so a hit reaching across a NUL hides none of the next one's
    while (at := known.gate.first(data, pos)) >= 0:
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


_KnownSecrets = KnownSecrets  # the registry's type, under the name tests swap it by
_KNOWN: Final = KnownSecrets()


def _hide_pem_blocks(text: str) -> str:
    spans: list[tuple[int, int]] = []
    pos = 0
    ends_left = True  # once an END search fails, later ones would too (and cost O(n) each)
    pem_begin, pem_end, _ = _pem()
    while (begin := pem_begin.search(text, pos)) is not None:
        end = pem_end.search(text, begin.end()) if ends_left else None
        ends_left = end is not None
        stop = end.end() if end is not None else _end_of_body(text, begin.end())
        spans.append((begin.start(), stop))
        pos = stop
    return _splice(text, spans)


def _end_of_body(text: str, start: int) -> int:
    body = _pem()[2].match(text, start)
    return body.end() if body is not None else start


_splice = splice


def _gate_hit(data: bytes, pos: int) -> int:
    """Where the rules' gate's first hit in ``data`` at or after ``pos`` starts, or -1."""
    return RULE_GATE.first(data, pos)


def _gate_hits(data: bytes, pos: int = 0) -> Iterator[tuple[int, int]]:
    """The (start, end) of each hit of the rules' gate in ``data``, non-overlapping, in order."""
    return RULE_GATE.hits(data, pos)


def _spans_at_hits(text: str, data: bytes) -> list[tuple[int, int]]:
    """What the rules hide in ASCII ``text``, trying them only where the gate
    hit (``data`` is ``text`` as bytes, so byte and character offsets agree).

    Every rule's match opens on a literal the gate matches, so this finds what
    :func:`_spans_everywhere` finds, without scanning big texts once per rule.
    """
    folded = text.lower()
    spans: list[tuple[int, int]] = []
    on_folded, on_text = _STARTS if _STARTS is not None else _starts()
    for at, _ in _gate_hits(data):
        for pattern, rule in on_folded.get(folded[at], ()):
            match = pattern.match(folded, at)
            if match is not None:
                spans += _spans_of(rule, match, text)
        for pattern, rule in on_text.get(text[at], ()):
            match = pattern.match(text, at)
            if match is not None:
                spans += _spans_of(rule, match, text)
    return spans


#: ``BY_FOLDED_START`` and ``BY_EXACT_START`` with each rule's compiled
#: pattern, built at the first hit (compiling is what the rules put off)
_Starts = dict[str, tuple[tuple[re.Pattern[str], Rule], ...]]
_STARTS: tuple[_Starts, _Starts] | None = None


def _starts() -> tuple[_Starts, _Starts]:
    global _STARTS
    folded, exact = (
        {first: tuple((rule.pattern, rule) for rule in rules) for first, rules in table.items()}
        for table in (BY_FOLDED_START, BY_EXACT_START)
    )
    _STARTS = (folded, exact)  # one assignment: a thread that races here builds the same tables
    return _STARTS


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
    # the one of dq, sq and bare that took part (the rules have no other group)
    group = match.lastgroup or next((g for g in ("dq", "sq") if match.start(g) >= 0), "bare")
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
    if not value:
        return True
    placeholder, identifier, names_a_secret = _value_shapes()
    if identifier.fullmatch(value) is None:
        return placeholder.fullmatch(value) is not None
    # An identifier is a placeholder only as one of the words or as xxx (the
    # other placeholders need $ { % < * . or […]): a set lookup instead of the
    # pattern, which cost more than the rest of a hit.
    low = value.lower()
    if low in _PLACEHOLDER_WORDS or (len(low) >= 3 and not low.strip("x")):
        return True
    # a reference (api_key=api_key, token=self.token) or a call (password=get_password())
    return names_a_secret.search(folded_value) is not None or next_char in ("(", "[")
