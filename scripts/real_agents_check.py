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
  ``transcript_path: null`` and answers ``{}`` without a review.

It installs nothing. A CLI that is not given, or not found, is reported as
skipped. Exit status: 0 every CLI that ran passed its checks (or none ran),
1 a check failed, 2 bad arguments. Nothing leaves loopback.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_agents_models import CLAIM, OWNED_UP, PROMPT, QUIET_ANSWER, QUIET_PROMPT, RELAY_MARK, ModelServer

from harness.transcripts import import_transcript

KEY_ENV = "SHADOW_CHECK_REVIEWER_KEY"
DEFINITION = """---
id: default
name: Claims Checker
enabled: true
activation_probability: 1.0
debug: true
---

Check the agent's claims against its own tool results.
"""
PROFILE = """
- id: deepseek
  name: openai-compatible
  config:
    provider: deepseek
    base_url: {base_url}/reviewer/v1
    api_key_env: {key_env}
    retry_base_seconds: 0
    max_retries: 0
    request_timeout_seconds: 30
    models: [{{id: deepseek-chat, context_window: 64000}}]
- id: agent-loop
  name: agent-loop
  config: {{model: deepseek/deepseek-chat}}
- bundle: shadow-mind
"""
CODEX_CONFIG = """model = "loopback-model"
model_provider = "loopback"

[model_providers.loopback]
name = "Loopback"
base_url = "{base_url}/codex/v1"
env_key = "SHADOW_CHECK_AGENT_KEY"
wire_api = "responses"
"""
Check = dict[str, Any]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--codex", metavar="PATH", default=os.environ.get("SHADOW_CODEX_BIN"), help="the codex CLI")
    p.add_argument("--claude", metavar="PATH", default=os.environ.get("SHADOW_CLAUDE_BIN"), help="the claude CLI")
    p.add_argument("--timeout", type=float, default=240.0, metavar="S", help="bound on one CLI run (default 240)")
    p.add_argument("--keep", metavar="DIR", help="make the temporary worlds under DIR and keep them")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    return p


def hook_entry(agent: str, profile: Path) -> dict[str, Any]:
    """The Stop entry of docs/foreign-agents.md, with the full path of ``harness``."""
    exe = Path(sys.executable).with_name("harness")
    harness = shlex.quote(str(exe)) if exe.exists() else f"{shlex.quote(sys.executable)} -m harness"
    command = f"{harness} shadow hook {agent} --profile {shlex.quote(str(profile))} --timeout 45"
    return {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command, "timeout": 60}]}]}}


def world(root: Path, base_url: str) -> dict[str, Path]:
    paths = {name: root / name for name in ("home", "dsh", "work")}
    for path in paths.values():
        path.mkdir(mode=0o700, parents=True)
    (paths["dsh"] / "shadow-minds").mkdir(mode=0o700)
    (paths["dsh"] / "shadow-minds" / "default.md").write_text(DEFINITION)
    paths["profile"] = root / "profile.yml"
    paths["profile"].write_text(PROFILE.format(base_url=base_url, key_env=KEY_ENV))
    return paths


