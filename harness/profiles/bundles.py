"""Bundles: patch files shipped inside packages, declared in ``dsh.bundles``.

An entry point ``shadow-mind = "shadow_mind_plugin:bundle.yml"`` names the
package ``shadow_mind_plugin`` and the resource ``bundle.yml`` inside it (a
``/``-separated path is allowed). Only the entry point's *value* is used; the
package is imported by ``importlib.resources`` when the bundle is read.
"""

from __future__ import annotations

from importlib import resources
from typing import NamedTuple

from hookspecs.errors import ProfileError
from hookspecs.markers import BUNDLES_ENTRY_POINT_GROUP

from ..entry_points import entry_points


class Bundle(NamedTuple):
    name: str
    #: ``package:resource.yml``
    value: str
    distribution: str | None = None

    @property
    def source(self) -> str:
        """How error messages and warnings name this bundle's patch file."""
        return f"bundle {self.name!r} ({self.value})"


def available_bundles() -> dict[str, Bundle]:
    """Every declared bundle by name; the first declaration of a name wins."""
    found: dict[str, Bundle] = {}
    for ep in entry_points(group=BUNDLES_ENTRY_POINT_GROUP):
        if ep.name not in found:
            dist = getattr(ep, "dist", None)
            found[ep.name] = Bundle(name=ep.name, value=ep.value.strip(), distribution=dist.name if dist else None)
    return found


def read_bundle(bundle: Bundle, *, where: str) -> str:
    """The patch text of ``bundle``; failures name ``where`` (the profile item)."""
    package, sep, resource = bundle.value.partition(":")
    package, resource = package.strip(), resource.strip()
    if not sep or not package or not resource:
        raise ProfileError(f"{where}: {bundle.source}: entry point value must be 'package:resource.yml'")
    try:
        ref = resources.files(package)
        for part in resource.split("/"):
            ref = ref.joinpath(part)
        return ref.read_text(encoding="utf-8")
    except ModuleNotFoundError as exc:
        raise ProfileError(f"{where}: {bundle.source}: package {package!r} not importable: {exc}") from exc
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise ProfileError(f"{where}: {bundle.source}: resource {resource!r} not found in package {package!r}") from None
    except Exception as exc:
        raise ProfileError(f"{where}: {bundle.source}: cannot read: {type(exc).__name__}: {exc}") from exc
