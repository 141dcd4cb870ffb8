"""Plugin resolution (entry points, ``module:attr``), config validation and registration."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import attrs
import pluggy
import pytest

from harness.plugins import (
    HookWrapperRefused,
    LoadedPlugin,
    instantiate_plugin,
    load_plugins,
    make_plugin_manager,
    resolve_plugin,
)
from harness.profiles import ProfileRow, compose_profile
from hookspecs import hookimpl
from hookspecs.errors import PluginError, ProfileError
from hookspecs.protocols import CreateAgentOptions
from hookspecs.values import AgentOptions

from .helpers import scripted_host

DEMO_MODULE = """\
import attrs
from hookspecs import hookimpl


@attrs.frozen(kw_only=True)
class DemoConfig:
    greeting: str = "hi"
    max_turns: int = 3
    tags: list[str] = attrs.field(factory=list)


class DemoPlugin:
    config_schema = DemoConfig
    built = []

    def __init__(self, config):
        self.config = config
        DemoPlugin.built.append(self)

    @hookimpl
    def dsh_session_event(self, session, event):
        pass

    @hookimpl
    def dsh_plugin_setup(self, host):
        pass


class Plain:
    built = []

    def __init__(self):
        Plain.built.append(self)

    @hookimpl
    def dsh_session_created(self, session):
        pass


class Outer:
    class Inner(Plain):
        pass


class Typo:
    @hookimpl
    def dsh_sesion_event(self, session, event):
        pass


class Broken:
    def __init__(self):
        raise RuntimeError("boom")


class BadArgs:
    @hookimpl
    def dsh_session_event(self, session, event, bogus):
        pass


class NotAttrsSchema:
    config_schema = dict

    def __init__(self, config):
        pass


NOT_CALLABLE = 42
"""

BUNDLE = """\
- insert:
    - id: demo-main
      name: demo
      config: {greeting: hello, tags: [a]}
    - id: demo-plain
      name: plain-demo
