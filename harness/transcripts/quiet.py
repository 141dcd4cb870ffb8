"""A Stop the plugin will not review, answered without loading anything.

When a Stop found the plugin's own cheap pre-check saying no review for any
turn (the default Shadow is ``enabled: false``, or it never rolls:
probability 0 with no check that could start a review), that answer depends
only on files: the composed profile, the home patch, ``--patch`` files, the
host's settings file and the default definition. The hook keeps the answer
with the stamp (size, mtime, ctime, inode, or absence) of each of those files
and of its own code, and a later Stop whose inputs all stamp the same answers
``{}`` at once: no importer, no host, no plugin is loaded, and nothing is
read from the transcript. Any change to one of them (``/shadow enable``, an
edited profile, a reinstalled hook) makes the next Stop ask the plugin again.

As the definition registry does (git's "racy clean"), a file modified within
:data:`RACY_NS` of when its stamp was taken is not trusted: no memo is kept
while one is that fresh, since a second change in the same tick would not
change its stamp.

Only a pre-check answer is kept: a missed roll, a cooldown or a budget is the
plugin's decision for one turn, and every later turn is asked again.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

#: the reasons the plugin gives when its pre-check, which reads only settings, said no
SETTINGS_REASONS = frozenset({"SHADOW_DISABLED", "NOT_ROLLED"})
#: a file changed this recently may change again without a visible stamp change
RACY_NS = 2_000_000_000
#: the default profile when none is named (``harness.profiles.compose``)
_PROFILES_DIR = "profiles"
_HOME_PATCH = "profile.patch.yml"
_SETTINGS_FILE = "settings.yaml"
_DEFAULT_DEFINITION = "shadow-minds/default.md"

Stamp = list[int] | None


def inputs(home: Path, profile: str | None, patches: list[str]) -> list[Path]:
    """Every file whose content the plugin's settings-only answer can depend on."""
    named = profile or os.environ.get("DSH_PROFILE")
    if not named:
        chosen = home / _PROFILES_DIR / "default.yml"
    elif os.sep in named or "/" in named or named.endswith((".yml", ".yaml")):
        chosen = Path(named)
    else:
        chosen = home / _PROFILES_DIR / f"{named}.yml"
    files = [chosen, home / _HOME_PATCH, *(Path(p) for p in patches), home / _SETTINGS_FILE]
    # the hook's own code: a reinstalled or upgraded hook asks the plugin again
    return [*files, home / _DEFAULT_DEFINITION, Path(__file__)]


def stamp(path: Path) -> Stamp:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None  # absent (or unreachable) is a state too: its appearing changes the stamp
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def snapshot(home: Path, profile: str | None, patches: list[str]) -> dict[str, Any]:
    """The inputs' stamps, taken *before* the plugin reads them: a file changed
    while it runs then stamps differently at the next Stop, which asks again."""
    files = inputs(home, profile, patches)
    return {
        "key": _key(profile, patches),
        "files": [str(p) for p in files],
        "stamps": [stamp(path) for path in files],
        "taken_ns": time.time_ns(),
    }


def memo(reason: str, taken: dict[str, Any]) -> dict[str, Any] | None:
    """The memo to keep for a settings-only ``reason`` with the stamps taken
    before the plugin ran, or None (not such a reason, or an input modified too
    close to when it was stamped to trust the stamp)."""
    if reason not in SETTINGS_REASONS:
        return None
    stamps = taken["stamps"]
    if any(s is not None and taken["taken_ns"] - s[1] < RACY_NS for s in stamps):
        return None
    return {"reason": reason, "key": taken["key"], "files": taken["files"], "stamps": stamps}


def still_quiet(value: Any, home: Path, profile: str | None, patches: list[str]) -> str | None:
    """The memo's reason when every input stamps as it did, else None."""
    if not isinstance(value, dict) or value.get("key") != _key(profile, patches):
        return None
    reason, files, stamps = value.get("reason"), value.get("files"), value.get("stamps")
    if reason not in SETTINGS_REASONS or not isinstance(files, list) or not isinstance(stamps, list):
        return None
    expected = [str(p) for p in inputs(home, profile, patches)]
    if files != expected or len(stamps) != len(files):
        return None
    return str(reason) if all(stamp(Path(p)) == s for p, s in zip(files, stamps, strict=True)) else None


def _key(profile: str | None, patches: list[str]) -> list[Any]:
    return [profile, os.environ.get("DSH_PROFILE"), list(patches)]
