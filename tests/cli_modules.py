"""Run the ``harness`` command in a subprocess and report which modules it imported.

Start-up cost is asserted by behaviour, never by wall time: a command that
does not chat must not have imported the terminal chat, a hook that admits no
review must not have imported the host, the web stack or the HTTP client.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .cli_env import cli_env

REPO = Path(__file__).resolve().parents[1]

#: runs ``harness.cli.main`` as the console script does, then writes ``sys.modules``
#: (at exit, so a command that calls ``sys.exit`` is seen whole)
_WRAPPER = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "harness"
from harness.cli import main
sys.exit(main())
"""

#: what a command that only parses, lists or answers a Stop without a review never needs
HEAVY = (
    "harness.cli.chat",
    "harness.cli.chat_input",
    "harness.cli.markdown",
    "rich",
    "harness.web",
    "harness.host",
    "harness.llm.openai_compat",
    "httpx",
    "starlette",
    "hypercorn",
)


def imported_by(
    tmp: Path, *args: str, home: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[bytes], set[str]]:
    out = tmp / f"modules-{len(list(tmp.glob('modules-*')))}.json"
    run = subprocess.run(
        [sys.executable, "-c", _WRAPPER, str(out), *args],
        cwd=REPO,
        env=cli_env(DSH_HOME=str(home), **(env or {})),
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return run, set(json.loads(out.read_text())) if out.exists() else set()


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))