"""


@pytest.fixture
def demo(fake_distribution) -> Path:  # type: ignore[no-untyped-def]
    """The ``demo-plugin`` distribution: three ``dsh.plugins`` entry points and bundle ``demo``."""
    root = fake_distribution(
        "demo-plugin",
        files={"demo_pkg/__init__.py": DEMO_MODULE, "demo_pkg/bundle.yml": BUNDLE},
        plugins={"demo": "demo_pkg:DemoPlugin", "plain-demo": "demo_pkg:Plain", "module-plugin": "demo_pkg"},
        bundles={"demo": "demo_pkg:bundle.yml"},
    )
    return root


@pytest.fixture
def pm() -> Iterator[pluggy.PluginManager]:
    """A fresh manager; every plugin left registered is removed afterwards."""
    manager = make_plugin_manager()
    try:
        yield manager
    finally:
        for name, _plugin in list(manager.list_name_plugin()):
            if manager.get_plugin(name) is not None:
                manager.unregister(name=name)


def row(row_id: str, name: str, **kwargs: object) -> ProfileRow:
    return ProfileRow(id=row_id, name=name, layer="profile:test.yml", origin=f"test.yml:1: row 1 (id {row_id!r})", **kwargs)  # type: ignore[arg-type]


def test_make_plugin_manager_has_specs_and_no_plugins(demo: Path) -> None:
    """The factory adds every spec and loads no entry point, even with one installed."""
    pm = make_plugin_manager()
    assert pm.project_name == "dsh"
    assert pm.get_plugins() == set()
    assert pm.hook.dsh_session_event.has_spec() and pm.hook.dsh_plugin_setup.has_spec()


def test_entry_point_end_to_end(tmp_path: Path, demo: Path, pm: pluggy.PluginManager) -> None:
    """A bundle from a real dist-info pulls rows whose plugins resolve via ``dsh.plugins``."""
    profile = tmp_path / "profile.yml"
    profile.write_text("- {bundle: demo}\n- {id: demo-main, config: {greeting: hey, max_turns: 5}}\n")
    composed = compose_profile(profile, dsh_home=tmp_path)
    main = composed.get("demo-main")
    assert main is not None and main.name == "demo" and main.layer == f"profile:{profile}"
    assert composed.get("demo-plain") is not None and composed.get("demo-plain").layer == "bundle:demo"  # type: ignore[union-attr]
    loaded = load_plugins(pm, composed.rows, environ={})
    try:
        assert [(p.row_id, p.plugin_name, p.status) for p in loaded] == [
            ("demo-main", "demo", "loaded"),
            ("demo-plain", "plain-demo", "loaded"),
        ]
        instance = loaded[0].instance
        assert pm.get_plugin("demo-main") is instance
        assert type(instance).__module__ == "demo_pkg"
        # Whole config replaced by the profile row: tags fell back to the default.
        assert repr(instance.config) == "DemoConfig(greeting='hey', max_turns=5, tags=[])"  # type: ignore[attr-defined]
        assert loaded[0].hooks == ("dsh_plugin_setup", "dsh_session_event")
        assert loaded[1].hooks == ("dsh_session_created",)
        assert loaded[0].layer == f"profile:{profile}" and loaded[1].layer == "bundle:demo"
        assert pm.hook.dsh_session_event.get_hookimpls()[0].plugin is instance
    finally:
        for p in loaded:
            pm.unregister(name=p.row_id)


def test_resolve_entry_point_and_module_attr(demo: Path) -> None:
    """Names resolve as entry points first, then as ``module:attr`` (dotted attrs allowed)."""
    import demo_pkg  # type: ignore[import-not-found]

    assert resolve_plugin("demo", where="w") is demo_pkg.DemoPlugin
    assert resolve_plugin("demo_pkg:Plain", where="w") is demo_pkg.Plain
    assert resolve_plugin("demo_pkg:Outer.Inner", where="w") is demo_pkg.Outer.Inner


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("nope", "where: unknown plugin 'nope'; installed plugins: "),
        ("no_such_module:X", "where: unknown plugin 'no_such_module:X': no module 'no_such_module'"),
        ("demo_pkg:Missing", "where: plugin 'demo_pkg:Missing': 'demo_pkg' has no attribute 'Missing'"),
        ("demo_pkg:NOT_CALLABLE", "where: plugin 'demo_pkg:NOT_CALLABLE' resolves to 42, not a plugin class"),
        ("module-plugin", "where: plugin 'module-plugin' resolves to <module 'demo_pkg'"),
        ("demo_pkg:__name__", "where: plugin 'demo_pkg:__name__' resolves to 'demo_pkg', not a plugin class"),
        (":X", "expected 'module:attr'"),
    ],
)
def test_resolve_failures(demo: Path, name: str, problem: str) -> None:
    """Resolution failures are PluginErrors naming ``where``; unknown names list installed plugins."""
    with pytest.raises(PluginError) as info:
        resolve_plugin(name, where="where")
    assert problem in info.value.message
    if name == "nope":
        assert "demo" in info.value.message and "plain-demo" in info.value.message


def test_unknown_plugin_in_load_names_the_row(pm: pluggy.PluginManager, demo: Path) -> None:
    """load_plugins reports unresolvable rows with their profile location."""
    with pytest.raises(PluginError) as info:
        load_plugins(pm, [row("ok", "plain-demo"), row("x", "foo")], environ={})
    assert info.value.message.startswith("test.yml:1: row 1 (id 'x'): unknown plugin 'foo'; installed plugins: ")
    assert pm.get_plugin("ok") is None  # rolled back


def test_config_validated_against_schema(pm: pluggy.PluginManager, demo: Path) -> None:
    """Config errors name the file, the row id and the field path."""
    with pytest.raises(ProfileError) as info:
        load_plugins(pm, [row("main", "demo", config={"max_turns": "5", "colour": 1})], environ={})
    msg = info.value.message
    assert msg.startswith("test.yml:1: row 1 (id 'main'): field 'config': ")
    assert "unknown field(s): colour" in msg
    with pytest.raises(ProfileError, match=r"expected an integer, got the string '5' @ \$\.max_turns"):
        load_plugins(pm, [row("main", "demo", config={"max_turns": "5"})], environ={})
    with pytest.raises(ProfileError, match=r"@ \$\.tags\[1\]"):
        load_plugins(pm, [row("main", "demo", config={"tags": ["a", 2]})], environ={})
    assert pm.get_plugins() == set()


@attrs.frozen(kw_only=True)
class AliasedConfig:
    max_report_chars: int = attrs.field(default=0, alias="maxReportChars", validator=attrs.validators.ge(0))
    plain: bool = False


class AliasedPlugin:
    config_schema = AliasedConfig

    def __init__(self, config: AliasedConfig) -> None:
        self.config = config


def test_config_is_keyed_like_settings() -> None:
    """An aliased field is named by its alias, as in settings documents, so a
    settings schema can be the config_schema of the row that is its base layer."""
    plugin = instantiate_plugin(AliasedPlugin, {"maxReportChars": 5, "plain": True}, name="a", where="w")
    assert isinstance(plugin, AliasedPlugin)
    assert plugin.config == AliasedConfig(maxReportChars=5, plain=True)
    with pytest.raises(ProfileError, match=r"unknown field\(s\): max_report_chars"):
        instantiate_plugin(AliasedPlugin, {"max_report_chars": 5}, name="a", where="w")
    with pytest.raises(ProfileError, match=r"expected an integer, got the string '5' @ \$\.maxReportChars"):
        instantiate_plugin(AliasedPlugin, {"maxReportChars": "5"}, name="a", where="w")


def test_plugin_without_schema(demo: Path) -> None:
    """No config_schema: built as ``cls()``; any config is an error."""
    import demo_pkg  # type: ignore[import-not-found]

    assert isinstance(instantiate_plugin(demo_pkg.Plain, {}, name="p", where="w"), demo_pkg.Plain)
    with pytest.raises(ProfileError, match="w: field 'config': plugin 'p' takes no config .*unknown field\\(s\\): x"):
        instantiate_plugin(demo_pkg.Plain, {"x": 1}, name="p", where="w")
    with pytest.raises(PluginError, match="config_schema must be an attrs class"):
        instantiate_plugin(demo_pkg.NotAttrsSchema, {}, name="n", where="w")
    with pytest.raises(PluginError, match="w: plugin 'b' failed to start: RuntimeError: boom"):
        instantiate_plugin(demo_pkg.Broken, {}, name="b", where="w")


def test_disabled_rows_are_not_instantiated(pm: pluggy.PluginManager, demo: Path) -> None:
    """``disabled: true`` rows are reported but never resolved or built."""
    import demo_pkg  # type: ignore[import-not-found]

    before = len(demo_pkg.Plain.built)
    loaded = load_plugins(pm, [row("p", "plain-demo", disabled=True), row("x", "does-not-exist", disabled=True)], environ={})
    assert [(p.row_id, p.status, p.instance) for p in loaded] == [("p", "disabled", None), ("x", "disabled", None)]
    assert len(demo_pkg.Plain.built) == before and pm.get_plugins() == set()


@pytest.mark.parametrize("blocked", ["p", "plain-demo", " other , p "])
def test_dsh_disabled_plugins_blocks_by_id_or_name(pm: pluggy.PluginManager, demo: Path, blocked: str) -> None:
    """``DSH_DISABLED_PLUGINS`` blocks rows by id or plugin name (``set_blocked``), unbuilt."""
    import demo_pkg  # type: ignore[import-not-found]

    before = len(demo_pkg.Plain.built)
    loaded = load_plugins(pm, [row("p", "plain-demo"), row("d", "demo")], environ={"DSH_DISABLED_PLUGINS": blocked})
    try:
        assert [(p.row_id, p.status) for p in loaded] == [("p", "blocked"), ("d", "loaded")]
        assert pm.is_blocked("p") and pm.get_plugin("p") is None
        assert len(demo_pkg.Plain.built) == before
    finally:
        pm.unregister(name="d")


def test_builtins_first_and_blockable(pm: pluggy.PluginManager, demo: Path) -> None:
    """Built-ins register first under their names; they can be blocked too."""

    class Builtin:
        @hookimpl
        def dsh_session_disposed(self, session: object) -> None:
            pass

    core, extra = Builtin(), Builtin()
    loaded = load_plugins(
        pm,
        [row("p", "plain-demo")],
        environ={"DSH_DISABLED_PLUGINS": "extra"},
        builtins=[("core", core), ("extra", extra)],
    )
    try:
        assert [(p.row_id, p.layer, p.status) for p in loaded] == [
            ("core", "builtin", "loaded"),
            ("extra", "builtin", "blocked"),
            ("p", "profile:test.yml", "loaded"),
        ]
        assert loaded[0] == LoadedPlugin(
            row_id="core", plugin_name="core", instance=core, layer="builtin", hooks=("dsh_session_disposed",)
        )
        assert pm.get_plugin("core") is core and pm.is_blocked("extra")
    finally:
        for p in loaded:
            if p.status == "loaded":
                pm.unregister(name=p.row_id)


def test_misspelled_hook_names_the_plugin(pm: pluggy.PluginManager, demo: Path) -> None:
    """check_pending failures name the row, the plugin and the unknown hook, and roll back."""
    with pytest.raises(PluginError) as info:
        load_plugins(pm, [row("good", "plain-demo"), row("typo", "demo_pkg:Typo")], environ={})
    msg = info.value.message
    assert msg.startswith("test.yml:1: row 1 (id 'typo'): plugin 'typo' implements unknown hook 'dsh_sesion_event'")
    assert "did you mean 'dsh_session_event'?" in msg
    assert pm.get_plugin("good") is None and pm.get_plugin("typo") is None


def test_hookimpl_signature_mismatch(pm: pluggy.PluginManager, demo: Path) -> None:
    """An implementation asking for an argument the spec lacks fails at registration."""
    with pytest.raises(PluginError, match=r"row 1 \(id 'bad'\): plugin 'demo_pkg:BadArgs' does not match the hookspecs: .*bogus"):
        load_plugins(pm, [row("bad", "demo_pkg:BadArgs")], environ={})


def test_duplicate_registration_name(pm: pluggy.PluginManager, demo: Path) -> None:
    """A row id that clashes with a built-in's name is a PluginError, rolled back."""
    with pytest.raises(PluginError, match="cannot be registered as 'p'"):
        load_plugins(pm, [row("p", "plain-demo")], environ={}, builtins=[("p", object())])
    assert pm.get_plugins() == set()


