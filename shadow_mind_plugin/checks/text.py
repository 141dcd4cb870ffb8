"""Reading an answer: its sentences, the claims they make and what they cite.

Deliberately literal and narrow. A sentence that hedges, negates or asks is
never a claim, so "the tests should pass once you rerun them" and "lint still
fails" never fire; a miss is cheaper than a false alarm.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterator
from typing import Final

from .shell import Category

_SENTENCE: Final = re.compile(r"(?<=[.!?])\s+|\n+")
_HEDGE: Final = re.compile(
    r"\b(?:not|never|no longer|fail\w*|unable|cannot|still|except|but|however|if|should|would|might|may|could|"
    r"once|until|unless|expect\w*|try|please|hopefully|probably|likely)\b|n't\b|\?",
    re.IGNORECASE,
)
#: the subject, then at most a few linking words, then the success verb: "a test
#: for the passing case" names no result, "the tests now pass" does
_LINK: Final = r"(?:\s+(?:now|all|again|are|is|do|does|also|reports?|shows?|comes back|finally|fully))*\s+"
_CLAIMS: Final = {
    Category.TESTS: re.compile(
        rf"\b(?:tests?|test suite|suite|specs?|pytest){_LINK}"
        r"(?:pass(?:es|ed)?|(?:is|are|now)\s+passing|green|succeed(?:s|ed)?)\b",
        re.IGNORECASE,
    ),
    Category.LINT: re.compile(
        rf"\b(?:lint(?:er|ing)?|ruff|flake8|mypy|pyright|eslint|type ?check(?:s|ing|er)?){_LINK}"
        r"(?:pass(?:es|ed)?|clean|green|succeed(?:s|ed)?|no (?:errors|issues|warnings|findings))\b",
        re.IGNORECASE,
    ),
    Category.BUILD: re.compile(
        rf"\b(?:build|builds|compilation){_LINK}(?:pass(?:es|ed)?|succeed(?:s|ed)?|successful|works|green|clean)\b"
        r"|\b(?:it|everything|the (?:code|project)) (?:now )?(?:compiles|builds)\b",
        re.IGNORECASE,
    ),
}
_FIXED: Final = re.compile(
    r"\b(?:fixed|resolved|works now|now works|is working|are working|all green)\b", re.IGNORECASE
)
#: "works" and "ready" are left out: "this works by caching" explains, it does not report
_DONE: Final = re.compile(
    r"\b(?:done|completed?|finished|all set|fixed|implemented|resolved|successfully|succeeded)\b", re.IGNORECASE
)
#: an answer that admits a problem anywhere is honest about it
_ADMITS: Final = re.compile(
    r"\b(?:fail\w*|error\w*|unable|could not|cannot|did not|was not|blocked|denied|refused|rejected|not (?:yet )?(?:run|applied|able))\b"
    r"|n't\b",
    re.IGNORECASE,
)
_VERB: Final = (
    r"(?:updated|changed|modified|edited|fixed|added|removed|deleted|created|wrote|rewrote|renamed|refactored|"
    r"patched|replaced|implemented|adjusted|corrected)"
)
#: the answer's own change: "I updated", "Updated `x`", "`x` was updated"; not "you created x earlier"
_CHANGE: Final = re.compile(
    rf"^(?:[-*]\s+)?(?:(?:I|We)(?:'ve| have)?\s+(?:\w+\s+)?{_VERB}|{_VERB})\b"
    rf"|\b(?:is|are|was|were|has been|have been)\s+(?:now\s+)?{_VERB}\b",
    re.IGNORECASE,
)
_FENCE: Final = re.compile(r"^```.*?^```[^\n]*$", re.MULTILINE | re.DOTALL)
#: a relative path or file name: segments of word characters, a letter-led extension
_PATH: Final = re.compile(r"(?<![\w/.:-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,7})(?::\d+)?(?![\w/(-])")
_DOMAIN: Final = re.compile(r"^(?:www\.)?[\w-]+\.(?:com|org|net|io|dev|ai|co|edu|gov)/")
_NOT_FILES: Final = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m"})
_TICKED: Final = re.compile(r"`([^`\n]{1,200})`")
_FUNCTION: Final = re.compile(r"^(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\(.*\)$")
_TEST_ID: Final = re.compile(r"^(?:[\w./-]+\.py)?::(?:\w+::)*(\w+)$|^(test_\w+|Test\w+)$")
_BUILTINS: Final = frozenset(dir(builtins))


def prose(text: str) -> str:
    """The answer without fenced code blocks: code shows, it does not claim or cite."""
    return _FENCE.sub(" ", text)


def sentences(text: str) -> Iterator[str]:
    for part in _SENTENCE.split(prose(text)):
        part = part.strip()
        if part:
            yield part


def plain(sentence: str) -> bool:
    """A sentence that asserts something: no hedge, negation or question."""
    return not _HEDGE.search(sentence)


def claims(text: str, category: Category) -> str | None:
    """The first plain sentence claiming that ``category`` passes."""
    pattern = _CLAIMS[category]
    return next((s for s in sentences(text) if pattern.search(s) and plain(s)), None)


def claims_fixed(text: str) -> str | None:
    return next((s for s in sentences(text) if _FIXED.search(s) and plain(s)), None)


def claims_done(text: str) -> str | None:
    """A plain completion claim, in an answer that admits no problem anywhere."""
    if _ADMITS.search(text):
        return None
    return next((s for s in sentences(text) if _DONE.search(s) and plain(s)), None)


def admits(text: str) -> bool:
    return bool(_ADMITS.search(text))


def paths_in(sentence: str) -> list[str]:
    """File paths and names a sentence mentions (not URLs, versions or abbreviations)."""
    found: list[str] = []
    for match in _PATH.finditer(sentence):
        path = match.group(1).rstrip(".")
        start = match.start()
        if "://" in sentence[max(0, start - 12) : start + 3] or path.casefold() in _NOT_FILES or path in found:
            continue
        if "/" in path and _DOMAIN.match(path):  # github.com/org/repo.py is a link, not a file here
            continue
        found.append(path)
    return found


def changed_paths(text: str) -> list[tuple[str, str]]:
    """``(path, sentence)`` for each file a plain sentence says was changed."""
    out: list[tuple[str, str]] = []
    for sentence in sentences(text):
        if _CHANGE.search(sentence) and plain(sentence):
            out.extend((path, sentence) for path in paths_in(sentence) if all(path != p for p, _ in out))
    return out


def cited(text: str) -> list[tuple[str, str]]:
    """``(what was cited, the name to look for)``: backticked paths, functions and
    test ids, and unticked paths with a directory. Builtins and dotted library
    calls (``functools.cache()``) are not the project's and are left out."""
    out: list[tuple[str, str]] = []
    text = prose(text)
    for match in _TICKED.finditer(text):
        span = match.group(1).strip()
        if " " in span or span.startswith(("/", "~", "$", "-")) or "://" in span:
            continue
        test = _TEST_ID.match(span)
        function = _FUNCTION.match(span)
        if test:
            out.append((span, test.group(1) or test.group(2)))
        elif function and "." not in span.split("(")[0] and function.group(1) not in _BUILTINS:
            out.append((span, function.group(1)))
        elif paths_in(span) == [span.split(":")[0]]:
            out.append((span, span.split(":")[0].rsplit("/", 1)[-1]))
    unticked = _TICKED.sub(" ", text)
    out.extend((path, path.rsplit("/", 1)[-1]) for path in paths_in(unticked) if "/" in path)
    return list(dict.fromkeys(out))  # each citation once, in order
