"""The sessions the web client drives: listing, opening (resume), creating,
sending prompts and slash commands, aborting. One root agent per open session,
disposed when the server stops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookspecs.errors import DshError
from hookspecs.protocols import CreateAgentOptions, Host
from hookspecs.values import AgentOptions, CancelCause, create_user_message

from .payloads import clean, event_payload


class Conversations:
    def __init__(self, host: Host, cwd: Path, options: AgentOptions) -> None:
        self.host = host
        self._cwd = cwd
        self._options = options
        self._handles: dict[str, Any] = {}

    def sessions(self) -> list[dict[str, Any]]:
        out = []
        for summary in self.host.sessions.list():
            if summary.parent_session is not None:
                continue  # child sessions open from their parent's cards
            out.append(
                {
                    "id": clean(summary.id, 120),
                    "created_at": summary.created_at,
                    "events": summary.events,
                    "title": clean(summary.title or "", 200),
                    "open": summary.id in self._handles,
                }
            )
        return out

    def parent(self, session_id: str) -> str | None:
        """The session a child session belongs to (None for a root session or an unknown id)."""
        for summary in self.host.sessions.list():
            if summary.id == session_id:
                return clean(summary.parent_session, 120) if summary.parent_session is not None else None
        return None

    async def create(self) -> str:
        handle = await self.host.agents.create(CreateAgentOptions(cwd=str(self._cwd), agent_options=self._options))
        self._handles[handle.agent.id] = handle
        return str(handle.agent.id)

    async def agent(self, session_id: str) -> Any:
        """The live root agent of ``session_id``, resuming it on first use."""
        handle = self._handles.get(session_id)
        if handle is None:
            if not any(s.id == session_id and s.parent_session is None for s in self.host.sessions.list()):
                raise DshError(f"no root session {session_id!r}", code="NOT_FOUND")
            handle = await self.host.agents.resume(session_id, agent_options=self._options)
            self._handles[session_id] = handle
        return handle.agent

    def read(self, session_id: str, after: int = -1) -> tuple[list[Any], list[dict[str, Any]]]:
        """The durable events after ``after`` (raw, and as page payloads)."""
        live = self._handles.get(session_id)
        if live is not None:
            events = list(live.agent.session.events_since(after + 1))
        else:
            try:
                _, stored = self.host.sessions.read(session_id)
            except DshError:
                raise
            except Exception as exc:
                raise DshError(f"session {session_id!r} cannot be read ({type(exc).__name__})", code="NOT_FOUND") from None
            events = [e for e in stored if e.seq > after]
        payloads = [p for p in (event_payload(e) for e in events) if p is not None]
        return events, payloads

    async def send(self, session_id: str, text: str) -> dict[str, Any]:
        """A prompt, or (a leading ``/``) a slash command through the command registry."""
        agent = await self.agent(session_id)
        if text.startswith("/"):
            result = await self.host.commands.execute(agent, text.rstrip())
            if result is None:
                name = text.split()[0]
                return {"ok": False, "text": clean(f"unknown command {name}; /help lists them", 400)}
            return {"ok": result.kind == "success", "text": clean(result.text or "", 20_000)}
        agent.followup(create_user_message(text.strip()))
        return {"ok": True, "text": ""}

    def abort(self, session_id: str) -> bool:
        handle = self._handles.get(session_id)
        return bool(handle is not None and handle.agent.cancel(CancelCause(by="user")))

    def commands(self) -> list[dict[str, str]]:
        return [
            {"name": clean(c.name, 80), "hint": clean(c.input_hint or "", 120), "description": clean(c.description, 400)}
            for c in self.host.commands.list()
        ]

    async def close(self) -> None:
        handles, self._handles = list(self._handles.values()), {}
        for handle in handles:
            await handle.dispose()
