"""The ``/shadow`` command suite (root agents only).

Every error says what to do instead.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import attrs

from hookspecs.errors import CommandError, DshError
from hookspecs.values import CommandInvocation, CommandResult, SettingsOp

from .command_values import parse_text, parse_value, split_values
from .definitions import list_starters, load_starter
from .definitions.patch import PATCH_KEYS
from .runtime import controls
from .settings import ShadowMindSettings
from .views import definition_text, settings_view
from .vocabulary import RUN_ID_MIN_PREFIX, SETTINGS_NAMESPACE

if TYPE_CHECKING:
    from hookspecs.protocols import Host

    from .runtime.runtime import ShadowRuntime

USAGE = """Usage: /shadow <action>
  status              what Shadow Mind is doing for this session
  new [SHADOW]        review the latest event now (ignores probability, pause and budget);
                      SHADOW: a definition id instead of the default
  retry RUN           rerun a failed or aborted run on the same watermark
  pause | resume      stop or restart automatic reviews for this session
  cycles              every review cycle and its runs
  show [SHADOW]       print the default Shadow definition (or that definition)
  set FIELD VALUE     change one field of the default definition
  use STARTER         install a starter as the default ({starters})
  config [KEY [VALUE]]  read or change a Shadow Mind setting (VALUE none unsets;
                      several KEY VALUE pairs change tied settings together)
  help                this text"""

#: Definition fields ``set`` accepts (the file spelling).
SETTABLE = sorted(PATCH_KEYS - {"id", "holdout"})


class ShadowCommand:
    def __init__(self, host: Host, runtime: ShadowRuntime) -> None:
        self.host = host
        self.rt = runtime

    async def handle(self, invocation: CommandInvocation) -> CommandResult:
        agent = invocation.agent
        raw = invocation.raw_input.strip()
        action, _, rest = raw.partition(" ")
        rest = rest.strip()
        try:
            controls.assert_root(agent)
            if action in ("", "status"):
                return CommandResult.ok(format_status(self.rt.controls.status(agent)))
            if action == "help":
                return CommandResult.ok(usage())
            if action == "new":
                entries = self.rt.controls.review_now(agent, rest or None)
                running = ", ".join(f"{e.view.shadow_id}/{e.view.run_id}" for e in entries)
                return CommandResult.ok(f"Shadow review admitted; {len(entries)} running: {running}.")
            if action == "retry":
                if not rest:
                    return CommandResult.error("Usage: /shadow retry RUN (run ids are listed by /shadow cycles)")
                entry = self.rt.controls.retry(agent, self._run_id(agent, rest))
                return CommandResult.ok(f"Shadow retry admitted: {entry.view.shadow_id}/{entry.view.run_id}.")
            if action == "pause":
                self.rt.controls.pause(agent)
                return CommandResult.ok("Shadow reviews paused for this session; /shadow resume restarts them.")
            if action == "resume":
                self.rt.controls.resume(agent)
                return CommandResult.ok("Shadow reviews resumed.")
            if action == "cycles":
                return CommandResult.ok(format_cycles(self.rt.controls.cycles(agent)))
            if action == "show":
                return self._show(rest)
            if action == "set":
                return await self._set(rest)
            if action == "use":
                return await self._use(rest)
            if action == "config":
                return await self._config(rest)
        except DshError as exc:
            return CommandResult.error(exc.message)
        return CommandResult.error(f"unknown action {action!r}.\n{usage()}")

    def _show(self, shadow_id: str) -> CommandResult:
        if not shadow_id:
            return CommandResult.ok(definition_text(self.rt.registry.default_definition()))
        definition = self.rt.registry.list().get(shadow_id)
        if definition is None:
            return CommandResult.error(f"no reviewer definition {shadow_id!r}; the list_shadows tool lists them")
        return CommandResult.ok(definition_text(definition))

    def _run_id(self, agent: Any, text: str) -> str:
        """A full run id or a unique prefix of at least :data:`RUN_ID_MIN_PREFIX` characters."""
        state = self.rt.owners.get(agent.id)
        if state is None or len(text) < RUN_ID_MIN_PREFIX:
            return text
        matches = {v.run_id for c in state.governance.cycles.values() for v in c.runs if v.run_id.startswith(text)}
        if len(matches) > 1 and text not in matches:
            raise CommandError(
                f"Shadow run prefix {text!r} is ambiguous: it matches {len(matches)} runs of this session; "
                "give more characters"
            )
        return matches.pop() if len(matches) == 1 else text

    async def _set(self, rest: str) -> CommandResult:
        field, _, value_text = rest.partition(" ")
        if not field or not value_text.strip():
            return CommandResult.error(f"Usage: /shadow set FIELD VALUE; fields: {', '.join(SETTABLE)}")
        if field not in SETTABLE:
            hint = " (holdout is operator-managed)" if field == "holdout" else ""
            return CommandResult.error(f"unknown field {field!r}{hint}; fields: {', '.join(SETTABLE)}")
        value = parse_text(field, value_text) if field in ("prompt", "name") else parse_value(field, value_text)
        self.rt.registry.default_definition()  # make sure default.md exists
        saved = await self.rt.registry.save_default({field: value})
        return CommandResult.ok(f"default reviewer definition updated: {field} = {json.dumps(getattr_field(saved, field))}")

    async def _use(self, name: str) -> CommandResult:
        starters = list_starters()
        if name not in starters:
            return CommandResult.error(f"unknown starter {name!r}; choose one of: {', '.join(starters)}")
        starter = load_starter(name)
        current = self.rt.registry.default_definition()
        # the duty prompt comes from the starter; scheduling knobs stay the user's
        installed = attrs.evolve(
            starter,
            id=current.id,
            enabled=current.enabled,
            debug=current.debug,
            activation_probability=current.activation_probability,
            review_on_check=current.review_on_check,
            timeout_seconds=current.timeout_seconds,
            active_for_models=current.active_for_models,
            holdout=current.holdout,
            source_path=current.source_path,
        )
        saved = await self.rt.registry.save_default(installed)
        state = "enabled" if saved.enabled else "disabled (/shadow set enabled true to run it)"
        return CommandResult.ok(f"installed the {name} starter as the default reviewer definition ({saved.name}); it is {state}.")

    async def _config(self, rest: str) -> CommandResult:
        current = settings_view(self.rt.settings())
        key, _, value_text = rest.partition(" ")
        if not key:
            notes = self.rt.governance.settings_notes()
            lines = [f"{k}: {shown_value(v)}" for k, v in current.items()]
            if notes:
                lines.append("healed or ignored:")
                lines.extend(f"  - {n}" for n in notes)
            return CommandResult.ok("\n".join(lines))
        if key not in current:
            return CommandResult.error(f"unknown setting {key!r}; /shadow config lists them")
        if not value_text.strip():
            return CommandResult.ok(f"{key}: {shown_value(current[key])}")
        pairs = [(key, value_text.strip())]
        tokens = split_values(rest)
        if len(tokens) > 2 and len(tokens) % 2 == 0 and all(t in current for t in tokens[::2]):
            # several settings at once, for rules that tie fields together
            pairs = list(zip(tokens[::2], tokens[1::2], strict=True))
        unknown = [k for k, _ in pairs if k not in current]
        if unknown:
            return CommandResult.error(f"unknown setting {unknown[0]!r}; /shadow config lists them")
        ops = []
        for name, text in pairs:
            value = parse_value(name, text)
            ops.append(SettingsOp.unset(name) if value is None else SettingsOp.set(name, value))
        resolved = await self.host.settings.mutate(SETTINGS_NAMESPACE, ops)
        shown = settings_view(resolved) if isinstance(resolved, ShadowMindSettings) else {}
        return CommandResult.ok("\n".join(f"{name}: {shown_value(shown.get(name))}" for name, _ in pairs))


def shown_value(value: Any) -> str:
    """A setting as JSON, a whole number written as one (``600``, not ``600.0``:
    the float fields hold whole numbers more often than not)."""

    def plain(v: Any) -> Any:
        if isinstance(v, float) and v.is_integer():
            return int(v)
        return [plain(x) for x in v] if isinstance(v, list | tuple) else v

    return json.dumps(plain(value))


def getattr_field(definition: Any, field: str) -> Any:
    value = getattr(definition, field)
    return list(value) if isinstance(value, tuple) else value


def usage() -> str:
    return USAGE.format(starters=", ".join(list_starters()))


def format_status(status: dict[str, Any]) -> str:
    # in words a person knows: the epoch (an internal generation counter) is left
    # to the status data; the "value loop" reads as how the agent took challenges
    lines = [
        f"Shadow Mind {'paused' if status['paused'] else 'active'}: {_count(len(status['active']), 'review')} running, "
        f"{status['pending_schedules']} waiting to start, {status['total_runs']} in this session",
        f"review budget: {status['budget_tier']} ({status['spent_chars']} characters reviewed since your last message)",
    ]
    if status.get("budget_state_error"):
        lines.append(f"  budget state: {status['budget_state_error']} — automatic reviews stay off while a budget is set")
    relays, bound = status.get("relays_since_user_message", 0), status.get("relay_bound")
    if bound and relays >= bound:
        lines.append(
            f"  relay bound: {relays} relays since the last user message (maxRelayCyclesPerUserMessage {bound}); "
            "automatic reviews are skipped [RELAY_BOUND_REACHED] until the next user message"
        )
    model_skip = status.get("model_skip")
    if model_skip:
        lines.append(
            f"  model filter: the root's model {model_skip['root_route'] or '(unresolved)'} matches no "
            f"active_for_models entry ({', '.join(model_skip['active_for_models'])}); "
            "automatic reviews are skipped [MODEL_NOT_ACTIVE]"
        )
    for active in status["active"]:
        lines.append(f"  running {active['shadow_id']}/{active['run_id']} at {active['stage']} (seq {active['captured_through_seq']})")
    for cooldown in status["cooldowns"]:
        lines.append(f"  cooldown {cooldown['shadow_id']} until {cooldown['until']} ({', '.join(cooldown['patterns'])})")
    if status["pending_escalations"]:
        lines.append(f"  escalation reserved for: {', '.join(status['pending_escalations'])}")
    for stats in status.get("value_loop", []):
        rate = f"; it adopted {stats['hit_rate']:.0%} of those it answered" if stats.get("hit_rate") is not None else ""
        lines.append(
            f"  challenges from {stats['shadow_id']}: {stats['challenges']} sent to the agent, which adopted "
            f"{stats['adopted']}, rejected {stats['rejected']} and ignored {stats['ignored']}{rate}"
        )
    last = status.get("last_run")
    if last:
        reason = f" [{last['reason_code']}]" if last.get("reason_code") else ""
        verdict = f" {last['verdict']}" if last.get("verdict") else ""
        lines.append(
            f"last run: {last['shadow_id']}/{last['run_id']} {last['phase']}{verdict}{reason} at {last['stage']}"
            f" (seq {last['captured_through_seq']}, {last.get('independence', 'unavailable')})"
        )
        if last.get("cause"):
            lines.append(f"  cause: {last['cause']}")
        lines.extend(_evidence_lines(last))
    else:
        lines.append("no completed runs")
    notes = status.get("settings_notes") or []
    if notes:
        lines.append("settings healed or ignored:")
        lines.extend(f"  - {note}" for note in notes)
    return "\n".join(lines)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _evidence_lines(run: dict[str, Any]) -> list[str]:
    """What the evidence checks had to do with a run, apart from any model's words."""
    out = []
    if run.get("check"):
        out.append(f"  evidence check: {run['check']} (a checks-only review: no model wrote it)")
    if run.get("trigger_check"):
        out.append(f"  started by evidence check: {run['trigger_check']} (review_on_check)")
    for lead in run.get("leads") or ():
        refs = ", ".join(str(seq) for seq in lead.get("refs") or ()) or "none"
        out.append(f"  lead from evidence check: {lead.get('kind')} ({lead.get('verdict')}, refs {refs})")
    return out


def format_cycles(cycles: list[dict[str, Any]]) -> str:
    if not cycles:
        return "no review cycles yet"
    lines = []
    for cycle in cycles:
        head = f"seq {cycle['captured_through_seq']}" + (" (scheduling)" if cycle["scheduling"] else "")
        if cycle.get("failure"):
            head += f" scheduling failed [{cycle['failure']['reason_code']}]"
        lines.append(head)
        for run in cycle["runs"]:
            reason = f" [{run['reason_code']}]" if run.get("reason_code") else ""
            lines.append(f"  {run['run_id']} {run['shadow_id']} {run['phase']} at {run['stage']}{reason}")
            if run.get("cause"):
                lines.append(f"    cause: {run['cause']}")
    return "\n".join(lines)