def test_import_error_in_plugin_module(fake_distribution, pm: pluggy.PluginManager) -> None:  # type: ignore[no-untyped-def]
    """A plugin whose module fails to import names the row and the entry point."""
    fake_distribution(
        "crashy",
        files={"crashy_pkg.py": "import not_a_real_dependency_xyz\nclass P: pass\n"},
        plugins={"crashy": "crashy_pkg:P"},
    )
    with pytest.raises(PluginError) as info:
        load_plugins(pm, [row("c", "crashy")], environ={})
    assert "row 1 (id 'c'): plugin 'crashy' (entry point 'crashy_pkg:P') failed to import: ModuleNotFoundError" in info.value.message
    with pytest.raises(PluginError, match="plugin 'crashy_pkg:P' failed to import: No module named 'not_a_real_dependency_xyz'"):
        resolve_plugin("crashy_pkg:P", where="w")


def test_profile_file_to_registered_plugin(tmp_path: Path, fake_distribution, pm: pluggy.PluginManager) -> None:  # type: ignore[no-untyped-def]
    """A plugin activated from a profile file: config errors point back into that file."""
    fake_distribution(
        "solo",
        files={
            "solo_pkg.py": textwrap.dedent(
                """\
                import attrs
                from hookspecs import hookimpl

                @attrs.frozen(kw_only=True)
                class Config:
                    level: int = 1

                class Solo:
                    config_schema = Config
                    def __init__(self, config):
                        self.config = config
                    @hookimpl
                    def dsh_agent_created(self, agent):
                        pass
                """
            )
        },
        plugins={"solo": "solo_pkg:Solo"},
    )
    profile = tmp_path / "solo.yml"
    profile.write_text("- id: solo\n  name: solo\n  config:\n    level: high\n")
    composed = compose_profile(profile, dsh_home=tmp_path)
    with pytest.raises(ProfileError) as info:
        load_plugins(pm, composed.rows, environ={})
    assert info.value.message.startswith(f"{profile}:1: row 1 (id 'solo'): field 'config': ")
    assert "$.level" in info.value.message
    profile.write_text("- id: solo\n  name: solo\n  config: {level: 4}\n")
    loaded = load_plugins(pm, compose_profile(profile, dsh_home=tmp_path).rows, environ={})
    try:
        assert loaded[0].instance.config.level == 4 and loaded[0].hooks == ("dsh_agent_created",)  # type: ignore[union-attr]
    finally:
        pm.unregister(name="solo")


