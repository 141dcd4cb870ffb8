"""A review of an imported transcript admitted by the plugin's own rules.

The Stop-hook bridge does not force its reviews. A Stop is the agent's turn
end, so the bridge makes it one in the transcript's imported session: the new
lines before the last turn are appended with no host running (history, as
the earlier Stops already were), then the session is opened as a live root
and the last turn is appended *while the plugin watches*. The plugin sees that
turn's ``turn/end`` as it sees a turn of a session it hosts, and admits a
review of everything up to it, or not, on the same path: ``enabled``, pause, the budget tier (its ledger is per
imported session and survives between Stop events), cooldowns, the relay
bound, ``active_for_models`` and the one roll (probability × decay, the
plugin's random source and ``randomSeed``). The bridge then drains the host
and reads what happened from the run's card, or, when no run was admitted,
from ``/shadow show`` and ``/shadow status`` (:func:`skip_reason`).

A session this call created is kept when the plugin decided this turn (a
missed roll, a cooldown, a budget): the next Stop appends to it instead of
importing the whole transcript again (issue 20). It is removed again when
the plugin's settings-only pre-check said no (a disabled or never-rolling
Shadow, which the hook then remembers: :mod:`.quiet`) or the host failed
before the plugin decided, so those leave no session behind.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

from harness.agents.agent import LoopAgent
from harness.cli.common import resume_collection
from harness.host import HarnessHost, drain
from harness.profiles import ProfileRow

from .model import Format
from .quiet import SETTINGS_REASONS
from .reader import TranscriptSource
from .record import ImportRecord
from .review import ReviewOutcome, check_rows, command, dispose, mirror_host, relayed, settled_runs
from .session import Imported, append_imported, remove_session, write_offline
from .workspace import NO_WORKSPACE, Workspace

#: ``/shadow show``'s front matter (read only when the plugin opened no cycle)
_ENABLED = re.compile(r"^enabled:\s*(true|false)\s*$", re.MULTILINE)
_PROBABILITY = re.compile(r"^activation_probability:\s*([0-9.eE+-]+)\s*$", re.MULTILINE)
#: shown only when a check may start a review (``any`` or ``only``)
_ON_CHECK = re.compile(r"^review_on_check:\s*(\w+)\s*$", re.MULTILINE)

#: reasons for a review the plugin did not admit when it opened no cycle (the
#: codes on its cycles' cards — NOT_ROLLED, BUDGET_EXHAUSTED, COOLDOWN_ACTIVE,
#: SHADOW_DISABLED, SHADOW_PAUSED, MODEL_NOT_ACTIVE, RELAY_BOUND_REACHED… — are
#: passed on as they are)
SHADOW_DISABLED = "SHADOW_DISABLED"
NOT_ROLLED = "NOT_ROLLED"
NO_TOOL_TURN = "NO_TOOL_TURN"


async def review_governed(
    source: TranscriptSource,
    *,
    home: Path,
    rows: tuple[ProfileRow, ...],
    record: ImportRecord | None,
    keep: Callable[[ImportRecord | None], None],
    workspace: Workspace = NO_WORKSPACE,
    format: Format | None = None,
    bound_seconds: float = 50.0,
) -> ReviewOutcome:
    """Append the transcript's new lines where the plugin sees them; report what it did.

    ``keep`` receives the record of the session the transcript now maps to
    (None: this call's new session was removed, nothing maps yet)."""
    check_rows(rows)
    imported = write_offline(source, home, record=record, format=format, workspace=workspace, hold_last_turn=True)
    created, session_id, base = imported.created, imported.session_id, imported.base_seq
    if not created:
        keep(imported.record)  # what the session holds so far, should the rest fail
    if not imported.held:
        return _no_turn(imported, home, keep, workspace)  # no turn end to roll for: no host needed
    reason: str | None = None
    prechecked = False
    opened: list[HarnessHost] = []
    try:
        async with mirror_host(rows, home, session_id, imported, workspace) as host:
            opened.append(host)
            handle = await host.agents.resume(session_id)
            agent = handle.agent
            # start-up is over: the host, its plugins and the root are built (not frozen:
            # the review also runs inside other processes, whose heap is not its to freeze)
            resume_collection(freeze=False)
            try:
                with trio.move_on_after(bound_seconds) as bound:
                    append_imported(agent.session, imported.held)
                    if isinstance(agent, LoopAgent):
                        agent.follow_log()  # its history and turn count now include the appended turn
                    if not created:
                        keep(ImportRecord.of(session_id, source, importer=imported.transcript.state))
                    await drain(host, agent)
                    if not _runs(host, session_id, base):
                        cards = _cards(host, session_id, base)
                        reason = await skip_reason(host, agent, cards)
                        prechecked = not cards and reason in SETTINGS_REASONS  # the answers :mod:`.quiet` keeps
                report, refs = relayed(agent.session.events, base)
            finally:
                await dispose(host, handle)
    finally:
        # also when the host failed: a session this call created is kept only
        # when a run used it or the plugin decided this turn by its own rules
        runs = _runs(opened[0], session_id, base) if opened else []
        kept = bool(runs) or (reason is not None and not prechecked)
        if created and not kept:
            remove_session(home, session_id)
            keep(None)
    if created and kept:
        keep(ImportRecord.of(session_id, source, importer=imported.transcript.state))
    run = runs[-1] if runs else {}
    if bound.cancelled_caught:
        phase = "timeout"
    else:
        phase = str(run.get("phase", "failed")) if runs else "skipped"
    return ReviewOutcome(
        session_id=None if created and not kept else session_id,
        phase=phase,
        run=run,
        transcript=imported.transcript,
        report=report if phase == "report" else None,
        refs=refs if phase == "report" else (),
        reason_code=reason if phase == "skipped" else None,
        restarted=imported.restarted,
        workspace=workspace,
        prechecked=prechecked and phase == "skipped",
    )


def _cards(host: HarnessHost, session_id: str, base: int) -> list[Any]:
    """This call's review cards (cards are process-local; ``base`` keeps it exact)."""
    return [card for card in host.client.cards(session_id) if card.anchor_seq >= base]


def _runs(host: HarnessHost, session_id: str, base: int) -> list[dict[str, Any]]:
    return settled_runs(_cards(host, session_id, base))


def _no_turn(
    imported: Imported, home: Path, keep: Callable[[ImportRecord | None], None], workspace: Workspace
) -> ReviewOutcome:
    if imported.created:
        remove_session(home, imported.session_id)
        keep(None)
    return ReviewOutcome(
        session_id=None if imported.created else imported.session_id,
        phase="skipped",
        run={},
        transcript=imported.transcript,
        reason_code=NO_TOOL_TURN,
        restarted=imported.restarted,
        workspace=workspace,
    )


async def skip_reason(host: Any, agent: Any, cards: list[Any]) -> str:
    """Why the plugin admitted no review of the appended turns.

    A cycle the plugin opened and ended without a run carries its reason code
    on its card (``skipped``, ``failure``, or ``declined``: the roll, the
    budget, a cooldown, a disabled or paused Shadow). No cycle at all means the
    plugin's cheap pre-check said no review (the default Shadow is disabled or
    never rolls; read from ``/shadow show``), or the new lines hold no
    completed tool turn."""
    for card in reversed(cards):
        for key in ("skipped", "failure", "declined"):
            found = card.data.get(key)
            if isinstance(found, dict) and isinstance(found.get("reason_code"), str):
                return str(found["reason_code"])
    shown = await command(host, agent, "/shadow show")
    enabled = _ENABLED.search(shown)
    if enabled is not None and enabled.group(1) == "false":
        return SHADOW_DISABLED
    probability = _PROBABILITY.search(shown)
    on_check = _ON_CHECK.search(shown)
    checks_may_start = on_check is not None and on_check.group(1) != "off"
    if probability is not None and float(probability.group(1)) <= 0 and not checks_may_start:
        return NOT_ROLLED
    return NO_TOOL_TURN
