"""The reference docs match the contract (datasette's habit).

* every ``dsh_*`` hook has a ``### name(arg1, arg2)`` heading in ``docs/hooks.md``
  built from ``spec.argnames``, and no heading names a hook that does not exist;
* every core event type has a section in ``docs/events.md``.
"""

from __future__ import annotations

import inspect
import re
import typing
from pathlib import Path

import pluggy
import pytest

import hookspecs
from harness.plugins import make_plugin_manager
from hookspecs.values.agents import CancelBy
from hookspecs.values.events import EventTypes, TurnEndKinds

ROOT = Path(__file__).resolve().parents[1]
HOOKS_MD = ROOT / "docs" / "hooks.md"
EVENTS_MD = ROOT / "docs" / "events.md"

#: Any markdown heading that starts with a hook-like name, at any level.
_HOOK_HEADING = re.compile(r"^(#{1,6})[ \t]+`?(dsh_[A-Za-z0-9_]*)(.*)$")
_ANY_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*)$")
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)

#: Hooks whose section must carry a runnable example implementing them.
HOOKS_WITH_EXAMPLES = (
    "dsh_session_event",
    "dsh_agent_inbox",
    "dsh_agent_turn_stopping",
    "dsh_tool_pre_execute",
    "dsh_approval_request",
    "dsh_register_tools",
    "dsh_plugin_setup",
)

SLOTS = ("**When:**", "**Return:**", "**Semantics:**", "**Timing:**")


def _spec_hooks() -> dict[str, tuple[str, ...]]:
    pm = make_plugin_manager()
    hooks: dict[str, tuple[str, ...]] = {}
    for name in vars(pm.hook):
        if not name.startswith("dsh_"):
            continue
        caller = getattr(pm.hook, name)
        if isinstance(caller, pluggy.HookCaller) and caller.spec is not None:
            hooks[name] = tuple(caller.spec.argnames)
    return hooks


SPEC_HOOKS = _spec_hooks()


def _signature(name: str) -> str:
    return f"{name}({', '.join(SPEC_HOOKS[name])})"


def _strip_code_blocks(text: str) -> str:
    """The text with fenced code blocks blanked out (a ``# comment`` is no heading)."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else line)
    return "\n".join(out)


def _hook_headings(text: str) -> list[tuple[int, str, str]]:
    """``(line number, hook name, full heading line)`` for every hook-like heading."""
    found = []
    for number, line in enumerate(_strip_code_blocks(text).splitlines(), start=1):
        match = _HOOK_HEADING.match(line)
        if match:
            found.append((number, match.group(2), line.rstrip()))
    return found


def _sections(text: str) -> dict[str, str]:
    """The body under each ``### dsh_...`` heading, up to the next heading of level 1-3."""
    lines = text.splitlines()
    visible = _strip_code_blocks(text).splitlines()
    sections: dict[str, str] = {}
    current: str | None = None
    body: list[str] = []
    for raw, line in zip(lines, visible, strict=False):  # blanked trailing lines may drop off
        heading = _ANY_HEADING.match(line)
        if heading and len(heading.group(1)) <= 3:
            if current is not None:
                sections[current] = "\n".join(body)
            hook = _HOOK_HEADING.match(line)
            current = hook.group(2) if hook else None
            body = []
            continue
        body.append(raw)
    if current is not None:
        sections[current] = "\n".join(body)
    return sections


@pytest.fixture(scope="module")
def hooks_md() -> str:
    return HOOKS_MD.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def events_md() -> str:
    return EVENTS_MD.read_text(encoding="utf-8")


def test_the_plugin_manager_has_hooks() -> None:
    # guards the parametrisation below against silently testing nothing
    assert len(SPEC_HOOKS) >= 20
    assert SPEC_HOOKS["dsh_session_event"] == ("session", "event")


@pytest.mark.parametrize("hook", sorted(SPEC_HOOKS))
def test_hook_is_documented_with_its_exact_signature(hook: str, hooks_md: str) -> None:
    expected = f"### {_signature(hook)}"
    headings = [line for _, name, line in _hook_headings(hooks_md) if name == hook]
    assert headings, f"{hook} is not documented in docs/hooks.md; add a heading {expected!r}"
    assert headings == [expected], (
        f"docs/hooks.md documents {hook} as {headings!r}; the specification says {expected!r}"
    )


