"""How a review card reads in a terminal. Cards are process-local."""

from __future__ import annotations

from hookspecs.values import Card

_LABELS = {
    "running": "reviewing",
    "report": "report",
    "silent": "no additional finding",
    "not_relevant": "not relevant",
    "aborted": "aborted",
    "failed": "failed",
}


def render_card(card: Card) -> str:
    data = card.data
    seq = data.get("captured_through_seq")
    runs = data.get("runs", [])
    if data.get("failure"):
        failure = data["failure"]
        return f"◇ Shadow review @{seq}: scheduling failed [{failure.get('reason_code')}]"
    if data.get("skipped") and not runs:
        skipped = data["skipped"]
        return f"◇ Shadow review @{seq}: skipped [{skipped.get('reason_code')}]"
    if not runs:
        return f"◇ Shadow review @{seq}: deciding whether to review…" if data.get("scheduling") else ""
    parts = []
    for run in runs:
        label = _LABELS.get(run.get("phase", ""), run.get("phase"))
        if run.get("phase") == "report":
            label += " relayed" if run.get("relayed") else " waiting to be relayed"
            if run.get("verdict"):
                label += f" ({run['verdict']})"
            if run.get("check"):
                label += f" [check: {run['check']}]"
        elif run.get("reason_code"):
            label += f" [{run['reason_code']}]"
        if run.get("trigger_check"):
            label += f" [started by check: {run['trigger_check']}]"
        if run.get("leads"):
            # what the checks handed the model, whatever it made of them
            label += f" [leads: {', '.join(str(lead.get('kind')) for lead in run['leads'])}]"
        if run.get("cause"):
            label += f": {run['cause']}"
        parts.append(f"{run.get('shadow_name')} {label}")
    paused = " (paused)" if data.get("paused") else ""
    return f"◇ Shadow review @{seq}{paused}: " + "; ".join(parts)


