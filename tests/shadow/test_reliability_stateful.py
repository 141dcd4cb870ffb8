"""Stateful reliability: random interleavings of root turns, user input,
pause/resume, retries, provider errors, hangs (timeouts), slow disposal, child
crashes, forced reviews and restarts (plugin disposal), under trio's MockClock.

Hypothesis generates the action program and shrinks failures; after every step
the test asserts: each admitted run settles at most once and with a valid
(phase, stage, reason) triple; no report is relayed with a stale epoch, and none
while paused unless it was asked for explicitly (``/shadow new``, retry); spend never decreases within a user-message window. At the end of each
host: every admitted run settled exactly once and nothing is left running; after
a restart the spend survives.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import trio
import trio.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.host import open_host
from harness.llm.scripted import ScriptedAdapter
from hookspecs import hookimpl
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions, Capabilities, SubagentResult, create_user_message
from shadow_mind_plugin.plugin import runtime_for
from shadow_mind_plugin.vocabulary import CANCELLATION_CODES, ReasonCode

from ..harness.helpers import AdapterPlugin
from .helpers import shadow_rows, write_definition

BEHAVIOURS = ("report", "silent", "error", "hang", "crash", "slow-dispose", "start-fail", "invalid")

FAILURE_BY_STAGE = {
    "prepare": {"TRAJECTORY_BUILD_FAILED", "MODEL_SELECTION_INVALID", "UNKNOWN_FAILURE"},
    "start": {"SUBAGENT_START_FAILED", "UNKNOWN_FAILURE"},
    "run": {
        "SUBAGENT_RESULT_FAILED", "PROVIDER_ERROR", "PROVIDER_MAX_TOKENS", "PROVIDER_REFUSAL",
        "PROVIDER_STOPPED", "STRUCTURED_OUTPUT_MISSING", "DEGENERATE_OUTPUT", "UNKNOWN_FAILURE",
    },
    "dispose": {"SUBAGENT_DISPOSE_FAILED", "UNKNOWN_FAILURE"},
    "validate": {"INVALID_STRUCTURED_OUTPUT", "INVALID_REPORT", "UNKNOWN_FAILURE"},
    "relay": {"REPORT_DELIVERY_FAILED", "UNKNOWN_FAILURE"},
}


def valid_triple(phase: str, stage: str, reason: str | None) -> bool:
    if phase == "report":
        return stage == "relay" and reason is None
    if phase in ("silent", "not_relevant"):
        return stage == "validate" and reason is None
    if phase == "aborted":
        return reason in {str(c) for c in CANCELLATION_CODES} and stage in FAILURE_BY_STAGE
    if phase == "failed":
        return reason in FAILURE_BY_STAGE.get(stage, set())
    return False


# --- a programmable provider registered under the reserved name ---------------------------


class Run:
    def __init__(self, behaviour: str, request: Any) -> None:
        self.id = f"child-{id(self)}"
        self.local_agent = None
        self.behaviour = behaviour
        self.request = request
        self.disposed = False

    async def result(self) -> SubagentResult:
        cancel = self.request.cancel
        if self.behaviour == "hang":
            await cancel.wait()
            return SubagentResult(stop_reason="aborted")
        with trio.move_on_after(3):
            await cancel.wait()
        if cancel.cancelled:
            return SubagentResult(stop_reason="aborted")
        if self.behaviour == "crash":
            raise RuntimeError("child process crashed")
        if self.behaviour == "error":
            return SubagentResult(stop_reason="error", diagnostic="model unavailable")
        if self.behaviour == "silent":
            return SubagentResult(stop_reason="completed", structured={"status": "silent", "content": ""})
        if self.behaviour == "invalid":
            return SubagentResult(stop_reason="completed", structured={"status": "report", "content": ""})
        return SubagentResult(
            stop_reason="completed",
            structured={"status": "report", "verdict": "gap", "content": "a finding", "refs": []},
        )

    async def dispose(self) -> None:
        if self.behaviour == "slow-dispose":
            await trio.sleep(5)
        self.disposed = True


class Provider:
    name = "shadow-mind"
    stop_reasons = frozenset()
    capabilities = {
        Capabilities.OUTPUT_SCHEMA: True,
        Capabilities.DEPTH_LIMIT: True,
        Capabilities.TOOL_FILTER: True,
        Capabilities.MODEL_SELECTION: True,
        Capabilities.CONTEXT_INHERITANCE: True,
        Capabilities.THINK_FIRST: True,
    }

    def __init__(self, behaviours: list[str]) -> None:
        self.behaviours = behaviours
        self.runs: list[Run] = []

    async def start(self, request: Any) -> Run:
        behaviour = self.behaviours[len(self.runs) % len(self.behaviours)]
        run = Run(behaviour, request)
        self.runs.append(run)
        if behaviour == "start-fail":
            raise RuntimeError("no capacity")
        return run

    @hookimpl
    def dsh_register_subagent_providers(self, register: Any) -> None:
        register(self)


# --- the model under test ------------------------------------------------------------------


@attrs.define
class Model:
    """What the test knows and checks across steps and restarts."""

    settle_counts: Counter[str] = attrs.field(factory=Counter)
    admitted: dict[str, Any] = attrs.field(factory=dict)
    spend_window: tuple[int, int] = (0, 0)  # (real user inputs so far, spend seen)
    restart_spend: int | None = None
    user_inputs: int = 0
    problems: list[str] = attrs.field(factory=list)


class RelayWatcher:
    """Checks every relay at the moment it is committed; counts user input."""

    def __init__(self, model: Model, get_runtime: Any) -> None:
        self.model = model
        self.get_runtime = get_runtime

    @hookimpl
    def dsh_agent_inbox(self, agent: Any, change: str, message: Any) -> None:
        if change == "inserted" and agent.is_root and message.source_kind == "user":
            self.model.user_inputs += 1

    @hookimpl
    def dsh_session_event(self, session: Any, event: Any) -> None:
        if event.type != "user/message":
            return
        source = event.data["message"]["source"]
        if source.get("kind") != "shadow-report":
            return
        runtime = self.get_runtime()
        state = runtime.owners.get(session.id) if runtime else None
        if state is None:
            self.model.problems.append("relay without owner state")
            return
        entries = [self.model.admitted.get(report["run_id"]) for report in source["reports"]]
        if state.paused and not all(entry is not None and entry.manual for entry in entries):
            self.model.problems.append("automatic relay while paused")
        for report, entry in zip(source["reports"], entries, strict=True):
            if entry is None or entry.epoch != state.epoch:
                self.model.problems.append(f"relay of {report['run_id']} with a stale epoch")


ACTIONS = st.one_of(
    st.tuples(st.just("tool_turn"), st.booleans()),
    st.tuples(st.just("user_message"), st.just(None)),
    st.tuples(st.just("pause"), st.just(None)),
    st.tuples(st.just("resume"), st.just(None)),
    st.tuples(st.just("retry"), st.just(None)),
    st.tuples(st.just("review_now"), st.just(None)),
    st.tuples(st.just("sleep"), st.sampled_from([0.1, 1, 4, 20, 700])),
    st.tuples(st.just("restart"), st.just(None)),
)

ROOT_SCRIPT = """
responses:
  - match: {depth: 0, last_user_contains: "work"}
    repeat: true
    reply: {tool_calls: [{name: read, arguments: {path: notes.txt}}]}
  - match: {depth: 0}
    repeat: true
    reply: {text: "ok"}
