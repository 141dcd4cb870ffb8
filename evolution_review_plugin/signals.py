"""What one turn did (:func:`fold_turn`) and how it advances the review
counters (:func:`advance`): the counting windows ``turnsSinceMemory`` and
``turnsSinceSkill``.

Only real user input counts as user characters: a Shadow relay, an evolution
notice or any other plugin delivery carries its own ``source.kind`` and is
left out, so neither plugin's messages look like a person talking.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final, Literal

import attrs

from hookspecs.errors import DshError
from hookspecs.values import EventTypes, Message, SessionEvent, TextBlock, message_from_json

from .vocabulary import SKILL_TOOL

ReviewKind = Literal["memory", "skill", "combined"]

#: a person correcting or teaching the agent: worth remembering
_MEMORY_PHRASES: Final = re.compile(
    r"\b(?:don'?t|do not|never|stop|too (?:verbose|long|short)|i prefer|i'd rather|please always|"
    r"remember (?:this|that)|from now on|next time)\b",
    re.IGNORECASE,
)
#: a fix that took work: worth a skill
_SKILL_PHRASES: Final = re.compile(
    r"\b(?:root cause|workaround|the fix (?:is|was)|turned out|figured out|finally works?)\b", re.IGNORECASE
)


@attrs.frozen(kw_only=True)
class TurnSignals:
    turn: int
    tool_calls: int = 0
    user_chars: int = 0
    assistant_chars: int = 0
    memory_signal: bool = False
    skill_signal: bool = False


@attrs.frozen(kw_only=True)
class Thresholds:
    memory_interval: int
    skill_interval: int
    min_tool_calls: int
    min_user_chars: int
    min_agent_chars: int


@attrs.frozen(kw_only=True)
class Counters:
    """One session's counting windows. ``last_turn`` makes :func:`advance`
    idempotent per turn; ``tool_calls_total`` feeds the completion channel."""

    turns_since_memory: int = 0
    turns_since_skill: int = 0
    last_turn: int = -1
    tool_calls_total: int = 0


def text_of(message: Message) -> str:
    return "".join(block.text for block in message.content if isinstance(block, TextBlock))


def is_real_user(message: Message) -> bool:
    return message.role == "user" and message.source.get("kind") == "user"


def event_message(event: SessionEvent) -> Message | None:
    data = event.data if isinstance(event.data, dict) else {}
    try:
        return message_from_json(data.get("message"))
    except DshError:
        return None


def fold_turn(turn: int, events: Iterable[SessionEvent]) -> TurnSignals:
    """The signals of the turn whose events (from its ``turn/start``) are given."""
    tools = user = assistant = 0
    memory = skill = False
    for event in events:
        if event.type == EventTypes.TOOL_CALL:
            tools += 1
            skill = skill or (isinstance(event.data, dict) and event.data.get("name") == SKILL_TOOL)
        elif event.type in (EventTypes.USER_MESSAGE, EventTypes.ASSISTANT_MESSAGE):
            message = event_message(event)
            if message is None:
                continue
            text = text_of(message)
            if message.role == "assistant":
                assistant += len(text)
                skill = skill or bool(_SKILL_PHRASES.search(text))
            elif is_real_user(message):
                user += len(text)
                memory = memory or bool(_MEMORY_PHRASES.search(text))
                skill = skill or bool(_SKILL_PHRASES.search(text))
    return TurnSignals(
        turn=turn, tool_calls=tools, user_chars=user, assistant_chars=assistant, memory_signal=memory, skill_signal=skill
    )


def substantive(signals: TurnSignals, thresholds: Thresholds) -> bool:
    return (
        signals.tool_calls >= thresholds.min_tool_calls
        or signals.user_chars >= thresholds.min_user_chars
        or signals.assistant_chars >= thresholds.min_agent_chars
    )


def advance(counters: Counters, signals: TurnSignals, thresholds: Thresholds) -> tuple[Counters, ReviewKind | None]:
    """Count one turn (once) and say which review its counters reached, if any.

    Counters are activity-weighted (a signalled turn adds 1, any other
    ``max(1, tool calls)``) and never reset here: the delivery zeroes them, so
    the window runs from one injection to the next.
    """
    if signals.turn <= counters.last_turn:
        return counters, None
    total = counters.tool_calls_total + signals.tool_calls
    if not substantive(signals, thresholds):
        return attrs.evolve(counters, last_turn=signals.turn, tool_calls_total=total), None
    weight = max(1, signals.tool_calls)
    memory = counters.turns_since_memory + (1 if signals.memory_signal else weight)
    skill = counters.turns_since_skill + (1 if signals.skill_signal else weight)
    updated = Counters(turns_since_memory=memory, turns_since_skill=skill, last_turn=signals.turn, tool_calls_total=total)
    return updated, fired_kind(updated, thresholds)


def fired_kind(counters: Counters, thresholds: Thresholds) -> ReviewKind | None:
    memory = counters.turns_since_memory >= thresholds.memory_interval
    skill = counters.turns_since_skill >= thresholds.skill_interval
    if memory and skill:
        return "combined"
    return "memory" if memory else "skill" if skill else None
