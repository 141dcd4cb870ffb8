"""One Shadow review of an imported transcript, through the real host and plugin.

The transcript's new lines are appended to its imported session
(:mod:`.session`), the host opens that session with the profile's plugins
(the shadow-mind bundle), ``/shadow new [NAME]`` admits one forced review, and
the host is drained until the run settled. The outcome is read from the run's
review card (phase, reason code, verdict) and, for a report, from the relay
the plugin entered into the imported session: the report text and its refs,
each mapped back to its transcript line. The Stop-hook bridge admits its
reviews by the plugin's own rules instead (:mod:`.governed`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import attrs
import trio

from harness.cli.common import single_dsh_error
from harness.cli.render import message_text
from harness.host import HarnessHost, drain, open_host
from harness.profiles import ProfileRow
from hookspecs.errors import DshError
from hookspecs.values import EventTypes

from .mirror import MirrorPlugin
from .model import SOURCE_LINE_KEY, Format, ImportedTranscript
from .reader import TranscriptSource
from .record import ImportRecord
from .session import Imported, write_offline
from .workspace import NO_WORKSPACE, NoFileTools, Workspace

REPORT_SOURCE_KIND = "shadow-report"
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
    ``skipped`` when the plugin admitted no review (``reason_code`` says why).

    ``session_id`` is the imported session, None when this call created it and
    removed it again because nothing ran; ``transcript`` is this call's import
    (the lines after the ones the session already held)."""

    session_id: str | None
    phase: str
    run: dict[str, Any]
    transcript: ImportedTranscript
    report: str | None = None
    refs: tuple[dict[str, Any], ...] = ()
    reason_code: str | None = None
    #: why a recorded imported session was not continued (a new one was started)
    restarted: str | None = None
    #: the directory the reviewer's file tools were confined to, or why it had none
    workspace: Workspace | None = None
    #: the plugin's settings-only pre-check said no (opened no cycle): the
    #: answer holds until its settings change (:mod:`.quiet`)
    prechecked: bool = False

    @property
    def quiet(self) -> bool:
        return self.phase in QUIET_PHASES or self.phase == "skipped"


def run_trio(call: Callable[[], Awaitable[ReviewOutcome]]) -> ReviewOutcome:
    """``trio.run(call)`` for the CLI entry points: a lone :class:`DshError` raised
    inside the host's task groups comes out unwrapped, to print as a message."""
    try:
        return trio.run(call)
    except BaseExceptionGroup as group:
        single = single_dsh_error(group)
        if single is None:
            raise
        raise single from None


def check_rows(rows: tuple[ProfileRow, ...]) -> None:
    if not any(row.name == RUNTIME_ROW for row in rows):
        raise ReviewError(NO_BUNDLE)  # before anything is written


@asynccontextmanager
async def mirror_host(
    rows: tuple[ProfileRow, ...], home: Path, session_id: str, imported: Imported, workspace: Workspace
) -> AsyncIterator[HarnessHost]:
    """A headless host with the profile's plugins and the imported root's stand-in
    model, in the accepted workspace; with none, the file tools are withdrawn."""
    plugins: list[tuple[str, object]] = [("transcript-mirror", MirrorPlugin(session_id))]
    if workspace.path is None:
        plugins.append(("transcript-no-file-tools", NoFileTools()))
    async with open_host(
        rows=rows, dsh_home=home, cwd=imported.workspace, headless=True, extra_plugins=plugins
    ) as host:
        yield host


async def dispose(host: HarnessHost, handle: Any) -> None:
    """Disposing the root cancels a run a bound cut short; it settles there."""
    with trio.CancelScope(shield=True), trio.move_on_after(DISPOSE_SECONDS):
        await handle.dispose()
        await host.wait_background_idle()


async def review_imported(
    source: TranscriptSource,
    *,
    home: Path,
    rows: tuple[ProfileRow, ...],
    record: ImportRecord | None,
    keep: Callable[[ImportRecord], None],
    workspace: Workspace = NO_WORKSPACE,
    format: Format | None = None,
    definition: str | None = None,
    bound_seconds: float = 600.0,
) -> ReviewOutcome:
    """Import the new lines into the transcript's session, then one forced review.

    ``keep`` receives the record of what the session now holds as soon as the
    lines are appended (before the review, which may fail)."""
    check_rows(rows)
    imported = write_offline(source, home, record=record, format=format, workspace=workspace)
    keep(imported.record)
    session_id = imported.session_id
    async with mirror_host(rows, home, session_id, imported, workspace) as host:
        handle = await host.agents.resume(session_id)
        agent = handle.agent
        try:
            with trio.move_on_after(bound_seconds) as bound:
                await command(host, agent, "/shadow new" + (f" {definition}" if definition else ""))
                await drain(host, agent)
            report, refs = relayed(agent.session.events, imported.base_seq)
        finally:
            await dispose(host, handle)
        runs = settled_runs(host.client.cards(session_id))
    run = runs[-1] if runs else {}
    phase = "timeout" if bound.cancelled_caught else str(run.get("phase", "failed"))
    return ReviewOutcome(
        session_id=session_id,
        phase=phase,
        run=run,
        transcript=imported.transcript,
        report=report if phase == "report" else None,
        refs=refs if phase == "report" else (),
        restarted=imported.restarted,
        workspace=workspace,
    )


async def command(host: Any, agent: Any, line: str) -> str:
    result = await host.commands.execute(agent, line)
    if result is None:
        raise ReviewError(NO_BUNDLE)
    if result.kind != "success":
        raise ReviewError(f"the review could not start: {result.text}")
    return str(result.text)


def settled_runs(cards: list[Any]) -> list[dict[str, Any]]:
    """The runs on the session's review cards, oldest first (cards are this process's)."""
    return [dict(run) for card in cards for run in card.data.get("runs", ()) if isinstance(run, dict)]


def relayed(events: Any, since: int) -> tuple[str | None, tuple[dict[str, Any], ...]]:
    """The newest report relayed at or after seq ``since``: its text and its refs
    as ``{seq, type, transcript_line}``."""
    for index in range(len(events) - 1, max(since, 0) - 1, -1):
        event = events[index]
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
