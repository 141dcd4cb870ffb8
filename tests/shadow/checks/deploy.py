"""The deploy-target story the host-level check tests share: the root reads
notes.txt, then answers; a reviewer child (when asked) answers ``child``.

:data:`UNCITED` cites a function and a file no tool showed (the
``uncited-reference`` check fires); :data:`SHOWN` cites only what was read."""

from __future__ import annotations

import json
from typing import Any

UNCITED = "The target is set by `load_target()` in `deploy/targets.yml`."
SHOWN = "notes.txt says the deploy target is staging."

_ROOT = """
models:
  - {{id: root-model, context_window: 128000}}
responses:
  - match: {{model: root-model, depth: 0, has_tools: [read], last_user_contains: "deploy"}}
    reply:
      tool_calls: [{{name: read, arguments: {{path: notes.txt}}}}]
  - match: {{model: root-model, depth: 0, last_user_contains: "deploy"}}
    reply: {{text: {answer}}}
"""
_CHILD = """
  - match: {{depth: 1}}
    repeat: true
    reply:
      tool_calls:
        - name: structured_output
          arguments: {output}
"""
_AFTER_RELAY = """
  - match: {model: root-model, depth: 0, last_user_contains: "Shadow reports"}
    reply: {text: "Right: I only read notes.txt."}
"""


def script(answer: str, child: dict[str, Any] | None = None) -> str:
    """The scripted model: the root's two replies, the child's answer, and the
    root's reply to a relay."""
    text = _ROOT.format(answer=json.dumps(answer))
    if child is not None:
        text += _CHILD.format(output=json.dumps(child))
    return text + _AFTER_RELAY
