"""Character budgets that survive a restart.

Spend (framed prompt characters + accepted report characters since the last
real user message) is kept per root in
``$DSH_HOME/shadow-minds/governance/<sha256(root id)>.json`` — metadata only:
the root id's hash, where the current window opened, the seq of the real user
message that opened it (once committed), the spent characters and recent
debit ids. Every change is written *before* it counts (write-ahead),
atomically. With a budget configured, a state file that cannot be read fails
closed: no automatic review is admitted until it is fixed.

A window opens when real user input *arrives* (the runtime cancels reviews at
that moment); the message's seq is recorded when it is committed. On load, a
committed real user message newer than the recorded one means a window opened
while nobody was counting, so the spend starts again from zero.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from hookspecs.fsutil import write_atomic
from hookspecs.values import EventTypes, SessionEvent

from ..definitions.files import read_home_file

SCHEMA_VERSION = 1
MAX_DEBIT_IDS = 64


class BudgetStateError(Exception):
    """The persisted spend cannot be trusted."""


def root_hash(root_id: str) -> str:
    return hashlib.sha256(root_id.encode("utf-8")).hexdigest()


@attrs.define(eq=False)
class BudgetLedger:
    """One root's spend, mirrored to disk on every change."""

    path: Path
    root_hash: str
    #: without a configured budget nothing depends on the spend surviving a
    #: restart, so the ledger stays in memory (no file writes on the hot path)
    window_marker: int = -1
    last_user_seq: int | None = None
    spent_chars: int = 0
    debit_ids: list[str] = attrs.field(factory=list)
    error: str | None = None
    persist: bool = True

    @classmethod
    def load(cls, directory: Path, root_id: str, events: Any) -> BudgetLedger:
        digest = root_hash(root_id)
        ledger = cls(path=directory / f"{digest}.json", root_hash=digest)
        last_user = last_real_user_seq(events)
        try:
            # bounded, and a FIFO or /dev/zero in its place is refused at once (not a hang)
            raw_bytes = read_home_file(ledger.path)
        except FileNotFoundError:
            ledger.last_user_seq = last_user
            return ledger
        except OSError as exc:
            ledger.error = f"the Shadow budget state for this session is unreadable ({type(exc).__name__})"
            return ledger
        try:
            data = json.loads(raw_bytes.decode("utf-8"))
            if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
                raise ValueError("unsupported schema")
            if data.get("root_session_hash") != digest:
                raise ValueError("belongs to another session")
            spent = data.get("spent_chars")
            seq = data.get("last_user_seq")
            marker = data.get("window_marker", -1)
            debits = data.get("debit_ids", [])
            if type(spent) is not int or spent < 0 or (seq is not None and type(seq) is not int) or type(marker) is not int:
                raise ValueError("bad fields")
            if not isinstance(debits, list) or not all(isinstance(d, str) for d in debits):
                raise ValueError("bad debit ids")
        except ValueError as exc:
            ledger.error = f"the Shadow budget state for this session is corrupt ({exc}); delete it to reset the budget"
            return ledger
        if last_user is not None and seq is not None and last_user > seq:
            ledger.last_user_seq = last_user  # a newer window opened uncounted
            return ledger
        ledger.window_marker = marker
        ledger.last_user_seq = seq if seq is not None else (last_user if last_user is not None and last_user >= marker else None)
        ledger.spent_chars = spent
        ledger.debit_ids = list(debits)
        return ledger

    def debit(self, debit_id: str, chars: int, now_iso: Callable[[], str]) -> None:
        """Write the new total first, then count it (a crash never loses spend)."""
        if debit_id in self.debit_ids:
            return
        spent = self.spent_chars + chars
        debits = [*self.debit_ids, debit_id][-MAX_DEBIT_IDS:]
        self._write(spent, debits, self.last_user_seq, now_iso)
        self.spent_chars = spent
        self.debit_ids = debits

    def open_window(self, marker: int, now_iso: Callable[[], str]) -> None:
        """Real user input arrived (it will be committed at seq >= ``marker``)."""
        self._write(0, [], None, now_iso, marker=marker)
        self.spent_chars = 0
        self.debit_ids = []
        self.last_user_seq = None
        self.window_marker = marker
        self.error = None

    def mark_user_seq(self, seq: int, now_iso: Callable[[], str]) -> None:
        """The message that opened the window was committed at ``seq``."""
        if self.last_user_seq is not None and seq <= self.last_user_seq:
            return
        self._write(self.spent_chars, self.debit_ids, seq, now_iso)
        self.last_user_seq = seq

    def _write(self, spent: int, debits: list[str], seq: int | None, now_iso: Callable[[], str], *, marker: int | None = None) -> None:
        if not self.persist:
            return
        payload = {
            "schema_version": SCHEMA_VERSION,
            "root_session_hash": self.root_hash,
            "window_marker": self.window_marker if marker is None else marker,
            "last_user_seq": seq,
            "spent_chars": spent,
            "debit_ids": debits,
            "updated_at": now_iso(),
        }
        write_atomic(self.path, json.dumps(payload, separators=(",", ":")) + "\n")


def last_real_user_seq(events: Any) -> int | None:
    for index in range(len(events) - 1, -1, -1):
        event: SessionEvent = events[index]
        if event.type == EventTypes.USER_MESSAGE and is_real_user(event):
            return event.seq
    return None


def is_real_user(event: SessionEvent) -> bool:
    message = event.data.get("message") if isinstance(event.data, dict) else None
    source = message.get("source") if isinstance(message, dict) else None
    return isinstance(source, dict) and source.get("kind") == "user"
