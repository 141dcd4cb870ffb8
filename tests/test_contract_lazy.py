"""``hookspecs.values`` resolves its names on first use (PEP 562), and the contract's
modules import value classes only for what runs.

Importing the package alone loads no submodule; every name of ``__all__`` still
imports, as the very object its submodule defines. The name -> submodule table,
``__all__``, the ``TYPE_CHECKING`` imports type checkers read and the
submodules' own public names are kept equal here, so none can drift.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import pytest

import hookspecs.values as values

from .cli_env import cli_env

REPO = Path(__file__).resolve().parents[1]
VALUES_DIR = REPO / "hookspecs" / "values"

#: public names a home submodule defines that the package does not re-export:
#: helpers of the contract's own modules, type variables, a constant the
#: stylesheet check reads
NOT_REEXPORTED = {
    "client": {"MAX_STYLESHEET_CHARS"},
    "client_views": {"Widget"},
    "json": {"freeze_mapping"},
    "setting_fields": {"T", "S", "SETTING", "Kind"},
    # the type aliases fields are annotated with: imported from their submodule
    "agents": {"CancelBy", "PromptSectionKind"},
    "commands": {"CommandHandler"},
    "events": {"Origin", "TurnEndKind"},
    "llm": {"FinishReason"},
    "messages": {"BLOCK_TYPES", "new_message_id", "block_to_json", "Role"},
    "settings": {"SettingsCheck", "SettingsHeal"},
    "tools": {"ToolArgumentsCheck", "ToolExecute", "ToolOutput"},
}


def _loaded_after(code: str) -> list[str]:
    """The ``hookspecs`` modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport sys\nprint('\\n'.join(sorted(m for m in sys.modules if m.startswith('hookspecs'))))"
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=cli_env(), capture_output=True, text=True, check=False, timeout=60
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.split()


def _type_checking_imports() -> dict[str, str]:
    """name -> submodule, as the package's ``if TYPE_CHECKING:`` block imports it."""
    tree = ast.parse((VALUES_DIR / "__init__.py").read_text())
    [block] = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    out: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1 and node.module, ast.unparse(node)
        for alias in node.names:
            assert alias.asname is None, ast.unparse(node)
            out[alias.name] = node.module
    return out


def _public_names(module: str) -> set[str]:
    """Names a submodule defines at its top level (not imported, not ``_private``)."""
    tree = ast.parse((VALUES_DIR / f"{module}.py").read_text())
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def test_importing_the_package_loads_no_submodule() -> None:
    # hookspecs.lazy: the loader both packages share
    assert _loaded_after("import hookspecs.values") == ["hookspecs", "hookspecs.lazy", "hookspecs.values"]


def test_a_name_loads_only_its_own_submodule_and_what_that_imports() -> None:
    loaded = _loaded_after("from hookspecs.values import CardRenderer, SettingsTab, Stylesheet")
    assert "hookspecs.values.client" in loaded
    # the view models and forms are a rich client's; registering needs none of them
    assert "hookspecs.values.client_views" not in loaded
    assert [m for m in loaded if m.startswith("hookspecs.values.")] == ["hookspecs.values.client"]


@pytest.mark.parametrize("name", values.__all__)
def test_every_name_imports_as_its_submodules_object(name: str) -> None:
    home = values._HOMES[name]
    exec(f"from hookspecs.values import {name} as got", namespace := {})
    assert namespace["got"] is getattr(import_module(f"hookspecs.values.{home}"), name)
    assert getattr(values, name) is namespace["got"]


def test_every_name_imports_in_a_fresh_interpreter() -> None:
    # the test process has the submodules loaded already; a fresh one resolves each on demand
    code = "from hookspecs.values import *\nimport hookspecs.values as v\nassert all(n in globals() for n in v.__all__)"
    assert "hookspecs.values.client_views" in _loaded_after(code)


def test_a_name_its_submodule_shares_stays_the_name() -> None:
    """``setting_fields`` is a function and the submodule defining it: importing the
    submodule, directly or through another name, does not replace the function."""
    code = (
        "import hookspecs.values.setting_fields\n"
        "from hookspecs.values import setting_fields, Settings\n"
        "assert callable(setting_fields) and setting_fields.__module__ == 'hookspecs.values.setting_fields'\n"
        "import sys\n"
        "assert setting_fields is sys.modules['hookspecs.values.setting_fields'].setting_fields"
    )
    assert "hookspecs.values.setting_fields" in _loaded_after(code)


