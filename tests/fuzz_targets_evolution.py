"""Fuzz targets over the files evolution-review reads from ``$DSH_HOME``: the
review state, the memory folder, the skills folder and its staged plans.

Like :mod:`tests.fuzz_targets` (whose ``TARGETS`` this extends, one line at its
end), each target passes when the code returns or raises a project error
(``DshError``); anything else escapes and fails the example. The folders are
built from fuzzed entries: any bytes, deeply nested JSON, arbitrary file names,
and — what a prompt injection could plant with a shell tool — symlinks (to a
secret file, to ``/dev/zero``, to another directory) and FIFOs. Nothing may
hang, and no secret may come back in a text that would reach a prompt.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from evolution_review_plugin.memory_store import FileMemoryStore
from evolution_review_plugin.plugin import memory_section
from evolution_review_plugin.skills_store import FileSkillLibrary
from evolution_review_plugin.staging import SkillStaging
from evolution_review_plugin.state_store import ReviewStateStore, read_state
from evolution_review_plugin.vocabulary import STATE_FILE
from hookspecs.stores import MemoryOp

from .fuzz_support import expect_own_errors

SECRET = "PRIVATE-KEY-0123456789"
_LOG = logging.getLogger("fuzz-evolution")
_LOG.addHandler(logging.NullHandler())
_LOG.propagate = False

# --- strategies -----------------------------------------------------------------------------

_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=12))
_json = st.recursive(
    _leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
_entry = st.fixed_dictionaries({}, optional={k: st.one_of(st.integers(), _json) for k in ("turnsSinceMemory", "turnsSinceSkill", "lastTurn")})
_state = st.one_of(
    _json,
    st.fixed_dictionaries({"version": _json, "sessions": st.one_of(_json, st.dictionaries(st.text(max_size=6), _entry, max_size=3))}),
)


def _nested(depth: int, wrap: str) -> bytes:
    """JSON nested ``depth`` levels ([[[...]]] or {"a":{"a":...}}), deep enough to overflow a recursive parser."""
    if wrap == "[":
        return ("[" * depth + "]" * depth).encode()
    return ('{"sessions":' + '{"a":' * depth + "1" + "}" * (depth + 1)).encode()


#: file contents: any bytes, any text, JSON-shaped values, or very deep nesting
contents = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
    _state.map(lambda v: json.dumps(v).encode()),
    st.builds(_nested, st.integers(min_value=1, max_value=200_000), st.sampled_from(["[", "{"])),
)
#: what an entry on disk is: a regular file, a FIFO, a symlink (to a secret, to /dev/zero, dangling), a directory
kinds = st.sampled_from(["file", "file", "fifo", "link-secret", "link-zero", "link-dangling", "dir", "link-dir"])
#: a file name a directory may hold (no "/" or NUL, not "." or "..", encodable)
names = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="/\x00"), min_size=1, max_size=16
).filter(lambda n: n not in (".", "..") and len(n.encode()) < 200)


def _entries(fixed: list[str]) -> st.SearchStrategy[list[tuple[str, str, bytes]]]:
    """(name, kind, contents) entries; the names are mostly the ones the code looks for."""
    return st.lists(st.tuples(st.one_of(st.sampled_from(fixed), names), kinds, contents), max_size=5)


state_file = st.tuples(kinds, contents)
memory_folder = _entries(["MEMORY.md", "USER.md"])
#: (skill directory, kind of the directory, entries inside it)
skills_folder = st.lists(
    st.tuples(st.one_of(st.sampled_from(["deploy", "notes", ".staged", "Bad Name"]), names), kinds, _entries(["SKILL.md", ".pinned"])),
    max_size=4,
)
staged_plan = st.tuples(kinds, st.one_of(contents, st.fixed_dictionaries({"ops": _json, "memoryOps": _json}).map(lambda v: json.dumps(v).encode())))


# --- building the folders -------------------------------------------------------------------


@contextlib.contextmanager
def _scratch() -> Iterator[tuple[Path, Path]]:
    """A scratch home, and a secret file outside it that a planted symlink may point at."""
    with tempfile.TemporaryDirectory(prefix="dsh-fuzz-evolution-") as name:
        secret = Path(name) / "outside" / "id_rsa"
        secret.parent.mkdir()
        secret.write_text(SECRET)
        home = Path(name) / "home"
        home.mkdir()
        yield home, secret


def _plant(path: Path, kind: str, data: bytes, secret: Path) -> None:
    """Make ``path`` an entry of ``kind`` (nothing when the name is already taken)."""
    if os.path.lexists(path):
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "file":
        path.write_bytes(data)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-secret":
        path.symlink_to(secret)
    elif kind == "link-zero":
        path.symlink_to("/dev/zero")
    elif kind == "link-dangling":
        path.symlink_to(path.parent / "no-such-file")
    elif kind == "dir":
        path.mkdir()
    else:  # link-dir: a directory elsewhere holding the secret under the same name
        path.symlink_to(secret.parent, target_is_directory=True)


def _no_secret(*texts: Any) -> None:
    for text in texts:
        assert SECRET not in str(text), "a planted symlink was followed into a prompt-bound text"


# --- targets --------------------------------------------------------------------------------


def evolution_state_file(value: tuple[str, bytes]) -> None:
    """``evolution/review-state.json``: the store loads fresh windows from anything; reading raises only DshError."""
    kind, data = value
    with _scratch() as (home, secret):
        path = home / STATE_FILE
        _plant(path, kind, data, secret)
        expect_own_errors(lambda: read_state(path))
        store = ReviewStateStore(path, logger=_LOG)
        store.load("s1")  # never raises: a bad file starts empty
        expect_own_errors(lambda: store.save("s1", store.load("s1")))


def evolution_memory_folder(entries: list[tuple[str, str, bytes]]) -> None:
    """``memory/``: a snapshot never raises and never follows a link; a batch raises only DshError."""
    with _scratch() as (home, secret):
        directory = home / "memory"
        directory.mkdir()
        for name, kind, data in entries:
            _plant(directory / name, kind, data, secret)
        store = FileMemoryStore(directory, caps={"memory": 2200, "user": 1375})
        snapshot = store.snapshot()
        _no_secret(snapshot.memory, snapshot.user, memory_section(snapshot.memory, snapshot.user))
        ops = [MemoryOp(action="add", target="memory", text="a note"), MemoryOp(action="remove", target="user", old_text="x")]
        expect_own_errors(lambda: store.apply_batch(ops))
        assert Path(secret).read_text() == SECRET


def evolution_skills_folder(dirs: list[tuple[str, str, list[tuple[str, str, bytes]]]]) -> None:
    """``skills/``: list/read/exists/is_pinned/write of every planted name raise only DshError, follow no link."""
    with _scratch() as (home, secret):
        root = home / "skills"
        root.mkdir()
        for name, kind, entries in dirs:
            directory = root / name
            _plant(directory, "dir" if kind == "file" else kind, b"", secret)
            if directory.is_dir() and not directory.is_symlink():
                for entry, entry_kind, data in entries:
                    _plant(directory / entry, entry_kind, data, secret)
        library = FileSkillLibrary(root, content_chars=1000)
        _no_secret(*(info.description for info in library.list()))
        for name, _, _ in dirs:
            _poke_skill(library, name)
        expect_own_errors(lambda: SkillStaging(root / ".staged").pending())
        assert Path(secret).read_text() == SECRET


def _poke_skill(library: FileSkillLibrary, name: str) -> None:
    _no_secret(expect_own_errors(lambda: library.read(name)))
    expect_own_errors(lambda: (library.exists(name), library.is_pinned(name)))
    expect_own_errors(lambda: library.write(name, "# written\n", origin="tool"))


def evolution_staged_plan(value: tuple[str, bytes]) -> None:
    """``skills/.staged/<planId>/plan.json``: listing, showing, approving and rejecting raise only DshError."""
    kind, data = value
    plan_id = "0123456789ab"
    with _scratch() as (home, secret):
        root = home / "skills"
        _plant(root / ".staged" / plan_id / "plan.json", kind, data, secret)
        staging = SkillStaging(root / ".staged")
        library = FileSkillLibrary(root, content_chars=1000)
        memory = FileMemoryStore(home / "memory", caps={"memory": 2200, "user": 1375})
        staging.pending()  # never raises: an unreadable plan is skipped
        expect_own_errors(lambda: staging.get(plan_id))
        expect_own_errors(lambda: staging.approve(plan_id, library, memory))
        expect_own_errors(lambda: staging.reject(plan_id))
        assert Path(secret).read_text() == SECRET


#: merged into :data:`tests.fuzz_targets.TARGETS`
TARGETS: dict[str, tuple[st.SearchStrategy[Any], Callable[[Any], None]]] = {
    "evolution_state_file": (state_file, evolution_state_file),
    "evolution_memory_folder": (memory_folder, evolution_memory_folder),
    "evolution_skills_folder": (skills_folder, evolution_skills_folder),
    "evolution_staged_plan": (staged_plan, evolution_staged_plan),
}
