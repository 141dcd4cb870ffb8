"""Profiles: which plugins a host runs, composed from layered YAML files.

A profile is a YAML list of plugin rows ``{id, name, config?, disabled?}`` and
bundle references ``{bundle: <name>}``. Layers, later wins per row: each bundle's
patch (profile order) -> the profile's rows -> ``$DSH_HOME/profile.patch.yml`` ->
each ``--patch`` file. See ``docs/profiles.md``.
"""

from __future__ import annotations

from .bundles import Bundle, available_bundles, read_bundle
from .compose import HOME_PATCH, PROFILES_DIR, compose_profile, resolve_profile_path
from .dump import dump_config
from .model import ComposedProfile, ProfileRow
from .parse import ID_RE, parse_patch, parse_profile

__all__ = [
    "HOME_PATCH",
    "ID_RE",
    "PROFILES_DIR",
    "Bundle",
    "ComposedProfile",
    "ProfileRow",
    "available_bundles",
    "compose_profile",
    "dump_config",
    "parse_patch",
    "parse_profile",
    "read_bundle",
    "resolve_profile_path",
]
