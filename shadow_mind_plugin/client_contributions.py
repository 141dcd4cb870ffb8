"""What the runtime plugin registers for rich clients (``dsh_register_client``).

Every host collects these at start, a headless ``harness run`` too, so they are
data plus callables that load their code on first use: the terminal text of a
card (``governance/cards.py``), its view model and the report cards rebuilt
after a restart (``client_view.py``), the Settings page (``settings_tab.py``).
A run that no client looks at loads none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from hookspecs.values import CardRenderer, SettingsTab, Stylesheet

from .vocabulary import CARD_KIND, SETTINGS_NAMESPACE

if TYPE_CHECKING:
    from hookspecs.values import Card, CardView, ClientContribution, FieldErrors, SettingsForm

    from .runtime.runtime import ShadowRuntime
    from .settings_tab import ShadowSettingsTab

#: Shadow Mind's stylesheet for rich clients: the phase of each run at a glance.
CARD_STYLESHEET: Final = f"""\
.card[data-kind="{CARD_KIND}"] {{ border-left-color: #6b4fbb; }}
.card[data-kind="{CARD_KIND}"].quiet {{ border-left-color: var(--ok); }}
.card[data-kind="{CARD_KIND}"] .phase-report .phase {{ color: #4f3596; background: #efe9ff; font-weight: 600; }}
@media (prefers-color-scheme: dark) {{
  .card[data-kind="{CARD_KIND}"] {{ border-left-color: #a28bf0; }}
  .card[data-kind="{CARD_KIND}"] .phase-report .phase {{ color: #d9ccff; background: #352a5c; }}
}}
"""

#: the Settings → Plugins → Shadow Mind page's introduction
SETTINGS_INTRO: Final = (
    "One background Shadow reviewer reads the main agent's recent work after a turn and relays "
    "findings worth acting on. These settings edit the default reviewer definition and its scheduling."
)

RuntimeOf = Callable[[], "ShadowRuntime | None"]


def client_contributions(runtime: RuntimeOf) -> tuple[ClientContribution, ...]:
    """The card renderer, the settings tab and the stylesheet; ``runtime`` gives
    the live runtime (None before ``dsh_plugin_setup`` and after teardown)."""
    page = _SettingsPage(runtime)
    return (
        CardRenderer(kind=CARD_KIND, render=_render_card, view=_CardView(runtime), restore=_restore_cards),
        SettingsTab(
            plugin="shadow-mind",
            namespace=SETTINGS_NAMESPACE,
            title="Shadow Mind",
            order=5,
            intro=SETTINGS_INTRO,
            load=page.load,
            save=page.save,
        ),
        Stylesheet(plugin="shadow-mind", css=CARD_STYLESHEET),
    )


def _render_card(card: Card) -> str:
    # cards exist once a review is scheduled: the governance package loads then
    from .governance.cards import render_card

    return render_card(card)


def _restore_cards(session_id: str, events: Sequence[Any]) -> list[Card]:
    from .client_view import restore_cards

    return restore_cards(session_id, events)


class _CardView:
    """A card's view model with the live ``collapsedByDefault`` preference
    (collapsed while the runtime is not up)."""

    def __init__(self, runtime: RuntimeOf) -> None:
        self._runtime = runtime

    def __call__(self, card: Card) -> CardView:
        from .client_view import card_view

        return card_view(card, self._collapsed_by_default)

    def _collapsed_by_default(self) -> bool:
        runtime = self._runtime()
        return runtime.settings().collapsed_by_default if runtime is not None else True


class _SettingsPage:
    """The settings tab's ``load`` and ``save``: the page's code (forms, the
    reviewer definitions, the management checks) loads when a client opens it."""

    def __init__(self, runtime: RuntimeOf) -> None:
        self._runtime = runtime
        self._page: ShadowSettingsTab | None = None

    def _loaded(self) -> ShadowSettingsTab:
        if self._page is None:
            from .settings_tab import ShadowSettingsTab

            self._page = ShadowSettingsTab(self._runtime)
        return self._page

    async def load(self) -> SettingsForm:
        return await self._loaded().load()

    async def save(self, patch: Mapping[str, Any]) -> FieldErrors:
        return await self._loaded().save(patch)
