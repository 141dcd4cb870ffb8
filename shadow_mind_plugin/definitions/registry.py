"""The definition store under ``$DSH_HOME/shadow-minds/``.

Layout::

    shadow-minds/
      default.md            the one scheduled Shadow (created on first use)
      <other>.md            legacy definitions: listed, never scheduled
      holdout-keys.json     operator-owned literal keys (read only)
      value-loop.jsonl      challenge outcome journal
      logs/<id>.jsonl       per-definition debug journal

Threading model: :meth:`ShadowRegistry.list`, :meth:`~ShadowRegistry.default_definition`
and :meth:`~ShadowRegistry.holdout_keys` are blocking (file I/O) and thread-safe;
async callers run them with ``trio.to_thread.run_sync``. Mutations are async
methods: :meth:`~ShadowRegistry.save_default` and :meth:`~ShadowRegistry.append_debug`
serialize per id on a FIFO ``trio.Lock`` (different ids overlap) and do their
I/O in a worker thread.

Messages never contain absolute paths: diagnostics name files relative to the
``shadow-minds`` directory.
"""

from __future__ import annotations

import builtins
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import attrs
import trio

from hookspecs.fsutil import write_atomic

from ..vocabulary import DEFAULT_SHADOW_ID
from .errors import DefinitionError, HoldoutKeyError
from .files import read_home_file
from .holdout_keys import (
    HOLDOUT_KEYS_FILE,
    holdout_keys_for,
    load_holdout_document,
    load_holdout_keys,
    missing_sidecar_message,
)
from .model import SHADOW_ID_PATTERN_TEXT, Catalog, DefinitionDiagnostic, ShadowDefinition, is_shadow_id
from .parse import load_frontmatter, parse_definition, split_document
from .patch import apply_patch
from .seed import default_seed
from .serialize import serialize_definition

ROOT_DIR: Final = "shadow-minds"
LOG_DIR: Final = "logs"
VALUE_LOOP_FILE: Final = "value-loop.jsonl"
#: A definition file is ``<id>.md`` directly in :data:`ROOT_DIR`.
DEFINITION_SUFFIX: Final = ".md"
#: A debug journal is ``<id>.jsonl`` in :data:`LOG_DIR`.
DEBUG_LOG_SUFFIX: Final = ".jsonl"
DEFAULT_FILE: Final = f"{DEFAULT_SHADOW_ID}{DEFINITION_SUFFIX}"

#: A file modified this close to when we read it may change again without a
#: visible stamp change (coarse file-system timestamps), so its cache entry is
#: not trusted until it has been re-read after the window (git's "racy clean").
DEFAULT_RACY_WINDOW_S: Final = 2.0


