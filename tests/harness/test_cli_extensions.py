"""Extra top-level ``harness`` commands from entry-point group ``dsh.cli``,
run for real in subprocesses with a fake distribution on ``PYTHONPATH``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from ..cli_env import cli_env

REPO = Path(__file__).resolve().parents[2]

HELLO = '''
"""Say hello: echo the argv it was given.

More text that the help listing leaves out.
"""
import json
import os
import sys


def main(argv):
    print(json.dumps(argv))
    return 7 if "--fail" in argv else 0


def described(argv):
    print("described", argv)
    return 0


described.help = "a command with a help attribute (100% custom)"


def run(argv):
    print("extension run")
    return 0


def profiled(argv):
    print(json.dumps([os.environ.get("DSH_PROFILE"), argv]))
    return 0
'''


MARK = "import os\nopen(os.path.join(os.environ['DSH_HOME'], 'imported-' + __name__), 'w').close()\ndef main(argv):\n    return 0\n"


def _site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    (site / "hello_ext").mkdir(parents=True)
    (site / "hello_ext" / "__init__.py").write_text(textwrap.dedent(HELLO), encoding="utf-8")
    (site / "broken_ext.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    (site / "loud_ext").mkdir()
    # importing the package (or the module) leaves a mark: --help must do neither
    (site / "loud_ext" / "__init__.py").write_text(MARK, encoding="utf-8")
    (site / "loud_ext" / "cmd.py").write_text('"""Loud: a command whose import leaves a mark."""\n' + MARK, encoding="utf-8")
    (site / "syntax_ext.py").write_text("def main(argv:\n", encoding="utf-8")
    dist = site / "hello_ext-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: hello-ext\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        "[dsh.cli]\n"
        "hello = hello_ext:main\n"
        "described = hello_ext:described\n"
        "run = hello_ext:run\n"
        "profiled = hello_ext:profiled\n"
        "broken = broken_ext:main\n"
        "loud = loud_ext.cmd:main\n"
        "syntax = syntax_ext:main\n",
        encoding="utf-8",
    )
    return site


def harness(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    site = _site(tmp_path) if not (tmp_path / "site").exists() else tmp_path / "site"
    env = cli_env(DSH_HOME=str(tmp_path / "home"), PYTHONPATH=os.pathsep.join([str(site), str(REPO)]))
    return subprocess.run(
        [sys.executable, "-m", "harness", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )


def test_extension_gets_every_argument_after_its_name(tmp_path: Path) -> None:
    result = harness("-v", "hello", "trace", "--json", "--home", "x", "-h", "--", "--profile", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["trace", "--json", "--home", "x", "-h", "--", "--profile"]
    assert json.loads(harness("hello", tmp_path=tmp_path).stdout) == []
    assert json.loads(harness("hello", "--help", tmp_path=tmp_path).stdout) == ["--help"]
    assert harness("hello", "--fail", tmp_path=tmp_path).returncode == 7


def test_a_profile_given_before_an_extension_reaches_it(tmp_path: Path) -> None:
    # docs/profiles.md: top-level options (-v, --profile) go before the name; the
    # profile was parsed and dropped, and the extension composed the default one
    result = harness("--profile", "work.yml", "profiled", "review", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["work.yml", ["review"]]  # $DSH_PROFILE: what profile readers fall back to
    assert json.loads(harness("profiled", tmp_path=tmp_path).stdout) == [None, []]
    # a patch has no such channel: refused rather than dropped
    patched = harness("--patch", "extra.yml", "profiled", "review", tmp_path=tmp_path)
    assert patched.returncode == 2 and patched.stdout == ""
    assert "--patch before 'profiled'" in patched.stderr and "after the command" in patched.stderr


def test_help_lists_extensions_with_their_summary(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    result = harness("--help", tmp_path=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()

    def entry(name: str) -> str:
        return next(line for line in lines if line.strip().startswith(name + " "))

    assert "Say hello: echo the argv it was given." in entry("hello")
    assert "More text" not in result.stdout
    assert "a command with a help attribute (100% custom)" in entry("described")
    # read from the source, never imported: a broken extension is listed, and
    # reported only when it is invoked
    assert "Loud: a command whose import leaves a mark." in entry("loud")
    assert "extension command (broken_ext:main)" in entry("broken")
    assert "extension command (syntax_ext:main)" in entry("syntax")
    assert not list((tmp_path / "home").glob("imported-*")), "--help imported an extension"


def test_an_extension_is_imported_only_when_invoked(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    assert harness("loud", tmp_path=tmp_path).returncode == 0
    assert sorted(p.name for p in (tmp_path / "home").glob("imported-*")) == ["imported-loud_ext", "imported-loud_ext.cmd"]
    syntax = harness("syntax", tmp_path=tmp_path)
    assert syntax.returncode == 1 and "harness: cannot load command 'syntax' (syntax_ext:main): SyntaxError" in syntax.stderr


def test_builtins_win_and_a_broken_extension_breaks_only_itself(tmp_path: Path) -> None:
    run = harness("run", "--help", tmp_path=tmp_path)
    assert run.returncode == 0 and "extension run" not in run.stdout and "usage: harness run" in run.stdout
    listing = harness("sessions", "list", tmp_path=tmp_path)
    assert listing.returncode == 0, listing.stderr
    broken = harness("broken", "x", tmp_path=tmp_path)
    assert broken.returncode == 1
    assert "harness: cannot load command 'broken' (broken_ext:main): RuntimeError('boom')" in broken.stderr
    unknown = harness("nope", tmp_path=tmp_path)
    assert unknown.returncode == 2 and "invalid choice: 'nope'" in unknown.stderr
