"""The subagent runs a chat's root agent started, so Ctrl-C can stop them.

Plugins run background work for the root as subagent runs (a Shadow review is
one). The host sees every run start and end through ``dsh_subagent_started``
and ``dsh_subagent_ended``; stopping one is cancelling its request's cancel
token, the one cancel channel every provider honours (a running child's turn is
aborted, a prompt not yet started is dropped). The plugin that started the run
then settles it as it settles any run its provider stopped.
"""

from __future__ import annotations

from typing import Any

from hookspecs import hookimpl

#: the reason the tokens carry (providers pass it on to the child's abort)
USER_CANCEL_REASON = "cancelled by the user (Ctrl-C)"


class BackgroundRuns:
    """A plugin tracking the live subagent runs whose parent is the watched root."""

    def __init__(self) -> None:
        self.root_id: str | None = None
        #: while True, a run the root starts is cancelled as it starts (Ctrl-C came
        #: while a plugin was still preparing it)
        self.cancel_starting = False
        self._requests: dict[Any, Any] = {}  # run (by identity) -> its request

    @hookimpl
    def dsh_subagent_started(self, parent: Any, run: Any, request: Any) -> None:
        if parent.id == self.root_id:
            self._requests[run] = request
            if self.cancel_starting:
                request.cancel.cancel(USER_CANCEL_REASON)

    @hookimpl
    def dsh_subagent_ended(self, parent: Any, run: Any, result: Any) -> None:
        self._requests.pop(run, None)

    @property
    def active(self) -> int:
        return len(self._requests)

    def cancel(self) -> int:
        """Cancel every live run not cancelled yet; returns how many were."""
        return sum(1 for request in list(self._requests.values()) if request.cancel.cancel(USER_CANCEL_REASON))
