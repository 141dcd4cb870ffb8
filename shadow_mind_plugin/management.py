"""Model-facing management tools. Mutations need an ``allowed-once`` approval."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from hookspecs.errors import SettingsError, ToolArgsError, ToolError
from hookspecs.values import ApprovalRequest, SettingsOp, ToolDefinition, ToolResult, evolve_settings, settings_key

from .definitions import DefinitionError
from .definitions.patch import apply_patch
from .settings import ShadowMindSettings, check
from .views import definition_view, settings_view
from .vocabulary import SETTINGS_NAMESPACE

if TYPE_CHECKING:
    from hookspecs.protocols import ToolRunContext

    from .runtime.runtime import ShadowRuntime

EMPTY = {"type": "object", "properties": {}, "additionalProperties": False}

_ROUTE = {"type": ["string", "null"], "description": "provider/model, or null to inherit the root's route"}
DEFINITION_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "enabled": {"type": "boolean"},
        "debug": {"type": "boolean", "description": "write metadata-only lifecycle diagnostics"},
        "activation_probability": {"type": "number", "minimum": 0, "maximum": 1},
        "active_for_models": {"type": "array", "items": {"type": "string"}},
        "run_with_model": _ROUTE,
        "reasoning_effort": {"type": ["string", "null"]},
        "timeout_seconds": {"type": ["number", "null"], "exclusiveMinimum": 0},
        "tools": {"type": "array", "items": {"type": "string"}},
        "capture": {"type": "string", "enum": ["full", "since-compaction"]},
        "context": {"type": "string", "enum": ["standard", "minimal"]},
        "think_first": {"type": "boolean"},
        "prompt": {"type": "string", "minLength": 1, "description": "the reviewer's duty prompt (Markdown)"},
    },
    "additionalProperties": False,
}

def _schema_for(hint: Any) -> dict[str, Any]:
    """The JSON Schema of one settings field, from its type hint."""
    args = typing.get_args(hint)
    if type(None) in args:  # ``X | None``: null clears the setting
        schema = _schema_for(next(a for a in args if a is not type(None)))
        schema["type"] = [schema["type"], "null"]
        return schema
    if typing.get_origin(hint) is typing.Literal:
        return {"type": "string", "enum": list(args)}
    if typing.get_origin(hint) is tuple:
        return {"type": "array", "items": _schema_for(args[0])}
    return {"type": {bool: "boolean", int: "integer", float: "number", str: "string"}[hint]}


def _settings_parameters() -> dict[str, Any]:
    """The tool's arguments: one property per settings key."""
    hints = typing.get_type_hints(ShadowMindSettings)  # by attribute name
    properties: dict[str, Any] = {}
    for field in attrs.fields(ShadowMindSettings):
        key = settings_key(field)
        if key in ("collapsedByDefault", "managementTools"):  # a client preference; a person's choice of tools
            continue
        schema = _schema_for(hints[field.name])
        description = field.metadata.get("description")
        if description:
            schema["description"] = description
        properties[key] = schema
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _result(value: Any) -> ToolResult:
    return ToolResult.text(json.dumps(value, indent=2, ensure_ascii=False), value=value)


