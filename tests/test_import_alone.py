"""Every module imports alone, as the first module of its package a process loads.

Imports moved into functions and under ``TYPE_CHECKING`` (start-up work), and
names that load on first use (``hookspecs.values``), can leave a module that
imports only because something else was imported before it: an import circle
that bites in one order only, or a name used at import time whose module is no
longer loaded. The static check (``tests/test_import_cycles.py``) sees the graph;
this one runs each import.

One interpreter per package: it loads the third-party libraries once, then forks
a child per module, so each child starts with none of this project's modules.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.test_layering import FORBIDDEN, ROOT, source_files

from .cli_env import cli_env

#: loaded before the fork: their import is not under test, and loading them once
#: keeps a child to the project's own modules
PRELOADED = (
    "attrs",
    "cattrs",
    "pluggy",
    "trio",
    "h11",
    "re2",
    "ruamel.yaml",
    "httpx",
    "starlette",
    "hypercorn",
    "rich",
)

_FORKING = """
import importlib, json, os, sys, traceback
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except ImportError:
        pass  # an optional library: a module that needs it fails below
failures = {}
for module in json.loads(sys.argv[2]):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            importlib.import_module(module)
            message = ""
        except BaseException:
            message = traceback.format_exc()
        os.write(write_end, message.encode()[-4000:] or b"ok")
        os._exit(0)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    answer = b"".join(chunks).decode(errors="replace")
    if answer != "ok":
        failures[module] = answer or f"the child ended with status {status}"
print(json.dumps(failures))
"""


def modules_of(package: str) -> list[str]:
    """The package's importable modules (not ``__main__``, which runs the program)."""
    return [module for _, module, _ in source_files(package) if not module.endswith(".__main__")]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child per module")
@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_every_module_imports_alone(package: str) -> None:
    modules = modules_of(package)
    assert len(modules) > 5, modules
    failures = _imported_alone(modules, preloaded=PRELOADED, cwd=ROOT, timeout=600)
    assert not failures, "\n\n".join(f"import {module}:\n{trace}" for module, trace in sorted(failures.items()))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a child per module")
def test_a_module_that_fails_alone_is_reported(tmp_path: Path) -> None:
    """The check itself: a module that works only after another one is caught."""
    package = tmp_path / "lonely"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("VALUE = 1\n")
    (package / "b.py").write_text("import lonely\nVALUE = lonely.a.VALUE\n")  # fine after a, fails alone
    (package / "c.py").write_text("import lonely.a\n")
    failures = _imported_alone(["lonely.a", "lonely.b", "lonely.c"], preloaded=[], cwd=tmp_path, timeout=60)
    assert set(failures) == {"lonely.b"} and "has no attribute 'a'" in failures["lonely.b"]


def _imported_alone(modules: list[str], *, preloaded: Sequence[str], cwd: Path, timeout: float) -> dict[str, str]:
    """Each of ``modules`` imported in a child forked from an interpreter that
    holds only ``preloaded``: the traceback of each that failed, by name."""
    run = subprocess.run(
        [sys.executable, "-c", _FORKING, json.dumps(list(preloaded)), json.dumps(modules)],
        cwd=cwd,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    failures: dict[str, str] = json.loads(run.stdout.splitlines()[-1])
    return failures
