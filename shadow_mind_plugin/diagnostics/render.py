"""The trace and health documents as text (or JSON), and the rule that names
files relative to the DSH home in everything printed."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from hookspecs.scrub import scrub_text

from ..definitions.registry import ROOT_DIR
from ..vocabulary import BODY_DISCARDED_EVENT, CHILD_LABEL_PREFIX, STAGNATION_STATUS
from .journals import JOURNALS_TEXT


class HomeRelative:
    """Names files relative to the DSH home in printed text: the home's prefix
    is dropped (the home itself reads ``$DSH_HOME``); then the shared scrubber
    hides credentials and turns any other absolute path into ``<path>``."""

    def __init__(self, home: Path) -> None:
        prefixes = {str(home), str(home.absolute())}
        try:
            prefixes.add(str(home.resolve()))
        except OSError:
            pass
        # a home at the file-system root has no prefix worth removing
        self._prefixes = sorted((p for p in prefixes if Path(p) != Path(p).parent), key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for prefix in self._prefixes:
            text = text.replace(prefix + os.sep, "").replace(prefix, "$DSH_HOME")
        return scrub_text(text, limit=None, path_marker="<path>")


def render_json(document: Mapping[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    return str(value)


def render_trace(result: Mapping[str, Any]) -> str:
    lines: list[str] = []
    if result["kind"] == "root":
        root = result["root"]
        lines.append(f"Root session {root['session_id']}")
        lines.append(
            f"  created {root['created']} · {root['events']} events · {root['turns']} turns · "
            f"{root['relayed_reports']} relayed report(s) in {root['relay_messages']} relay message(s)"
        )
        runs = result["runs"]
        if not runs:
            lines.append(
                "  no Shadow runs found: no journal records for this root, no relays in its log and no child "
                f"session labelled '{CHILD_LABEL_PREFIX}…' (is the shadow-mind-runtime plugin in the profile?)"
            )
        else:
            lines.append(f"  {len(runs)} Shadow run(s):")
            for run in runs:
                outcome = run["outcome"]
                classes = ", ".join(v.get("classification", "?") for v in run["value_loop"]) or "-"
                lines.append(
                    f"    {run['run_id'] or '(run id unknown)'}  shadow {_fmt(run['shadow_id'])}  "
                    f"phase {_fmt(outcome['phase'])}  relayed {_fmt(outcome['relayed'])}  value loop {classes}"
                )
        lines.append("")
    for index, run in enumerate(result["runs"]):
        if index:
            lines.append("")
        lines.extend(render_run(run))
    return "\n".join(lines).rstrip("\n") + "\n"


def render_run(run: Mapping[str, Any]) -> list[str]:
    out = [f"Run {run['run_id'] or '(run id unknown)'}  shadow {_fmt(run['shadow_id'])}"]
    out.append(f"  root session   {_fmt(run['root_session_id'])}")
    out.append(f"  child session  {_fmt(run['child_session_id'])}")
    out.append(f"  captured through seq {_fmt(run['captured_through_seq'])}")
    outcome = run["outcome"]
    if outcome["phase"]:
        reason = f", reason {outcome['reason_code']}" if outcome["reason_code"] else ""
        out.append(f"  outcome: {outcome['phase']} at stage {_fmt(outcome['stage'])}{reason}, relayed {_fmt(outcome['relayed'])}")
    elif run["relays"]:
        out.append("  outcome: report, relayed yes")
    for note in run["notes"]:
        out.append(f"  note: {note}")
    if run["journal"]:
        out.extend(_render_timeline(run))
    if run["quality"]:
        out.extend(_render_quality(run["quality"]))
    out.extend(_section("Relays (root session)", run["relays"], _relay_line))
    out.extend(_section("Value loop", run["value_loop"], _value_loop_line))
    child = run["child"]
    if child:
        out.extend(render_child(child))
    return out


def _render_timeline(run: Mapping[str, Any]) -> list[str]:
    out = [f"Timeline ({', '.join(run['journal_files'])})"]
    for item in run["timeline"]:
        details = [f"{_fmt(item['phase'])}/{_fmt(item['stage'])}"]
        for key, label in (
            ("reason_code", "reason"),
            ("cancellation_source", "cancelled by"),
            ("provider_stop_reason", "stop"),
            ("error", "error"),
        ):
            if item.get(key):
                details.append(f"{label} {item[key]}")
        if item.get("relayed"):
            details.append("relayed")
        if item.get("check"):
            details.append(f"evidence check {item['check']}")
        if item.get("trigger_check"):
            details.append(f"started by evidence check {item['trigger_check']}")
        if item.get("leads"):
            details.append("leads " + ",".join(str(lead.get("kind")) for lead in item["leads"] if isinstance(lead, dict)))
        out.append(f"  {_fmt(item['time'])}  {item['event']:<27} {'  '.join(details)}")
    for item in run["stagnation"]:
        extra = item.get("cooldown_until") or item.get("reasoning_effort")
        trigger = f" (trigger {item['trigger']})" if item.get("trigger") else ""
        out.append(
            f"  {_fmt(item.get('time'))}  {STAGNATION_STATUS:<27} patterns {_fmt(item.get('patterns'))} → "
            f"{_fmt(item.get('action'))} {_fmt(extra)}{trigger}"
        )
    for item in run["discarded_bodies"]:
        out.append(
            f"  {_fmt(item.get('time'))}  {BODY_DISCARDED_EVENT:<27} status {_fmt(item.get('status'))}, "
            f"{_fmt(item.get('discarded_body_chars'))} chars discarded"
        )
    for item in run["other_records"]:
        out.append(f"  {_fmt(item.get('time'))}  {item.get('event')}")
    return out


def _render_quality(quality: Mapping[str, Any]) -> list[str]:
    tools = quality.get("tools") or {}
    by_name = ", ".join(f"{name}×{count}" for name, count in sorted((tools.get("by_name") or {}).items())) or "none"
    invalid = ", ".join(f"{name}×{count}" for name, count in sorted((tools.get("invalid_args_by_tool") or {}).items()))
    out = ["Quality metadata"]
    out.append(
        f"  route {_fmt(quality.get('route'))} · reasoning effort {_fmt(quality.get('reasoning_effort'))} · "
        f"budget tier {_fmt(quality.get('budget_tier'))} · independence {_fmt(quality.get('independence'))}"
    )
    out.append(
        f"  prompt {_fmt(quality.get('prompt_chars'))} chars · timeout {_fmt(quality.get('timeout_seconds'))}s · "
        f"capture {_fmt(quality.get('capture'))} · context {_fmt(quality.get('context'))} · "
        f"think first {_fmt(quality.get('think_first'))}"
    )
    out.append(f"  tools offered {_fmt(quality.get('tool_names'))}")
    out.append(
        f"  stop reason {_fmt(quality.get('stop_reason'))} · error {_fmt(quality.get('error'))} · "
        f"deliberation {_fmt(quality.get('deliberation_chars'))} chars"
    )
    out.append(
        f"  tool calls {_fmt(tools.get('calls', 0))} ({by_name}) · INVALID_ARGS {_fmt(tools.get('invalid_args', 0))}"
        + (f" ({invalid})" if invalid else "")
    )
    return out


def _relay_line(relay: Mapping[str, Any]) -> str:
    return (
        f"  seq {relay['seq']} {relay['time']} ({_fmt(relay.get('form'))}): verdict {_fmt(relay.get('verdict'))}, "
        f"severity {_fmt(relay.get('severity'))}, refs {_fmt(relay.get('refs'))}, "
        f"captured through {_fmt(relay.get('captured_through_seq'))}"
        + (f", check {relay['check']}" if relay.get("check") else "")
    )


def _value_loop_line(item: Mapping[str, Any]) -> str:
    return (
        f"  {_fmt(item.get('time'))}  {_fmt(item.get('classification'))} (relayed at seq "
        f"{_fmt(item.get('relayed_at_seq'))}, refs {_fmt(item.get('refs'))}, observed through seq "
        f"{_fmt(item.get('observed_through_seq'))})"
    )


def _section(title: str, items: Sequence[Mapping[str, Any]], line: Callable[[Mapping[str, Any]], str]) -> list[str]:
    """A titled block with one line per item; nothing without items."""
    return [title, *(line(item) for item in items)] if items else []


def render_child(child: Mapping[str, Any]) -> list[str]:
    header = child["header"]
    out = [f"Child session {child['session_id']}"]
    out.append(
        f"  created {header['created']} · depth {_fmt(header['delegation_depth'])} · parent "
        f"{_fmt(header['parent_session'])} · origin {_fmt(header['origin'])}"
    )
    descriptor = child["descriptor"] or {}
    out.append(
        f"  descriptor: provider {_fmt(descriptor.get('provider'))}, label {_fmt(descriptor.get('label'))}, "
        f"mode {_fmt(descriptor.get('mode'))}"
    )
    counts = ", ".join(f"{name} {count}" for name, count in child["counts"].items())
    out.append(f"  events {child['events']}: {counts}")
    if child["damaged_lines"]:
        out.append(f"  damaged lines skipped: {child['damaged_lines']}")
    out.append(
        f"  prompt {_fmt(child['prompt_chars'])} chars · assistant text {child['assistant_text_chars']} chars · "
        f"stops {_fmt(child['stops'])} · retries {child['retries']}"
    )
    reference = child.get("prompt_reference")
    if reference:
        out.append(_reference_line(reference))
        for lead in reference.get("leads") or ():
            # a check's lead, not the model's finding: kind and refs, never its text
            out.append(f"  lead from evidence check {_fmt(lead.get('kind'))}: {_fmt(lead.get('verdict'))}, refs {_fmt(lead.get('refs'))}")
    routes = "; ".join(
        f"seq {r.get('seq')} {r.get('provider')}/{r.get('model')}"
        + (f" effort {r['reasoning_effort']}" if r.get("reasoning_effort") else "")
        for r in child["routes"]
    )
    out.append(f"  request routes: {routes or 'none'}")
    if child["tool_calls"]:
        out.append("  tool calls:")
        for call in child["tool_calls"]:
            reason = f" ({call['reason']})" if call.get("reason") else ""
            out.append(f"    seq {call.get('seq')} {call.get('name')} → {call.get('result')}{reason}")
    else:
        out.append("  tool calls: none")
    errors = ", ".join(f"{code} {count}" for code, count in child["tool_errors"].items()) or "none"
    out.append(f"  tool errors: {errors}")
    invalid = ", ".join(f"{name} {count}" for name, count in child["invalid_args_by_tool"].items())
    out.append(f"  INVALID_ARGS: {child['invalid_args']}" + (f" ({invalid})" if invalid else ""))
    ends = "; ".join(
        f"seq {end['seq']} turn {end['turn']} {end['kind']}"
        + "".join(f" {key}={value}" for key, value in end.items() if key not in ("seq", "turn", "kind"))
        for end in child["turn_ends"]
    )
    out.append(f"  turn end: {ends or 'none (the turn never ended: crashed or still running)'}")
    if child["last_events"]:
        omitted = f", {child['chunks_omitted']} assistant/chunk events omitted" if child["chunks_omitted"] else ""
        out.append(f"  last {len(child['last_events'])} events{omitted}:")
        out.extend(f"    {line}" for line in child["last_events"])
    return out


def _size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def render_health(result: Mapping[str, Any], *, repair: bool) -> str:
    if not result["home_exists"]:
        return "The DSH home does not exist (set --home or $DSH_HOME); nothing to check.\n"
    if not result["shadow_dir"]:
        return f"No {ROOT_DIR}/ directory in the DSH home: Shadow Mind has not run here; nothing to check.\n"
    out = ["Definitions"]
    for row in result["definitions"]:
        if row.get("error"):
            out.append(f"  {row['path']}  invalid: {row['error']}")
        else:
            out.append(f"  {row['path']}  id {row['id']}  debug {_fmt(row['debug'])}  enabled {_fmt(row.get('enabled'))}")
    if not result["definitions"]:
        out.append("  none")
    debug_on = [row["id"] for row in result["definitions"] if row.get("debug")]
    out.append(
        "  debug journals on for: " + (", ".join(debug_on) if debug_on else "none (set `debug: true` in a definition's frontmatter)")
    )
    out.append("Directories")
    for entry in result["dirs"]:
        status = entry["problem"] or ("ok (mode fixed)" if entry.get("repaired") else "ok")
        out.append(f"  {entry['path']}  mode {_fmt(entry['mode'])}  {status}")
    out.append("Journals")
    if not result["files"]:
        out.append(f"  none (no {JOURNALS_TEXT} yet)")
    for item in result["files"]:
        status = "ok" if not item["problems"] else f"{len(item['problems'])} problem(s)"
        out.append(
            f"  {item['path']}  {_size(item['size'])}  {item['lines']} line(s), {item['valid_lines']} valid  "
            f"mode {_fmt(item['mode'])}  {status}"
        )
        for problem in item["problems"]:
            out.append(f"    {problem}")
        repaired = item.get("repaired")
        if repaired:
            action = "rewritten atomically" if repaired["rewritten"] else "mode fixed"
            out.append(f"    repaired: {action}; kept {repaired['kept']} line(s), dropped {repaired['dropped']}")
    if result["healthy"]:
        out.append("Healthy." if not repair else "Healthy after repair.")
    else:
        out.append(f"{result['problems']} problem(s) found.")
        if not repair:
            out.append(
                "Run `harness shadow health --repair` to rewrite damaged journals (dropping corrupt, NUL and torn "
                "lines, keeping valid ones) and fix file and directory modes."
            )
    return "\n".join(out) + "\n"


def _reference_line(reference: dict[str, Any]) -> str:
    """The stored prompt's reference: where its trajectory is and what it showed."""
    shown = reference.get("shown_seqs")
    elided = reference.get("elided_seqs")
    seqs = f" (seqs {shown[0]}–{shown[1]})" if isinstance(shown, list) and len(shown) == 2 else ""
    left = f" (seqs {elided[0]}–{elided[1]})" if isinstance(elided, list) and len(elided) == 2 else ""
    cut = f", seq {reference['cut_seq']} cut" if reference.get("cut_seq") is not None else ""
    digest = str(reference.get("body_digest") or "-")[:19]
    return (
        f"  prompt trajectory by reference: root {_fmt(reference.get('root_session_id'))} through seq "
        f"{_fmt(reference.get('watermark'))} (capture {_fmt(reference.get('capture'))}, disclosure "
        f"{_fmt(reference.get('disclosure'))}); {_fmt(reference.get('shown'))} of {_fmt(reference.get('entries'))} "
        f"entries shown{seqs}, {_fmt(reference.get('elided'))} left out{left}{cut}; {digest}… {reference.get('check')}"
    )