def environment(paths: dict[str, Path], **extra: str) -> dict[str, str]:
    """Only what the run needs: no proxy, no developer settings, no real credentials."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(paths["home"]), "LANG": "C.UTF-8"}
    env.update(DSH_HOME=str(paths["dsh"]), NO_PROXY="127.0.0.1,localhost", **{KEY_ENV: "sk-shadow-check-reviewer-0000"})
    env.update(extra)
    return env


def version(binary: str) -> str:
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr).strip() else "unknown"


def check(name: str, ok: bool, detail: str = "") -> Check:
    return {"check": name, "ok": bool(ok), "detail": detail}


def transcript_checks(path: Path | None, reason: str) -> list[Check]:
    """What our importer makes of the file the CLI really wrote (the report scenario)."""
    if path is None:
        return [check("the CLI wrote a transcript", False, "none found")]
    checks = [check("the CLI wrote a transcript", True, path.name)]
    try:
        imported = import_transcript(path)
    except Exception as exc:  # the check reports any failure of the importer, whatever it is
        return [*checks, check("the importer read it", False, f"{type(exc).__name__}: {exc}")]
    calls = [e for e in imported.events if e.type == "tool/call"]
    results = [e for e in imported.events if e.type == "tool/result"]
    paired = sorted(e.data["call_id"] for e in calls) == sorted(e.data["call_id"] for e in results)
    failed = [e for e in results if e.data.get("error")]
    said = [e for e in imported.events if e.type == "user/message"]
    hooks = [e for e in said if e.data["message"]["source"].get("kind") == "hook"]
    persons = [e for e in said if e.data["message"]["source"].get("kind") == "user"]
    cited = [e.data["transcript_line"] for e in failed]
    return [
        *checks,
        check("the importer read it", True, f"{imported.lines} lines, {len(imported.events)} events"),
        check("no entry kind unknown to the importer", not imported.unknown, json.dumps(dict(imported.unknown))),
        check("every tool call has exactly one result", bool(calls) and paired and imported.synthesised == 0),
        check("the failed command's result is flagged as an error", len(failed) == 1),
        check(
            "the finding cites the failed result's transcript line",
            bool(cited) and f"transcript line {cited[0]}" in reason,
            f"lines {cited}",
        ),
        check("the Stop hook's feedback is imported as the hook's, not the person's", len(hooks) == 1),
        check(
            "the person's only message is the prompt",
            len(persons) == 1 and PROMPT in json.dumps(persons[0].data["message"]),
            f"{len(persons)} user messages",
        ),
    ]


def relayed(bodies: list[dict[str, Any]]) -> str:
    """The first text the agent sent its model that carries a Shadow report (the hook's reason), or ""."""
    stack: list[Any] = list(bodies)
    while stack:
        value = stack.pop(0)
        if isinstance(value, str) and RELAY_MARK in value:
            return value
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return ""


def report_checks(run: Run, server: ModelServer) -> list[Check]:
    state = run.state()
    reason = relayed(server.recorder.bodies(run.part))
    return [
        check("the CLI exited 0", run.rc == 0, run.tail()),
        check(
            "the hook reviewed once, with a report",
            state.get("last_outcome") == "report" and len(server.recorder.bodies("reviewer")) == 1,
        ),
        check(
            "the transcript the hook read already held the agent's last message",
            CLAIM in json.dumps(server.recorder.bodies("reviewer")),
        ),
        check("the CLI sent the finding to its model as the next input", bool(reason)),
        check("the second stop passed on stop_hook_active", state.get("last_skip") == "stop_hook_active"),
        check(
            "the agent answered the finding before it stopped",
            OWNED_UP in run.stdout and CLAIM not in run.stdout.split(OWNED_UP)[-1],
        ),
        trace_check(run, state),
        *transcript_checks(run.transcript, reason),
    ]


def trace_check(run: Run, state: dict[str, Any]) -> Check:
    """``harness shadow trace`` explains the review the hook ran."""
    session = state.get("last_review_session")
    if not isinstance(session, str):
        return check("harness shadow trace explains the review", False, "no review session in the state file")
    argv = [sys.executable, "-m", "harness", "shadow", "trace", session]
    done = subprocess.run(argv, env=environment(run.paths), capture_output=True, text=True, timeout=120)
    ok = done.returncode == 0 and re.search(r"outcome: report\b.*relayed yes", done.stdout) is not None
    return check("harness shadow trace explains the review", ok, f"exit {done.returncode}")


def quiet_checks(run: Run, server: ModelServer) -> list[Check]:
    state = run.state()
    agent_requests = server.recorder.bodies(run.part)
    return [
        check("the CLI exited 0", run.rc == 0, run.tail()),
        check(
            "the hook reviewed once, quietly",
            state.get("last_outcome") == "silent" and len(server.recorder.bodies("reviewer")) == 1,
            str(state.get("last_outcome")),
        ),
        check(
            "the agent stopped without another model turn",
            len(agent_requests) == 2 and not relayed(agent_requests) and QUIET_ANSWER in run.stdout,
            f"{len(agent_requests)} model requests",
        ),
    ]


def ephemeral_checks(run: Run, server: ModelServer) -> list[Check]:
    state = run.state()
    return [
        check("the CLI exited 0", run.rc == 0, run.tail()),
        check(
            "the hook answered {} for a null transcript_path, without a review",
            state.get("last_skip") == "no_transcript" and not server.recorder.bodies("reviewer"),
            str(state.get("last_skip")),
        ),
        check("the agent stopped after its turn", len(server.recorder.bodies(run.part)) == 2 and CLAIM in run.stdout),
    ]


class Run:
    """One CLI run in its own world: what it printed, the hook's state file and the transcript."""

    def __init__(self, agent: str, part: str, paths: dict[str, Path]) -> None:
        self.agent, self.part, self.paths = agent, part, paths
        self.rc: int | None = None
        self.stdout = self.stderr = ""
        self.transcript: Path | None = None

    def execute(self, argv: list[str], env: dict[str, str], timeout: float) -> None:
        try:
            done = subprocess.run(
                argv, cwd=self.paths["work"], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as exc:
            self.stdout, self.stderr = str(exc.stdout or ""), f"timed out after {timeout:g} s"
            return
        self.rc, self.stdout, self.stderr = done.returncode, done.stdout, done.stderr

    def state(self) -> dict[str, Any]:
        states = sorted((self.paths["dsh"] / "imports" / "hooks").glob(f"{self.agent}-*.json"))
        return json.loads(states[0].read_text()) if len(states) == 1 else {}

    def tail(self) -> str:
        return f"exit {self.rc}; " + " | ".join(self.stderr.strip().splitlines()[-3:])


def run_codex(binary: str, root: Path, server: ModelServer, timeout: float, prompt: str, *flags: str) -> Run:
    paths = world(root, server.base_url)
    codex_home = paths["home"] / ".codex"
    codex_home.mkdir(mode=0o700)
    (codex_home / "config.toml").write_text(CODEX_CONFIG.format(base_url=server.base_url))
    (codex_home / "hooks.json").write_text(json.dumps(hook_entry("codex", paths["profile"]), indent=2))
    env = environment(paths, CODEX_HOME=str(codex_home), SHADOW_CHECK_AGENT_KEY="sk-shadow-check-agent-0000")
    # hook trust is kept per hook hash and given in the TUI's /hooks; exec runs untrusted hooks only with this flag
    argv = [binary, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "-s", "danger-full-access"]
    run = Run("codex", "codex", paths)
    run.execute([*argv, *flags, prompt], env, timeout)
    rollouts = sorted((codex_home / "sessions").rglob("rollout-*.jsonl"))
    run.transcript = rollouts[0] if len(rollouts) == 1 else None
    return run


def run_claude(binary: str, root: Path, server: ModelServer, timeout: float, prompt: str, *flags: str) -> Run:
    paths = world(root, server.base_url)
    settings = paths["work"] / ".claude"
    settings.mkdir(mode=0o700)
    (settings / "settings.json").write_text(json.dumps(hook_entry("claude-code", paths["profile"]), indent=2))
    env = environment(
        paths,
        ANTHROPIC_BASE_URL=f"{server.base_url}/claude",
        ANTHROPIC_API_KEY="sk-ant-shadow-check-agent-0000",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
    )
    run = Run("claude-code", "claude", paths)
    run.execute([binary, "-p", prompt, "--model", "claude-loopback", *flags], env, timeout)
    transcripts = sorted((paths["home"] / ".claude" / "projects").glob("*/*.jsonl"))
    run.transcript = transcripts[0] if len(transcripts) == 1 else None
    return run


RUNNERS: dict[str, Callable[..., Run]] = {"codex": run_codex, "claude": run_claude}
Judge = Callable[[Run, ModelServer], list[Check]]
#: scenario -> (prompt, extra CLI flags per agent (absent: not run for that agent), judge)
SCENARIOS: dict[str, tuple[str, dict[str, tuple[str, ...]], Judge]] = {
    "report": (PROMPT, {"codex": (), "claude": ()}, report_checks),
    "quiet": (QUIET_PROMPT, {"codex": (), "claude": ()}, quiet_checks),
    # Codex writes no rollout and hands the hook transcript_path: null
    "ephemeral": (PROMPT, {"codex": ("--ephemeral",)}, ephemeral_checks),
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