# --- pluggy wrappers: the host walks implementations itself and refuses them ----------


class NewStyleWrapper:
    @hookimpl(wrapper=True)
    def dsh_agent_request(self, config: object) -> Iterator[object]:
        return (yield)


class OldStyleWrapper:
    @hookimpl(hookwrapper=True)
    def dsh_session_event(self, event: object) -> Iterator[None]:
        yield


class PlainBuiltin:
    @hookimpl
    def dsh_session_disposed(self, session: object) -> None:
        pass


WRAPPERS = [(NewStyleWrapper, "dsh_agent_request", "wrapper=True"), (OldStyleWrapper, "dsh_session_event", "hookwrapper=True")]


@pytest.mark.parametrize(("plugin", "hook", "kind"), WRAPPERS)
def test_wrappers_are_refused_at_load(pm: pluggy.PluginManager, plugin: type, hook: str, kind: str) -> None:
    """Refused with one line naming the row, the plugin and the hook (they used to be skipped silently)."""
    with pytest.raises(PluginError) as info:
        load_plugins(pm, [], environ={}, builtins=[("good", PlainBuiltin()), ("wrapping", plugin())])
    msg = info.value.message
    assert msg.startswith(f"built-in plugin 'wrapping': plugin 'wrapping' implements hook {hook!r} as a pluggy wrapper ({kind})")
    assert "use a plain @hookimpl" in msg and "\n" not in msg
    assert pm.get_plugins() == set()  # nothing half-registered, the earlier built-in rolled back


