"""Settings → Plugins → Self-improvement review: the web client's form.

The form edits the live knobs (each shows the value in force; clearing one
restores the profile's value) and lists the deployment-owned ones read-only in
its notes. Saving goes through :meth:`LiveSettings.change`, the same path as
``/evolution config``; a refusal lands at its field and nothing is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

import attrs

from hookspecs.errors import DshError, SettingsError
from hookspecs.values import FieldErrors, FieldHint, FormField, FormOption, SettingsForm, SettingsTab, field_named

from .config_command import shown
from .live import DEPLOYMENT_KEYS, LIVE_KEYS, LIVE_NAMESPACE
from .vocabulary import PLUGIN_NAME

if TYPE_CHECKING:
    from .live import LiveSettings

INTRO: Final = (
    "At the end of a conversation a review keeps memory notes and skills. These settings apply from the next "
    "turn boundary; clearing one restores the profile's value."
)


def _choices(**labels: str) -> tuple[FormOption, ...]:
    return tuple(FormOption(value=value, label=label) for value, label in labels.items())


#: how the form names the deployment-owned knobs it lists read-only (people read labels, not keys)
DEPLOYMENT_LABELS: Final = {
    "reviewProvider": "review model",
    "reviewTimeoutMs": "review timeout (ms)",
    "reviewContextMessages": "context messages",
    "reviewMessageChars": "characters per message",
    "reviewMaxDepth": "maximum depth",
    "reviewToolAllow": "allowed tools",
}


HINTS: Final = {
    "reviewEnabled": FieldHint(label="Self-improvement review", widget="switch", order=1),
    "reviewMode": FieldHint(
        label="Review mode", widget="select", options=_choices(subagent="Subagent (a separate review)", inject="Inject (into the conversation)"), order=2,
        help="Subagent: a one-shot child reviews and returns a plan; Inject: the review prompt goes into the conversation.",
    ),
    "reviewMemoryInterval": FieldHint(label="Memory review interval", widget="number", minimum=1, step=1, order=3),
    "reviewSkillInterval": FieldHint(label="Skill review interval", widget="number", minimum=1, step=1, order=4),
    "skillReviewTrigger": FieldHint(
        label="Skill review trigger", widget="select", options=_choices(cadence="On a cadence", completion="On completion", both="Both"), order=5,
        help="Gates the completion review only; the cadence is always on.",
    ),
    "skillReviewCompletionMinToolCalls": FieldHint(
        label="Completion review after (tool calls)", widget="number", minimum=1, step=1, order=6
    ),
    "reviewWakeInject": FieldHint(
        label="Wake the agent to deliver", widget="switch", order=7,
        help="On: the review starts at once; off: it waits for the next message.",
    ),
}  # fmt: skip


def _plain(value: Any) -> str:
    """A value as a person reads it: no JSON quotes or brackets, "not set" for null."""
    if value is None:
        return "not set"
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


class ReviewSettingsTab:
    def __init__(self, live: Callable[[], LiveSettings | None]) -> None:
        self._live = live  # the tab is registered before the plugin's setup

    def tab(self) -> SettingsTab:
        return SettingsTab(
            plugin=PLUGIN_NAME, namespace=LIVE_NAMESPACE, title="Self-improvement review", order=20, intro=INTRO,
            load=self.load, save=self.save,
        )  # fmt: skip

    def _settings(self) -> LiveSettings:
        live = self._live()
        if live is None:
            raise DshError("evolution-review is not running in this host")
        return live

    async def load(self) -> SettingsForm:
        live = self._settings()
        current, sources, row = live.knobs().by_key(), live.sources(), live.row.by_key()
        fields = []
        for key in LIVE_KEYS:
            hint = HINTS[key]
            if sources[key] == "settings":
                note = f"Changed here; the profile's value is {shown(row[key])}."
                hint = attrs.evolve(hint, help=f"{hint.help} {note}".strip())
            fields.append(FormField(key=key, value=current[key], hint=hint, nullable=True))
        owned = "; ".join(f"{DEPLOYMENT_LABELS[key]} {_plain(live.deployment[key])}" for key in DEPLOYMENT_KEYS)
        notes = (f"Set by the deployment, read from the profile at start (restart to change): {owned}.",)
        return SettingsForm(fields=tuple(fields), notes=notes)

    async def save(self, patch: Mapping[str, Any]) -> FieldErrors:
        live = self._settings()
        errors = {key: why for key in patch if (why := live.refusal(key)) is not None}
        if errors:
            return errors
        try:
            await live.change(dict(patch))
        except SettingsError as exc:
            return {field_named(exc.message, list(patch)): exc.message}
        return {}

