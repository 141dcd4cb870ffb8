"""The secret detector's rules: what a credential looks like, as patterns.

Data only: :mod:`hookspecs.secrets_detect` runs them (its docstring says what
is found, in which order, and where the shapes come from). Kept apart so the
rule table can be read and extended without the engine around it.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["BREAK", "BY_EXACT_START", "BY_FOLDED_START", "KEYWORD_RULES", "RULES", "SPACE", "Rule"]

# White space that both Python (str.isspace) and ECMAScript agree on ...
BREAK: Final = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# ... and white space that either of them accepts (Python adds \x1c-\x1f and
# \x85, ECMAScript \ufeff).
SPACE: Final = BREAK + "\x1c-\x1f\x85\ufeff"
_S = f"[{SPACE}]"

# Every rule below runs on the text folded to lower case (``_fold``: ASCII
# letters, and the letters that fold to ASCII ones under JavaScript's `iu`
# flags: the long s, the Kelvin sign, the dotted and dotless i), except the
# vendor tokens whose alphabet is case-sensitive, which run on the text as
# given. Folding keeps every position, so a span found in one is the span in
# the other. Each pattern opens with a literal, which Python's engine finds by
# a fast substring search instead of trying the pattern at every position.

# A key word is the last segment of a name: it follows the start of the name
# or a separator (OPENAI_API_KEY, x-api-key, db.password), never a letter or
# digit (mytoken; PGPASSWORD is the one glued name accepted), and no letter or digit follows it (token_count,
# max_tokens, secretary and passwordless are not secrets). The list is
# detect-secrets' DENYLIST plus token, authorization and credential(s).
_KEY_PREFIXES: Final = ("api", "access", "secret", "private", "priv", "auth", "client", "account", "service", "db")
_KEY_WORDS: Final = tuple(f"{p}{sep}key" for p in _KEY_PREFIXES for sep in ("_", "-", ""))


def _key_word(literal: str, *, words: tuple[str, ...] = (), suffix: str = "", glued: tuple[str, ...] = ()) -> str:
    """A pattern opening on ``literal`` that matches a whole key word ending
    there (one of ``words``) or starting there (``literal`` + ``suffix``);
    ``glued`` are prefixes well-known tools write without a separator
    (libpq's ``PGPASSWORD``), accepted before ``literal`` as if separated."""
    if words:
        # the word is checked behind the literal, so the pattern still opens on it
        return literal + "(?:" + "|".join(f"(?<=(?<![0-9a-z]){w})" for w in words) + ")"
    start = "|".join([f"(?<![0-9a-z]{literal})", *(f"(?<=(?<![0-9a-z]){g}{literal})" for g in glued)])
    return f"{literal}(?:{start}){suffix}"


KEYWORD_RULES: Final = (
    ("key", _key_word("key", words=_KEY_WORDS)),
    ("token", _key_word("token")),
    ("secret", _key_word("secret")),
    ("pass", _key_word("pass", suffix="(?:word|wd|phrase)?", glued=("pg",))),
    ("pwd", _key_word("pwd")),
    ("authorization", _key_word("authorization")),
    ("credential", _key_word("credential", suffix="s?")),
)
_SCHEME = rf"(?:(?:bearer|basic|token|digest|bot){_S}+)?"
# After the key word: an optional closing quote (escaped in JSON text) or
# bracket, the separator, then the value: double- or single-quoted (a quote
# escaped with \ both opens and closes, as in JSON text inside a JSON string;
# other escapes stay inside the value) or bare, up to white space or one of
# , ; & ( ) [ ] { } < > " '.
_ASSIGNED = (
    rf"(?![0-9a-z])(?:\\?[\"'`])?\]?{_S}*(?::=|=>|[:=]){_S}*"
    rf"(?:\\?\"{_SCHEME}(?P<dq>(?:[^\"\\\r\n]|\\[^\"\r\n])*)"
    rf"|\\?'{_SCHEME}(?P<sq>(?:[^'\\\r\n]|\\[^'\r\n])*)"
    rf"|{_SCHEME}(?P<bare>[^{BREAK},;&()\[\]{{}}<>\"']+))"
)

# Vendor tokens, whole: (the literals one of which must occur, the pattern,
# whether it runs on the folded text). Shapes from detect-secrets (see the
# module docstring); not after a word character, so ask-… or a hash that
# happens to contain AKIA is left alone.
_W = r"(?<![0-9A-Za-z_])"
_TOKEN_RULES: Final = (
    (("sk-",), r"sk-(?<![0-9a-z_]sk-)[a-z0-9._~+/=-]{8,}", True),
    (("sk_live_", "rk_live_", "sk_test_", "rk_test_"), rf"{_W}[sr]k_(?:live|test)_[0-9A-Za-z]{{10,}}", False),
    (
        ("AKIA", "ASIA", "ABIA", "ACCA", "A3T"),
        rf"{_W}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{{16}}(?![0-9A-Za-z])",
        False,
    ),
    (("gh",), rf"{_W}(?:gh[pousr]_[A-Za-z0-9_]{{30,}}|github_pat_[A-Za-z0-9_]{{20,}})", False),
    (("gl",), rf"{_W}gl(?:pat|dt|ft|soat|rt|cbt|imt|ptt|agent|oas)-[A-Za-z0-9_-]{{20,}}", False),
    (("xox", "xapp-"), r"(?<![0-9a-z_])(?:xox[abposr]|xapp)-[a-z0-9-]{10,}", True),
    (("AIza",), rf"{_W}AIza[0-9A-Za-z_-]{{35}}", False),
    # not after its own alphabet: eyJ-eyJ-… would scan to the end from each one
    (("eyJ",), r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_=+/-]*", False),
)
# Rules that hide one part of their match, the group ``secret``.
_PART_RULES: Final = (
    ("hooks.slack.com/", r"hooks\.slack\.com/(?:services|workflows)/(?P<secret>[a-z0-9_/]+)"),
    ("://", rf"://[^{BREAK}/?#@:]*:(?P<secret>[^{BREAK}/?#@]+)@"),
    ("bearer", rf"bearer(?<![0-9a-z_]bearer){_S}+(?P<secret>[a-z0-9._~+/=-]{{8,}})"),
)


class Rule:
    """One rule: literals that must occur, its pattern, where it runs and what it hides.

    The pattern is compiled on first use: compiling every rule costs more
    than the interpreter's start, and nearly every text is settled by the
    gate (:mod:`hookspecs.secret_gate`) without any rule running.
    """

    __slots__ = ("_compiled", "_source", "folded", "kind", "literals")

    def __init__(self, literals: tuple[str, ...], pattern: str, *, folded: bool, kind: str) -> None:
        self.literals = literals
        self._source = pattern
        self._compiled: re.Pattern[str] | None = None
        self.folded = folded
        #: "assign": the value, unless it is plainly no secret; "token": the
        #: whole match; "part": the group ``secret``
        self.kind = kind

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source)
        return self._compiled


RULES: Final = (
    *(Rule((lit,), pat + _ASSIGNED, folded=True, kind="assign") for lit, pat in KEYWORD_RULES),
    *(Rule(lits, pat, folded=folded, kind="token") for lits, pat, folded in _TOKEN_RULES),
    *(Rule((lit,), pat, folded=True, kind="part") for lit, pat in _PART_RULES),
)


def _by_start(folded: bool) -> dict[str, tuple[Rule, ...]]:
    """The rules (on the folded text or not) by the first character of their literals."""
    table: dict[str, list[Rule]] = {}
    for rule in RULES:
        if rule.folded == folded:
            for first in {literal[0] for literal in rule.literals}:
                table.setdefault(first, []).append(rule)
    return {first: tuple(rules) for first, rules in table.items()}


BY_FOLDED_START: Final = _by_start(folded=True)
BY_EXACT_START: Final = _by_start(folded=False)
