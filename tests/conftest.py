"""Suite-wide set-up: where the CLI subprocesses' bytecode goes.

Hundreds of tests start ``harness`` (or ``python -m ...``) in a subprocess.
With ``PYTHONDONTWRITEBYTECODE`` set -- common in sandboxes and CI images,
to keep ``__pycache__`` out of the source tree -- each of them compiled
every project module again: about a quarter of a CLI start. For the length
of the run, children write their bytecode under a private temporary
directory instead (``PYTHONPYCACHEPREFIX``): the tree stays clean, and only
the first child compiles. A run without ``PYTHONDONTWRITEBYTECODE``, or with
its own prefix, is left as it is.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_PREFIX = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    # xdist workers inherit the prefix the controller set, and keep it
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    prefix = tempfile.mkdtemp(prefix="shadow-mind-pycache-")  # 0700: no one else's bytecode is ever loaded
    config.stash[_PREFIX] = prefix
    del os.environ["PYTHONDONTWRITEBYTECODE"]
    os.environ["PYTHONPYCACHEPREFIX"] = prefix


def pytest_unconfigure(config: pytest.Config) -> None:
    prefix = config.stash.get(_PREFIX, None)
    if prefix is None:
        return
    os.environ.pop("PYTHONPYCACHEPREFIX", None)
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    shutil.rmtree(prefix, ignore_errors=True)
