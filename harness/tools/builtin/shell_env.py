"""The environment ``bash`` runs with: the host's, minus what looks like a secret.

The model chooses the commands, so a variable the shell inherits is one
``env`` or ``printenv`` away from the model's context (and from the session
log). Names containing ``KEY``, ``SECRET``, ``TOKEN``, ``PASSWORD``,
``PASSWD``, ``CREDENTIAL`` or ``AUTH`` (any case) are left out, as Codex's
shell-environment policy does by default; the ``agent-loop`` setting
``bash_pass_env`` names any that a workflow needs back (exact names).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

SECRET_NAME = re.compile(r"KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)


def shell_environment(environ: Mapping[str, str], passed: Collection[str] = ()) -> dict[str, str]:
    """``environ`` without secret-looking names, except those in ``passed``."""
    return {name: value for name, value in environ.items() if name in passed or not SECRET_NAME.search(name)}
