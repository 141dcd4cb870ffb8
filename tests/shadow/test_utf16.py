"""UTF-16 lengths and slices against a reference that counts code units one by one."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from shadow_mind_plugin.utf16 import u16len, u16slice

# any code point, lone surrogates included (JSON "\ud800" escapes load as those)
TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=40)


def units_of(text: str) -> list[str]:
    """Each character as the UTF-16 units JavaScript sees: astral ones as a pair."""
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if code > 0xFFFF:
            code -= 0x10000
            out += [chr(0xD800 + (code >> 10)), chr(0xDC00 + (code & 0x3FF))]
        else:
            out.append(ch)
    return out


@given(TEXT)
@settings(max_examples=200, deadline=None)
def test_length_counts_utf16_units(text: str) -> None:
    assert u16len(text) == len(units_of(text))


def test_length_examples() -> None:
    assert u16len("") == 0
    assert u16len("abc") == 3
    assert u16len("äöü") == 3
    assert u16len("😀a") == 3
    assert u16len("a\ud800b") == 3  # a lone surrogate is one unit, as in JavaScript


def test_slice_keeps_lone_surrogates_instead_of_raising() -> None:
    assert u16slice("ä\ud800b", 0, 2) == "ä\ud800"
    assert u16slice("\udc00😀", 0, 3) == "\udc00😀"
    assert u16slice("x\ud800", -1) == "\ud800"


def test_slice_never_splits_a_pair() -> None:
    assert u16slice("a😀b", 0, 2) == "a"  # the cut falls inside the pair: it goes
    assert u16slice("a😀b", 2) == "b"
    assert u16slice("a😀b", 1, 3) == "😀"
    assert u16slice("😀😀", 1, 3) == ""


def units_with_partner(text: str) -> list[tuple[str, int]]:
    """(unit, index of the character it belongs to) for every UTF-16 unit."""
    return [(unit, index) for index, ch in enumerate(text) for unit in units_of(ch)]


@given(TEXT, st.integers(-45, 45), st.one_of(st.none(), st.integers(-45, 45)))
@settings(max_examples=300, deadline=None)
def test_slice_is_the_unit_slice_minus_split_pairs(text: str, start: int, stop: int | None) -> None:
    # two lone halves side by side are one pair to UTF-16 (and to JavaScript): not this reference's case
    assume(not any("\ud800" <= a <= "\udbff" and "\udc00" <= b <= "\udfff" for a, b in zip(text, text[1:], strict=False)))
    tagged = units_with_partner(text)
    window = tagged[start:stop]
    # a character survives when all of its units are inside the window
    whole = [index for index in dict.fromkeys(i for _, i in window) if sum(1 for _, i in window if i == index) == len(units_of(text[index]))]
    assert u16slice(text, start, stop) == "".join(text[i] for i in whole)


def test_long_texts_measure_the_same_through_the_prefix_memo() -> None:
    import math
    import random

    from shadow_mind_plugin.tokens import _DENSE, estimate_tokens
    from shadow_mind_plugin.utf16 import LONG_TEXT, note_extension

    def reference(text: str) -> tuple[int, int]:
        units = len(units_of(text))
        dense = sum(len(units_of(m)) for m in _DENSE.findall(text))
        return units, dense + math.ceil((units - dense) / 2)

    rng = random.Random(3)
    words = ["plain", "words", "配置", "déjà", "😀", "テスト", "\ud800"]

    def chunk(n: int) -> str:
        return " ".join(rng.choice(words) for _ in range(n))

    text = chunk(LONG_TEXT // 4)
    texts = [text]
    for _ in range(3):
        text = text + "\n\n" + chunk(50)  # grows, as a trajectory does
        texts.append(text)
    texts.append(chunk(LONG_TEXT // 4))  # an unrelated text of similar length
    texts.append(texts[-1][: len(texts[-1]) // 2 + LONG_TEXT])  # a shorter prefix of it
    texts.append(texts[2])  # back to an older one
    for text in texts:
        assert (u16len(text), estimate_tokens(text)) == reference(text)
    # a hint about another prefix is not taken for the remembered one
    other = chunk(LONG_TEXT // 4)
    note_extension(texts[0], other)
    assert (u16len(other), estimate_tokens(other)) == reference(other)


# the block edges of the dense classes and their neighbours, plus everyday text
_TOKEN_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from("ab \n\u2e7f\u2e80\u2eff\u3000\u303f\u30ff\u3100\u312f\u31bf\u31c0\u31ef\u4dbf\u4e00\u9fff\uac00\ud7af\ud7b0\uf900\ufaff\uff00\uffef\ufff0é😀\U00020000\U000323af\U000323b0"),
        st.characters(min_codepoint=0, max_codepoint=0x10FFFF),
    ),
    max_size=60,
)


@given(_TOKEN_TEXT)
@settings(max_examples=300, deadline=None)
def test_token_estimate_counts_dense_units_one_token_each(text: str) -> None:
    import math

    from shadow_mind_plugin.tokens import _DENSE, estimate_tokens

    units = len(units_of(text))
    dense = sum(len(units_of(ch)) for ch in text if _DENSE.fullmatch(ch))
    assert estimate_tokens(text) == (dense + math.ceil((units - dense) / 2) if text else 0)
