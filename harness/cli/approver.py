"""``harness chat``'s approver: the person at the terminal answers ``Allow? [y/N]``."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import trio

from hookspecs import hookimpl
from hookspecs.values import ApprovalOutcome, ApprovalRequest

from .chat_input import LineReader
from .render import Style, visible

PREVIEW_KEYS = 8
PREVIEW_VALUE = 160
YES = frozenset({"y", "yes"})


def preview_arguments(arguments: Any) -> list[str]:
    """A few short lines showing the call's arguments (long values are cut)."""
    if arguments is None:
        return []
    if not isinstance(arguments, dict):
        return [_cut(str(arguments))]
    lines = []
    for key, value in list(arguments.items())[:PREVIEW_KEYS]:
        if isinstance(value, str) and "\n" not in value and len(value) <= PREVIEW_VALUE:
            text = value  # a short plain string reads best unquoted
        else:
            text = _cut(json.dumps(value, ensure_ascii=False))
            if isinstance(value, str):
                text += f" ({len(value.splitlines())} lines, {len(value)} chars)"
        lines.append(f"{key}: {text}")
    if len(arguments) > PREVIEW_KEYS:
        lines.append(f"… {len(arguments) - PREVIEW_KEYS} more")
    return lines


def _cut(text: str) -> str:
    return text if len(text) <= PREVIEW_VALUE else text[: PREVIEW_VALUE - 1] + "…"


class TerminalApprover:
    """A ``dsh_approval_request`` answerer reading from the chat's shared input.

    Registered ``trylast`` so policy plugins in the profile answer first; the
    person is asked only when nobody else decided.
    """

    def __init__(self, reader: LineReader, line: Callable[[str], None], style: Style) -> None:
        self._reader = reader
        self._line = line
        self._style = style
        self._lock = trio.Lock()  # one question on screen at a time

    @hookimpl(trylast=True)
    async def dsh_approval_request(
        self, request: ApprovalRequest, call_next: Callable[..., Awaitable[ApprovalOutcome]]
    ) -> ApprovalOutcome:
        async with self._lock:
            if request.cancel is not None and request.cancel.cancelled:
                return "cancelled"
            title = f"? approval needed: {request.tool or request.kind}"
            self._line(self._style.bold(title) + f" — {visible(request.summary)}")
            for text in preview_arguments(request.arguments):
                self._line(self._style.dim("    " + text))
            with trio.CancelScope() as scope:
                unbind = request.cancel.bind(scope) if request.cancel is not None else None
                try:
                    answer = await self._reader.readline("Allow? [y/N] ", history=False)
                finally:
                    if unbind is not None:
                        unbind()
            if scope.cancelled_caught or answer is None:
                self._line(self._style.dim("(approval cancelled)"))
                return "cancelled"
            return "allowed-once" if answer.strip().lower() in YES else "rejected"
