"""An out-of-range Shadow Mind setting names its field the same way whether it
is written in the profile row's ``config`` or in ``settings.yaml``."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from harness.host import open_host
from hookspecs.errors import DshError

from .helpers import shadow_rows


async def start(tmp_path: Path, *, config: dict[str, object]) -> str:
    work = tmp_path / "work"
    work.mkdir(parents=True, exist_ok=True)
    with pytest.raises(DshError) as info:
        async with open_host(
            rows=shadow_rows(config),
            dsh_home=tmp_path / "home",
            cwd=work,
            headless=True,
            environ={},
            logger=logging.getLogger("config-errors"),
        ):
            pass
    return info.value.message


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("maxReportChars", -5, "maxReportChars must be an integer >= 0, got -5"),
        ("reviewWindowSize", 1, "reviewWindowSize must be an integer >= 2, got 1"),
        ("staleReportDecay", 1.5, "staleReportDecay must be a finite number from 0 to 1, got 1.5"),
    ],
)
async def test_profile_row_and_settings_file_both_name_the_field(
    tmp_path: Path, key: str, value: object, problem: str
) -> None:
    from_row = await start(tmp_path / "row", config={key: value})
    assert "field 'config'" in from_row and f"{problem} @ $.{key}" in from_row, from_row
    assert "invalid value @ $" not in from_row

    home = tmp_path / "file" / "home"
    home.mkdir(parents=True)
    (home / "settings.yaml").write_text(f"shadow-mind-runtime:\n  {key}: {value}\n")
    from_file = await start(tmp_path / "file", config={})
    assert f"shadow-mind-runtime.{key}: {problem}" in from_file, from_file


async def test_every_bad_field_of_a_row_is_named_at_once(tmp_path: Path) -> None:
    message = await start(tmp_path, config={"maxReportChars": -5, "reviewWindowSize": "big", "staleReportDecay": 2})
    assert "maxReportChars must be an integer >= 0, got -5 @ $.maxReportChars" in message
    assert "expected an integer, got the string 'big' @ $.reviewWindowSize" in message
    assert "staleReportDecay must be a finite number from 0 to 1, got 2 @ $.staleReportDecay" in message
