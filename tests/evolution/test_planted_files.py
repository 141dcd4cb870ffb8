"""Files planted in the skills and memory folders: a symlink (to a key, to
another directory, to /dev/zero) or a FIFO is refused in one line, never
followed, read through or written through, and never hangs; the valid
neighbours keep working. Real files, no host."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evolution_review_plugin.memory_store import FileMemoryStore
from evolution_review_plugin.skills_store import FileSkillLibrary
from hookspecs.errors import DshError
from hookspecs.stores import MemoryOp

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- do not send me anywhere\n"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_text(SECRET)
    return path


def skills(tmp_path: Path, warnings: list[str] | None = None) -> FileSkillLibrary:
    sink = warnings if warnings is not None else []
    library = FileSkillLibrary(tmp_path / "skills", content_chars=1000, warn=sink.append)
    library.write("good", "# good\n\nA neighbour that keeps working.\n", origin="tool")
    return library


def memory(tmp_path: Path, warnings: list[str] | None = None) -> FileMemoryStore:
    sink = warnings if warnings is not None else []
    store = FileMemoryStore(tmp_path / "memory", caps={"memory": 2000, "user": 2000}, warn=sink.append)
    store.apply_batch([MemoryOp(action="add", target="user", text="Prefers French.")])
    return store


def one_line(exc: pytest.ExceptionInfo[DshError]) -> str:
    assert "\n" not in exc.value.message
    return exc.value.message


# --- skills ---------------------------------------------------------------------------------


def test_a_skill_file_symlinked_to_a_key_is_not_read_listed_or_written_through(tmp_path: Path, secret: Path) -> None:
    warnings: list[str] = []
    library = skills(tmp_path, warnings)
    (tmp_path / "skills" / "foo").mkdir(mode=0o700)
    (tmp_path / "skills" / "foo" / "SKILL.md").symlink_to(secret)
    with pytest.raises(DshError) as raised:
        library.read("foo")
    assert "symbolic link" in one_line(raised) and SECRET.strip() not in raised.value.message
    assert [s.name for s in library.list()] == ["good"]
    assert len(warnings) == 1 and "symbolic link" in warnings[0]
    with pytest.raises(DshError, match="symbolic link"):
        library.write("foo", "# foo\n", origin="tool")
    assert secret.read_text() == SECRET
    assert library.read("good").startswith("# good")


def test_a_symlinked_skill_directory_is_refused(tmp_path: Path, secret: Path) -> None:
    library = skills(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "SKILL.md").write_text("# planted\n")
    (tmp_path / "skills" / "evil").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(DshError, match="symbolic link"):
        library.read("evil")
    with pytest.raises(DshError, match="symbolic link"):
        library.write("evil", "# evil\n", origin="tool")
    assert (elsewhere / "SKILL.md").read_text() == "# planted\n"
    assert sorted(p.name for p in elsewhere.iterdir()) == ["SKILL.md"]  # no temp file left there either
    assert [s.name for s in library.list()] == ["good"]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_special_skill_file_neither_hangs_nor_exhausts_memory(tmp_path: Path, kind: str) -> None:
    library = skills(tmp_path)
    (tmp_path / "skills" / "odd").mkdir(mode=0o700)
    planted = tmp_path / "skills" / "odd" / "SKILL.md"
    if kind == "fifo":
        os.mkfifo(planted)
    else:
        planted.symlink_to("/dev/zero")
    with pytest.raises(DshError) as raised:
        library.read("odd")
    assert ("FIFO" if kind == "fifo" else "symbolic link") in one_line(raised)
    assert [s.name for s in library.list()] == ["good"]
    with pytest.raises(DshError):
        library.write("odd", "# odd\n", origin="tool")


# --- memory ---------------------------------------------------------------------------------


def test_a_memory_file_symlinked_elsewhere_is_neither_read_nor_written_through(tmp_path: Path, secret: Path) -> None:
    warnings: list[str] = []
    store = memory(tmp_path, warnings)
    (tmp_path / "memory" / "MEMORY.md").symlink_to(secret)
    snapshot = store.snapshot()
    assert (snapshot.memory, snapshot.user) == ("", "Prefers French.")  # the neighbour still loads
    assert len(warnings) == 1 and "symbolic link" in warnings[0] and "\n" not in warnings[0]
    outcomes = store.apply_batch(
        [
            MemoryOp(action="add", target="memory", text="Run curl | sh."),
            MemoryOp(action="add", target="user", text="Likes tables."),
        ]
    )
    assert [o.applied for o in outcomes] == [False, True]
    assert "symbolic link" in outcomes[0].reason and "\n" not in outcomes[0].reason
    assert secret.read_text() == SECRET
    assert (tmp_path / "memory" / "MEMORY.md").is_symlink()
    assert store.snapshot().user == "Prefers French.\n\nLikes tables."


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_special_memory_file_neither_hangs_nor_exhausts_memory(tmp_path: Path, kind: str) -> None:
    warnings: list[str] = []
    store = memory(tmp_path, warnings)
    planted = tmp_path / "memory" / "MEMORY.md"
    if kind == "fifo":
        os.mkfifo(planted)
    else:
        planted.symlink_to("/dev/zero")
    assert store.snapshot().user == "Prefers French."
    assert len(warnings) == 1
    [outcome] = store.apply_batch([MemoryOp(action="add", target="memory", text="x")])
    assert not outcome.applied


def test_a_symlinked_staged_plan_is_refused_in_one_line(tmp_path: Path, secret: Path) -> None:
    from evolution_review_plugin.staging import SkillStaging

    staging = SkillStaging(tmp_path / "skills" / ".staged")
    (tmp_path / "skills" / ".staged").mkdir(parents=True)
    (tmp_path / "skills" / ".staged" / "0123456789ab").symlink_to(secret.parent, target_is_directory=True)
    with pytest.raises(DshError) as raised:
        staging.get("0123456789ab")
    assert "symbolic link" in one_line(raised)
    assert staging.pending() == []
