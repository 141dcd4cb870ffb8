"""Imports flow one way: ``hookspecs <- harness`` and ``hookspecs <- each plugin``.

The four packages: the host never imports a plugin, a plugin
(``shadow_mind_plugin``, ``evolution_review_plugin``) imports neither the host
nor the other plugin, and the contract imports none of them. Checked statically (``ast`` over every source file,
including relative imports and ``importlib.import_module("...")`` calls) and
dynamically (importing every module in a fresh interpreter and looking at
``sys.modules``). Importing ``hookspecs`` must have no side effects beyond imports.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path

import attrs
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: package -> top-level packages it must never import
FORBIDDEN: Mapping[str, frozenset[str]] = {
    "hookspecs": frozenset({"harness", "shadow_mind_plugin", "evolution_review_plugin"}),
    "harness": frozenset({"shadow_mind_plugin", "evolution_review_plugin"}),
    "shadow_mind_plugin": frozenset({"harness", "evolution_review_plugin"}),
    # a second plugin on the same contract: hookspecs only
    "evolution_review_plugin": frozenset({"harness", "shadow_mind_plugin"}),
}


# --- static check -----------------------------------------------------------------------


@attrs.frozen
class ImportRef:
    lineno: int
    #: the absolute module name the statement may load
    target: str
    #: True for a relative import that climbs above the top-level package
    climbs_out: bool = False


def _resolve_relative(package_parts: list[str], level: int, target: str | None) -> tuple[str | None, bool]:
    """The absolute base of ``from <level dots><target> import ...``.

    Returns ``(name, climbs_out)``. A relative import that climbs above the
    top-level package resolves against the directory holding the packages, so its
    remaining name is read as a top-level name.
    """
    up = level - 1
    if up >= len(package_parts):
        return target, True
    base = package_parts[: len(package_parts) - up]
    return ".".join(base + ([target] if target else [])), False


def imported_names(source: str, module: str, *, is_package: bool, filename: str = "<source>") -> list[ImportRef]:
    """Every module an ``import``, ``from ... import`` or constant-string
    ``importlib.import_module`` / ``__import__`` call in ``source`` may load."""
    return imports_in(ast.parse(source, filename=filename), module, is_package=is_package)


def imports_in(tree: ast.AST, module: str, *, is_package: bool) -> list[ImportRef]:
    """:func:`imported_names` of a parsed module."""
    parts = module.split(".")
    package_parts = parts if is_package else parts[:-1]
    refs: list[ImportRef] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            refs.extend(ImportRef(node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base, climbs = _resolve_relative(package_parts, node.level, node.module)
            else:
                base, climbs = node.module, False
            if base:
                refs.append(ImportRef(node.lineno, base, climbs))
            for alias in node.names:
                if alias.name != "*":
                    name = f"{base}.{alias.name}" if base else alias.name
                    refs.append(ImportRef(node.lineno, name, climbs))
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                name = node.args[0].value
                if not name.startswith("."):  # a relative name needs a runtime package
                    refs.append(ImportRef(node.lineno, name))
    return refs


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in ("__import__", "import_module")
    if isinstance(func, ast.Attribute):
        return func.attr == "import_module"
    return False


def violations(source: str, module: str, *, is_package: bool, forbidden: frozenset[str], filename: str = "<source>") -> list[str]:
    out = []
    for ref in imported_names(source, module, is_package=is_package, filename=filename):
        if ref.climbs_out:
            out.append(f"{filename}:{ref.lineno}: relative import climbs out of package {module.split('.')[0]!r}")
        hit = next((f for f in forbidden if ref.target == f or ref.target.startswith(f + ".")), None)
        if hit is not None:
            out.append(f"{filename}:{ref.lineno}: imports {ref.target!r} ({module.split('.')[0]} must not import {hit})")
    return out


def source_files(package: str) -> Iterator[tuple[Path, str, bool]]:
    """``(path, dotted module name, is_package)`` for every .py file of ``package``."""
    root = ROOT / package
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        yield path, ".".join(parts), is_package


class TestImportScanner:
    """The static checker itself: it must catch every spelling of a forbidden import."""

    FORBID = frozenset({"harness"})

    def check(self, source: str, module: str = "shadow_mind_plugin.runtime.trigger", is_package: bool = False) -> list[str]:
        return violations(textwrap.dedent(source), module, is_package=is_package, forbidden=self.FORBID)

    @pytest.mark.parametrize(
        "source",
        [
            "import harness",
            "import harness.host",
            "import os, harness.tools.registry as reg",
            "from harness import host",
            "from harness.agents.turn import run_step",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from harness.host import HarnessHost\n",
            "def late():\n    import harness.plugins\n",
            "import importlib\nimportlib.import_module('harness.host')",
            "from importlib import import_module\nimport_module('harness')",
            "__import__('harness.sessions')",
        ],
    )
    def test_absolute_imports_are_caught(self, source: str) -> None:
        assert self.check(source)

    @pytest.mark.parametrize(
        ("source", "module", "is_package"),
        [
            # shadow_mind_plugin.runtime.trigger: "..." is shadow_mind_plugin's parent
            ("from ... import harness", "shadow_mind_plugin.runtime.trigger", False),
            ("from ...harness import host", "shadow_mind_plugin.runtime.trigger", False),
            ("from .. import harness", "shadow_mind_plugin.trigger", False),
            ("from ..harness.host import HarnessHost", "shadow_mind_plugin", True),
        ],
    )
    def test_relative_imports_that_climb_out_are_caught(self, source: str, module: str, is_package: bool) -> None:
        found = self.check(source, module, is_package)
        assert any("climbs out" in v for v in found)
        assert any("must not import harness" in v for v in found)

    @pytest.mark.parametrize(
        ("source", "module", "is_package"),
        [
            ("from hookspecs import hookimpl", "shadow_mind_plugin.trigger", False),
            ("import harnessed\nimport my_harness", "shadow_mind_plugin.trigger", False),
            ("from . import harness", "shadow_mind_plugin", True),  # shadow_mind_plugin.harness
            ("from .. import harness", "shadow_mind_plugin.runtime.trigger", False),  # shadow_mind_plugin.harness
            ("from .runtime import harness_like", "shadow_mind_plugin", True),
            ("x = 'import harness'", "shadow_mind_plugin", True),
        ],
    )
    def test_clean_sources_pass(self, source: str, module: str, is_package: bool) -> None:
        assert self.check(source, module, is_package) == []


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_forbidden_imports_in_source(package: str) -> None:
    files = list(source_files(package))
    assert files, f"no sources found for {package}"
    found: list[str] = []
    for path, module, is_package in files:
        source = path.read_text(encoding="utf-8")
        found.extend(
            violations(
                source,
                module,
                is_package=is_package,
                forbidden=FORBIDDEN[package],
                filename=str(path.relative_to(ROOT)),
            )
        )
    assert not found, "layering violated:\n" + "\n".join(found)


def test_the_scan_covers_the_packages() -> None:
    modules = {module for package in FORBIDDEN for _, module, _ in source_files(package)}
    for expected in ("hookspecs", "hookspecs.values.events", "harness.host", "harness.agents.turn", "shadow_mind_plugin"):
        assert expected in modules


# --- dynamic check ----------------------------------------------------------------------

_IMPORT_ALL = r"""
import importlib, json, pkgutil, sys
package, forbidden = sys.argv[1], sys.argv[2:]
failures = []
root = importlib.import_module(package)
imported = [package]
def onerror(name):
    failures.append(f"{name}: {sys.exc_info()[0].__name__}: {sys.exc_info()[1]}")
