"""The one atomic writer: temp file, fsync, rename, fsync of the directory; two mode rules."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookspecs import fsutil
from hookspecs.fsutil import KEEP_MODE, fsync_dir, write_atomic


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def test_private_rule_creates_0600_in_0700_dirs(tmp_path: Path) -> None:
    path = tmp_path / "state" / "deep" / "x.json"
    assert write_atomic(path, "héllo") is True
    assert path.read_bytes() == "héllo".encode()
    assert _mode(path) == 0o600
    assert _mode(path.parent) == 0o700 and _mode(path.parent.parent) == 0o700


def test_private_rule_forces_the_mode_on_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("old")
    path.chmod(0o644)
    assert write_atomic(path, b"new") is False
    assert path.read_text() == "new" and _mode(path) == 0o600
    assert write_atomic(path, b"newer", mode=0o640) is False
    assert _mode(path) == 0o640


def test_keep_rule_keeps_an_existing_files_mode(tmp_path: Path) -> None:
    path = tmp_path / "script.sh"
    path.write_text("old")
    path.chmod(0o751)
    assert write_atomic(path, b"new", mode=KEEP_MODE) is False
    assert path.read_text() == "new" and _mode(path) == 0o751


@pytest.mark.usefixtures("umask_022")
def test_keep_rule_gives_a_new_file_the_umasks_mode(tmp_path: Path) -> None:
    path = tmp_path / "new.txt"
    assert write_atomic(path, b"x", mode=KEEP_MODE) is True
    assert _mode(path) == 0o644


def test_keep_rule_does_not_create_parents(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "missing" / "f.txt", b"x", mode=KEEP_MODE)
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("mode", [0o600, KEEP_MODE])
def test_the_directory_is_fsynced_after_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int | None
) -> None:
    steps: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        steps.append("fsync dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        steps.append("replace")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    write_atomic(tmp_path / "f", b"data", mode=mode)
    assert steps == ["fsync file", "replace", "fsync dir"]


@pytest.mark.parametrize("mode", [0o600, KEEP_MODE])
def test_a_failed_rename_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int | None
) -> None:
    path = tmp_path / "f"
    path.write_text("old")

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        raise OSError(errno.EIO, "boom")

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match="boom"):
        write_atomic(path, b"new", mode=mode)
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["f"]


def test_fsync_dir_tolerates_file_systems_that_cannot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fsync(fd: int) -> None:
        raise OSError(errno.EINVAL, "not supported")

    monkeypatch.setattr(os, "fsync", fsync)
    fsync_dir(tmp_path)  # no error


def test_fsync_dir_reports_real_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fsync(fd: int) -> None:
        raise OSError(errno.EIO, "disk gone")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError, match="disk gone"):
        fsync_dir(tmp_path)


def test_append_line_completes_a_short_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.write`` may write part of the data; the journal line must still be whole."""
    real_write = os.write

    def half(fd: int, data: bytes | memoryview) -> int:
        return real_write(fd, bytes(data[: max(1, len(data) // 2)]))

    monkeypatch.setattr(fsutil.os, "write", half)
    path = tmp_path / "j.jsonl"
    fsutil.append_line(path, '{"event":"run-admitted"}')
    fsutil.append_line(path, '{"event":"run-finished"}')
    assert path.read_text() == '{"event":"run-admitted"}\n{"event":"run-finished"}\n'


# --- read_regular_bytes: special files are refused at once, size is bounded by bytes read ---


def test_read_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    import os

    from hookspecs.errors import InputFileError
    from hookspecs.fsutil import read_regular_bytes

    fifo = tmp_path / "t.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match=r"t\.jsonl: a FIFO, not a regular file"):
        read_regular_bytes(fifo, limit=10, what="transcript")


def test_read_regular_refuses_a_symlink_to_a_device(tmp_path: Path) -> None:
    from hookspecs.errors import InputFileError
    from hookspecs.fsutil import read_regular_bytes

    link = tmp_path / "profile.yml"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputFileError, match="profile .*a character device"):
        read_regular_bytes(link, limit=1 << 20, what="profile")


def test_read_regular_bounds_by_bytes_read(tmp_path: Path) -> None:
    from hookspecs.errors import InputFileError
    from hookspecs.fsutil import read_regular_bytes, read_regular_text

    path = tmp_path / "f"
    path.write_bytes(b"x" * 11)
    with pytest.raises(InputFileError, match="larger than 10 bytes"):
        read_regular_bytes(path, limit=10)
    assert read_regular_bytes(path, limit=11) == b"x" * 11
    path.write_bytes(b"ok\xff")
    with pytest.raises(InputFileError, match="not UTF-8 at byte 2"):
        read_regular_text(path, limit=10)
    with pytest.raises(InputFileError, match="no such file"):
        read_regular_bytes(tmp_path / "missing", limit=10)
    with pytest.raises(InputFileError, match="directory"):
        read_regular_bytes(tmp_path, limit=10)


def test_read_regular_can_refuse_a_symlink_at_the_open(tmp_path: Path) -> None:
    from hookspecs.errors import InputFileError
    from hookspecs.fsutil import read_regular_text

    target = tmp_path / "id_rsa"
    target.write_text("KEY")
    link = tmp_path / "SKILL.md"
    link.symlink_to(target)
    assert read_regular_text(link, limit=10) == "KEY"
    with pytest.raises(InputFileError, match="SKILL.md: is a symbolic link; refused"):
        read_regular_text(link, limit=10, follow_symlinks=False)
