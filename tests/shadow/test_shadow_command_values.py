"""How ``/shadow set`` and ``/shadow config`` read their values.

One YAML loader, the definition parser's (dates stay strings), quoted and
spaced values in every position, and every failure a one-line message that
names the field and leaves the files unchanged.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from hookspecs.values import CommandResult

from .helpers import new_root, shadow_host, write_definition

SCRIPT = """responses:
  - match: {depth: 0}
    repeat: true
    reply: {text: "noted"}
"""


async def run(host: Any, line: str) -> CommandResult:
    root = await new_root(host)
    result = await host.commands.execute(root, line)
    assert result is not None
    return result


def one_line_error(result: CommandResult) -> str:
    assert result.kind == "error", result.text
    assert "\n" not in result.text and "Traceback" not in result.text, result.text
    return result.text


async def test_set_reads_dates_as_the_strings_they_were_written_as(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, _, runtime):
        result = await run(host, "/shadow set reasoning_effort 2024-05-01")
        assert result.kind == "success", result.text
        assert runtime.registry.default_definition().reasoning_effort == "2024-05-01"


async def test_config_reads_dates_as_the_strings_they_were_written_as(tmp_path: Path) -> None:
    async with shadow_host(tmp_path, SCRIPT) as (host, _, runtime):
        result = await run(host, "/shadow config reasoningEffortLadder [low, 2024-05-01]")
        assert result.kind == "success", result.text
        assert runtime.settings().reasoning_effort_ladder == ("low", "2024-05-01")


async def test_set_unquotes_a_quoted_name_and_keeps_a_plain_one_verbatim(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, _, runtime):
        assert (await run(host, '/shadow set name "My  careful: reviewer"')).kind == "success"
        assert runtime.registry.default_definition().name == "My  careful: reviewer"
        assert (await run(host, "/shadow set name it's: mine")).kind == "success"
        assert runtime.registry.default_definition().name == "it's: mine"


async def test_config_pairs_with_spaced_and_quoted_values(tmp_path: Path) -> None:
    async with shadow_host(tmp_path, SCRIPT) as (host, _, runtime):
        result = await run(host, "/shadow config maxReportChars 5 reasoningEffortLadder [low, 'very high']")
        assert result.kind == "success", result.text
        settings = runtime.settings()
        assert (settings.max_report_chars, settings.reasoning_effort_ladder) == (5, ("low", "very high"))
        result = await run(
            host,
            '/shadow config sessionShadowSoftBudgetChars 100 sessionShadowHardBudgetChars 1000 frugalShadowModel "scripted/cheap"',
        )
        assert result.kind == "success", result.text
        assert runtime.settings().frugal_shadow_model == "scripted/cheap"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("timeout_seconds !!int a", "timeout_seconds: could not read the value '!!int a': "),
        ("tools [read", "tools: could not read the value '[read': "),
        ("tools {a: [b}", "tools: could not read the value '{a: [b}': "),
        ("enabled !!python/name:os.system", "enabled: could not read the value '!!python/name:os.system': "),
    ],
)
async def test_set_errors_are_one_line_naming_the_field(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, args: str, expected: str
) -> None:
    home = tmp_path / "home"
    path = write_definition(home)
    before = path.read_bytes()
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, _, _):
        with caplog.at_level(logging.WARNING):
            text = one_line_error(await run(host, f"/shadow set {args}"))
    assert text.startswith(expected), text
    assert not [r for r in caplog.records if r.exc_info], "a value error must not be logged with a traceback"
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("maxReportChars !!int a", "maxReportChars: could not read the value '!!int a': "),
        ("reasoningEffortLadder [low", "reasoningEffortLadder: could not read the value '[low': "),
        ("maxReportChars 5 reviewWindowSize [3", "reviewWindowSize: could not read the value '[3': "),
        ("maxReportChars 5 reviewWindowSize 'open", "reviewWindowSize: could not read the value \"'open\": "),
    ],
)
async def test_config_errors_are_one_line_naming_the_field(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, args: str, expected: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    settings = home / "settings.yaml"
    settings.write_text("shadow-mind-runtime:\n  maxReportChars: 7\n")
    before = settings.read_bytes()
    async with shadow_host(tmp_path, SCRIPT, home=home) as (host, _, _):
        with caplog.at_level(logging.WARNING):
            text = one_line_error(await run(host, f"/shadow config {args}"))
    assert text.startswith(expected), text
    assert not [r for r in caplog.records if r.exc_info]
    assert settings.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("a 1 b 2", ["a", "1", "b", "2"]),
        ("k [low, 'very high'] j {x: [1, 2]}", ["k", "[low, 'very high']", "j", "{x: [1, 2]}"]),
        ("k 'it''s two' j \"say \\\"hi\\\" now\"", ["k", "'it''s two'", "j", '"say \\"hi\\" now"']),
        ("k ['a ] b', c]", ["k", "['a ] b', c]"]),
        ("k [open ended", ["k", "[open ended"]),  # unclosed: the rest is one value YAML then rejects
        ("k 'open ended", ["k", "'open ended"]),
    ],
)
def test_split_values_keeps_quoted_and_bracketed_values_whole(text: str, tokens: list[str]) -> None:
    from shadow_mind_plugin.command_values import split_values

    assert split_values(text) == tokens
