"""The chat's Markdown rendering, in process: blocks render as they finish
(never inside a code fence), the result does not depend on how the stream was
cut, links show their address, and the model's control characters stay visible."""

from __future__ import annotations

import re

from harness.cli.markdown import MarkdownStream, render_markdown

ANSWER = (
    "Intro with **bold**.\n\n"
    "```python\nfirst = 1\n\nsecond = 2\n```\n\n"
    "- one\n- two\n\n"
    "See [the guide](https://example.com/guide).\n"
)
SGR = re.compile(r"\x1b\[[0-9;]*m")


def streamed(text: str, size: int, *, color: bool = False) -> tuple[list[str], str]:
    stream = MarkdownStream(color=color, width=lambda: 80)
    pieces = [stream.feed(text[i : i + size]) for i in range(0, len(text), size)]
    pieces.append(stream.flush())
    return [p for p in pieces if p], "".join(pieces)


def test_blocks_render_as_they_finish_and_a_fence_is_never_cut() -> None:
    stream = MarkdownStream(color=False, width=lambda: 80)
    assert stream.feed("Intro with **bold**.") == ""  # the paragraph may go on
    assert stream.feed("\n\n").strip() == "Intro with bold."
    assert stream.feed("```python\nfirst = 1\n\n") == ""  # a blank line inside a fence ends nothing
    code = stream.feed("second = 2\n```\n\n")
    assert "first = 1" in code and "second = 2" in code and "```" not in code
    assert code.startswith("\n")  # set off from the block before it
    assert "one" in stream.flush() + stream.feed("- one\n") + stream.flush()


def test_the_rendering_does_not_depend_on_how_the_stream_was_cut() -> None:
    _, whole = streamed(ANSWER, len(ANSWER))
    for size in (1, 3, 7, 64):
        assert streamed(ANSWER, size)[1] == whole
    assert "**" not in whole and "```" not in whole
    assert "the guide (https://example.com/guide)" in " ".join(whole.split())  # the address is shown


def test_no_colour_means_no_escape_sequences_and_colour_means_styling() -> None:
    assert "\x1b" not in streamed(ANSWER, 5)[1]
    coloured = streamed(ANSWER, 5, color=True)[1]
    assert SGR.search(coloured) and "bold" in SGR.sub("", coloured)


def test_control_characters_from_the_model_are_shown_not_obeyed() -> None:
    text = "A \x1b[2J clear, a \x1b]8;;https://evil.example\x1b\\link\x1b]8;;\x1b\\, a bell \x07 and \x9b31m C1.\n"
    out = render_markdown(text, color=True, width=100)
    assert "^[[2J" in out and "^G" in out and "<U+009B>" in out
    assert not re.search(r"\x1b(?!\[[0-9;]*m)", out)  # every ESC left starts rich's own SGR styling
    assert "\x07" not in out and "\x9b" not in out


def shown(output: str, size: tuple[int, int]) -> list[str]:
    import pyte

    screen = pyte.Screen(*size)
    pyte.Stream(screen).feed(output.replace("\n", "\r\n"))  # the tty's own newline translation
    return [line.rstrip() for line in screen.display if line.strip()]


def test_live_text_is_replaced_by_its_rendering_on_screen() -> None:
    from harness.cli.markdown import LiveMarkdown

    written: list[str] = []
    live = LiveMarkdown(written.append, color=True, live=True, size=lambda: (30, 20))
    for piece in ("A **bold** word that wraps over", " more than one row.\n", "\n", "- item **x**"):
        live.feed(piece)
    assert "**bold**" in "".join(written)  # shown plain while it was written
    live.end()
    screen = shown("".join(written), (30, 20))
    assert screen == ["A bold word that wraps over", "more than one row.", " • item x"]


def test_text_taller_than_the_screen_stays_as_written() -> None:
    """Rows scrolled away cannot be erased: the block keeps its plain text, once."""
    from harness.cli.markdown import LiveMarkdown

    written: list[str] = []
    live = LiveMarkdown(written.append, color=True, live=True, size=lambda: (20, 4))
    live.feed("word " * 30)
    live.end()
    screen = shown("".join(written), (20, 4))
    assert all(set(line.split()) == {"word"} for line in screen)
    assert "".join(written).count("word") == 30