def test_an_unknown_name_raises_naming_it() -> None:
    with pytest.raises(AttributeError, match="'hookspecs.values' has no attribute 'NoSuchValue'"):
        values.NoSuchValue  # noqa: B018
    with pytest.raises(ImportError, match="NoSuchValue"):
        exec("from hookspecs.values import NoSuchValue", {})


def test_dir_lists_every_name() -> None:
    assert set(values.__all__) <= set(dir(values))


def test_the_table_all_and_the_type_checking_imports_agree() -> None:
    assert len(values.__all__) == len(set(values.__all__))
    assert set(values._HOMES) == set(values.__all__)
    assert _type_checking_imports() == values._HOMES
    # each name is listed under one submodule only
    assert sum(len(names) for names in values._EXPORTS.values()) == len(values._HOMES)


@pytest.mark.parametrize("module", sorted({*values._HOMES.values()}))
def test_the_table_covers_its_submodules_public_names(module: str) -> None:
    """A public name added to a home submodule is re-exported or listed above as not."""
    exported = {name for name, home in values._HOMES.items() if home == module}
    assert exported | NOT_REEXPORTED.get(module, set()) == _public_names(module)
    assert not exported & NOT_REEXPORTED.get(module, set())


def test_protocols_load_no_value_module_they_only_annotate_with() -> None:
    """``hookspecs.protocols`` names value classes in annotations; loading it creates
    only the values it uses at run time (``CreateAgentOptions``' default, ``FinishRun``)."""
    loaded = _loaded_after("import hookspecs.protocols")
    for module in ("client", "client_views", "commands", "compaction", "settings", "setting_fields", "events"):
        assert f"hookspecs.values.{module}" not in loaded


def test_the_spec_modules_load_no_value_or_protocol_module() -> None:
    loaded = _loaded_after("import hookspecs\nhookspecs.SPEC_MODULES")
    assert [m for m in loaded if m.startswith(("hookspecs.values", "hookspecs.protocols"))] == []


def test_the_scrubber_compiles_its_rare_patterns_at_first_use() -> None:
    """The path rules, the control-character stand-ins and the detector's
    patterns for what the gate flags: none is compiled by importing the scrubber
    (nor by a run up to its model request, which never needs them)."""
    code = (
        "import hookspecs.scrub as s, hookspecs.secrets_detect as d\n"
        "getters = (s._path_rules, s._shown_differently, d._pem, d._value_shapes)\n"
        "assert [g.cache_info().currsize for g in getters] == [0, 0, 0, 0]\n"
        "assert s.scrub_text('see /home/me/x') == 'see [absolute-path]'\n"
        "assert s.visible('a\\x1bb') == 'a^[b'\n"
        "assert s.scrub_secrets('password = hunter2hunter2') == 'password = [credential]'\n"
        "pem = '-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA7dZq3uXl9Ykq2Vq0nqk6\\n-----END RSA PRIVATE KEY-----'\n"
        "assert s.scrub_secrets(pem) == '[credential]'\n"
        "assert [g.cache_info().currsize for g in getters] == [1, 1, 1, 1]"
    )
    assert "hookspecs.scrub" in _loaded_after(code)


def test_a_submodule_failing_with_attribute_error_is_reported_with_its_cause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``from hookspecs.values import X`` turns an AttributeError out of ``__getattr__``
    into "cannot import name 'X'" and drops it: a submodule's own AttributeError
    (a typo, an incompatible attrs or cattrs) vanished without a trace."""
    (tmp_path / "broken_for_test.py").write_text("import attrs\nattrs.no_such_decorator\n")
    monkeypatch.setattr(values, "__path__", [*values.__path__, str(tmp_path)])
    monkeypatch.setitem(values._HOMES, "BrokenForTest", "broken_for_test")
    with pytest.raises(ImportError) as caught:
        exec("from hookspecs.values import BrokenForTest", {})
    assert "no_such_decorator" in str(caught.value)
    assert isinstance(caught.value.__cause__, AttributeError)


def test_the_top_package_reports_a_failing_submodule_with_its_cause(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hookspecs`` loads its names on first use too: the same loss as above."""
    import hookspecs

    (tmp_path / "broken_for_test.py").write_text("import attrs\nattrs.no_such_decorator\n")
    monkeypatch.setattr(hookspecs, "__path__", [*hookspecs.__path__, str(tmp_path)])
    monkeypatch.setitem(hookspecs._HOMES, "BrokenForTest", ".broken_for_test")
    with pytest.raises(ImportError) as caught:
        exec("from hookspecs import BrokenForTest", {})
    assert "no_such_decorator" in str(caught.value)
    assert isinstance(caught.value.__cause__, AttributeError)
