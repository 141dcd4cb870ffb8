"""Value objects of profile composition: parsed rows and ops, and the composed result."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import attrs


@attrs.frozen(kw_only=True)
class ProfileRow:
    """One composed plugin row.

    ``layer`` is the layer that last touched the row (``"bundle:<name>"``,
    ``"profile:<file>"``, ``"home-patch"`` or ``"patch:<file>"``); ``origin`` is
    the exact location of that touch (``"<file>:<line>: row 2 (id 'x')"``), used
    to name the culprit when the plugin later fails to resolve or configure.
    """

    id: str
    name: str
    config: dict[str, Any] = attrs.field(factory=dict)
    disabled: bool = False
    layer: str
    origin: str = ""
    #: The directory of the file that set ``config`` (None for bundles and rows
    #: built in code): relative paths in config fields marked
    #: :data:`hookspecs.markers.CONFIG_PATH` resolve against it, so a profile
    #: names its files the same from any working directory.
    base: Path | None = None


@attrs.frozen(kw_only=True)
class ComposedProfile:
    """The rows of every layer merged, in first-insertion order."""

    path: Path
    rows: tuple[ProfileRow, ...] = ()
    warnings: tuple[str, ...] = ()
    #: Every layer applied, in order (empty ``[]`` layers included).
    layers: tuple[str, ...] = ()

    def get(self, row_id: str) -> ProfileRow | None:
        """The row with ``row_id``, or ``None``."""
        for row in self.rows:
            if row.id == row_id:
                return row
        return None


# What parsing yields and composing reads once: plain named tuples, which cost
# no generated methods to define (an attrs class compiles four or five).


class RowSpec(NamedTuple):
    """A parsed row or id-targeted op; ``None`` fields were not given."""

    id: str
    where: str
    name: str | None = None
    config: dict[str, Any] | None = None
    disabled: bool | None = None


class InsertOp(NamedTuple):
    """``{insert: [rows...]}`` — every row has a name, config and disabled."""

    rows: tuple[RowSpec, ...]
    where: str


#: A patch op: insert rows, or change one row by id.
PatchOp = InsertOp | RowSpec


class PatchDoc(NamedTuple):
    source: str
    ops: tuple[PatchOp, ...]


class BundleRef(NamedTuple):
    name: str
    where: str


class ProfileDoc(NamedTuple):
    source: str
    bundles: tuple[BundleRef, ...]
    rows: tuple[RowSpec, ...]
