"""A model's tool arguments are JSON text, and ``"\\ud800"`` is valid JSON for
a lone surrogate, which no terminal encoding can print. The console renderer
shows it as U+FFFD and the run completes."""

from __future__ import annotations

from pathlib import Path

from harness.cli.render import tool_call_line, visible

from .helpers import scripted_profile
from .special_files import harness_guarded

#: a verbatim (single-quoted YAML) arguments string: the JSON escape reaches the renderer as is
SCRIPT = r"""
responses:
  - match: {has_tools: [read]}
    reply:
      tool_calls: [{name: read, arguments: '{"path": "odd-\ud800-name.txt"}'}]
  - repeat: true
    reply: {text: "all done"}
"""


def test_a_lone_surrogate_in_tool_arguments_is_rendered_as_a_replacement_char(tmp_path: Path) -> None:
    profile = scripted_profile(tmp_path, SCRIPT)
    done = harness_guarded("run", "--profile", str(profile), "--cwd", str(tmp_path), "look", home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert 'path="odd-\ufffd-name.txt"' in done.stdout
    assert "all done" in done.stdout


def test_visible_replaces_lone_surrogates() -> None:
    assert visible("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert visible(tool_call_line({"name": "t", "arguments": '{"x": "\\udc80"}'})) == 't(x="\ufffd")'.join(["⚙ ", ""])
