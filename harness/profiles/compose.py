"""Compose a profile: bundles -> profile rows -> home patch -> ``--patch`` files."""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from hookspecs.errors import ProfileError

from .bundles import available_bundles, read_bundle
from .model import ComposedProfile, InsertOp, PatchDoc, ProfileDoc, ProfileRow, RowSpec
from .parse import parse_patch, parse_profile
from .yamlio import read_text

#: The user's own patch, applied to every profile: ``$DSH_HOME/profile.patch.yml``.
HOME_PATCH = "profile.patch.yml"
#: Where bare profile names live: ``$DSH_HOME/profiles/<name>.yml``.
PROFILES_DIR = "profiles"


def resolve_profile_path(profile: Path | str, *, dsh_home: Path) -> Path:
    """A ``Path``, or a string with a separator or a ``.yml``/``.yaml`` suffix, is a
    file; any other string is a name under ``$DSH_HOME/profiles/``.
    """
    if isinstance(profile, Path):
        return profile
    if not profile:
        raise ProfileError("empty profile name")
    looks_like_path = os.sep in profile or "/" in profile or profile.endswith((".yml", ".yaml"))
    if looks_like_path:
        return Path(profile)
    path = Path(dsh_home) / PROFILES_DIR / f"{profile}.yml"
    if not path.is_file():
        names = sorted(p.stem for p in (Path(dsh_home) / PROFILES_DIR).glob("*.yml"))
        raise ProfileError(
            f"profile {profile!r} not found at {path}; available profiles: {', '.join(names) or '(none)'}"
        )
    return path


def compose_profile(profile: Path | str, *, dsh_home: Path, patches: Sequence[Path] = ()) -> ComposedProfile:
    """Merge every layer; later layers win per row. Raises ProfileError."""
    path = resolve_profile_path(profile, dsh_home=dsh_home)
    doc = parse_profile(read_text(path), source=str(path))
    state = _State()
    if doc.bundles:
        known = available_bundles()
        for ref in doc.bundles:
            bundle = known.get(ref.name)
            if bundle is None:
                raise ProfileError(
                    f"{ref.where}: unknown bundle {ref.name!r}; available bundles: {', '.join(sorted(known)) or '(none)'}"
                )
            patch = parse_patch(read_bundle(bundle, where=ref.where), source=bundle.source)
            state.apply_patch(patch, layer=f"bundle:{ref.name}", base=None)
    state.apply_profile(doc, layer=f"profile:{path}", base=path.absolute().parent)
    home_patch = Path(dsh_home) / HOME_PATCH
    # lexists, not is_file: a home patch that is a FIFO or a device is refused, not silently skipped
    if os.path.lexists(home_patch):
        text = read_text(home_patch, what="home patch")
        state.apply_patch(parse_patch(text, source=str(home_patch)), layer="home-patch", base=home_patch.absolute().parent)
    for patch_path in patches:
        patch_path = Path(patch_path)
        text = read_text(patch_path, what="patch")
        state.apply_patch(
            parse_patch(text, source=str(patch_path)), layer=f"patch:{patch_path}", base=patch_path.absolute().parent
        )
    return ComposedProfile(
        path=path, rows=tuple(state.rows.values()), warnings=tuple(state.warnings), layers=tuple(state.layers)
    )


class _State:
    """The rows composed so far (dict order = first insertion order)."""

    def __init__(self) -> None:
        self.rows: dict[str, ProfileRow] = {}
        self.warnings: list[str] = []
        self.layers: list[str] = []

    def apply_patch(self, patch: PatchDoc, *, layer: str, base: Path | None) -> None:
        self.layers.append(layer)
        for op in patch.ops:
            if isinstance(op, InsertOp):
                for spec in op.rows:
                    self._insert(spec, layer=layer, base=base)
            elif op.id in self.rows:
                self._update(op, layer=layer, base=base)
            else:
                self.warnings.append(f"{op.where}: no row with id {op.id!r} to patch in layer {layer!r}; op ignored")

    def apply_profile(self, doc: ProfileDoc, *, layer: str, base: Path) -> None:
        self.layers.append(layer)
        for spec in doc.rows:
            if spec.id in self.rows:
                self._update(spec, layer=layer, base=base)  # override a bundle row, field by field
            elif spec.name is None:
                raise ProfileError(
                    f"{spec.where}: field 'name': required field missing (no bundle defines id {spec.id!r})"
                )
            else:
                self._insert(spec, layer=layer, base=base)

    def _insert(self, spec: RowSpec, *, layer: str, base: Path | None) -> None:
        existing = self.rows.get(spec.id)
        if existing is not None:
            raise ProfileError(
                f"{spec.where}: cannot insert id {spec.id!r} in layer {layer!r}: already defined by layer "
                f"{existing.layer!r} ({existing.origin}); patch it with an id-targeted op instead"
            )
        assert spec.name is not None
        self.rows[spec.id] = ProfileRow(
            id=spec.id,
            name=spec.name,
            config=copy.deepcopy(spec.config or {}),
            disabled=bool(spec.disabled),
            layer=layer,
            origin=spec.where,
            base=base,
        )

    def _update(self, spec: RowSpec, *, layer: str, base: Path | None) -> None:
        row = self.rows[spec.id]
        changes: dict[str, Any] = {"layer": layer, "origin": spec.where}
        if spec.name is not None:
            changes["name"] = spec.name
        if spec.config is not None:
            changes["config"] = copy.deepcopy(spec.config)  # whole config; no deep merge
            changes["base"] = base  # its paths were written relative to this layer's file
        if spec.disabled is not None:
            changes["disabled"] = spec.disabled
        self.rows[spec.id] = attrs.evolve(row, **changes)
