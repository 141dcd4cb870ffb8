"""Exceptions that cross the host/plugin boundary.

Each carries a stable ``code`` (a contract, safe to branch on) and a message
that names the file, field or argument at fault.
"""

from __future__ import annotations

from collections.abc import Sequence


class DshError(Exception):
    """Base class of every contract error; ``code`` is stable across versions."""

    code: str = "DSH_ERROR"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class JsonDataError(DshError, ValueError):
    """Data is not lossless JSON (NaN, non-string key, tuple, object...)."""

    code = "INVALID_JSON_DATA"


class SessionError(DshError):
    """A session log rule was broken (reentrant append, unknown type...)."""

    code = "SESSION_ERROR"


class SessionFormatError(SessionError):
    """A persisted session log cannot be loaded; the message names file and line."""

    code = "SESSION_FORMAT_UNSUPPORTED"


class AgentError(DshError):
    """An agent operation is not possible in the agent's current state."""

    code = "AGENT_ERROR"


class ToolArgsError(DshError):
    """Tool arguments are invalid; the model sees every violation and may retry.

    Raise it from a tool's ``execute`` to turn the call into an ``INVALID_ARGS``
    error result without failing the turn.
    """

    code = "INVALID_ARGS"

    def __init__(self, violations: Sequence[str] | str, *, tool: str | None = None) -> None:
        if isinstance(violations, str):
            violations = [violations]
        self.violations: tuple[str, ...] = tuple(violations)
        self.tool = tool
        prefix = f"invalid arguments for tool {tool!r}: " if tool else "invalid arguments: "
        super().__init__(prefix + "; ".join(self.violations))


class ToolError(DshError):
    """A tool failed in a way the model should see as an error result."""

    code = "TOOL_FAILED"


class CommandError(DshError):
    """A slash command could not run (unknown name, bad input...)."""

    code = "COMMAND_ERROR"


class SettingsError(DshError):
    """A settings document, namespace or value is invalid."""

    code = "SETTINGS_INVALID"


class SettingsConflictError(SettingsError):
    """A write carried a stale ``expected_revision``."""

    code = "SETTINGS_CONFLICT"


class LlmError(DshError):
    """A model request failed; carries the provider's status and request id."""

    code = "LLM_ERROR"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message, code=code)
        self.status = status
        self.request_id = request_id
        self.retry_after = retry_after
        self.retryable = retryable

    def to_json(self) -> dict[str, object]:
        """The failure as it is recorded in ``turn/end`` (``reason.error``)."""
        out: dict[str, object] = {"message": self.message, "code": self.code}
        if self.status is not None:
            out["status"] = self.status
        if self.request_id is not None:
            out["request_id"] = self.request_id
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        return out


class SubagentError(DshError):
    """A subagent could not start (``NO_PROVIDER``, ``UNSUPPORTED_CAPABILITY``...)."""

    code = "SUBAGENT_ERROR"


class ProfileError(DshError):
    """A profile, patch or plugin row is invalid; the message names row and field."""

    code = "PROFILE_INVALID"


class InputFileError(DshError):
    """A file the person named (or the host reads on their behalf) cannot be read safely:
    it is missing, not a regular file (a FIFO, a device, a directory), unreadable or over
    its size bound. The message is one line naming the file."""

    code = "INPUT_FILE_INVALID"


class PluginError(DshError):
    """A plugin could not be resolved, configured or loaded."""

    code = "PLUGIN_ERROR"


class ManualCompactionError(DshError):
    """A manual compaction (``/compact``, ``compact_now``) did not happen.

    ``code`` is one of ``busy`` (the agent is running, or another compaction
    holds the lock), ``cancelled``, ``changed`` (the history changed while the
    summary was made), ``summary`` (the model gave no usable summary),
    ``commit`` (the trace could not be completed) or ``persistence`` (the log
    could not be written). The message is one line.
    """

    code = "summary"