class ManagementTools:
    def __init__(self, runtime: Callable[[], ShadowRuntime]) -> None:
        # tools are registered before the runtime exists; they run after it does
        self._runtime = runtime

    def definitions(self) -> list[ToolDefinition]:
        return [
            ToolDefinition(
                name="list_shadows",
                description="List the reviewer definitions (the default one is the only one scheduled) and any files that failed to load.",
                parameters=EMPTY,
                execute=self.list_shadows,
                root_only=True,
                read_only=True,
            ),
            ToolDefinition(
                name="update_default_shadow",
                description="Change fields of the default reviewer definition; null clears run_with_model, reasoning_effort or timeout_seconds. Needs the user's approval.",
                parameters=DEFINITION_PARAMETERS,
                execute=self.update_default_shadow,
                root_only=True,
            ),
            ToolDefinition(
                name="get_shadow_config",
                description="Read the resolved Shadow Mind settings.",
                parameters=EMPTY,
                execute=self.get_shadow_config,
                root_only=True,
                read_only=True,
            ),
            ToolDefinition(
                name="update_shadow_config",
                description="Change Shadow Mind settings; null clears optional ones. Needs the user's approval.",
                parameters=_settings_parameters(),
                execute=self.update_shadow_config,
                root_only=True,
            ),
        ]

    async def _approve(self, ctx: ToolRunContext, tool: str, reason: str, args: dict[str, Any]) -> None:
        if ctx.agent is None:
            raise ToolError(f"{tool} requires a calling agent")
        outcome = await self._runtime().host.approval.request(
            ApprovalRequest(
                agent=ctx.agent, kind="tool", summary=reason, tool=tool, call_id=ctx.call_id, arguments=args, cancel=ctx.cancel
            )
        )
        if outcome != "allowed-once":
            raise ToolError(f"Shadow Mind mutation was not approved ({outcome})", code="NOT_APPROVED")

    async def list_shadows(self, args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
        catalog = self._runtime().registry.list()
        return _result(
            {
                "definitions": [definition_view(d) for d in catalog.definitions],
                "diagnostics": [{"path": d.path, "error": d.error} for d in catalog.diagnostics],
            }
        )

    async def update_default_shadow(self, args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
        if not args:
            raise ToolArgsError("update_default_shadow requires at least one field to update")
        registry = self._runtime().registry
        try:
            current = registry.default_definition()  # created on first need
            # validate before asking a person to approve a change that cannot be saved
            apply_patch(current, args, registry.default_path)
        except DefinitionError as exc:
            raise ToolArgsError(exc.reason) from None
        await self._approve(ctx, "update_default_shadow", "Update the default reviewer definition", args)
        try:
            saved = await registry.save_default(args)
        except DefinitionError as exc:
            raise ToolArgsError(exc.reason) from None
        return _result(definition_view(saved))

    async def get_shadow_config(self, args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
        return _result(settings_view(self._runtime().settings()))

    async def update_shadow_config(self, args: dict[str, Any], ctx: ToolRunContext) -> ToolResult:
        if not args:
            raise ToolArgsError("update_shadow_config requires at least one setting")
        problems = preview_settings(self._runtime().settings(), args)
        if problems:
            raise ToolArgsError(problems)
        await self._approve(ctx, "update_shadow_config", "Update Shadow Mind scheduling configuration", args)
        ops = [SettingsOp.unset(k) if v is None else SettingsOp.set(k, v) for k, v in args.items()]
        try:
            resolved = await self._runtime().host.settings.mutate(SETTINGS_NAMESPACE, ops)
        except SettingsError as exc:
            raise ToolArgsError(exc.message) from None
        return _result(settings_view(resolved))


def preview_settings(current: ShadowMindSettings, patch: dict[str, Any]) -> list[str]:
    """Problems the patch would cause, found before anyone is asked to approve it.

    ``None`` previews as the field's default (the host's profile layer may differ;
    the write itself is checked again). ``patch`` is keyed by settings key, which
    is also the keyword ``attrs.evolve`` takes (the field's alias)."""
    changes: dict[str, Any] = {}
    try:
        for field in attrs.fields(ShadowMindSettings):
            key = settings_key(field)
            if key in patch:
                value = patch[key]
                value = field.default if value is None else (tuple(value) if isinstance(value, list) else value)
                if field.validator is not None:
                    # validators name the attribute they are given: give them the key, as the host does
                    field.validator(current, field.evolve(name=key), value)
                changes[key] = value
        candidate = evolve_settings(current, changes)
    except (TypeError, ValueError) as exc:
        return [str(exc)]
    return list(check(candidate))
