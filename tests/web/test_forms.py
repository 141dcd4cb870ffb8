"""A settings tab without its own ``load``/``save``: the form comes from the
namespace's settings schema plus the tab's hints, and saving goes through the
settings service with problems placed at their fields."""

from __future__ import annotations

from typing import Any

import attrs
from attrs import validators as v

from harness.web.forms import field_payload, load_form, save_form
from hookspecs import hookimpl
from hookspecs.values import FieldHint, SettingsSpec, SettingsTab


@attrs.frozen(kw_only=True)
class GreeterSettings:
    greeting: str = "hello"
    loud: bool = False
    repeat: int = attrs.field(default=1, validator=v.ge(1))
    style: str = attrs.field(default="plain", validator=v.in_(("plain", "fancy")))
    names: tuple[str, ...] = ()
    limit: int | None = None


class Greeter:
    @hookimpl
    def dsh_register_settings(self, register: Any) -> None:
        register(SettingsSpec(namespace="greeter", schema=GreeterSettings, title="Greeter"))

    @hookimpl
    def dsh_register_client(self, register: Any) -> None:
        hints = {"greeting": FieldHint(label="Greeting", widget="textarea", section="main", order=1)}
        register(SettingsTab(plugin="greeter", namespace="greeter", title="Greeter", hints=hints))


async def test_a_schema_form_renders_and_saves_through_the_settings_service(dsh_host: Any) -> None:
    async with dsh_host(plugins={"greeter": Greeter()}) as host:
        [tab] = [t for t in host.client.settings_tabs() if t.namespace == "greeter"]
        form = await load_form(host, tab)
        fields = {f.key: field_payload(f) for f in form.fields}
        assert fields["greeting"]["widget"] == "textarea" and fields["greeting"]["label"] == "Greeting"
        assert fields["loud"]["widget"] == "switch" and fields["repeat"]["widget"] == "number"
        assert fields["names"]["widget"] == "lines" and fields["limit"]["nullable"]
        assert fields["repeat"]["value"] == 1
        errors = await save_form(host, tab, {"repeat": 0, "greeting": "hi"})
        assert list(errors) == ["repeat"]
        assert host.settings.get("greeter").greeting == "hello"  # nothing written
        assert await save_form(host, tab, {"repeat": 3, "loud": True, "names": ["a", "b"]}) == {}
        saved = host.settings.get("greeter")
        assert (saved.repeat, saved.loud, saved.names) == (3, True, ("a", "b"))
        reloaded = {f.key: f.value for f in (await load_form(host, tab)).fields}
        assert reloaded["repeat"] == 3 and reloaded["names"] == ["a", "b"]
