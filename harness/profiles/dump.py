"""``--dump-config``: the composed rows as a YAML profile with layer comments."""

from __future__ import annotations

import io

from ruamel.yaml import YAML

from .model import ComposedProfile, ProfileRow


def dump_config(composed: ComposedProfile) -> str:
    """YAML of the rows, each preceded by ``# == <layer>`` (the layer that last
    touched it). The output is itself a valid profile.
    """
    lines = [
        f"# profile: {_oneline(str(composed.path))}",
        f"# layers: {', '.join(map(_oneline, composed.layers)) or '(none)'}",
    ]
    lines += [f"# warning: {_oneline(w)}" for w in composed.warnings]
    if not composed.rows:
        lines.append("[]")
    for row in composed.rows:
        lines.append(f"# == {_oneline(row.layer)}")
        lines.append(_dump_row(row).rstrip("\n"))
    return "\n".join(lines) + "\n"


def _dump_row(row: ProfileRow) -> str:
    yaml = YAML(typ="rt")
    yaml.default_flow_style = False
    out = io.StringIO()
    yaml.dump([{"id": row.id, "name": row.name, "config": row.config, "disabled": row.disabled}], out)
    return out.getvalue()


def _oneline(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")
