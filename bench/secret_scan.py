"""Secret detector cost on transcript lines: does scrubbing keep imports cheap?

One synthetic corpus of Claude Code–style JSONL lines (a few MB: user prompts,
assistant text, tool calls with commands and file edits, tool results with
source code, git logs, lockfiles, base64 images, ``cat .env`` output, and a
few real-shaped secrets) is timed, like for like, under:

(a) ``json.loads``   — parse each line, nothing else (the baseline);
(b) ``+ detector``   — parse each line, then ``hookspecs.scrub.scrub_json(value,
    serialized=line)``: one RE2 scan of the line settles most lines; the rest
    have every string value run through the one secret detector and the
    structure rebuilt where something was hidden. This is what
    ``SessionLog.append`` adds to an imported event (it scans the event's
    line, which it serializes anyway);
(c) ``+ detect-secrets regex``  — parse each line, then run every default
    detect-secrets plugin except the two entropy heuristics (the regex
    detectors: the rule set ours is ported from) over every string value with
    ``plugin.analyze_string`` (finding only, no replacing: a lower bound);
(d) ``+ detect-secrets all`` — as (c) with all default plugins.

(c) and (d) run only when detect-secrets is installed (``pip install
detect-secrets``; it is not a dependency). Target: (b) <= 3.0x (a).
Variants run interleaved, medians compared. Run::

    python bench/secret_scan.py [--lines 6000] [--reps 5] [--no-detect-secrets]
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import compare_many

from hookspecs.scrub import json_strings, scrub_json

_CODE = '''def load_config(path: str, *, token: str | None = None) -> dict[str, Any]:
    """Read the profile and merge the environment (max_tokens=4096)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    for key, value in os.environ.items():
        if key.startswith("APP_"):
            data[key[4:].lower()] = value
    client = Client(api_key=api_key, token=self.token, timeout=30)
    return {"usage": {"input_tokens": 812, "output_tokens": 96}, **data}
