"""Probe classes: recurring trajectory situations a reviewer should test.

Each has a trigger (what to look for in the rendered trajectory) and a probe
(the question to ask when it fires). The starters embed a checklist
rendered from the classes they care about; the runtime does not inject it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

import attrs


@attrs.frozen
class ProbeClass:
    id: str
    name: str
    trigger: str
    probe: str


PROBE_CLASSES: Final[tuple[ProbeClass, ...]] = (
    ProbeClass(
        id="failed_tool_call",
        name="Failed tool call",
        trigger="a tool result is recorded as an error.",
        probe="did the root work out why the call failed and change what it did next?",
    ),
    ProbeClass(
        id="redacted_arguments",
        name="Redacted arguments",
        trigger="tool arguments are shown as [redacted].",
        probe="treat their content as an evidence gap; never state that they were checked.",
    ),
    ProbeClass(
        id="stale_read",
        name="Stale read",
        trigger="a file was read and afterwards rewritten.",
        probe="does any conclusion still depend on what the file said before the rewrite?",
    ),
    ProbeClass(
        id="misleading_success",
        name="Misleading success",
        trigger="a tool reported success and a later call of the same tool failed.",
        probe="did the earlier success make the work look more finished than it was?",
    ),
    ProbeClass(
        id="repeated_failure",
        name="Repeated failure",
        trigger="the same tool failed three or more times.",
        probe="did each retry change its inputs or approach, or was it the same attempt again?",
    ),
    ProbeClass(
        id="long_output",
        name="Long output",
        trigger="a tool result comes close to the projection's size limit.",
        probe="does a conclusion depend on detail that was cut from the rendered output?",
    ),
)

PROBE_IDS: Final = tuple(p.id for p in PROBE_CLASSES)

#: Which probe classes each starter checks (listed in PROBE_CLASSES order).
STARTER_PROBES: Final[Mapping[str, tuple[str, ...]]] = {
    "architect": ("stale_read", "misleading_success"),
    "contrarian": PROBE_IDS,
    "evidence": ("redacted_arguments", "long_output"),
    "failure-path": ("misleading_success", "repeated_failure"),
    "simplification": ("repeated_failure", "long_output"),
}

EVIDENCE_RULE: Final = (
    "If the trajectory does not let you carry out a probe, report that as an evidence gap. "
    "Never say a probe was run unless the trajectory shows the evidence for it."
)


def render_probe_checklist(ids: Iterable[str]) -> str:
    """``## Probe checklist`` with the selected classes (in canonical order)
    followed by the evidence rule. Unknown ids raise ValueError."""
    wanted = set(ids)
    unknown = wanted - set(PROBE_IDS)
    if unknown:
        raise ValueError(f"unknown probe class(es): {', '.join(sorted(unknown))}")
    lines = ["## Probe checklist", ""]
    for probe in PROBE_CLASSES:
        if probe.id in wanted:
            lines += [
                f"- {probe.name} (`{probe.id}`)",
                f"  - Trigger: {probe.trigger}",
                f"  - Probe: {probe.probe}",
            ]
    lines += ["", EVIDENCE_RULE]
    return "\n".join(lines)
