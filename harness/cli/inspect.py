"""``harness sessions ...``, ``harness plugins`` and ``--dump-config``."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs

from hookspecs.values import SESSION_FORMAT_VERSION, EventTypes

from ..core_plugin import builtin_plugins
from ..paths import HostPaths
from ..plugins import load_plugins, make_plugin_manager
from ..profiles import ComposedProfile, dump_config
from ..sessions import SessionStore
from ..sessions.shapes import load_log
from .render import Style, render_events, visible


def _store(home: Path) -> SessionStore:
    return SessionStore(
        sessions_dir=HostPaths(dsh_home=home).sessions_dir,
        on_event=lambda s, e: None,
        now_ms=lambda: 0.0,
        logger=logging.getLogger("harness.sessions"),
    )


def _when(ms: float) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")


def sessions_list(home: Path, *, as_json: bool, out: Any = None) -> int:
    out = out or sys.stdout
    summaries, problems = _store(home).scan()
    for problem in problems:  # one line each; the other sessions are still listed
        print(f"harness: skipped {problem}", file=sys.stderr)
    if as_json:
        json.dump([attrs.asdict(s) for s in summaries], out, indent=2)
        out.write("\n")
        return 0
    if not summaries:
        print("no sessions yet", file=out)
        return 0
    for s in summaries:
        kind = "root" if s.parent_session is None else f"child of {s.parent_session[:12]} (depth {s.delegation_depth})"
        print(f"{s.id}  {_when(s.created_at)}  {s.events:>6} events  {kind}  {s.title}", file=out)
    return 0


def resolve_session_id(home: Path, text: str) -> str:
    """The full id of the session ``text`` names (an id or a unique prefix)."""
    return _store(home).resolve_id(text)


def sessions_show(home: Path, session_id: str, *, as_json: bool, out: Any = None) -> int:
    out = out or sys.stdout
    session_id = resolve_session_id(home, session_id)
    # a viewer must show logs written with plugin event types it does not know;
    # it never writes, so it accepts every type
    loaded = load_log(
        _store(home).path_for(session_id),
        is_known=lambda _type: True,
        where=f"sessions/{session_id}/session.jsonl",
        session_id=session_id,
    )
    header, events = loaded.header, loaded.events
    if as_json:
        for event in events:
            json.dump({"seq": event.seq, "type": event.type, "time": event.time, "data": event.data}, out, ensure_ascii=False)
            out.write("\n")
        return 0
    style = Style(out.isatty())
    kind = "root session" if header.is_root else f"child of {header.parent_session} (depth {header.delegation_depth})"
    print(style.bold(f"session {header.id}") + f" — {kind}, created {_when(header.created_at)}", file=out)
    for event in events:
        for line in render_events((event,), style):
            print(line, file=out)
        if event.type == EventTypes.USER_MESSAGE and isinstance(event.data, dict):
            for line in provenance_lines(event.data.get("message")):
                print(style.dim(line), file=out)
    if events and events[-1].type != EventTypes.TURN_END:
        print(style.dim("(the last turn has not ended)"), file=out)
    return 0


def provenance_lines(message: Any) -> list[str]:
    """Where a message that no person typed came from: its ``source`` fields
    (a relay's verdict, run and refs) as ``key value`` pairs, one line for the
    scalars and one per entry of a list of objects (a relay's reports)."""
    source = message.get("source") if isinstance(message, dict) else None
    if not isinstance(source, dict) or source.get("kind", "user") == "user":
        return []
    scalars: list[str] = []
    lines: list[str] = []
    for key, value in source.items():
        if key == "kind":
            continue
        if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            lines.extend("    ↳ " + _pairs(item) for item in value)
        else:
            scalars.append(_pair(key, value))
    head = ["    ↳ " + ", ".join(scalars)] if scalars else []
    return [visible(line)[:_PROVENANCE_CHARS] for line in head + lines]


_PROVENANCE_CHARS = 400  # a line of provenance, at most


def _pairs(item: dict[str, Any]) -> str:
    return ", ".join(_pair(key, value) for key, value in item.items())


def _pair(key: object, value: object) -> str:
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"{key} {shown}"


def plugins_list(composed: ComposedProfile | None, *, out: Any = None) -> int:
    out = out or sys.stdout
    rows = composed.rows if composed else ()
    loaded = load_plugins(make_plugin_manager(), rows, builtins=builtin_plugins(rows))
    for plugin in loaded:
        status = "" if plugin.status == "loaded" else f" [{plugin.status}]"
        print(f"{plugin.row_id} ({plugin.plugin_name}, {plugin.layer}){status}", file=out)
        for hook in plugin.hooks:
            print(f"    {hook}", file=out)
    return 0


def dump(composed: ComposedProfile | None, *, out: Any = None) -> int:
    out = out or sys.stdout
    if composed is None:
        print("# no profile: only the built-in plugins run", file=out)
        return 0
    out.write(dump_config(composed))
    return 0


__all__ = ["SESSION_FORMAT_VERSION", "dump", "plugins_list", "resolve_session_id", "sessions_list", "sessions_show"]