for info in pkgutil.walk_packages(root.__path__, package + ".", onerror=onerror):
    if info.name.rsplit(".", 1)[-1] == "__main__":
        continue  # importing __main__ would run the program
    try:
        importlib.import_module(info.name)
    except Exception as exc:
        failures.append(f"{info.name}: {type(exc).__name__}: {exc}")
    else:
        imported.append(info.name)
leaked = sorted(m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in forbidden))
print(json.dumps({"file": root.__file__, "imported": imported, "failures": failures, "leaked": leaked}))
"""


def _child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def _run_python(code: str, *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env or _child_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"child interpreter failed:\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.timeout(600)  # above the suite's 300 s: the child interpreter has its own 300 s bound
@pytest.mark.parametrize(
    ("package", "must_import"),
    [
        ("shadow_mind_plugin", ("shadow_mind_plugin",)),
        ("evolution_review_plugin", ("evolution_review_plugin.plugin",)),
        ("harness", ("harness.host", "harness.agents.turn", "harness.tools.scheduler", "harness.sessions.store")),
        ("hookspecs", ("hookspecs.protocols", "hookspecs.values.events", "hookspecs.session")),
    ],
)
def test_importing_every_module_loads_no_forbidden_package(package: str, must_import: tuple[str, ...]) -> None:
    report = _run_python(_IMPORT_ALL, package, *sorted(FORBIDDEN[package]))
    assert Path(str(report["file"])).resolve().is_relative_to(ROOT / package), report["file"]
    assert report["failures"] == [], f"modules of {package} failed to import: {report['failures']}"
    imported = report["imported"]
    assert isinstance(imported, list)
    for name in must_import:
        assert name in imported
    assert report["leaked"] == [], f"importing {package} loaded {report['leaked']}"


_SIDE_EFFECTS = r"""
import atexit, contextlib, gc, io, json, logging, os, signal, sys, threading, warnings
# third-party dependencies first: their own import-time behaviour is not ours to judge
import attrs, cattrs, pluggy, trio

