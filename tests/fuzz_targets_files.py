"""Fuzz targets over *what kind of file* the host finds where it reads one.

Each target gets a generated choice of a regular file with arbitrary bytes, a
FIFO nobody writes to, a symlink to ``/dev/zero``, a directory or a dangling
symlink, put where a loader reads (``--profile``, ``--patch``, the home patch,
``settings.yaml``, a script, a Shadow definition, the holdout sidecar, a
session log), and passes when the loader returns or raises a ``DshError``
subclass. A FIFO must not hang and ``/dev/zero`` must not be read without
bound (each reader refuses both at once). Registered in
:data:`tests.fuzz_targets.TARGETS`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from hypothesis import strategies as st

from harness.cli.inspect import sessions_show
from harness.llm.script import load_script
from harness.profiles import compose_profile
from harness.sessions import SessionStore
from harness.sessions.shapes import load_log
from harness.settings import SettingsService
from hookspecs.values.settings import SettingsSpec
from shadow_mind_plugin.definitions.holdout_keys import load_holdout_keys
from shadow_mind_plugin.definitions.registry import ShadowRegistry

from .fuzz_support import expect_own_errors, scratch
from .harness.test_settings import LoopSettings

Kind = Literal["regular", "fifo", "dev-zero", "directory", "dangling"]
KINDS: tuple[Kind, ...] = ("regular", "fifo", "dev-zero", "directory", "dangling")

_bytes = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=120).map(lambda t: t.encode("utf-8", "surrogatepass")),
)
#: (what sits at the path, the bytes of a regular file)
special_file = st.tuples(st.sampled_from(KINDS), _bytes)


def place(path: Path, kind: Kind, data: bytes) -> Path:
    """Put a ``kind`` file at ``path`` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "regular":
        path.write_bytes(data)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    else:
        path.symlink_to(path.parent / "nothing-here")
    return path


BASE_PROFILE = "- {id: agent-loop, name: agent-loop}\n"


def profile_files(case: tuple[Kind, bytes]) -> None:
    """The file as ``--profile``, as a ``--patch`` and as the home patch (only DshError)."""
    kind, data = case
    with scratch("dsh-fuzz-files-") as top:
        home = top / "home"
        home.mkdir()
        odd = place(top / "odd.yml", kind, data)
        base = top / "base.yml"
        base.write_text(BASE_PROFILE)
        expect_own_errors(lambda: compose_profile(odd, dsh_home=home))
        expect_own_errors(lambda: compose_profile(base, dsh_home=home, patches=[odd]))
        place(home / "profile.patch.yml", kind, data)
        expect_own_errors(lambda: compose_profile(base, dsh_home=home))


def settings_file(case: tuple[Kind, bytes]) -> None:
    """``$DSH_HOME/settings.yaml`` at start-up (only DshError) and as a reload (never raises)."""
    kind, data = case
    with scratch("dsh-fuzz-files-") as home:
        path = home / "settings.yaml"
        service = SettingsService(path=path, on_updated=lambda *args: None)
        service.register(SettingsSpec(namespace="agent-loop", schema=LoopSettings))
        service.load()  # no file yet: defaults
        place(path, kind, data)
        service.reload()
        fresh = SettingsService(path=path, on_updated=lambda *args: None)
        fresh.register(SettingsSpec(namespace="agent-loop", schema=LoopSettings))
        expect_own_errors(fresh.load)


def script_file(case: tuple[Kind, bytes]) -> None:
    """A scripted model's script file (only DshError: ``ScriptError``)."""
    kind, data = case
    with scratch("dsh-fuzz-files-") as top:
        expect_own_errors(lambda: load_script(place(top / "script.yml", kind, data)))


def shadow_files(case: tuple[Kind, bytes]) -> None:
    """A definition, ``default.md`` and the holdout sidecar under ``$DSH_HOME/shadow-minds/``."""
    kind, data = case
    with scratch("dsh-fuzz-files-") as home:
        registry = ShadowRegistry(home)
        place(registry.root / "extra.md", kind, data)
        place(registry.default_path, kind, data)
        place(registry.holdout_keys_path, kind, data)
        registry.list()  # never raises: a bad file is a diagnostic
        expect_own_errors(registry.default_definition)
        expect_own_errors(lambda: load_holdout_keys(registry.holdout_keys_path, "default"))


def session_file(case: tuple[Kind, bytes]) -> None:
    """``sessions/s1/session.jsonl``: load, list and show (only DshError)."""
    kind, data = case
    with scratch("dsh-fuzz-files-") as home:
        path = place(home / "sessions" / "s1" / "session.jsonl", kind, data)
        store = SessionStore(sessions_dir=home / "sessions", on_event=lambda s, e: None, now_ms=lambda: 0.0)
        expect_own_errors(lambda: load_log(path, is_known=store.is_known_type, where="s1", session_id="s1"))
        store.scan()  # never raises: a broken session is a problem line
        expect_own_errors(lambda: store.open("s1").close())
        expect_own_errors(lambda: sessions_show(home, "s1", as_json=True, out=_Sink()))


class _Sink:
    def write(self, text: str) -> int:
        return len(text)

    def isatty(self) -> bool:
        return False


FILE_TARGETS: dict[str, tuple[st.SearchStrategy[Any], Callable[[Any], None]]] = {
    "profile_files": (special_file, profile_files),
    "settings_file": (special_file, settings_file),
    "script_file": (special_file, script_file),
    "shadow_files": (special_file, shadow_files),
    "session_file": (special_file, session_file),
}
