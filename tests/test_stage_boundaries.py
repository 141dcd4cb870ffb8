"""Each Shadow stage owns its per-root state; the others reach it only through
the ports (``shadow_mind_plugin/core/ports.py``).

Checked with ``ast`` over every module of the five stage packages: a module of
stage ``X`` must not read or write ``<anything>.<Y>`` for another stage ``Y``
(``state.trigger``, ``entry.owner.output``: the per-root state objects are the
``OwnerState`` fields named after their stages), nor import another stage's
``<Y>_state`` module. A call (``trio.run(...)``, ``pipeline.run(...)``) is a
method, not a state field, and is not counted. The ports themselves carry
values, never a stage's state object. The wiring (``runtime/``) and the shared
core (``core/``) compose the stages and are not stage packages.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from tests.test_layering import ROOT, _resolve_relative

PLUGIN = "shadow_mind_plugin"
STAGES = ("trigger", "run", "output", "coordination", "governance")
STATE_CLASSES = frozenset({"TriggerState", "RunState", "OutputState", "CoordinationState", "GovernanceState"})

#: ``file -> {expression: why it is not a stage's state}``: values whose own
#: field happens to share a stage's name
ALLOWED: dict[str, dict[str, str]] = {
    "shadow_mind_plugin/run/provider.py": {"result.output": "a SubagentResult's output blocks"},
}


def _called_attributes(tree: ast.AST) -> set[int]:
    """ids of the Attribute nodes that are the callee of a call (methods, not fields)."""
    return {
        id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }


def crossings(source: str, stage: str, module: str, filename: str = "<source>") -> list[str]:
    """Every place in ``source`` (a module of ``stage``) that touches another stage's state."""
    tree = ast.parse(source, filename=filename)
    others = set(STAGES) - {stage}
    called = _called_attributes(tree)
    found: list[str] = []
    parts = module.split(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in others and id(node) not in called:
            found.append(
                f"{filename}:{node.lineno}: {stage} stage touches {ast.unparse(node)} ({node.attr} stage's state)"
            )
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_relative(parts[:-1], node.level, node.module)[0] if node.level else node.module
            names = [base or ""] + [f"{base}.{alias.name}" for alias in node.names]
            for name in names:
                if any(
                    name == f"{PLUGIN}.{o}.{o}_state" or name.startswith(f"{PLUGIN}.{o}.{o}_state.") for o in others
                ):
                    found.append(f"{filename}:{node.lineno}: {stage} stage imports {name}")
                    break
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(alias.name.startswith(f"{PLUGIN}.{o}.{o}_state") for o in others):
                    found.append(f"{filename}:{node.lineno}: {stage} stage imports {alias.name}")
    return found


def _stage_modules() -> list[tuple[str, Path]]:
    return [(stage, path) for stage in STAGES for path in sorted((ROOT / PLUGIN / stage).glob("*.py"))]


class TestScanner:
    """The checker itself catches each spelling and leaves the stage's own state alone."""

    def check(self, source: str, stage: str = "run") -> list[str]:
        return crossings(textwrap.dedent(source), stage, f"{PLUGIN}.{stage}.mod")

    @pytest.mark.parametrize(
        "source",
        [
            "state.trigger.pending_escalations.pop('x', None)",  # read through another stage's state
            "entry.owner.output.relays_since_user += 1",  # write
            "trigger = state.trigger\ntrigger.pending.clear()",  # an alias still starts with the access
            "x = state.coordination.decay_factor('d')",
            "from ..trigger.trigger_state import TriggerState",
            "from shadow_mind_plugin.output import output_state",
            "import shadow_mind_plugin.governance.governance_state",
        ],
    )
    def test_crossings_are_caught(self, source: str) -> None:
        assert self.check(source)

    @pytest.mark.parametrize(
        "source",
        [
            "state.run.active.clear()",  # its own state
            "from .run_state import RunState",
            "trio.run(main)\nself._pipeline.run(entry)",  # methods named like a stage
            "self._trigger.drop_queued(state)",  # a port held under a private name
            "self._outcomes.decide(entry, outcome)",
        ],
    )
    def test_own_state_and_ports_pass(self, source: str) -> None:
        assert self.check(source) == []


@pytest.mark.parametrize(("stage", "path"), _stage_modules(), ids=lambda v: v if isinstance(v, str) else v.name)
def test_no_stage_touches_another_stages_state(stage: str, path: Path) -> None:
    module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    name = str(path.relative_to(ROOT))
    allowed = ALLOWED.get(name, {})
    found = [
        f for f in crossings(path.read_text(encoding="utf-8"), stage, module, name) if _expression(f) not in allowed
    ]
    assert not found, "stages talk through core/ports.py:\n" + "\n".join(found)


def _expression(finding: str) -> str:
    return finding.split(" touches ", 1)[1].split(" (", 1)[0] if " touches " in finding else ""


def test_every_allowance_is_still_needed() -> None:
    for name, expressions in ALLOWED.items():
        path = ROOT / name
        stage = path.relative_to(ROOT / PLUGIN).parts[0]
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        seen = {_expression(f) for f in crossings(path.read_text(encoding="utf-8"), stage, module, name)}
        assert set(expressions) <= seen, f"{name}: drop the allowance for {sorted(set(expressions) - seen)}"


def test_ports_never_carry_a_stage_state() -> None:
    """A port that handed out another stage's state object would reopen the seam."""
    source = (ROOT / PLUGIN / "core" / "ports.py").read_text(encoding="utf-8")
    names = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    names |= {node.attr for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Attribute)}
    assert not names & STATE_CLASSES


def test_every_stage_package_is_scanned() -> None:
    scanned = {stage for stage, _ in _stage_modules()}
    assert scanned == set(STAGES)
    for stage in STAGES:
        assert (ROOT / PLUGIN / stage / f"{stage}_stage.py").exists()
        assert (ROOT / PLUGIN / stage / f"{stage}_state.py").exists()