@pytest.mark.parametrize(("plugin", "hook", "kind"), WRAPPERS)
async def test_wrappers_are_refused_in_an_agent_scope(tmp_path: Path, plugin: type, hook: str, kind: str) -> None:
    async with scripted_host(tmp_path, "responses: []\n") as (host, _):
        options = CreateAgentOptions(
            agent_options=AgentOptions(provider="scripted", model="m"),
            setup=lambda scope: scope.add_plugin(plugin(), name="wrapping"),
        )
        with pytest.raises(HookWrapperRefused, match=rf"implements hook '{hook}' as a pluggy wrapper \({kind}\)"):
            await host.agents.create(options)
        assert host.agents.list() == []
        assert not [name for name, _ in host.pm.list_name_plugin() if name.startswith("scope:")]


def test_a_validator_failure_names_its_field() -> None:
    """attrs validators run inside ``__init__``, where cattrs loses the field:
    the row's error still names it, as settings documents do."""
    with pytest.raises(ProfileError) as info:
        instantiate_plugin(AliasedPlugin, {"maxReportChars": -5, "plain": "yes"}, name="a", where="w")
    message = info.value.message
    assert message.startswith("w: field 'config': ")
    assert "'maxReportChars' must be >= 0: -5 @ $.maxReportChars" in message
    assert "@ $.plain" in message and "invalid value @ $" not in message


async def test_a_scope_plugin_is_scanned_once(tmp_path: Path) -> None:
    """Registering an agent's plugin looks at each of its attributes once: the
    wrapper refusal rides on pluggy's own discovery instead of a second pass
    over ``dir(plugin)`` (every reviewer child registers such plugins)."""
    async with scripted_host(tmp_path, "responses: []\n") as (host, _):
        looked: list[str] = []
        parse = host.pm.parse_hookimpl_opts

        def counted(plugin: object, name: str) -> object:
            if isinstance(plugin, PlainBuiltin):
                looked.append(name)
            return parse(plugin, name)

        host.pm.parse_hookimpl_opts = counted  # type: ignore[method-assign]
        options = CreateAgentOptions(
            agent_options=AgentOptions(provider="scripted", model="m"),
            setup=lambda scope: scope.add_plugin(PlainBuiltin(), name="plain"),
        )
        handle = await host.agents.create(options)
        try:
            assert looked and sorted(looked) == sorted(dir(PlainBuiltin()))
            assert [p for p in host.pm.get_plugins() if isinstance(p, PlainBuiltin)]
        finally:
            await handle.dispose()
