"""``.pinned`` skills: a skill directory holding a ``.pinned`` file is kept
from writes by the self-improvement review.

- ``subagent`` mode: the review child's plan sees pinned skills as protected,
  always (:class:`ReviewLibrary`, the view the reviewer is given).
- ``inject`` mode: the review runs in the root session itself, so the
  protection rides a session mark (:class:`ReviewMarks`), set when a review
  prompt is delivered and cleared by the next real user message after it
  (``source.kind == "user"``; a Shadow relay or an evolution notice does not
  count). While the mark is set the ``skill`` tool refuses writes to pinned
  skills; after it the person's own requests may change them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from hookspecs.errors import ToolArgsError

from .signals import event_message, is_real_user
from .skills_store import PINNED_MARKER
from .sweep import Alive, always_alive, sweep

if TYPE_CHECKING:
    from hookspecs.stores import SkillInfo, SkillLibrary
    from hookspecs.values import SessionEvent

def is_pinned(library: SkillLibrary, name: str) -> bool:
    """Whether ``name`` is pinned; a library without pins (another provider's) has none."""
    check = getattr(library, "is_pinned", None)
    return bool(check(name)) if callable(check) else False


def pinned_refusal(name: str) -> str:
    return (
        f"skill {name!r} is pinned (its directory has a {PINNED_MARKER} file): the self-improvement review may not "
        "change it"
    )


@attrs.define(eq=False)
class _Mark:
    prompt_id: str
    #: the prompt is in the log: a real user message after it ends the review
    seen: bool = False


@attrs.define(eq=False)
class ReviewMarks:
    """Root sessions a review prompt was delivered to and whose review may be running."""

    alive: Alive = always_alive
    _marks: dict[str, _Mark] = attrs.field(factory=dict)

    def set(self, session_id: str, prompt_id: str) -> None:
        if session_id not in self._marks:
            sweep(self._marks, self.alive)
        self._marks[session_id] = _Mark(prompt_id=prompt_id)

    def active(self, session_id: str) -> bool:
        return session_id in self._marks

    def forget(self, session_id: str) -> None:
        self._marks.pop(session_id, None)

    def __len__(self) -> int:
        return len(self._marks)

    def on_user_message(self, session_id: str, event: SessionEvent) -> None:
        mark = self._marks.get(session_id)
        if mark is None:
            return
        message = event_message(event)
        if message is None:
            return
        if message.id == mark.prompt_id:
            mark.seen = True
        elif mark.seen and is_real_user(message):
            # a message entered before the prompt does not end the review it precedes
            del self._marks[session_id]

    def on_discarded(self, session_id: str, message_id: str) -> None:
        """The prompt was dropped from the inbox (a cancel, a disposal): no review runs."""
        mark = self._marks.get(session_id)
        if mark is not None and mark.prompt_id == message_id and not mark.seen:
            del self._marks[session_id]


class ReviewLibrary:
    """The skill library as the review child's plan sees it: pinned skills are
    protected like protected names, and writes to them are refused."""

    def __init__(self, library: SkillLibrary) -> None:
        self.library = library

    def list(self) -> list[SkillInfo]:
        return [attrs.evolve(s, protected=s.protected or is_pinned(self.library, s.name)) for s in self.library.list()]

    def read(self, name: str) -> str:
        return self.library.read(name)

    def exists(self, name: str) -> bool:
        return self.library.exists(name)

    def is_protected(self, name: str) -> bool:
        return self.library.is_protected(name) or is_pinned(self.library, name)

    def write(self, name: str, content: str, *, origin: str) -> None:
        self._refuse_pinned(name)
        self.library.write(name, content, origin=origin)

    def patch(self, name: str, old: str, new: str, *, origin: str) -> None:
        self._refuse_pinned(name)
        self.library.patch(name, old, new, origin=origin)

    def _refuse_pinned(self, name: str) -> None:
        if is_pinned(self.library, name):
            raise ToolArgsError(pinned_refusal(name))
