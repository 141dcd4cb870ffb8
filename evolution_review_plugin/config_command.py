"""``/evolution config``: the terminal's way to read and change the live knobs.

``/evolution config`` lists every knob with its value and where it comes from
(the profile row or ``settings.yaml``); ``/evolution config KEY`` shows one;
``/evolution config KEY VALUE`` changes a live one for the running host (and
the next start), ``VALUE`` ``none`` restores the profile's value. A bad value
or a deployment-owned key is refused in one line naming the field; the old
value stays.
"""

from __future__ import annotations

import json
from typing import Any, Final

from hookspecs.errors import SettingsError
from hookspecs.scrub import scrub_text
from hookspecs.values import CommandResult

from .live import DEPLOYMENT_KEYS, LIVE_KEYS, LiveSettings

USAGE: Final = """\
/evolution config              every setting, its value and where it comes from
/evolution config KEY          one setting
/evolution config KEY VALUE    change a live setting (none: back to the profile's value)"""


def parse_value(text: str) -> Any:
    """A typed value: JSON scalars (``true``, ``12``), ``none`` / ``null`` for
    unset, anything else a string (``inject``)."""
    text = text.strip()
    if text.lower() in ("none", "null", "~"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if isinstance(value, bool | int | float | str) else text


def shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


async def config_verb(words: list[str], live: LiveSettings | None) -> CommandResult:
    """Answer ``config [KEY [VALUE]]`` (``words``: at most three, the value unsplit)."""
    if live is None:
        return CommandResult.error("evolution-review is not running in this host")
    if len(words) == 1:
        return CommandResult.ok(listing(live))
    key = words[1]
    current = live.knobs().by_key()
    if len(words) == 2:
        if key in current:
            return CommandResult.ok(f"{key}: {shown(current[key])} ({live.sources()[key]})")
        if key in live.deployment:
            return CommandResult.ok(f"{key}: {shown(live.deployment[key])} (deployment-owned, read at start)")
        return CommandResult.error(live.refusal(key) or f"unknown setting {key!r}")
    why = live.refusal(key)
    if why is not None:
        return CommandResult.error(scrub_text(why))
    value = parse_value(words[2])
    try:
        knobs = await live.change({key: value})
    except SettingsError as exc:
        return CommandResult.error(f"{scrub_text(exc.message)[:300]}; {key} stays {shown(current[key])}")
    now = knobs.by_key()[key]
    origin = "back to the profile's value" if value is None else "from the next turn boundary on"
    return CommandResult.ok(f"{key}: {shown(now)} ({origin})")


def listing(live: LiveSettings) -> str:
    current, sources = live.knobs().by_key(), live.sources()
    lines = ["live (change with /evolution config KEY VALUE; none restores the profile's value):"]
    lines += [f"  {key}: {shown(current[key])} ({sources[key]})" for key in LIVE_KEYS]
    lines.append("deployment-owned (the profile row, read at start; restart to change):")
    lines += [f"  {key}: {shown(live.deployment[key])}" for key in DEPLOYMENT_KEYS]
    problems = live.problems()
    if problems:
        lines.append("ignored in the settings document:")
        lines += [f"  - {scrub_text(problem)[:300]}" for problem in problems]
    return "\n".join(lines)