def test_documented_hooks_exist(hooks_md: str) -> None:
    unknown = [f"line {number}: {line}" for number, name, line in _hook_headings(hooks_md) if name not in SPEC_HOOKS]
    assert not unknown, "docs/hooks.md documents hooks that do not exist:\n" + "\n".join(unknown)


def test_hooks_are_grouped_in_spec_module_order(hooks_md: str) -> None:
    module_index = {}
    for index, module in enumerate(hookspecs.SPEC_MODULES):
        for name, _ in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("dsh_"):
                module_index[name] = index
    assert set(module_index) == set(SPEC_HOOKS)
    order = [module_index[name] for _, name, _ in _hook_headings(hooks_md) if name in module_index]
    assert order == sorted(order), "hook sections must follow the order of hookspecs.SPEC_MODULES"


@pytest.mark.parametrize("hook", sorted(SPEC_HOOKS))
def test_hook_section_documents_every_argument_and_slot(hook: str, hooks_md: str) -> None:
    section = _sections(hooks_md).get(hook)
    assert section is not None, f"no section for {hook}"
    for arg in SPEC_HOOKS[hook]:
        assert re.search(rf"^- `{arg}` — ", section, re.M), f"{hook}: argument {arg!r} has no '- `{arg}` — type — meaning' bullet"
    for slot in SLOTS:
        assert slot in section, f"{hook}: the {slot} slot is missing"


@pytest.mark.parametrize("hook", HOOKS_WITH_EXAMPLES)
def test_important_hooks_have_an_example(hook: str, hooks_md: str) -> None:
    section = _sections(hooks_md)[hook]
    blocks = _PYTHON_BLOCK.findall(section)
    assert any(re.search(rf"def {hook}\(", block) for block in blocks), f"{hook}: no example implementing it"


def test_examples_compile_and_match_the_hookspecs(hooks_md: str) -> None:
    """Every Python example runs as a module, and every plugin class in it registers
    cleanly: argument names are a subset of the spec's and no hook name is unknown."""
    blocks = _PYTHON_BLOCK.findall(hooks_md)
    assert len(blocks) >= len(HOOKS_WITH_EXAMPLES)
    registered = 0
    for number, block in enumerate(blocks, start=1):
        module_name = f"docs_hooks_example_{number}"
        namespace: dict[str, object] = {"__name__": module_name}
        exec(compile(block, f"docs/hooks.md example {number}", "exec"), namespace)
        pm = make_plugin_manager()
        for name, obj in list(namespace.items()):
            if not (inspect.isclass(obj) and obj.__module__ == module_name):
                continue
            if not any(pm.parse_hookimpl_opts(obj, attr) for attr in dir(obj) if attr.startswith("dsh_")):
                continue
            pm.register(obj, name=f"{module_name}.{name}")  # raises PluginValidationError on a bad signature
            registered += 1
        pm.check_pending()  # raises for an implementation of an unknown hook
    assert registered >= len(HOOKS_WITH_EXAMPLES)


# --- events ---------------------------------------------------------------------------


def _event_headings(text: str) -> list[str]:
    return re.findall(r"^### `([^`]+)`\s*$", _strip_code_blocks(text), re.M)


def test_every_event_type_constant_is_core() -> None:
    constants = {
        value for name, value in vars(EventTypes).items() if name.isupper() and isinstance(value, str)
    }
    assert constants == set(EventTypes.CORE)


@pytest.mark.parametrize("event_type", sorted(EventTypes.CORE))
def test_core_event_type_is_documented(event_type: str, events_md: str) -> None:
    assert event_type in _event_headings(events_md), (
        f"docs/events.md has no '### `{event_type}`' section"
    )


def test_documented_event_types_are_core(events_md: str) -> None:
    headings = _event_headings(events_md)
    assert len(headings) == len(set(headings)), "an event type is documented twice"
    assert set(headings) <= set(EventTypes.CORE), set(headings) - set(EventTypes.CORE)


def test_turn_end_reasons_are_documented(events_md: str) -> None:
    for kind in TurnEndKinds.ALL:
        assert f'"kind": "{kind}"' in events_md, f"turn/end reason {kind!r} is not documented"
    for by in typing.get_args(CancelBy):
        assert f'"{by}"' in events_md, f"aborted turns by {by!r} are not documented"
