"""Loading a package's re-exported names on first use (PEP 562), for
:mod:`hookspecs` and :mod:`hookspecs.values`."""

from __future__ import annotations

from importlib import import_module
from typing import Any


def load_name(package: str, module: str, name: str) -> Any:
    """``name`` out of ``package``'s submodule ``module`` (relative, ``.x``),
    imported now. An ``AttributeError`` raised while the submodule loads (a
    typo, an incompatible attrs or cattrs) becomes an ``ImportError`` naming
    it: ``from package import name`` would otherwise say only "cannot import
    name", Python dropping what a module's ``__getattr__`` raised."""
    home = f"{package}{module}"
    try:
        submodule = import_module(home)
    except AttributeError as exc:
        raise ImportError(f"cannot load {name!r} from {home}: {exc}", name=home) from exc
    return getattr(submodule, name)
