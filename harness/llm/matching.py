"""Deciding which scripted response answers a request, and explaining misses."""

from __future__ import annotations

import attrs

from hookspecs.values.llm import LlmRequest

from .script import Match

_HEAD = 80  # characters of user text quoted in messages


@attrs.frozen(kw_only=True)
class RequestFacts:
    """The parts of a request a :class:`Match` looks at."""

    model: str
    depth: int
    last_user_text: str
    system: str
    tools: tuple[str, ...]

    @classmethod
    def of(cls, request: LlmRequest) -> RequestFacts:
        last_user = next((m for m in reversed(request.messages) if m.role == "user"), None)
        depth = request.metadata.get("delegation_depth", 0)
        return cls(
            model=request.model,
            # A request built without host metadata counts as a root request.
            depth=depth if isinstance(depth, int) else -1,
            last_user_text=last_user.text if last_user is not None else "",
            system=request.system,
            tools=tuple(tool.name for tool in request.tools),
        )

    def summary(self) -> str:
        tools = ", ".join(self.tools) or "none"
        return (
            f"model {self.model!r}, depth {self.depth}, tools [{tools}], "
            f"last user text {_head(self.last_user_text)!r}"
        )


def mismatch(match: Match, facts: RequestFacts) -> str | None:
    """The first reason ``match`` rejects the request, or None when it matches."""
    if match.model is not None and facts.model != match.model:
        return f"model is {facts.model!r}, wants {match.model!r}"
    if match.depth is not None and facts.depth != match.depth:
        return f"depth is {facts.depth}, wants {match.depth}"
    if match.last_user_contains is not None and match.last_user_contains not in facts.last_user_text:
        return f"last user text lacks {match.last_user_contains!r}"
    if match.system_contains is not None and match.system_contains not in facts.system:
        return f"system prompt lacks {match.system_contains!r}"
    missing = [name for name in match.has_tools if name not in facts.tools]
    if missing:
        return f"tools {', '.join(missing)} not offered"
    if match.no_tools is True and facts.tools:
        return "tools are offered, wants none"
    if match.no_tools is False and not facts.tools:
        return "no tools are offered, wants some"
    return None


def _head(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _HEAD else text[: _HEAD - 1] + "…"