'''
_JS = """export async function fetchPage(url, { retries = 3 } = {}) {
  for (let attempt = 0; attempt < retries; attempt++) {
    const res = await fetch(url, { headers: { accept: 'application/json' } });
    if (res.ok) return res.json();
    await new Promise((r) => setTimeout(r, 2 ** attempt * 100));
  }
  throw new Error(`GET ${url} failed after ${retries} attempts`);
}
"""
_GO = """func (s *Store) Put(ctx context.Context, k string, v []byte) error {
\tif len(v) > s.limit {
\t\treturn fmt.Errorf("value for %q too large: %d > %d", k, len(v), s.limit)
\t}
\ts.mu.Lock()
\tdefer s.mu.Unlock()
\ts.items[k] = append([]byte(nil), v...)
\treturn nil
}
"""
_TESTS = "".join(f"tests/test_mod{i}.py::test_case_{i} PASSED [{i}%]\n" for i in range(60))
_MARKDOWN = (
    "## Usage\n\nRun `make build`, then open the report. See the docs at https://example.com/guide for details.\n" * 3
)
_GITLOG = "\n".join(
    f"commit {random.Random(i).getrandbits(160):040x}\nAuthor: Dev <dev@example.com>\n\n    fix: handle token_count overflow #{i}\n"
    for i in range(12)
)
_LOCK = "\n".join(
    f'"node_modules/pkg{i}": {{"version": "1.{i}.0", "integrity": "sha512-'
    + base64.b64encode(random.Random(i).randbytes(64)).decode()
    + '"}'
    for i in range(20)
)
_ENV = "DEBUG=1\nOPENAI_API_KEY=sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34\nexport DB_PASSWORD=hunter2hunter2\nPORT=8080\n"
_PROSE = (
    "I read the module and the failing test. The tokenizer counts tokens per message, and the "
    "secretary role never sees the password prompt; passwordless login stays enabled. "
)

PROSE = _PROSE
#: the texts a tool result shows, by how each is drawn (``bench/importer.py`` uses them too)
BLOBS: tuple[Callable[[random.Random], str], ...] = (
    lambda rng: _CODE * rng.randint(1, 4),
    lambda rng: _JS * rng.randint(1, 6),
    lambda rng: _GO * rng.randint(1, 6),
    lambda rng: _TESTS,
    lambda rng: _GITLOG,
    lambda rng: _LOCK,
    lambda rng: _MARKDOWN,
    lambda rng: _PROSE * 10,
    lambda rng: _ENV + _JS,
)


def _line(rng: random.Random, i: int) -> str:
    kind = rng.random()
    if kind < 0.15:
        message: dict[str, Any] = {"role": "user", "content": _PROSE * rng.randint(1, 4)}
    elif kind < 0.35:
        message = {"role": "assistant", "content": [{"type": "text", "text": _PROSE * rng.randint(1, 6)}]}
    elif kind < 0.55:
        snippet = rng.choice([_CODE, _JS, _GO])
        message = {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": f"toolu_{i:08d}",
                    "name": rng.choice(["Bash", "Edit", "Read"]),
                    "input": {
                        "command": "git log -n 12 && cat package-lock.json",
                        "file_path": f"/home/me/app/src/m{i}.py",
                        "old_string": snippet[:200],
                        "new_string": snippet[:240],
                    },
                }
            ],
        }
    else:
        # file reads, test runs, logs and docs; one read in ten shows config with secrets
        blob = rng.choice(
            [
                _CODE * rng.randint(1, 4),
                _JS * rng.randint(1, 6),
                _GO * rng.randint(1, 6),
                _TESTS,
                _GITLOG,
                _LOCK,
                _MARKDOWN,
                _PROSE * 10,
                _ENV + _JS,
            ]
        )
        content: list[dict[str, Any]] = [{"type": "tool_result", "tool_use_id": f"toolu_{i:08d}", "content": blob}]
        if rng.random() < 0.05:
            data = base64.b64encode(rng.randbytes(6000)).decode()
            content.append({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}})
        message = {"role": "user", "content": content}
    return json.dumps(
        {
            "type": message["role"],
            "uuid": f"{rng.getrandbits(128):032x}",
            "parentUuid": f"{rng.getrandbits(128):032x}",
            "sessionId": "47bfd9da-1c2e-4f3a-9b8c-7d6e5f4a3b2c",
            "timestamp": "2026-01-02T03:04:05.678Z",
            "cwd": "/home/me/app",
            "message": message,
        }
    )


def corpus(lines: int) -> list[str]:
    rng = random.Random(19)
    return [_line(rng, i) for i in range(lines)]


def detect_secrets_scanners() -> tuple[Callable[[str], object], Callable[[str], object]] | None:
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    except ImportError:
        return None
    plugins = [cls() for cls in get_mapping_from_secret_type_to_class().values()]
    regex = [p for p in plugins if "Entropy" not in type(p).__name__]

    def scan(chosen: list[Any]) -> Callable[[str], object]:
        def run(text: str) -> object:
            return [list(p.analyze_string(text)) for p in chosen]

        return run

    return scan(regex), scan(plugins)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=6000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--no-detect-secrets", action="store_true", help="time (a) and (b) only")
    args = parser.parse_args()

    lines = corpus(args.lines)
    size = sum(len(line) for line in lines)
    print(f"corpus: {len(lines)} lines, {size / 1e6:.1f} MB; target: (b) <= 3.0x (a)")
    leaked = [
        s for line in lines for s in ("hunter2hunter2", "Ab12Cd34Ef56") if s in json.dumps(scrub_json(json.loads(line)))
    ]
    print(f"secrets left after the detector: {len(leaked)}")

    def parse() -> None:
        for line in lines:
            json.loads(line)

    def parse_and_scrub() -> None:
        for line in lines:
            scrub_json(json.loads(line), serialized=line)

    variants: list[tuple[str, Callable[[], None]]] = [("(a) json.loads", parse), ("(b) + detector", parse_and_scrub)]
    scanners = None if args.no_detect_secrets else detect_secrets_scanners()
    if scanners is not None:
        for name, scan in zip(("(c) + detect-secrets regex", "(d) + detect-secrets all"), scanners, strict=True):

            def parse_and_scan(scan: Callable[[str], object] = scan) -> None:
                for line in lines:
                    for text in json_strings(json.loads(line)):
                        scan(text)

            variants.append((name, parse_and_scan))
    else:
        print("detect-secrets not installed or --no-detect-secrets: (c) and (d) skipped")
    compare_many(variants, reps=args.reps, targets={"(b) + detector": 3.0}, units=len(lines), unit="lines")


if __name__ == "__main__":
    main()
