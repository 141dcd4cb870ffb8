"""Settings tabs as forms: the plugin's own form (``SettingsTab.load``/``save``)
or one built from the namespace's settings schema and the tab's layout hints,
saved through the settings service."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookspecs.errors import DshError, SettingsError
from hookspecs.protocols import Host
from hookspecs.values import (
    FieldErrors,
    FieldHint,
    FormField,
    FormOption,
    SettingsForm,
    SettingsOp,
    SettingsTab,
    field_named,
)

from .payloads import clean


def tab_payload(tab: SettingsTab) -> dict[str, Any]:
    return {"namespace": clean(tab.namespace, 200), "title": clean(tab.title, 200), "intro": clean(tab.intro, 2000)}


def find_tab(host: Host, namespace: str) -> SettingsTab:
    for tab in host.client.settings_tabs():
        if tab.namespace == namespace:
            return tab
    raise DshError(f"no settings tab for namespace {namespace!r}", code="NOT_FOUND")


async def load_form(host: Host, tab: SettingsTab) -> SettingsForm:
    if tab.load is not None:
        return await tab.load()
    return schema_form(host, tab)


def schema_form(host: Host, tab: SettingsTab) -> SettingsForm:
    """Every property of the namespace's schema, laid out by the tab's hints."""
    descriptor = next((d for d in host.settings.describe() if d.namespace == tab.namespace), None)
    if descriptor is None:
        raise DshError(f"settings namespace {tab.namespace!r} is not registered", code="NOT_FOUND")
    fields = []
    for key, prop in descriptor.schema.get("properties", {}).items():
        hint = tab.hints.get(key) or derived_hint(key, prop)
        fields.append(FormField(key=key, value=descriptor.value.get(key), hint=hint, nullable=_nullable(prop)))
    return SettingsForm(fields=tuple(fields), notes=tuple(descriptor.notes))


def _types(prop: Mapping[str, Any]) -> set[str]:
    kinds = prop.get("type")
    found = set(kinds) if isinstance(kinds, list) else {kinds} if kinds else set()
    for member in prop.get("anyOf", []):
        found |= _types(member)
    return found


def _nullable(prop: Mapping[str, Any]) -> bool:
    return "null" in _types(prop)


def derived_hint(key: str, prop: Mapping[str, Any]) -> FieldHint:
    """A widget for a schema property no hint names."""
    kinds = _types(prop) - {"null"}
    label = str(prop.get("title") or key)
    help_text = str(prop.get("description", ""))
    if "enum" in prop:
        options = tuple(FormOption(value=str(v), label=str(v)) for v in prop["enum"] if v is not None)
        return FieldHint(label=label, widget="select", options=options, help=help_text, section="advanced")
    if kinds == {"boolean"}:
        return FieldHint(label=label, widget="switch", help=help_text, section="advanced")
    if kinds & {"integer", "number"}:
        return FieldHint(
            label=label,
            widget="number",
            help=help_text,
            section="advanced",
            minimum=prop.get("minimum"),
            maximum=prop.get("maximum"),
            step=1 if kinds == {"integer"} else None,
        )
    if kinds == {"array"}:
        return FieldHint(label=label, widget="lines", help=help_text, section="advanced")
    return FieldHint(label=label, widget="text", help=help_text, section="advanced")


def form_payload(form: SettingsForm) -> dict[str, Any]:
    return {
        "fields": [field_payload(f) for f in form.fields],
        "presets": [
            {"id": clean(p.id, 120), "label": clean(p.label, 200), "values": {k: _value(v) for k, v in p.values.items()}}
            for p in form.presets
        ],
        "notes": [clean(n, 1000) for n in form.notes],
    }


def field_payload(field: FormField) -> dict[str, Any]:
    hint = field.hint
    return {
        "key": clean(field.key, 200),
        "value": _value(field.value),
        "nullable": field.nullable,
        "label": clean(hint.label or field.key, 200),
        "widget": hint.widget or "text",
        "section": clean(hint.section, 80),
        "help": clean(hint.help, 1000),
        "minimum": hint.minimum,
        "maximum": hint.maximum,
        "step": hint.step,
        "scale": hint.scale,
        "placeholder": clean(hint.placeholder, 200),
        "options": [
            {"value": clean(o.value, 200), "label": clean(o.label, 200), "disabled": o.disabled, "when": [clean(w, 200) for w in o.when]}
            for o in hint.options
        ],
        "depends_on": clean(hint.depends_on, 200),
        "immediate": hint.immediate,
        "order": hint.order,
    }


def _value(value: Any) -> Any:
    """A JSON value with every string cleaned (prompts are long: a larger bound)."""
    if isinstance(value, str):
        return clean(value, 100_000)
    if isinstance(value, (list, tuple)):
        return [_value(v) for v in value]
    if isinstance(value, dict):
        return {clean(k, 200): _value(v) for k, v in value.items()}
    return value


async def save_form(host: Host, tab: SettingsTab, patch: Mapping[str, Any]) -> FieldErrors:
    if tab.save is not None:
        return await tab.save(patch)
    ops = [SettingsOp.unset(k) if v is None else SettingsOp.set(k, v) for k, v in patch.items()]
    try:
        await host.settings.mutate(tab.namespace, ops)
    except SettingsError as exc:
        return {field_named(exc.message, list(patch)): exc.message}
    return {}
