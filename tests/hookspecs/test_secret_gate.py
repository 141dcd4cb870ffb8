"""The detector's pre-filter: one RE2 scan that also holds the registered secrets.

A text the gate does not hit is returned as it is, without the rules or the
window search running, so the gate must hit every text in which a
registered secret's window occurs, and hit it as a literal: regex
metacharacters, non-ASCII letters, case, NUL and lone surrogates (an
undecodable environment value) are the edge cases. The same scan also
answers for control characters, so :func:`scrub_visible` settles a plain
text at once and must equal ``scrub_secrets(visible(text))`` on every text.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookspecs import secret_gate as gate_module
from hookspecs import secrets_detect
from hookspecs.scrub import CREDENTIAL, scrub_json, scrub_secrets, scrub_visible, visible
from hookspecs.secret_gate import PARTIAL_SECRET, KnownSecrets


@pytest.fixture
def known(monkeypatch: pytest.MonkeyPatch) -> KnownSecrets:
    registry = KnownSecrets()
    monkeypatch.setattr(secrets_detect, "_KNOWN", registry)
    return registry


def _register(secret: str) -> None:
    assert secrets_detect.register_secret(secret)


@pytest.mark.parametrize(
    "secret",
    [
        "a.b*c+d(e)f[g]h\\i|j{k}l^m$n?o",  # every RE2 metacharacter, taken literally
        "ключ-доступа-0123456789",  # non-ASCII letters
        "emoji🔑key-0123456789abc",  # outside the BMP
        "tab\there-and\nnewline-xyz",
        "nul\0inside-the-secret-value",  # left out of the RE2 pattern, searched as a substring
        "lone\udcffsurrogate-0123456789",  # os.environ's escape of an undecodable byte
    ],
    ids=["metacharacters", "cyrillic", "astral", "controls", "nul", "surrogate"],
)
def test_a_registered_secret_of_any_characters_is_hidden(known: KnownSecrets, secret: str) -> None:
    _register(secret)
    echoed = secret[3 : 3 + PARTIAL_SECRET + 2]
    assert scrub_secrets(f"said {echoed} twice") == f"said {CREDENTIAL} twice"
    assert secrets_detect.may_hold_credentials(f"x {echoed} y")
    line = json.dumps({"text": f"x {secret} y"}, ensure_ascii=False).encode("utf-8", "surrogatepass")
    assert secrets_detect.may_hold_credentials(line)
    assert secrets_detect.suspects(["clean", f"x {echoed}", "clean too"]) == [False, True, False]


def test_metacharacters_match_only_themselves(known: KnownSecrets) -> None:
    _register("ab.cd*ef+gh?ij-0123")
    # as regexes, its windows "ab.cd*ef" and "b.cd*ef+" would match these
    for text in ("abXcddddef", "abYcef", "bZceffff", "ab.cdef"):
        assert scrub_secrets(text) == text
        assert not secrets_detect.may_hold_credentials(text)


def test_registered_secrets_match_case_sensitively(known: KnownSecrets) -> None:
    _register("AbCdEfGhIjKlMnOpQr")
    assert scrub_secrets("abcdefghijklmnopqr") == "abcdefghijklmnopqr"
    assert scrub_secrets("xx CdEfGhIj yy") == f"xx {CREDENTIAL} yy"


def test_a_window_across_two_texts_flags_neither(known: KnownSecrets) -> None:
    # suspects joins texts with NUL: a secret split between two strings is
    # in neither, so neither loses anything
    secret = "Zq81kQ2mLp09vNbTwX"
    _register(secret)
    head, tail = secret[:6], secret[6:12]
    assert secrets_detect.suspects([f"a {head}", f"{tail} b"]) == [False, False]
    assert scrub_json({"a": f"a {head}", "b": f"{tail} b"}) == {"a": f"a {head}", "b": f"{tail} b"}


def test_forgetting_restores_the_rules_gate(known: KnownSecrets) -> None:
    _register("Zq81kQ2mLp09vNbTwX")
    assert scrub_secrets("Zq81kQ2mLp09") == CREDENTIAL
    secrets_detect.forget_registered_secrets()
    assert scrub_secrets("Zq81kQ2mLp09") == "Zq81kQ2mLp09"


_ALPHABET = st.sampled_from(list("aZ09.*+?()[]{}|\\^$-_ \n\t\0é🔑\udcff=:\"'"))


@settings(max_examples=200, deadline=None)
@given(
    secret=st.text(_ALPHABET, min_size=16, max_size=24),
    noise=st.lists(st.text(_ALPHABET, max_size=6), max_size=4),
    cut=st.tuples(st.integers(0, 16), st.integers(0, 24)),
)
def test_the_gate_misses_only_texts_without_a_window(secret: str, noise: list[str], cut: tuple[int, int]) -> None:
    registry = KnownSecrets()
    registry.add(secret)
    text = noise[0] if noise else ""
    text += secret[cut[0] : cut[0] + cut[1]] + "".join(noise[1:])
    data = text.encode("utf-8", "surrogatepass")
    has_window = any(window in text for window in registry.windows)
    if has_window:
        assert registry.may_occur(text, data)
        assert registry.may_occur_bytes(data)
    if not registry.may_occur(text, data):
        assert registry.hide(text, set()) == text


_PIECES = st.sampled_from(
    [
        "plain words ",
        "\r\n",
        "\r",
        "\x1b[31m",
        "\x07",
        "\x7f",
        "\x85",
        "\u202e",
        "\u2066",
        "\ud800",
        "\t\n",
        "é🔑",
        "api_key=",
        "Zq81kQ2mLp09",
        "sk-",
        "proj-Ab12Cd34Ef56Gh78",
        "://u:p4ssw0rd@h",
    ]
)


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=6), registered=st.booleans())
def test_scrub_visible_is_visible_then_scrub_secrets(pieces: list[str], registered: bool) -> None:
    registry = KnownSecrets()
    if registered:
        registry.add("Zq81kQ2mLp09vNbTwX")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(secrets_detect, "_KNOWN", registry)
        text = "".join(pieces)
        assert scrub_visible(text) == scrub_secrets(visible(text))


@pytest.mark.parametrize(
    "text", ["a\r\nb", "bell\x07", "\x1b[2J", "del\x7f", "c1\x9b", "rtl\u202eevil", "lone\udc80", "tab\tnl\n"]
)
def test_the_plain_gate_stops_at_every_control_character(text: str) -> None:
    # tabs and newlines are kept as they are; everything else visible() changes must be hit
    assert secrets_detect.is_plain(text) == (visible(text) == text)


def _visible_in_full(text: str) -> str:
    """visible() without its one-scan shortcut: the three replacements it makes."""
    import re

    from hookspecs.secret_gate import CONTROLS

    def stand_in(match: re.Match[str]) -> str:
        code = ord(match.group())
        return "^" + chr(code ^ 0x40) if code < 0x20 or code == 0x7F else f"<U+{code:04X}>"

    text = re.sub("[\ud800-\udfff]", "\ufffd", text.replace("\r\n", "\n"))
    return re.sub(f"[{CONTROLS}]", stand_in, text)


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=6))
def test_visible_skips_only_texts_it_would_leave_alone(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert visible(text) == _visible_in_full(text)


@settings(max_examples=400, deadline=None)
@given(
    value=st.one_of(
        st.sampled_from(["None", "NULL", "str", "Optional", "SecretStr", "xxx", "XxXx", "xx", "x.y", "api_key", "..."]),
        st.text(st.sampled_from(list("xXsStrnoeNu_.0$<>{}*%()[]…ſK")), max_size=8),
    ),
    next_char=st.sampled_from(["", "(", "[", " "]),
)
def test_not_a_secret_agrees_with_the_placeholder_pattern(value: str, next_char: str) -> None:
    # the set lookup for identifier-shaped values must answer as the pattern did
    from hookspecs.secrets_detect import _not_a_secret, _value_shapes

    placeholder, identifier, names_a_secret = _value_shapes()
    folded = value.lower()
    if not value or placeholder.fullmatch(value):
        expected = True
    elif identifier.fullmatch(value) is None:
        expected = False
    else:
        expected = names_a_secret.search(folded) is not None or next_char in ("(", "[")
    assert _not_a_secret(value, folded_value=folded, next_char=next_char) == expected


_URL_PIECES = st.sampled_from(
    [
        "https",
        "://",
        "user",
        ":",
        "p4ss",
        "@",
        "/",
        "?",
        "#",
        " ",
        "\n",
        "\t",
        "\0",
        '"',
        "\\",
        "é",
        "\u2028",
        "\x1c",
        "x",
    ]
)


@settings(max_examples=500, deadline=None)
@given(pieces=st.lists(_URL_PIECES, max_size=10))
def test_the_first_scan_hits_every_url_password_the_rule_hides(pieces: list[str]) -> None:
    # the first scan takes a URL only with a password: wherever the URL rule
    # hides something, in the text or in an event's JSON line, it must hit
    from hookspecs.values.json import dumps_compact

    text = "".join(pieces)
    spans = secrets_detect._merged(secrets_detect._spans_everywhere(text))
    if spans:
        assert secrets_detect.may_hold_credentials(text)
        assert secrets_detect.may_hold_credentials(dumps_compact({"t": text}).encode("utf-8"))
        assert secrets_detect.suspects(["a", text, "b"]) == [False, True, False]
    assert scrub_secrets(text) == secrets_detect._splice(text, spans)


@pytest.mark.parametrize(
    "text",
    ["see https://docs.example.com/guide?a=1#top", "git@github.com:me/repo.git", "ftp://host/path:x@y"],
)
def test_a_link_without_a_password_is_settled_by_the_first_scan(text: str) -> None:
    assert not secrets_detect.may_hold_credentials(text)
    assert scrub_secrets(text) == text


def test_a_hit_in_the_last_text_ends_the_scan_quietly(capfd: pytest.CaptureFixture[str]) -> None:
    # after a hit the scan resumes at the next text's start, past the end for
    # the last one: RE2 must not be asked (it logs the bad range to stderr)
    assert secrets_detect.suspects(["clean", "api_key=Zx81kQ2mLp09vNbT"]) == [False, True]
    assert "invalid startpos" not in capfd.readouterr().err


_KEY = "sk-live-Ab12Cd34Ef56Gh78"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.builds(lambda a, b: _KEY[a:b], st.integers(0, len(_KEY)), st.integers(0, len(_KEY))),
            st.text(st.sampled_from("ab -\n"), max_size=6),
            st.sampled_from(["é", "\x00", "\u2028"]),
        ),
        max_size=8,
    )
)
def test_the_gate_finds_the_stretches_the_walk_over_every_position_finds(pieces: list[str]) -> None:
    """Windows are found where the gate hits and walked from there, in ASCII
    text: stretches that overlap, touch, or are split by a short gap come out
    as the walk over every position makes them, and so does non-ASCII text."""
    registry = KnownSecrets()
    registry.add(_KEY)
    text = "".join(pieces)
    walked = gate_module._hide_windows(text, registry.windows, PARTIAL_SECRET)
    assert registry.hide(text, set()) == walked
    assert registry.hide(text, set(), text.encode("utf-8", "surrogatepass")) == walked


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (_KEY, CREDENTIAL),
        (_KEY[:8] + _KEY[8:], CREDENTIAL),
        (_KEY[:9] + _KEY[:9], CREDENTIAL),  # two windows touching: one stretch
        (_KEY[:8] + "x" + _KEY[:8], f"{CREDENTIAL}x{CREDENTIAL}"),  # a gap of one: two
        ("a" * 5000 + _KEY[3:12] + "b" * 5000, "a" * 5000 + CREDENTIAL + "b" * 5000),
        (_KEY[:7] + " " + _KEY[7:14], _KEY[:7] + " " + _KEY[7:14]),  # no 8 characters in a row
    ],
)
def test_stretches_of_a_registered_secret_at_the_edges(text: str, expected: str) -> None:
    registry = KnownSecrets()
    registry.add(_KEY)
    assert registry.hide(text, set()) == expected