@attrs.frozen
class _Stamp:
    """What must stay equal for a cached read to remain valid."""

    mtime_ns: int
    ctime_ns: int
    size: int
    ino: int

    @classmethod
    def of(cls, st: os.stat_result) -> _Stamp:
        return cls(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


@attrs.frozen
class _Cached:
    stamp: _Stamp
    read_ns: int  # wall clock just before the read
    value: Any  # ShadowDefinition | str (file error) | dict (sidecar) | Exception


_MISSING: Final = object()


class ShadowRegistry:
    """Markdown definitions with per-file diagnostics, a stat-based parse
    cache, atomic saves, the holdout sidecar and the JSONL journals."""

    def __init__(
        self,
        dsh_home: Path,
        *,
        racy_window: float = DEFAULT_RACY_WINDOW_S,
        scan_interval: float = 0.0,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.root: Final = Path(os.path.abspath(dsh_home)) / ROOT_DIR
        self.log_root: Final = self.root / LOG_DIR
        self.value_loop_path: Final = self.root / VALUE_LOOP_FILE
        self.holdout_keys_path: Final = self.root / HOLDOUT_KEYS_FILE
        self.default_path: Final = self.root / DEFAULT_FILE
        #: How many times a definition file was actually parsed (cache misses).
        self.parse_count = 0
        self._racy_ns = int(racy_window * 1e9)
        self._fs_lock = threading.RLock()  # guards the caches and default.md creation
        self._files: dict[str, _Cached] = {}
        self._sidecar: _Cached | None = None
        self._catalog: tuple[Any, Catalog] | None = None
        self._id_locks: dict[str, trio.Lock] = {}
        # a host consults the catalog on every eligible turn; within
        # ``scan_interval`` seconds of the last scan it reuses the result (hand
        # edits show up after at most that long; this registry's own writes at once)
        self._scan_interval = scan_interval
        self._clock = clock or time.monotonic
        self._scanned_at: float | None = None

    # ------------------------------------------------------------------ reads

    def list(self) -> Catalog:
        """Every regular ``*.md`` file directly in :attr:`root`, by file name.

        Files that fail to parse (or whose ``holdout: true`` lacks a valid
        sidecar) become diagnostics and never hide the others; for duplicate
        ids the first file wins. A missing directory is an empty catalog.
        Unchanged files are not re-parsed (see :attr:`parse_count`).
        """
        with self._fs_lock:
            if self._scan_interval > 0 and self._catalog is not None and self._scanned_at is not None:
                if self._clock() - self._scanned_at < self._scan_interval:
                    return self._catalog[1]
            self._scanned_at = self._clock()
            listing = self._scan()
            if listing is None:
                self._files.clear()
                self._catalog = None
                return Catalog()
            sidecar = self._stat(self.holdout_keys_path)
            signature = (listing, sidecar)
            if self._catalog is not None and self._catalog[0] == signature and not self._any_racy():
                return self._catalog[1]
            catalog = self._build(listing, sidecar)
            self._catalog = (signature, catalog)
            return catalog

    def default_definition(self) -> ShadowDefinition:
        """The scheduled ``default`` reviewer definition, creating ``default.md`` when absent.

        A new file is seeded from the first legacy definition (see
        :func:`.seed.seed_from_legacy`) or else from the built-in default. An
        existing but invalid ``default.md`` is never overwritten.
        """
        with self._fs_lock:
            catalog = self.list()
            existing = catalog.get(DEFAULT_SHADOW_ID)
            if existing is not None:
                return existing
            try:
                os.lstat(self.default_path)
            except FileNotFoundError:
                pass
            else:
                problem = next((d.error for d in catalog.diagnostics if d.path == DEFAULT_FILE), None)
                detail = f" and is invalid ({problem})" if problem else ""
                raise DefinitionError(
                    f"shadow definition path already exists: {DEFAULT_FILE}{detail}; "
                    f"fix the file or delete it so the default is recreated"
                )
            text = serialize_definition(default_seed(catalog.legacy))
            write_atomic(self.default_path, text)
            self._scanned_at = None  # our own write: rescan on the next read
            return parse_definition(text, self.default_path)

    def holdout_keys(self, id: str) -> builtins.list[str]:
        """The operator's literal keys for ``id``; raises :class:`HoldoutKeyError`.
        Read fresh on every call so sidecar edits apply to the next run."""
        return load_holdout_keys(self.holdout_keys_path, id)

    def debug_log_path(self, id: str) -> Path:
        _check_id(id)
        return self.log_root / f"{id}{DEBUG_LOG_SUFFIX}"

    # -------------------------------------------------------------- mutations

    async def save_default(self, update: ShadowDefinition | Mapping[str, Any]) -> ShadowDefinition:
        """Write ``default.md`` and return the saved definition.

        ``update`` is either a complete definition or a patch mapping (file
        spelling, see :mod:`.patch`) merged over the current ``default.md``.
        When holdout is requested the sidecar is validated first; holdout is
        sticky: the saved value is ``existing or requested``.
        """
        requested_id = update.id if isinstance(update, ShadowDefinition) else update.get("id", DEFAULT_SHADOW_ID)
        if requested_id != DEFAULT_SHADOW_ID:
            raise DefinitionError(f'only the default reviewer definition can be saved; expected id "{DEFAULT_SHADOW_ID}"')
        async with self._lock_for(DEFAULT_SHADOW_ID):
            return await trio.to_thread.run_sync(self._save_default_sync, update)

    # --------------------------------------------------------------- internals

    def _save_default_sync(self, update: ShadowDefinition | Mapping[str, Any]) -> ShadowDefinition:
        if isinstance(update, ShadowDefinition):
            requested_holdout = update.holdout
        else:
            requested_holdout = update.get("holdout") is True
        if requested_holdout:
            self.holdout_keys(DEFAULT_SHADOW_ID)
        if isinstance(update, ShadowDefinition):
            candidate = update
        else:
            candidate = apply_patch(self._read_default_file(), update, self.default_path)
        with self._fs_lock:
            holdout = self._current_holdout() or candidate.holdout
            text = serialize_definition(attrs.evolve(candidate, holdout=holdout))
            write_atomic(self.default_path, text)
            self._scanned_at = None  # our own write: rescan on the next read
        return parse_definition(text, self.default_path)

    def _read_default_file(self) -> ShadowDefinition:
        try:
            source = read_home_file(self.default_path).decode("utf-8-sig")
        except FileNotFoundError:
            raise DefinitionError(f"the default reviewer definition ({DEFAULT_SHADOW_ID}) does not exist yet") from None
        except OSError as exc:  # a FIFO, a device, no permission: one line naming the file
            reason = exc.strerror or type(exc).__name__
            raise DefinitionError(f"cannot read definition: {reason}", source=DEFAULT_FILE) from None
        except UnicodeDecodeError:
            raise DefinitionError("definition is not UTF-8 text", source=DEFAULT_FILE) from None
        return parse_definition(source, self.default_path)

    def _current_holdout(self) -> bool:
        """Whether the file on disk asks for holdout. Read from the file itself,
        not the catalog, so a broken sidecar or another invalid field cannot
        make a save silently turn holdout off."""
        try:
            source = read_home_file(self.default_path).decode("utf-8-sig")
        except (OSError, UnicodeDecodeError):
            return False
        try:
            return parse_definition(source, self.default_path).holdout
        except DefinitionError:
            pass
        try:
            fields = load_frontmatter(split_document(source)[0])
        except DefinitionError:
            return False
        return isinstance(fields, dict) and fields.get("holdout") is True

    def _lock_for(self, id: str) -> trio.Lock:
        _check_id(id)
        lock = self._id_locks.get(id)
        if lock is None:
            lock = self._id_locks[id] = trio.Lock()  # trio.Lock is fair: FIFO per id
        return lock

    def _scan(self) -> tuple[tuple[str, _Stamp], ...] | None:
        """Regular ``*.md`` files (symlinks excluded) with their stamps, sorted."""
        try:
            with os.scandir(self.root) as scan:
                entries = builtins.list(scan)
        except FileNotFoundError:
            return None
        found: builtins.list[tuple[str, _Stamp]] = []
        for entry in entries:
            if not entry.name.endswith(DEFINITION_SUFFIX):
                continue
            try:
                if not entry.is_file(follow_symlinks=False):
                    continue
                found.append((entry.name, _Stamp.of(entry.stat(follow_symlinks=False))))
            except FileNotFoundError:  # removed while we scanned
                continue
        found.sort(key=lambda item: item[0])
        return tuple(found)

    @staticmethod
    def _stat(path: Path) -> _Stamp | None:
        try:
            return _Stamp.of(os.stat(path))
        except FileNotFoundError:
            return None

    def _is_racy(self, cached: _Cached) -> bool:
        return cached.stamp.mtime_ns >= cached.read_ns - self._racy_ns

    def _any_racy(self) -> bool:
        if any(self._is_racy(c) for c in self._files.values()):
            return True
        return self._sidecar is not None and self._is_racy(self._sidecar)

    def _build(self, listing: tuple[tuple[str, _Stamp], ...], sidecar: _Stamp | None) -> Catalog:
        names = {name for name, _ in listing}
        for stale in set(self._files) - names:
            del self._files[stale]
        definitions: builtins.list[ShadowDefinition] = []
        diagnostics: builtins.list[DefinitionDiagnostic] = []
        first_source: dict[str, str] = {}
        for name, stamp in listing:
            outcome = self._load_file(name, stamp)
            if outcome is _MISSING:
                continue
            if isinstance(outcome, str):
                diagnostics.append(DefinitionDiagnostic(name, outcome))
                continue
            definition: ShadowDefinition = outcome
            if definition.holdout:
                try:
                    self._sidecar_keys(sidecar, definition.id)
                except HoldoutKeyError as exc:
                    diagnostics.append(DefinitionDiagnostic(name, exc.reason))
                    continue
            first = first_source.get(definition.id)
            if first is not None:
                diagnostics.append(
                    DefinitionDiagnostic(name, f'duplicate id "{definition.id}"; first valid source is {first}')
                )
                continue
            first_source[definition.id] = name
            definitions.append(definition)
        return Catalog(definitions=definitions, diagnostics=diagnostics)

    def _load_file(self, name: str, stamp: _Stamp) -> Any:
        """A cached or fresh parse: ShadowDefinition, an error string, or _MISSING."""
        cached = self._files.get(name)
        if cached is not None and cached.stamp == stamp and not self._is_racy(cached):
            return cached.value
        read_ns = time.time_ns()
        path = self.root / name
        try:
            raw = read_home_file(path)
        except FileNotFoundError:
            self._files.pop(name, None)
            return _MISSING
        except OSError as exc:
            value: Any = f"cannot read definition: {exc.strerror or type(exc).__name__}"
        else:
            value = self._parse(raw, path)
        self._files[name] = _Cached(stamp, read_ns, value)
        return value

    def _parse(self, raw: bytes, path: Path) -> ShadowDefinition | str:
        try:
            source = raw.decode("utf-8-sig")  # tolerate a byte-order mark
        except UnicodeDecodeError:
            return "definition is not UTF-8 text"
        self.parse_count += 1
        try:
            return parse_definition(source, path)
        except DefinitionError as exc:
            return exc.reason

    def _sidecar_keys(self, stamp: _Stamp | None, id: str) -> builtins.list[str]:
        if stamp is None:
            self._sidecar = None
            raise HoldoutKeyError(missing_sidecar_message(id))
        cached = self._sidecar
        if cached is None or cached.stamp != stamp or self._is_racy(cached):
            read_ns = time.time_ns()
            try:
                value: Any = load_holdout_document(self.holdout_keys_path)
            except FileNotFoundError:
                self._sidecar = None
                raise HoldoutKeyError(missing_sidecar_message(id)) from None
            except HoldoutKeyError as exc:
                value = exc
            cached = self._sidecar = _Cached(stamp, read_ns, value)
        if isinstance(cached.value, HoldoutKeyError):
            raise HoldoutKeyError(cached.value.message)
        return holdout_keys_for(cached.value, id)


def _check_id(id: str) -> None:
    """Ids become file names: refuse anything outside the id alphabet."""
    if not isinstance(id, str) or not is_shadow_id(id):
        raise DefinitionError(f"shadow id must match {SHADOW_ID_PATTERN_TEXT}")
