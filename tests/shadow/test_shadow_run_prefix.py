"""``/shadow retry RUN`` takes a unique run id prefix; an ambiguous one is a
one-line error with the number of matching runs, not "not found"."""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path

import pytest

from .helpers import new_root, settle, shadow_host, write_definition
from .test_shadow_command import FAIL_ONCE, SILENT, all_runs, checked_turn, err, ok, script, shadow


async def test_an_ambiguous_run_prefix_says_how_many_runs_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    numbers = itertools.count(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=(0xABCDEF << 104) + next(numbers)))
    home = tmp_path / "home"
    write_definition(home)
    async with shadow_host(tmp_path, script(FAIL_ONCE, SILENT), home=home) as (host, _, runtime):
        root = await new_root(host)
        await checked_turn(host, root)
        (failed,) = all_runs(runtime, root)
        ok(await shadow(host, root, f"/shadow retry {failed.run_id}"))
        await settle(host, root)
        first, second = all_runs(runtime, root)
        assert first.run_id[:8] == second.run_id[:8] == "abcdef00"
        text = err(await shadow(host, root, "/shadow retry abcdef00"))
        assert text == "Shadow run prefix 'abcdef00' is ambiguous: it matches 2 runs of this session; give more characters"
