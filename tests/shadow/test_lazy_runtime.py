"""The runtime builds its stages at their first need (issue 20, item 7): a
``harness run`` whose turns use no tool never loads the review machinery, and
building it later changes nothing a person sees."""

from __future__ import annotations

from pathlib import Path

from hookspecs.values import create_user_message
from shadow_mind_plugin.runtime.runtime import ShadowRuntime

from .helpers import new_root, settle, shadow_host, write_definition
from .test_outcomes import script

SILENT = """
  - match: {depth: 1}
    reply:
      tool_calls: [{name: structured_output, arguments: {status: silent, content: "nothing to add"}}]
"""


async def test_turns_without_tools_leave_the_stages_unbuilt(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=1.0)
    async with shadow_host(tmp_path, script(SILENT), home=home) as (host, _adapter, runtime):
        root = await new_root(host)
        for text in ("hello", "and again"):  # user messages, completed turns, idle roots, steps
            root.followup(create_user_message(text))
            await settle(host, root)
        assert runtime.wired is False
        assert runtime.owner(root, create=False) is None  # asking builds them: still no owner
        assert runtime.wired is True


async def test_a_turn_that_used_tools_builds_them_and_is_reviewed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home, probability=1.0)
    async with shadow_host(tmp_path, script(SILENT), home=home) as (host, _adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message("please check the notes"))
        await settle(host, root)
        assert runtime.wired is True
        (cycle,) = runtime.controls.cycles(root)
        assert [run["phase"] for run in cycle["runs"]] == ["silent"], repr(cycle["runs"])


async def test_torn_down_before_building_builds_them_stopped(tmp_path: Path) -> None:
    async with shadow_host(tmp_path, script(SILENT)) as (host, _adapter, runtime):
        root = await new_root(host)
        root.followup(create_user_message("hello"))
        await settle(host, root)
        await runtime.teardown()  # the plugin's disposal, with nothing built
        assert runtime.wired is False
        assert runtime.ctx.stopped is True  # built now, as a stopped runtime's
        assert runtime.owner(root) is None


def test_an_unknown_attribute_is_still_an_attribute_error(tmp_path: Path) -> None:
    class Host:
        pass

    runtime = ShadowRuntime(Host())  # type: ignore[arg-type]
    assert not hasattr(runtime, "no_such_stage")
    assert runtime.wired is False
