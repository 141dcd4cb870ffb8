"""The environment of CLI subprocesses in tests: the developer's ``DSH_*``
settings (``DSH_HOME``, ``DSH_PROFILE``, ``DSH_DISABLED_PLUGINS`` ...) never leak
into a run; each test passes the ones it means."""

from __future__ import annotations

import os


def cli_env(**overrides: str) -> dict[str, str]:
    # nor pytest's PYTEST_CURRENT_TEST, which names the test with its parameters:
    # a 200 kB parameter makes it longer than one environment string may be (E2BIG)
    env = {
        key: value for key, value in os.environ.items() if not key.startswith("DSH_") and key != "PYTEST_CURRENT_TEST"
    }
    env.update(overrides)
    return env