def snapshot():
    return {
        "environ": dict(os.environ),
        "sys_path": list(sys.path),
        "meta_path": [repr(f) for f in sys.meta_path],
        "root_handlers": [repr(h) for h in logging.getLogger().handlers],
        "root_level": logging.getLogger().level,
        "threads": threading.active_count(),
        "atexit": atexit._ncallbacks(),
        "signals": {str(s): repr(signal.getsignal(s)) for s in (signal.SIGINT, signal.SIGTERM)},
        "warning_filters": len(warnings.filters),
        "plugin_managers": sum(isinstance(o, pluggy.PluginManager) for o in gc.get_objects()),
    }

before = snapshot()
out, err = io.StringIO(), io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
    import importlib, pkgutil
    import hookspecs
    for info in pkgutil.walk_packages(hookspecs.__path__, "hookspecs."):
        importlib.import_module(info.name)
after = snapshot()
changed = sorted(k for k in before if before[k] != after[k])
print(json.dumps({"changed": changed, "before": {k: before[k] for k in changed},
                  "after": {k: after[k] for k in changed}, "stdout": out.getvalue(), "stderr": err.getvalue()}))
"""


@pytest.mark.timeout(600)  # above the suite's 300 s: the child interpreter has its own 300 s bound
def test_importing_hookspecs_has_no_side_effects(tmp_path: Path) -> None:
    cwd, home, tmp, dsh_home = tmp_path / "cwd", tmp_path / "home", tmp_path / "tmp", tmp_path / "dsh"
    for directory in (cwd, home, tmp):
        directory.mkdir()
    env = _child_env(HOME=str(home), TMPDIR=str(tmp), DSH_HOME=str(dsh_home))
    report = _run_python(_SIDE_EFFECTS, cwd=cwd, env=env)
    assert report["changed"] == [], f"importing hookspecs changed process state: {report}"
    assert report["stdout"] == "" and report["stderr"] == ""
    assert not dsh_home.exists(), "importing hookspecs created $DSH_HOME"
    for directory in (cwd, home, tmp):
        assert list(directory.iterdir()) == [], f"importing hookspecs wrote into {directory}"
