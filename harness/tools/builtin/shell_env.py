"""The environment ``bash`` runs with: an allowlist, never the host's secrets.

The model chooses the commands, so a variable the shell inherits is one
``env`` or ``printenv`` away from the model's context (and from the session
log). A filter on secret-looking names is not enough (``LLM_PAT``, a
``DB_URL`` with a password in it), so only :data:`ALLOWED` names and the
``LC_*`` locale variables are inherited, plus the exact names the ``agent-loop``
setting ``bash_pass_env`` lists. A variable some provider row's
``api_key_env`` names (``protected``) never is, even when listed.

``PWD`` and ``OLDPWD`` are left out: the shell starts in the workspace and sets
``PWD`` itself, so the host's value would only be wrong.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Set
from typing import Any, Final

#: inherited from the host: what programs need to run and to format text, nothing
#: that authenticates (LOGNAME is USER's POSIX twin, TZ only changes clock output)
ALLOWED: Final = frozenset({"PATH", "HOME", "LANG", "TERM", "TMPDIR", "USER", "LOGNAME", "SHELL", "TZ"})
LOCALE_PREFIX: Final = "LC_"


def inherited(name: str) -> bool:
    """Whether ``name`` is on the allowlist (``LC_*`` included)."""
    return name in ALLOWED or (name.startswith(LOCALE_PREFIX) and len(name) > len(LOCALE_PREFIX))


def shell_environment(
    environ: Mapping[str, str], passed: Collection[str] = (), *, protected: Set[str] = frozenset()
) -> dict[str, str]:
    """The allowlisted part of ``environ`` plus the names in ``passed``, minus ``protected``."""
    return {
        name: value
        for name, value in environ.items()
        if name not in protected and (inherited(name) or name in passed)
    }


def key_env_names(configs: Collection[Mapping[str, Any]]) -> frozenset[str]:
    """Every variable an ``api_key_env`` names in ``configs`` (profile rows'
    ``config``), nested ones included: a plugin may carry its own provider
    definitions, and their keys are no more the model's than the host's."""
    names: set[str] = set()
    stack: list[Any] = list(configs)
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "api_key_env" and isinstance(value, str) and value:
                    names.add(value)
                else:
                    stack.append(value)
        elif isinstance(node, list | tuple):
            stack.extend(node)
    return frozenset(names)
