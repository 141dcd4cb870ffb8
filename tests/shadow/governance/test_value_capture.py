"""Capturing a relayed challenge reads the events it cites, not the whole root log."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any, overload

from hookspecs.values.events import SessionEvent
from shadow_mind_plugin.governance.value import ValueContext, capture, evaluate
from shadow_mind_plugin.governance.value_loop import observe
from shadow_mind_plugin.settings import ShadowMindSettings

from .test_value_loop import call, ev, relay, report, say, turn_end


class CountingEvents(Sequence[SessionEvent]):
    def __init__(self, items: list[SessionEvent]) -> None:
        self.items = items
        self.handed = 0

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> SessionEvent: ...

    @overload
    def __getitem__(self, index: slice) -> list[SessionEvent]: ...

    def __getitem__(self, index: Any) -> Any:
        out = self.items[index]
        self.handed += len(out) if isinstance(index, slice) else 1
        return out


def _state(events: CountingEvents) -> Any:
    governance = SimpleNamespace(pending_challenges={}, value_stats={})
    return SimpleNamespace(governance=governance, root_id="root", root=SimpleNamespace(session=SimpleNamespace(events=events)))


def _ctx() -> ValueContext:
    return ValueContext(settings=ShadowMindSettings(), now=lambda: 0.0, journal=lambda _record: None)


def test_capture_reads_the_cited_events_only_and_classifies_as_a_full_read() -> None:
    items = [ev(i, "step/start", {"turn": 1, "step": i}) for i in range(2000)]
    items.append(call(2000, '{"path":"src/app.py"}'))
    items.append(relay(2001, [report("r1", refs=[2000, 7, -1, 99999])]))
    events = CountingEvents(items)
    state = _state(events)
    capture(_ctx(), state, items[-1])
    assert events.handed <= 3  # the two cited events that exist, not the 2,000 before them
    observer = state.governance.pending_challenges["r1"]
    assert observer.observed_through_seq == 2001
    items += [say(2002, "Fixing it."), call(2003, '{"path":"src/app.py","old":"a","new":"b"}'), turn_end(2004)]
    evaluate(_ctx(), state, items[-1])
    assert "r1" not in state.governance.pending_challenges  # classified
    assert state.governance.value_stats["default"]["adopted"] == 1
    whole = observe(items, observer.challenge)
    assert observer.snapshot() == whole