"""


class RootStopper:
    """Ends each ``work`` turn after its first tool step so tool turns complete."""

    @hookimpl
    def dsh_agent_pre_step(self, agent: Any, step: int, messages: Any, call_next: Any) -> Any:
        from hookspecs.values import Enter

        if agent.is_root and step >= 1 and not messages:
            history = agent.history
            last_user = next((m for m in reversed(history) if m.role == "user"), None)
            if last_user is not None and "work" in last_user.text:
                return Enter(messages=())
        return None


async def program_run(home: Path, actions: list[tuple[str, Any]], behaviours: list[str]) -> Model:
    model = Model()
    work = home.parent / "work"
    work.mkdir(exist_ok=True)
    (work / "notes.txt").write_text("notes\n")
    write_definition(home, extra="timeout_seconds: 600\n")
    root_id: str | None = None
    segments: list[list[tuple[str, Any]]] = [[]]
    for action in actions:
        if action[0] == "restart":
            segments.append([])
        else:
            segments[-1].append(action)
    config = {"resultBatchWindowMs": 400, "sessionShadowHardBudgetChars": 10_000_000, "headlessDrainTimeoutSeconds": 10_000}
    for number, segment in enumerate(segments):
        provider = Provider(behaviours)
        runtime_box: list[Any] = []
        watcher = RelayWatcher(model, lambda box=runtime_box: box[0] if box else None)
        async with open_host(
            rows=shadow_rows(config),
            dsh_home=home,
            cwd=work,
            headless=False,
            extra_plugins=[
                ("adapter", AdapterPlugin(ScriptedAdapter.from_text(ROOT_SCRIPT))),
                ("provider", provider),
                ("watcher", watcher),
                ("stopper", RootStopper()),
            ],
            environ={},
            logger=logging.getLogger("stateful"),
        ) as host:
            runtime = runtime_for(host)
            runtime_box.append(runtime)
            runtime.governance.settle_listeners.append(lambda entry: model.settle_counts.update([entry.view.run_id]))
            runtime.governance.admit_listeners.append(lambda entry: model.admitted.__setitem__(entry.view.run_id, entry))
            options = AgentOptions(provider="scripted", model="m")
            if root_id is None:
                root = (await host.agents.create(CreateAgentOptions(agent_options=options))).agent
                root_id = root.id
            else:
                root = (await host.agents.resume(root_id, agent_options=options)).agent
                state = runtime.owner(root)
                if model.restart_spend is not None:
                    if state.trigger.spent_chars != model.restart_spend:
                        model.problems.append(f"spend {model.restart_spend} became {state.trigger.spent_chars} across a restart")
            for kind, arg in segment:
                await step(host, runtime, root, kind, arg, model)
                check(runtime, root, model)
            await trio.sleep(1)
            final_state = runtime.owners.get(root.id)
        # teardown may still settle (and debit) in-flight work: read the spend after it
        if final_state is not None:
            model.restart_spend = final_state.trigger.spent_chars
            model.spend_window = (model.spend_window[0], final_state.trigger.spent_chars)
        # after teardown of this host: everything admitted settled exactly once
        for run_id in model.admitted:
            count = model.settle_counts[run_id]
            if count != 1:
                model.problems.append(f"run {run_id} settled {count} times (segment {number})")
        for entry in model.admitted.values():
            if not entry.done.is_set():
                model.problems.append(f"run {entry.view.run_id} lifecycle still running after teardown")
        if runtime.owners:
            model.problems.append("owner state survived plugin disposal")
    return model


async def step(host: Any, runtime: Any, root: Any, kind: str, arg: Any, model: Model) -> None:
    if kind == "tool_turn":
        source = {"kind": "user"} if arg else {"kind": "plugin", "plugin": "automation"}
        if root.status == "idle":
            root.followup(create_user_message("do some work", source=source))
        await trio.sleep(0.5)
    elif kind == "user_message":
        root.followup(create_user_message("a question"))
        await trio.sleep(0.5)
    elif kind == "pause":
        runtime.controls.pause(root)
    elif kind == "resume":
        runtime.controls.resume(root)
    elif kind == "retry":
        state = runtime.owners.get(root.id)
        if state is not None:
            candidates = [v for c in state.governance.cycles.values() for v in c.runs if str(v.phase) in ("failed", "aborted")]
            if candidates and not state.run.active:
                try:
                    runtime.controls.retry(root, candidates[-1].run_id)
                except Exception:
                    pass
    elif kind == "review_now":
        try:
            runtime.controls.review_now(root)
        except Exception:
            pass
    elif kind == "sleep":
        await trio.sleep(arg)


def check(runtime: Any, root: Any, model: Model) -> None:
    for entry in model.admitted.values():
        count = model.settle_counts[entry.view.run_id]
        if count > 1:
            model.problems.append(f"run {entry.view.run_id} settled {count} times")
        if entry.settled:
            view = entry.view
            reason = str(view.reason_code) if view.reason_code else None
            if not valid_triple(str(view.phase), str(view.stage), reason):
                model.problems.append(f"invalid triple {(str(view.phase), str(view.stage), reason)}")
    state = runtime.owners.get(root.id)
    if state is None:
        return
    # a window opens when real user input arrives
    seen_window, seen_spend = model.spend_window
    window_key = model.user_inputs
    if window_key == seen_window and state.trigger.spent_chars < seen_spend:
        model.problems.append(f"spend went down within a window: {seen_spend} -> {state.trigger.spent_chars}")
    model.spend_window = (window_key, state.trigger.spent_chars)


#: the default suite stays fast; bench/reliability_soak.py raises it
EXAMPLES = int(os.environ.get("SHADOW_RELIABILITY_EXAMPLES", "25"))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    actions=st.lists(ACTIONS, min_size=1, max_size=14),
    behaviours=st.lists(st.sampled_from(BEHAVIOURS), min_size=1, max_size=5),
)
def test_random_interleavings_keep_the_invariants(actions: list[tuple[str, Any]], behaviours: list[str]) -> None:
    with tempfile.TemporaryDirectory() as raw:
        home = Path(raw) / "home"
        model = trio.run(
            program_run, home, actions, behaviours, clock=trio.testing.MockClock(autojump_threshold=0)
        )
    assert model.problems == []


def test_the_invariant_checker_rejects_bad_triples() -> None:
    assert valid_triple("report", "relay", None)
    assert valid_triple("aborted", "run", str(ReasonCode.SHADOW_TIMEOUT))
    assert not valid_triple("report", "validate", None)
    assert not valid_triple("failed", "run", str(ReasonCode.SUBAGENT_START_FAILED))
    assert not valid_triple("aborted", "run", str(ReasonCode.PROVIDER_ERROR))
