"""One Shadow review of an imported transcript, through the real host and plugin.

The transcript is written into a new root session, the host opens it with the
profile's plugins (the shadow-mind bundle), ``/shadow new [NAME]`` admits one
forced review, and the host is drained until the run settled. The outcome is
read from the run's review card (phase, reason code, verdict) and, for a
report, from the relay the plugin entered into the imported session: the
report text and its refs, each mapped back to its transcript line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import trio

from harness.cli.render import message_text
from harness.cli.run import drain
from harness.host import open_host
from harness.profiles import ProfileRow
from hookspecs.errors import DshError
from hookspecs.values import EventTypes

from .mirror import MirrorPlugin
from .model import SOURCE_LINE_KEY, ImportedTranscript
from .session import write_session

REPORT_SOURCE_KIND = "shadow-report"
#: the activation probability in ``/shadow show``'s definition text (its YAML front matter)
_PROBABILITY = re.compile(r"^activation_probability:\s*([0-9.eE+-]+)\s*$", re.MULTILINE)
RUNTIME_ROW = "shadow-mind-runtime"
NO_BUNDLE = "the profile does not load Shadow Mind: add '- bundle: shadow-mind' to it"
#: how long disposing the imported root may take (it settles a run still open)
DISPOSE_SECONDS = 30.0
#: the outcomes that say "nothing to add"
QUIET_PHASES = frozenset({"silent", "not_relevant"})


class ReviewError(DshError):
    """The review could not be started (no shadow-mind bundle, an unknown definition...)."""


@attrs.frozen(kw_only=True)
class ReviewOutcome:
    """``phase`` is the settled run's phase (``report``, ``silent``, ``not_relevant``,
    ``failed``, ``aborted``), ``timeout`` when the bound ran out first, or
    ``not_rolled`` when the activation roll said no review this time."""

    session_id: str
    phase: str
    run: dict[str, Any]
    report: str | None = None
    refs: tuple[dict[str, Any], ...] = ()

    @property
    def quiet(self) -> bool:
        return self.phase in QUIET_PHASES


async def review_imported(
    transcript: ImportedTranscript,
    *,
    home: Path,
    rows: tuple[ProfileRow, ...],
    definition: str | None = None,
    bound_seconds: float = 600.0,
    roll: Callable[[float], bool] | None = None,
) -> ReviewOutcome:
    """Review once; with ``roll``, first ask it whether the definition's
    activation probability admits a review (a forced review skips the roll)."""
    if not any(row.name == RUNTIME_ROW for row in rows):
        raise ReviewError(NO_BUNDLE)  # before anything is written
    session_id, workspace = write_session(transcript, home)
    async with open_host(
        rows=rows,
        dsh_home=home,
        cwd=workspace,
        headless=True,
        extra_plugins=[("transcript-mirror", MirrorPlugin(session_id))],
    ) as host:
        handle = await host.agents.resume(session_id)
        agent = handle.agent
        try:
            with trio.move_on_after(bound_seconds) as bound:
                suffix = f" {definition}" if definition else ""
                if roll is not None and not roll(await _probability(host, agent, suffix)):
                    return ReviewOutcome(session_id=session_id, phase="not_rolled", run={})
                await _command(host, agent, "/shadow new" + suffix)
                await drain(host, agent)
            report, refs = _relay(agent.session.events)
        finally:
            # disposing the root cancels a run the bound cut short; it settles there
            with trio.CancelScope(shield=True), trio.move_on_after(DISPOSE_SECONDS):
                await handle.dispose()
                await host.wait_background_idle()
        run = _settled_run(host.client.cards(session_id))
    phase = "timeout" if bound.cancelled_caught else str(run.get("phase", "failed"))
    if phase != "report":
        report, refs = None, ()
    return ReviewOutcome(session_id=session_id, phase=phase, run=run, report=report, refs=refs)


async def _command(host: Any, agent: Any, line: str) -> str:
    result = await host.commands.execute(agent, line)
    if result is None:
        raise ReviewError(NO_BUNDLE)
    if result.kind != "success":
        raise ReviewError(f"the review could not start: {result.text}")
    return str(result.text)


async def _probability(host: Any, agent: Any, suffix: str) -> float:
    match = _PROBABILITY.search(await _command(host, agent, "/shadow show" + suffix))
    return float(match.group(1)) if match else 1.0


def _settled_run(cards: list[Any]) -> dict[str, Any]:
    """The newest run on the session's review cards (there is one: the forced review)."""
    runs = [run for card in cards for run in card.data.get("runs", ()) if isinstance(run, dict)]
    return dict(runs[-1]) if runs else {}


def _relay(events: Any) -> tuple[str | None, tuple[dict[str, Any], ...]]:
    """The relayed report's text and its refs as ``{seq, type, transcript_line}``."""
    for event in reversed(events):
        message = event.data.get("message") if event.type == EventTypes.USER_MESSAGE else None
        if not isinstance(message, dict) or message.get("source", {}).get("kind") != REPORT_SOURCE_KIND:
            continue
        source = message["source"]
        text = message_text(message)
        refs: list[dict[str, Any]] = []
        for report in source.get("reports", ()):
            for seq in report.get("refs", ()):
                target = events[seq] if isinstance(seq, int) and 0 <= seq < len(events) else None
                line = target.data.get(SOURCE_LINE_KEY) if target is not None else None
                refs.append({"seq": seq, "type": target.type if target else None, "transcript_line": line})
        return text, tuple(refs)
    return None, ()
