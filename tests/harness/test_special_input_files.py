"""Files the host reads on the person's behalf (``--profile``, ``--patch``,
``$DSH_HOME/settings.yaml``, a scripted model's script) are refused at once when
they are not regular files: a FIFO must not hang the CLI and ``/dev/zero``
must not be read until memory runs out. The refusal is one line naming the
file, with a non-zero exit."""

from __future__ import annotations

from pathlib import Path

from .helpers import ECHO, scripted_profile
from .special_files import assert_one_line_refusal, fifo, harness_guarded, zero_link


def test_a_fifo_profile_is_refused_at_once(tmp_path: Path) -> None:
    profile = fifo(tmp_path / "profile.yml")
    done = harness_guarded("run", "--profile", str(profile), "hi", home=tmp_path / "home")
    line = assert_one_line_refusal(done, str(profile))
    assert "FIFO" in line


def test_a_profile_symlinked_to_dev_zero_is_refused(tmp_path: Path) -> None:
    profile = zero_link(tmp_path / "profile.yml")
    done = harness_guarded("run", "--profile", str(profile), "hi", home=tmp_path / "home")
    line = assert_one_line_refusal(done, str(profile))
    assert "character device" in line


def test_a_fifo_patch_is_refused_at_once(tmp_path: Path) -> None:
    profile = scripted_profile(tmp_path, ECHO)
    patch = fifo(tmp_path / "patch.yml")
    done = harness_guarded("run", "--profile", str(profile), "--patch", str(patch), "hi", home=tmp_path / "home")
    assert_one_line_refusal(done, str(patch))


def test_a_fifo_settings_document_is_refused_at_once(tmp_path: Path) -> None:
    profile = scripted_profile(tmp_path, ECHO)
    home = tmp_path / "home"
    home.mkdir()
    settings = fifo(home / "settings.yaml")
    done = harness_guarded("run", "--profile", str(profile), "hi", home=home)
    assert_one_line_refusal(done, str(settings))


def test_a_fifo_script_file_is_refused_at_once(tmp_path: Path) -> None:
    script = fifo(tmp_path / "script.fifo")
    profile = tmp_path / "profile.yml"
    profile.write_text(
        f"- id: llm\n  name: scripted-llm\n  config: {{script: {script}}}\n"
        "- id: agent-loop\n  name: agent-loop\n  config: {model: scripted/m}\n"
    )
    done = harness_guarded("run", "--profile", str(profile), "hi", home=tmp_path / "home")
    assert_one_line_refusal(done, str(script))


def test_a_home_patch_symlinked_to_dev_zero_is_refused(tmp_path: Path) -> None:
    profile = scripted_profile(tmp_path, ECHO)
    home = tmp_path / "home"
    home.mkdir()
    patch = zero_link(home / "profile.patch.yml")
    done = harness_guarded("run", "--profile", str(profile), "hi", home=home)
    assert_one_line_refusal(done, str(patch))
