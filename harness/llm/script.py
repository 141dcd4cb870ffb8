"""The scripted adapter's file format: values, loading and validation.

See :mod:`harness.llm.scripted` (and ``docs/scripted-adapter.md``) for the
format as a script author sees it. Loading never runs code (ruamel.yaml safe
mode) and every error names the file and the failing field path
(``$.responses[2].reply.tool_calls[0].arguments``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, override

from hookspecs.errors import InputFileError, JsonDataError, PluginError
from hookspecs.fsutil import read_regular_text
from hookspecs.values.json import check_json, dumps_compact
from hookspecs.values.llm import FinishReason, ModelInfo, UsageChunk
from hookspecs.values.wire import describe_value, make_converter, structure

from ..yaml_tree import YamlProblem, load_tree

#: A script is hand-written YAML; a generous bound that still stops a runaway file.
SCRIPT_LIMIT = 16 << 20

FINISH_REASONS: tuple[str, ...] = get_args(FinishReason)


class ScriptError(PluginError):
    """A script file cannot be read or is invalid; the message names file and field."""

    code = "SCRIPT_INVALID"


@attrs.frozen(kw_only=True)
class Match:
    """Which requests a response answers; every given key must hold, omitted = any."""

    model: str | None = None
    depth: int | None = None
    last_user_contains: str | None = None
    system_contains: str | None = None
    has_tools: tuple[str, ...] = ()
    no_tools: bool | None = None


@attrs.frozen(kw_only=True)
class ToolCallSpec:
    """One scripted tool call; ``arguments`` is the raw JSON text to stream."""

    name: str
    arguments: str = "{}"
    id: str | None = None


@attrs.frozen(kw_only=True)
class ErrorSpec:
    """Raise ``LlmError`` after ``after_chunks`` content chunks."""

    message: str
    code: str | None = None
    status: int | None = None
    retryable: bool = False
    retry_after: float | None = None
    after_chunks: int = 0


@attrs.frozen(kw_only=True)
class Reply:
    reasoning: str = ""
    text: str = ""
    tool_calls: tuple[ToolCallSpec, ...] = ()
    finish: FinishReason | None = None
    usage: UsageChunk | None = None
    error: ErrorSpec | None = None
    delay_seconds: float = 0.0
    hang: bool = False

    @property
    def finish_reason(self) -> FinishReason:
        if self.finish is not None:
            return self.finish
        return "tool-calls" if self.tool_calls else "stop"


@attrs.frozen(kw_only=True)
class Response:
    reply: Reply
    match: Match = Match()
    repeat: bool = False


@attrs.frozen(kw_only=True)
class Script:
    """A loaded script; ``source`` names its file in error messages."""

    responses: tuple[Response, ...]
    models: tuple[ModelInfo, ...] = ()
    source: str = "<script>"


@attrs.frozen(kw_only=True)
class _ScriptFile:
    # The document as written (``Script`` adds ``source``, which is not a key).
    responses: tuple[Response, ...]
    models: tuple[ModelInfo, ...] = ()


# --- loading ------------------------------------------------------------------------


def load_script(path: str | Path) -> Script:
    """Read and validate the script at ``path`` (relative to the current directory)."""
    file = Path(path).expanduser().resolve()
    if not file.exists():
        raise ScriptError(f"{file}: script file not found")
    try:
        # a FIFO or a device is refused at once, not read forever
        text = read_regular_text(file, limit=SCRIPT_LIMIT, what="script file")
    except InputFileError as exc:
        raise ScriptError(exc.message) from None
    return parse_script_text(text, source=str(file))


def parse_script_text(text: str, *, source: str = "<script>") -> Script:
    """Validate YAML ``text``; ``source`` names it in errors."""
    try:
        data = load_tree(text)
    except YamlProblem as exc:
        raise ScriptError(f"{source}: invalid YAML: {exc}") from None
    return parse_script_data(data, source=source)


def parse_script_data(data: Any, *, source: str = "<script>") -> Script:
    """Validate an already-parsed document (plain dicts, lists and scalars)."""
    if not isinstance(data, dict):
        raise ScriptError(f"{source}: expected a mapping with 'responses', got {describe_value(data)}")
    parsed: _ScriptFile = structure(_CONVERTER, data, _ScriptFile, where=source, error=ScriptError)
    problems = _semantic_problems(parsed)
    if problems:
        raise ScriptError(f"{source}: {'; '.join(problems)}")
    return Script(responses=parsed.responses, models=parsed.models, source=source)


# --- checks the type system cannot express --------------------------------------------


def _semantic_problems(script: _ScriptFile) -> list[str]:
    problems: list[str] = []
    seen: set[str] = set()
    for i, info in enumerate(script.models):
        at = f"$.models[{i}]"
        if not info.id:
            problems.append(f"model id must not be empty @ {at}.id")
        if info.id in seen:
            problems.append(f"duplicate model id {info.id!r} @ {at}.id")
        seen.add(info.id)
        if info.default_effort is not None and info.default_effort not in info.reasoning_efforts:
            problems.append(f"default_effort must be one of reasoning_efforts @ {at}.default_effort")
    for i, response in enumerate(script.responses):
        problems.extend(_response_problems(response, f"$.responses[{i}]"))
    return problems


def _response_problems(response: Response, at: str) -> list[str]:
    problems: list[str] = []
    match, reply = response.match, response.reply
    if match.no_tools and match.has_tools:
        problems.append(f"no_tools: true contradicts has_tools @ {at}.match")
    if match.depth is not None and match.depth < 0:
        problems.append(f"depth must be >= 0 @ {at}.match.depth")
    if reply.delay_seconds < 0:
        problems.append(f"delay_seconds must be >= 0 @ {at}.reply.delay_seconds")
    if reply.hang and reply.error is not None:
        problems.append(f"hang cannot be combined with error @ {at}.reply")
    if reply.error is not None and reply.error.after_chunks < 0:
        problems.append(f"after_chunks must be >= 0 @ {at}.reply.error.after_chunks")
    for j, call in enumerate(reply.tool_calls):
        if not call.name:
            problems.append(f"tool name must not be empty @ {at}.reply.tool_calls[{j}].name")
    ids = [call.id for call in reply.tool_calls if call.id is not None]
    if len(ids) != len(set(ids)):
        problems.append(f"tool call ids must be unique @ {at}.reply.tool_calls")
    return problems


# --- the private converter -------------------------------------------------------------


def _structure_arguments(value: Any, _t: Any) -> str:
    # A mapping is sent as compact JSON; a string verbatim (it may be broken
    # JSON on purpose, to exercise the host's argument validation).
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        try:
            check_json(value, "arguments")
        except JsonDataError as exc:
            raise TypeError(f"expected JSON data ({exc})") from None
        return dumps_compact(value)
    raise TypeError(f"expected a mapping or a string, got {describe_value(value)}")


def _structure_finish(value: Any, _t: Any) -> str | None:
    if value is None or value in FINISH_REASONS:
        return value
    raise TypeError(f"expected one of {', '.join(FINISH_REASONS)}, got {describe_value(value)}")


def _guard(conv: cattrs.Converter, tp: Any, accepts: type, expected: str) -> None:
    """Require the raw value's type before cattrs structures it.

    Without this a string would structure as a tuple of characters and a null
    mapping would give an unhelpful message.
    """
    base = conv.get_structure_hook(tp)

    def hook(value: Any, _t: Any) -> Any:
        if not isinstance(value, accepts):
            raise TypeError(f"expected {expected}, got {describe_value(value)}")
        return base(value, tp)

    conv.register_structure_hook_func(_is(tp), hook)


def _is(tp: Any) -> Callable[[Any], bool]:
    return lambda t: t == tp


def _build_converter() -> cattrs.Converter:
    conv = make_converter()
    # Generated hooks capture the hooks of their field types, so register leaves first.
    _guard(conv, tuple[str, ...], list, "a list")
    conv.register_structure_hook_func(_is(FinishReason | None), _structure_finish)
    for cls in (ModelInfo, UsageChunk, ErrorSpec, Match):
        _guard(conv, cls, dict, "a mapping")
    conv.register_structure_hook(
        ToolCallSpec,
        make_dict_structure_fn(
            ToolCallSpec, conv, _cattrs_forbid_extra_keys=True, arguments=override(struct_hook=_structure_arguments)
        ),
    )
    _guard(conv, ToolCallSpec, dict, "a mapping")
    _guard(conv, tuple[ToolCallSpec, ...], list, "a list")
    for outer in (Reply, Response):
        _guard(conv, outer, dict, "a mapping")
    _guard(conv, tuple[Response, ...], list, "a list")
    _guard(conv, tuple[ModelInfo, ...], list, "a list")
    return conv


_CONVERTER = _build_converter()
