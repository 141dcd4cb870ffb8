"""The private world of one real-CLI run: homes, profile, hook entry, environment, and the run itself."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from real_agents_models import ModelServer

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

def hook_entry(agent: str, profile: Path, *events: str) -> dict[str, Any]:
    """The entry of docs/foreign-agents.md for each hook event (``Stop`` at least), with the full path of ``harness``."""
    exe = Path(sys.executable).with_name("harness")
    harness = shlex.quote(str(exe)) if exe.exists() else f"{shlex.quote(sys.executable)} -m harness"
    command = f"{harness} shadow hook {agent} --profile {shlex.quote(str(profile))} --timeout 45"
    entry = [{"hooks": [{"type": "command", "command": command, "timeout": 60}]}]
    return {"hooks": {event: entry for event in ("Stop", *events)}}


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


class Run:
    """One CLI run in its own world: what it printed, the hook's state file and the transcript."""

    def __init__(self, agent: str, part: str, paths: dict[str, Path]) -> None:
        self.agent, self.part, self.paths = agent, part, paths
        self.rc: int | None = None
        self.stdout = self.stderr = ""
        self.transcript: Path | None = None
        self.subagent_transcripts: list[Path] = []

    def execute(self, argv: list[str], env: dict[str, str], timeout: float) -> None:
        try:
            done = subprocess.run(
                argv, cwd=self.paths["work"], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as exc:
            self.stdout, self.stderr = str(exc.stdout or ""), f"timed out after {timeout:g} s"
            return
        self.rc, self.stdout, self.stderr = done.returncode, done.stdout, done.stderr

    def states(self) -> dict[str, dict[str, Any]]:
        """The bridge's state files by name: one per session, and one per subagent of it."""
        files = sorted((self.paths["dsh"] / "imports" / "hooks").glob(f"{self.agent}-*.json"))
        return {f.name: json.loads(f.read_text()) for f in files}

    def state(self) -> dict[str, Any]:
        states = list(self.states().values())
        return states[0] if len(states) == 1 else {}

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
    entry = hook_entry("claude-code", paths["profile"], "SubagentStop")
    (settings / "settings.json").write_text(json.dumps(entry, indent=2))
    env = environment(
        paths,
        ANTHROPIC_BASE_URL=f"{server.base_url}/claude",
        ANTHROPIC_API_KEY="sk-ant-shadow-check-agent-0000",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
    )
    run = Run("claude-code", "claude", paths)
    run.execute([binary, "-p", prompt, "--model", "claude-loopback", *flags], env, timeout)
    projects = paths["home"] / ".claude" / "projects"
    transcripts = sorted(projects.glob("*/*.jsonl"))
    run.transcript = transcripts[0] if len(transcripts) == 1 else None
    run.subagent_transcripts = sorted(projects.glob("*/*/subagents/agent-*.jsonl"))
    return run


