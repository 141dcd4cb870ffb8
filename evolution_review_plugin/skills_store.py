"""The skill library on disk: ``<root>/<name>/SKILL.md``, plain Markdown.

Implements :class:`hookspecs.stores.SkillLibrary`. Names are short kebab-case
(they are directory names); protected names and the content cap are enforced
here, so every writer (the tool, an applied plan) meets the same rules. A
``.pinned`` file in a skill's directory pins it (:mod:`.pinned` says who may
still change it). Files are 0600 in 0700 directories and replaced atomically.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Final

from hookspecs.errors import DshError, ToolArgsError
from hookspecs.fsutil import write_atomic
from hookspecs.scrub import scrub_secrets
from hookspecs.stores import SkillInfo

from .nofollow import read_unfollowed, refuse_link

SKILL_FILE: Final = "SKILL.md"
#: a file of this name in a skill's directory pins the skill
PINNED_MARKER: Final = ".pinned"
NAME_PATTERN: Final = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_DESCRIPTION: Final = re.compile(r"^description:\s*(.+)$", re.MULTILINE)


class FileSkillLibrary:
    def __init__(
        self,
        root: Path,
        *,
        content_chars: int,
        protected: Iterable[str] = (),
        on_mutated: Callable[[str, str, str], None] | None = None,
        warn: Callable[[str], None] = lambda line: None,
    ) -> None:
        self.root = Path(root)
        self.content_chars = content_chars
        self.protected = frozenset(protected)
        #: ``on_mutated(name, action, origin)`` after every successful write
        self.on_mutated = on_mutated
        #: ``warn(line)`` when ``list`` skips a refused entry (a planted symlink, a FIFO)
        self.warn = warn
        self._warned: set[str] = set()
        #: bound on reading one SKILL.md: the content cap in its widest UTF-8 form
        self.read_bytes = 4 * content_chars + 4

    def _path(self, name: str) -> Path:
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            raise ToolArgsError(
                f"skill name {name!r} is invalid: use 1-64 lowercase letters, digits and '-', starting with a letter or digit"
            )
        return self.root / name / SKILL_FILE

    def exists(self, name: str) -> bool:
        # any entry counts, a planted symlink too: a change must then read it first, and that read refuses it
        return os.path.lexists(self._path(name))

    def is_protected(self, name: str) -> bool:
        return name in self.protected

    def is_pinned(self, name: str) -> bool:
        # any entry named .pinned pins (a dangling symlink too): a pin errs on the side of keeping the skill
        return os.path.lexists(self._path(name).parent / PINNED_MARKER)

    def _unfollowed(self, name: str) -> Path:
        """``SKILL.md`` of ``name``, after refusing a symlinked or odd skill directory."""
        path = self._path(name)
        refuse_link(path.parent, what=f"skill {name!r}: directory", directory=True)
        return path

    def _text(self, name: str) -> str | None:
        """The text of ``name``'s ``SKILL.md`` (None when absent); a symlink, a FIFO,
        a device or an oversized file is refused in one line, never followed."""
        return read_unfollowed(self._unfollowed(name), limit=self.read_bytes, what=f"skill {name!r}: {SKILL_FILE}")

    def list(self) -> list[SkillInfo]:
        found: list[SkillInfo] = []
        try:
            entries = sorted(self.root.iterdir())
        except FileNotFoundError:
            return []
        for entry in entries:
            if not NAME_PATTERN.match(entry.name):
                continue  # .staged, editor backups...
            try:
                text = self._text(entry.name)
            except DshError as exc:
                self._warn(exc.message)
                continue
            if text is None:
                continue  # a directory without a skill yet
            found.append(
                SkillInfo(name=entry.name, description=describe(text), chars=len(text), protected=self.is_protected(entry.name))
            )
        return found

    def read(self, name: str) -> str:
        text = self._text(name)
        if text is None:
            raise ToolArgsError(f"there is no skill {name!r}; `list` shows the existing ones")
        return text

    def write(self, name: str, content: str, *, origin: str) -> None:
        content = scrub_secrets(content) if isinstance(content, str) else content
        path = self._writable(name, content)
        action = "patch" if path.is_file() else "create"
        self._store(path, content)
        self._mutated(name, action, origin)

    def patch(self, name: str, old: str, new: str, *, origin: str) -> None:
        current = self.read(name)
        # skill bodies are stored and later sent to models: no credential is kept in them
        old, new = scrub_secrets(old), scrub_secrets(new)
        if not old:
            raise ToolArgsError("patch needs a non-empty old text")
        count = current.count(old)
        if count != 1:
            raise ToolArgsError(
                f"the old text occurs {count} times in skill {name!r}; give a passage that occurs exactly once"
            )
        content = current.replace(old, new)
        path = self._writable(name, content)
        self._store(path, content)
        self._mutated(name, "patch", origin)

    def _writable(self, name: str, content: str) -> Path:
        path = self._unfollowed(name)
        # replaced, never written through (write_atomic renames over the entry): a planted one is refused
        refuse_link(path, what=f"skill {name!r}: {SKILL_FILE}")
        if self.is_protected(name):
            raise ToolArgsError(f"skill {name!r} is protected; it cannot be changed")
        if not isinstance(content, str) or not content.strip():
            raise ToolArgsError("skill content must be non-empty text")
        if len(content) > self.content_chars:
            raise ToolArgsError(
                f"skill content is {len(content)} characters, over the cap of {self.content_chars}; shorten it"
            )
        return path

    def _store(self, path: Path, content: str) -> None:
        try:
            write_atomic(path, content if content.endswith("\n") else content + "\n")
        except OSError as exc:
            raise DshError(f"{path}: cannot write the skill: {exc}", code="SKILL_WRITE") from exc

    def _warn(self, line: str) -> None:
        if line not in self._warned:  # once per entry and reason: list runs often
            self._warned.add(line)
            self.warn(line)

    def _mutated(self, name: str, action: str, origin: str) -> None:
        if self.on_mutated is not None:
            self.on_mutated(name, action, origin)


def describe(text: str) -> str:
    """A skill's one-line description: its ``description:`` line, else its first text line."""
    match = _DESCRIPTION.search(text[:2000])
    if match:
        return match.group(1).strip()[:200]
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line and line != "---":
            return line[:200]
    return ""
