"""Settings → Plugins → Shadow Mind: the form the host's client renders.

The page edits the default Shadow definition (``default.md``) and a few
settings of the namespace. Saving validates everything first and then writes
through the same code as ``/shadow set`` (``registry.save_default``) and the
``update_shadow_config`` tool (``preview_settings`` and the settings
service); approval is the person's click on Save.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from hookspecs.errors import DshError
from hookspecs.values import (
    FieldErrors,
    FieldHint,
    FormField,
    FormOption,
    FormPreset,
    SettingsForm,
    SettingsOp,
    field_named,
)

from .vocabulary import SETTINGS_NAMESPACE

if TYPE_CHECKING:
    from .runtime.runtime import ShadowRuntime

#: settings keys the page edits (the rest stay with /shadow config)
SETTING_KEYS = ("collapsedByDefault", "argumentDisclosure", "sessionShadowSoftBudgetChars", "sessionShadowHardBudgetChars", "frugalShadowModel")
ADVANCED = "advanced"


def _choices(*values: str) -> tuple[FormOption, ...]:
    return tuple(FormOption(value=v, label=v) for v in values)


class ShadowSettingsTab:
    def __init__(self, runtime: Callable[[], ShadowRuntime | None]) -> None:
        self._runtime = runtime  # the tab is registered before the runtime exists

    def _rt(self) -> ShadowRuntime:
        rt = self._runtime()
        if rt is None:
            raise DshError("Shadow Mind is not running in this host")
        return rt

    async def load(self) -> SettingsForm:
        # the definitions and views load with the page, not with every start
        from .views import definition_view, settings_view

        rt = self._rt()
        definition = definition_view(rt.registry.default_definition())
        settings = settings_view(rt.settings())
        hints = self._hints(rt, definition)
        fields = [FormField(key=k, value=definition[k], hint=h, nullable=k in ("run_with_model", "reasoning_effort", "timeout_seconds")) for k, h in hints.items() if k in definition]
        fields += [FormField(key=k, value=settings.get(k), hint=hints[k], nullable=settings.get(k) is None or k.startswith(("session", "frugal"))) for k in SETTING_KEYS]
        notes = tuple(f"{d.path}: {d.error}" for d in rt.registry.list().diagnostics[:3])
        return SettingsForm(fields=tuple(fields), presets=_presets(), notes=notes + tuple(rt.governance.settings_notes()))

    def _hints(self, rt: ShadowRuntime, definition: Mapping[str, Any]) -> dict[str, FieldHint]:
        timeout = rt.settings().default_shadow_timeout_seconds
        routes, efforts = self._catalog(rt, definition)
        return {
            "enabled": FieldHint(label="Shadow review", widget="switch", order=1),
            "activation_probability": FieldHint(
                label="Trigger probability", widget="slider", minimum=10, maximum=100, step=10, scale=100, order=2,
                help="The chance that a finished turn is reviewed.",
            ),
            "name": FieldHint(label="Name", widget="text", order=4),
            "collapsedByDefault": FieldHint(label="Collapse review reports by default", widget="switch", immediate=True, order=5),
            "prompt": FieldHint(label="Duty prompt", widget="textarea", order=6, help="What the reviewer checks (Markdown)."),
            "run_with_model": FieldHint(label="Execution model", widget="select", section=ADVANCED, options=routes, order=10, help="— inherits the root's model."),
            "reasoning_effort": FieldHint(
                label="Reasoning effort", widget="select", section=ADVANCED, options=efforts, order=11, depends_on="run_with_model",
                help="The efforts the chosen model advertises; — uses its default.",
            ),
            "timeout_seconds": FieldHint(
                label="Timeout (seconds)", widget="number", section=ADVANCED, order=12,
                placeholder=f"{timeout:g}", help=f"Empty uses the global default: {timeout:g}s ({timeout / 60:g} minutes).",
            ),
            "tools": FieldHint(label="Additional tools", widget="lines", section=ADVANCED, order=13, help="One tool name per line."),
            "capture": FieldHint(label="Trajectory capture", widget="select", section=ADVANCED, options=_choices("full", "since-compaction"), order=14),
            "context": FieldHint(label="Context inheritance", widget="select", section=ADVANCED, options=_choices("standard", "minimal"), order=15),
            "think_first": FieldHint(label="Think before investigating", widget="switch", section=ADVANCED, order=16),
            "debug": FieldHint(label="Record run lifecycle diagnostics", widget="switch", section=ADVANCED, order=17),
            "argumentDisclosure": FieldHint(label="Tool argument disclosure", widget="select", section=ADVANCED, options=_choices("redacted", "full"), order=18),
            "sessionShadowSoftBudgetChars": FieldHint(label="Soft budget (characters)", widget="number", section=ADVANCED, step=1, order=19),
            "sessionShadowHardBudgetChars": FieldHint(label="Hard budget (characters)", widget="number", section=ADVANCED, step=1, order=20),
            "frugalShadowModel": FieldHint(label="Frugal model (provider/model)", widget="text", section=ADVANCED, order=21),
        }

    def _catalog(self, rt: ShadowRuntime, definition: Mapping[str, Any]) -> tuple[tuple[FormOption, ...], tuple[FormOption, ...]]:
        """Routes and reasoning efforts from the live model catalog. Each effort is
        offered for the routes whose model advertises it (and for inherit, which
        may be any of them); saved values the catalog lacks are listed, disabled,
        so the form never loses them."""
        routes: list[FormOption] = []
        efforts: dict[str, list[str]] = {}
        llm = rt.host.llm
        for provider in llm.providers():
            try:
                models = llm.models(provider)
            except Exception:
                routes.append(FormOption(value=f"{provider}/", label=f"{provider} (unavailable)", disabled=True))
                continue
            for model in models:
                route = f"{provider}/{model.id}"
                routes.append(FormOption(value=route, label=route))
                for effort in model.reasoning_efforts:
                    efforts.setdefault(effort, [""]).append(route)
        saved = definition.get("run_with_model")
        if saved and all(o.value != saved for o in routes):
            routes.append(FormOption(value=saved, label=f"{saved} (not in the catalog)", disabled=True))
        options = [FormOption(value=e, label=e, when=tuple(w)) for e, w in efforts.items()]
        saved_effort = definition.get("reasoning_effort")
        if saved_effort and saved_effort not in efforts:
            options.append(FormOption(value=saved_effort, label=f"{saved_effort} (not advertised)", disabled=True))
        return tuple(routes), tuple(options)

    async def save(self, patch: Mapping[str, Any]) -> FieldErrors:
        from .definitions import DefinitionError
        from .definitions.patch import apply_patch
        from .management import preview_settings

        rt = self._rt()
        definition_patch = {k: v for k, v in patch.items() if k not in SETTING_KEYS}
        settings_patch = {k: v for k, v in patch.items() if k in SETTING_KEYS}
        if definition_patch.get("run_with_model") == "":
            definition_patch["run_with_model"] = None
        errors: dict[str, str] = {}
        if definition_patch:
            try:  # validate before writing anything, as update_default_shadow does
                apply_patch(rt.registry.default_definition(), definition_patch, rt.registry.default_path)
            except DefinitionError as exc:
                errors[field_named(exc.reason, list(definition_patch))] = exc.reason
        for problem in preview_settings(rt.settings(), settings_patch) if settings_patch else []:
            errors.setdefault(field_named(problem, list(settings_patch)), problem)
        if errors:
            return errors
        if definition_patch:
            await rt.registry.save_default(definition_patch)
        if settings_patch:
            ops = [SettingsOp.unset(k) if v is None else SettingsOp.set(k, v) for k, v in settings_patch.items()]
            await rt.host.settings.mutate(SETTINGS_NAMESPACE, ops)
        return {}


def _presets() -> tuple[FormPreset, ...]:
    """The starters: choosing one fills the duty prompt (and capture since-compaction)."""
    from .definitions import list_starters, load_starter

    out = []
    for name in list_starters():
        starter = load_starter(name)
        out.append(FormPreset(id=name, label=starter.name or name, values={"prompt": starter.prompt, "capture": "since-compaction"}))
    return tuple(out)
