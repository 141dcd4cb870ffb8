"""A headless ``harness run`` with the Shadow Mind bundle loads no client code.

Every host collects ``dsh_register_client`` at start, so the runtime plugin
registers its card renderer, settings tab and stylesheet as data; the code
behind them (the card's view model and the report cards restored after a
restart, the Settings page, the contract's view models and forms) loads when a
rich client first uses it. The reviewer's output contract and watchdog load
with the first review. Asserted by behaviour (which modules the process
imported), never by wall time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hookspecs.errors import DshError
from hookspecs.values import Card, CardRenderer, CardView, SettingsTab, Stylesheet
from shadow_mind_plugin.client_contributions import CARD_STYLESHEET, client_contributions

from ..cli_modules import imported_by, imported_by_a_served_run

#: what only a rich client (``harness serve``) asks for
CLIENT_ONLY = (
    "hookspecs.values.client_views",
    "shadow_mind_plugin.client_view",
    "shadow_mind_plugin.settings_tab",
    "shadow_mind_plugin.views",
    "shadow_mind_plugin.management",
)
#: what the reserved provider needs once a reviewer starts, not to be registered
FIRST_REVIEW = ("shadow_mind_plugin.contract", "shadow_mind_plugin.run.watchdog")


def _among(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


async def test_a_run_to_its_model_request_loads_no_client_code(tmp_path: Path) -> None:
    run, modules, requests = await imported_by_a_served_run(tmp_path)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert requests == 1
    # the plugin ran and registered its contributions ...
    assert {"shadow_mind_plugin.plugin", "shadow_mind_plugin.client_contributions", "hookspecs.values.client"} <= modules
    # ... and nothing a client or a reviewer needs
    assert _among(modules, CLIENT_ONLY + FIRST_REVIEW) == []


def test_a_run_that_reviews_still_loads_no_client_code(tmp_path: Path) -> None:
    """The offline demo: Shadow Mind reviews the root's turn and relays a report,
    and the terminal shows its card (text): still no view model, form or page."""
    run, modules = imported_by(tmp_path, "demo", home=tmp_path / "home")
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert "Shadow report relayed" in run.stdout.decode(), run.stdout.decode()[-2000:]
    assert _among(modules, CLIENT_ONLY) == []


def _card(**data: object) -> Card:
    return Card(session_id="s", anchor_seq=3, key="shadow:c1", kind="shadow-mind-review", data=dict(data))


async def test_the_contributions_load_their_code_when_used() -> None:
    renderer, tab, style = client_contributions(lambda: None)
    assert isinstance(renderer, CardRenderer) and renderer.kind == "shadow-mind-review"
    assert isinstance(tab, SettingsTab) and (tab.namespace, tab.title, tab.order) == ("shadow-mind-runtime", "Shadow Mind", 5)
    assert isinstance(style, Stylesheet) and style.css == CARD_STYLESHEET
    assert renderer.view is not None and renderer.restore is not None and tab.load is not None and tab.save is not None
    # without a runtime the card starts collapsed, as before the runtime is up
    view = renderer.view(_card(runs=[]))
    assert isinstance(view, CardView) and view.collapsed_by_default
    assert renderer.restore("s", []) == []
    # the page needs the runtime: the error names it, from load and save alike
    with pytest.raises(DshError, match="not running"):
        await tab.load()
    with pytest.raises(DshError, match="not running"):
        await tab.save({"enabled": True})
