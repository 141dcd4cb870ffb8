"""Run the Stop-hook bridge under the real Codex and Claude Code CLIs, on loopback models.

For each CLI it is given (``--codex PATH`` / ``--claude PATH``, else
``$SHADOW_CODEX_BIN`` / ``$SHADOW_CLAUDE_BIN``) it makes a private temporary
world: a ``HOME`` (and ``CODEX_HOME``), a ``DSH_HOME`` with one Shadow
definition, a profile whose reviewer is the loopback server, and an empty
working directory. It installs ``harness shadow hook <agent>`` as
docs/foreign-agents.md says, points the CLI at the loopback model
(``real_agents_models.py``) and runs one non-interactive prompt
(``codex exec`` / ``claude -p``), once per scenario:

* ``report``: the scripted agent runs ``cat notes.txt`` (which fails), claims
  the file's contents and stops; the checks say whether the hook ran, reviewed
  the transcript the CLI really wrote, blocked the stop with a finding the
  agent read as its next input, and let the second stop through
  (``stop_hook_active``);
* ``quiet``: the agent's ``ls`` succeeds, the reviewer is silent and the agent
  stops after its one turn;
* ``ephemeral`` (Codex only): ``--ephemeral`` writes no rollout, the hook gets
  ``transcript_path: null`` and answers ``{}`` without a review;
* ``subagent`` (Claude Code only): the agent delegates the first scenario to a
  subagent; ``SubagentStop`` reviews the subagent's own transcript, its
  corrected answer reaches the parent, whose own ``Stop`` review is quiet.

It installs nothing. A CLI that is not given, or not found, is reported as
skipped. Exit status: 0 every CLI that ran passed its checks (or none ran),
1 a check failed, 2 bad arguments. Nothing leaves loopback.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_agents_judges import Check, ephemeral_checks, quiet_checks, report_checks, subagent_checks
from real_agents_models import PROMPT, QUIET_PROMPT, SUBAGENT_PROMPT, ModelServer
from real_agents_world import Run, run_claude, run_codex


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--codex", metavar="PATH", default=os.environ.get("SHADOW_CODEX_BIN"), help="the codex CLI")
    p.add_argument("--claude", metavar="PATH", default=os.environ.get("SHADOW_CLAUDE_BIN"), help="the claude CLI")
    p.add_argument("--timeout", type=float, default=240.0, metavar="S", help="bound on one CLI run (default 240)")
    p.add_argument("--keep", metavar="DIR", help="make the temporary worlds under DIR and keep them")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    return p


def version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else "unknown"


RUNNERS: dict[str, Callable[..., Run]] = {"codex": run_codex, "claude": run_claude}
Judge = Callable[[Run, ModelServer], list[Check]]
#: scenario -> (prompt, extra CLI flags per agent (absent: not run for that agent), judge)
SCENARIOS: dict[str, tuple[str, dict[str, tuple[str, ...]], Judge]] = {
    "report": (PROMPT, {"codex": (), "claude": ()}, report_checks),
    "quiet": (QUIET_PROMPT, {"codex": (), "claude": ()}, quiet_checks),
    # Codex writes no rollout and hands the hook transcript_path: null
    "ephemeral": (PROMPT, {"codex": ("--ephemeral",)}, ephemeral_checks),
    # Claude Code's Agent tool: the SubagentStop entry reviews the subagent's transcript
    "subagent": (SUBAGENT_PROMPT, {"claude": ()}, subagent_checks),
}


def one_agent(name: str, given: str | None, base: Path, timeout: float) -> dict[str, Any]:
    binary = shutil.which(given) if given else None
    if binary is None:
        why = f"no executable at {given!r}" if given else f"no --{name} and no $SHADOW_{name.upper()}_BIN"
        return {"agent": name, "status": "skipped", "reason": why}
    checks: list[Check] = []
    for scenario, (prompt, flags, judge) in SCENARIOS.items():
        if name not in flags:
            continue
        root = Path(tempfile.mkdtemp(prefix=f"{name}-{scenario}-", dir=base))
        with ModelServer() as server:  # a fresh recorder per run
            run = RUNNERS[name](binary, root, server, timeout, prompt, *flags[name])
            checks += [{**c, "scenario": scenario} for c in judge(run, server)]
    status = "passed" if all(c["ok"] for c in checks) else "failed"
    return {"agent": name, "status": status, "binary": binary, "version": version(binary), "checks": checks}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.timeout <= 0:
        print("real_agents_check: --timeout must be positive", file=sys.stderr)
        return 2
    keep = Path(args.keep) if args.keep else None
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="shadow-real-agents-", dir=keep))
    try:
        reports = [one_agent(name, getattr(args, name), base, args.timeout) for name in RUNNERS]
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)
    if args.json:
        print(json.dumps({"agents": reports, "kept": str(base) if keep else None}, indent=2))
    else:
        for report in reports:
            print(f"{report['agent']}: {report['status']} ({report.get('version') or report.get('reason')})")
            for c in report.get("checks", ()):
                detail = f" [{c['detail']}]" if c["detail"] else ""
                print(f"  {'ok  ' if c['ok'] else 'FAIL'} {c['scenario']}: {c['check']}{detail}")
        if keep:
            print(f"kept: {base}")
    return 1 if any(r["status"] == "failed" for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
