"""A holdout sidecar nested too deeply for the JSON decoder is a clear definition
problem: the holdout definition is reported, the turn is still reviewed by the
other definitions (it used to be a RecursionError in the runtime's event handler)."""

from __future__ import annotations

from pathlib import Path

from .helpers import new_root, shadow_host, write_definition
from .test_governance_runtime import reviewer, root_turns, turn

HELD = """---
id: held
name: Held-out reviewer
enabled: true
activation_probability: 1
holdout: true
---

Check the root against the held-out scoring command.
"""


async def test_a_deeply_nested_sidecar_leaves_the_other_definitions_working(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_definition(home)
    (home / "shadow-minds" / "held.md").write_text(HELD)
    (home / "shadow-minds" / "holdout-keys.json").write_text('{"held": ' + "[" * 100_000 + "]" * 100_000 + "}")
    script = "responses:\n" + reviewer(repeat=False, refs='["{{seq:tool call}}"]') + root_turns(1)
    async with shadow_host(tmp_path, script, home=home) as (host, _, runtime):
        root = await new_root(host)
        await turn(host, root, 0, source=None)
        status = runtime.controls.status(root)
        assert status["total_runs"] == 1
        assert status["last_run"]["shadow_id"] == "default"
        catalog = runtime.registry.list()
        assert catalog.ids == ("default",)
        (diagnostic,) = catalog.diagnostics
        assert (diagnostic.path, diagnostic.error) == ("held.md", "invalid holdout key sidecar JSON: nested too deeply")
        assert any(e.type == "user/message" and e.data["message"]["source"]["kind"] == "shadow-report" for e in root.session.events)
