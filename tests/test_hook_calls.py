"""One way to call hooks: :class:`harness.hook_facade.HostHooks`.

Host code calls a typed method of the facade; it never calls ``pm.hook.dsh_*``
(pluggy's own walk stops at the first exception and cannot await) nor the
runner that walks implementations (:mod:`harness.hook_runner`), which is the
facade's implementation detail. Checked with ``ast`` over every product module:

* no call ``<anything>.hook.dsh_*(...)`` nor ``getattr(<anything>.hook, ...)(...)``;
* no module but the facade imports :mod:`harness.hook_runner`.

Reading the specification (``vars(pm.hook)``, ``caller.has_spec()``) is no call
and stays allowed: the plugin loader checks unknown hooks that way.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_layering import ROOT, imports_in, source_files

PACKAGES = ("hookspecs", "harness", "shadow_mind_plugin", "evolution_review_plugin")
FACADE = "harness/hook_facade.py"
RUNNER_MODULE = "harness.hook_runner"
#: the runner itself walks ``pm.hook`` to find implementations
RUNNER_FILE = "harness/hook_runner.py"


def _modules() -> Iterator[tuple[Path, str, bool]]:
    """``(path, dotted module name, is_package)`` of every product module."""
    for package in PACKAGES:
        yield from source_files(package)


def _is_hook_relay(node: ast.expr) -> bool:
    """``<anything>.hook``: pluggy's hook relay."""
    return isinstance(node, ast.Attribute) and node.attr == "hook"


def raw_hook_calls(tree: ast.AST) -> list[int]:
    """Line numbers of calls that go straight to pluggy's hook relay."""
    lines = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr.startswith("dsh_") and _is_hook_relay(func.value):
            lines.append(node.lineno)
        elif (
            isinstance(func, ast.Call)
            and isinstance(func.func, ast.Name)
            and func.func.id == "getattr"
            and func.args
            and _is_hook_relay(func.args[0])
        ):
            lines.append(node.lineno)
    return lines


def runner_imports(tree: ast.AST, module: str, *, is_package: bool = False) -> list[int]:
    """Line numbers of imports of :mod:`harness.hook_runner` (absolute, relative or by ``import_module``)."""
    refs = imports_in(tree, module, is_package=is_package)
    return sorted({ref.lineno for ref in refs if ref.target == RUNNER_MODULE})


def test_the_scan_sees_the_code_base() -> None:
    # guards the checks below against passing on an empty walk
    files = {path.relative_to(ROOT).as_posix() for path, _, _ in _modules()}
    assert FACADE in files and RUNNER_FILE in files and "harness/host.py" in files


def test_no_module_calls_pluggy_hooks_directly() -> None:
    found = []
    for path, _, _ in _modules():
        relative = path.relative_to(ROOT).as_posix()
        if relative == RUNNER_FILE:
            continue
        for line in raw_hook_calls(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{relative}:{line}")
    assert not found, "call hooks through harness.hook_facade.HostHooks, not pm.hook:\n" + "\n".join(found)


def test_only_the_facade_uses_the_runner() -> None:
    found = []
    for path, module, is_package in _modules():
        relative = path.relative_to(ROOT).as_posix()
        if relative in (FACADE, RUNNER_FILE):
            continue
        for line in runner_imports(ast.parse(path.read_text(encoding="utf-8")), module, is_package=is_package):
            found.append(f"{relative}:{line}")
    assert not found, "only harness/hook_facade.py may import harness.hook_runner:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("pm.hook.dsh_session_event(session=s, event=e)", [1]),
        ("self.pm.hook.dsh_plugin_setup(host=h)", [1]),
        ("getattr(pm.hook, name)(host=h)", [1]),
        ("names = vars(pm.hook)\ncaller = getattr(pm.hook, 'x')\ncaller.has_spec()", []),
        ("hooks.session_event(session, event)", []),
    ],
)
def test_raw_call_detection(source: str, expected: list[int]) -> None:
    assert raw_hook_calls(ast.parse(source)) == expected


@pytest.mark.parametrize(
    ("source", "module", "expected"),
    [
        ("from .hook_runner import HookRunner", "harness.host", [1]),
        ("from ..hook_runner import HookRunner", "harness.agents.scope", [1]),
        ("from harness import hook_runner", "harness.cli", [1]),
        ("import harness.hook_runner", "harness.cli", [1]),
        ("from .hook_facade import HostHooks", "harness.host", []),
        ("from .hook_runner import HookRunner", "harness.agents.scope", []),
    ],
)
def test_runner_import_detection(source: str, module: str, expected: list[int]) -> None:
    assert runner_imports(ast.parse(source), module) == expected
