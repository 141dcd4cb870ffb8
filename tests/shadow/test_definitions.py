"""Definition files, the shadow-minds store, the holdout sidecar, journals, starters."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import attrs
import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from shadow_mind_plugin.definitions import (
    Catalog,
    DefinitionDiagnostic,
    DefinitionError,
    HoldoutKeyError,
    ShadowDefinition,
    ShadowRegistry,
    builtin_default,
    list_starters,
    load_starter,
    parse_definition,
    serialize_definition,
)
from shadow_mind_plugin.definitions.journal import encode_record
from shadow_mind_plugin.definitions.probes import (
    PROBE_IDS,
    STARTER_PROBES,
    render_probe_checklist,
)
from shadow_mind_plugin.definitions.seed import DEFAULT_PROMPT
from shadow_mind_plugin.definitions.starters import (
    CLOSING_RULE,
    STARTER_SPECS,
    render_starter,
    starter_source,
)
from shadow_mind_plugin.routes import js_trim

SIDECAR_DISPLAY = "$DSH_HOME/shadow-minds/holdout-keys.json"


# ---------------------------------------------------------------- helpers


def doc(frontmatter: str, body: str = "Review the turn.") -> str:
    return f"---\n{frontmatter}---\n\n{body}\n"


def parse(text: str, name: str = "test.md") -> ShadowDefinition:
    return parse_definition(text, Path("/defs") / name)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def backdate(path: Path, seconds: float = 60.0) -> None:
    """Move mtime out of the registry's racy window (as if edited long ago)."""
    past = time.time() - seconds
    os.utime(path, (past, past))


def put(registry: ShadowRegistry, name: str, text: str, *, age: float = 60.0) -> Path:
    registry.root.mkdir(parents=True, exist_ok=True)
    path = registry.root / name
    path.write_text(text, encoding="utf-8")
    backdate(path, age)
    return path


def put_sidecar(registry: ShadowRegistry, content: str) -> Path:
    return put(registry, "holdout-keys.json", content)


# ----------------------------------------------------------------- parser


def test_parser_accepts_every_field_crlf_and_legacy_keys() -> None:
    text = (
        "---\r\n"
        "id: reviewer\r\n"
        "name: '  Careful Reviewer  '\r\n"
        "enabled: false\r\n"
        "debug: true\r\n"
        "activation_probability: 0.25\r\n"
        "active_for_models: [' gpt-* ', deepseek/*]\r\n"
        "run_with_model: ' openai/gpt-5 '\r\n"
        "reasoning_effort: high\r\n"
        "timeout_seconds: 90\r\n"
        "tools: [bash, web_fetch]\r\n"
        "capture: since-compaction\r\n"
        "context: minimal\r\n"
        "think_first: true\r\n"
        "holdout: true\r\n"
        "agent_preset: old\r\n"
        "pre_filter: {any: 1}\r\n"
        "boost_filter: [x]\r\n"
        "boost_factor: 2\r\n"
        "---\r\n"
        "\r\n"
        "  Line one.\r\n"
        "Line two.\r\n\r\n"
    )
    d = parse(text, "file-stem.md")
    assert d == ShadowDefinition(
        id="reviewer",
        name="Careful Reviewer",
        enabled=False,
        debug=True,
        activation_probability=0.25,
        active_for_models=("gpt-*", "deepseek/*"),
        run_with_model="openai/gpt-5",
        reasoning_effort="high",
        timeout_seconds=90.0,
        tools=("bash", "web_fetch"),
        capture="since-compaction",
        context="minimal",
        think_first=True,
        holdout=True,
        prompt="Line one.\nLine two.",
    )
    assert d.source_path == Path("/defs/file-stem.md")
    assert isinstance(d.timeout_seconds, float)


def test_parser_defaults() -> None:
    d = parse(doc("{}\n"), "my-shadow.md")
    assert d.id == "my-shadow" and d.name == "my-shadow"
    assert d.activation_probability == 0.7
    assert (d.enabled, d.debug, d.think_first, d.holdout) == (True, False, False, False)
    assert (d.capture, d.context) == ("full", "standard")
    assert d.tools == () and d.active_for_models == ()
    assert d.run_with_model is None and d.reasoning_effort is None and d.timeout_seconds is None


def test_parser_edge_values() -> None:
    # the reference reads an explicit null probability as "use the default"
    assert parse(doc("activation_probability:\n")).activation_probability == 0.7
    assert parse(doc("activation_probability: 0\n")).activation_probability == 0.0
    assert parse(doc("activation_probability: 1\n")).activation_probability == 1.0
    # YAML 1.2 core schema: dates stay strings
    assert parse(doc("name: 2024-05-01\n")).name == "2024-05-01"
    # the closing fence is the first `---` line; later ones belong to the body
    assert parse(doc("name: x\n", "a\n---\nb")).prompt == "a\n---\nb"
    # only a trailing `.md` is stripped from the stem
    assert parse(doc("{}\n"), "v1_2.md").id == "v1_2"


MALFORMED: list[tuple[str, str, str]] = [
    ("no opening fence", "name: x\n---\nbody\n", "definition must start with YAML frontmatter"),
    ("no closing fence", "---\nname: x\nbody\n", "definition frontmatter needs a closing --- line"),
    ("fence without newline", "---\nname: x\n---", "definition frontmatter needs a closing --- line"),
    ("sequence frontmatter", doc("- a\n- b\n"), "frontmatter must be a YAML mapping"),
    ("scalar frontmatter", doc("just words\n"), "frontmatter must be a YAML mapping"),
    ("empty frontmatter", "---\n\n---\nbody\n", "frontmatter must be a YAML mapping"),
    ("unknown keys sorted", doc("zeta: 1\nname: x\nalpha: 2\n"), "unknown frontmatter field(s): alpha, zeta"),
    ("id pattern", doc("id: Bad_Id\n"), "id must match /^[a-z0-9][a-z0-9_-]*$/u"),
    ("id leading dash", doc("id: -x\n"), "id must match /^[a-z0-9][a-z0-9_-]*$/u"),
    ("id blank", doc("id: '  '\n"), "id must be a non-empty string"),
    ("name not a string", doc("name: 1\n"), "name must be a non-empty string"),
    ("name multi-line", doc('name: "a\\nb"\n'), "name must be a single line"),
    ("empty body", doc("name: x\n", "   \n\n"), "Markdown body must be non-empty"),
    ("probability > 1", doc("activation_probability: 1.5\n"), "activation_probability must be a finite number from 0 through 1"),
    ("probability < 0", doc("activation_probability: -0.1\n"), "activation_probability must be a finite number from 0 through 1"),
    ("probability nan", doc("activation_probability: .nan\n"), "activation_probability must be a finite number from 0 through 1"),
    ("probability inf", doc("activation_probability: .inf\n"), "activation_probability must be a finite number from 0 through 1"),
    ("probability bool", doc("activation_probability: true\n"), "activation_probability must be a finite number from 0 through 1"),
    ("probability string", doc("activation_probability: '0.5'\n"), "activation_probability must be a finite number from 0 through 1"),
    ("timeout zero", doc("timeout_seconds: 0\n"), "timeout_seconds must be a positive finite number"),
    ("timeout negative", doc("timeout_seconds: -5\n"), "timeout_seconds must be a positive finite number"),
    ("timeout inf", doc("timeout_seconds: .inf\n"), "timeout_seconds must be a positive finite number"),
    ("timeout null", doc("timeout_seconds:\n"), "timeout_seconds must be a positive finite number"),
    ("timeout bool", doc("timeout_seconds: true\n"), "timeout_seconds must be a positive finite number"),
    ("timeout huge int", doc(f"timeout_seconds: {10**400}\n"), "timeout_seconds must be a positive finite number"),
    ("tools not a list", doc("tools: bash\n"), "tools must be an array of non-empty strings"),
    ("tools blank entry", doc("tools: [bash, ' ']\n"), "tools must be an array of non-empty strings"),
    ("tools non-string", doc("tools: [bash, 3]\n"), "tools must be an array of non-empty strings"),
    ("tool pattern", doc("tools: [Bash]\n"), 'tool "Bash" must match /^[a-z][a-z0-9_-]*$/u'),
    ("tools duplicate after trim", doc("tools: [bash, ' bash']\n"), "tools must not contain duplicates"),
    ("models non-string", doc("active_for_models: [1]\n"), "active_for_models must be an array of non-empty strings"),
    ("models duplicate", doc("active_for_models: [a, a]\n"), "active_for_models must not contain duplicates"),
    ("route without provider", doc("run_with_model: gpt-5\n"), "run_with_model must use provider/model"),
    ("route with space", doc("run_with_model: openai/gpt 5\n"), "run_with_model must use provider/model"),
    ("route empty model", doc("run_with_model: openai/\n"), "run_with_model must use provider/model"),
    ("route not a string", doc("run_with_model: [a/b]\n"), "run_with_model must be a non-empty string"),
    ("effort blank", doc("reasoning_effort: ''\n"), "reasoning_effort must be a non-empty string"),
    ("enabled yes", doc("enabled: yes\n"), "enabled must be a boolean"),
    ("debug int", doc("debug: 1\n"), "debug must be a boolean"),
    ("think_first string", doc("think_first: 'true'\n"), "think_first must be a boolean"),
    ("holdout null", doc("holdout:\n"), "holdout must be a boolean"),
    ("capture enum", doc("capture: partial\n"), "capture must be one of full, since-compaction"),
    ("context enum", doc("context: tiny\n"), "context must be one of standard, minimal"),
    ("context not a string", doc("context: 1\n"), "context must be one of standard, minimal"),
]


@pytest.mark.parametrize(("text", "reason"), [(t, r) for _, t, r in MALFORMED], ids=[n for n, _, _ in MALFORMED])
def test_malformed_documents(text: str, reason: str) -> None:
    with pytest.raises(DefinitionError) as info:
        parse(text, "broken.md")
    assert info.value.reason == reason
    assert info.value.source == "broken.md"
    assert str(info.value) == f"broken.md: {reason}"
    assert info.value.code == "INVALID_DEFINITION"


def test_malformed_table_is_large_enough() -> None:
    assert len(MALFORMED) >= 23


def test_invalid_stem_without_id() -> None:
    with pytest.raises(DefinitionError, match="id must match"):
        parse(doc("{}\n"), "Upper.md")


@pytest.mark.parametrize(
    "frontmatter",
    ["name: [x\n", "a: 1\na: 2\n", "a: b: c\n", "x: !!python/name:os.system y\n"],
)
def test_yaml_errors(frontmatter: str) -> None:
    with pytest.raises(DefinitionError) as info:
        parse(doc(frontmatter))
    assert info.value.reason.startswith("invalid YAML frontmatter: ")


def test_yaml_error_reports_file_line() -> None:
    with pytest.raises(DefinitionError) as info:
        parse("---\nname: ok\nbad: a: b\n---\nbody\n")
    assert info.value.reason == (
        "invalid YAML frontmatter: mapping values are not allowed here (line 3, column 7)"
    )  # a file position: the frontmatter starts on line 2


# ---------------------------------------------------------- serialization


def test_canonical_serialization_minimal() -> None:
    d = ShadowDefinition(id="x", name="X", prompt="\n  Check things.  \n")
    assert serialize_definition(d) == (
        "---\n"
        "activation_probability: 0.7\n"
        "debug: false\n"
        "enabled: true\n"
        "id: x\n"
        "name: X\n"
        "---\n"
        "\n"
        "Check things.\n"
    )


def test_canonical_serialization_full() -> None:
    d = ShadowDefinition(
        id="full",
        name="Full: one",
        enabled=False,
        debug=True,
        activation_probability=1.0,
        active_for_models=("gpt-*",),
        run_with_model="openai/gpt-5",
        reasoning_effort="high",
        timeout_seconds=30.0,
        tools=("bash",),
        capture="since-compaction",
        context="minimal",
        think_first=True,
        holdout=True,
        prompt="p",
    )
    text = serialize_definition(d)
    assert text == (
        "---\n"
        "activation_probability: 1\n"
        "active_for_models:\n"
        "  - gpt-*\n"
        "capture: since-compaction\n"
        "context: minimal\n"
        "debug: true\n"
        "enabled: false\n"
        "holdout: true\n"
        "id: full\n"
        "name: 'Full: one'\n"
        "reasoning_effort: high\n"
        "run_with_model: openai/gpt-5\n"
        "think_first: true\n"
        "timeout_seconds: 30\n"
        "tools:\n"
        "  - bash\n"
        "---\n"
        "\n"
        "p\n"
    )
    assert parse(text) == d


def test_serialization_rejects_invalid_definitions() -> None:
    with pytest.raises(DefinitionError, match="activation_probability"):
        serialize_definition(ShadowDefinition(id="x", name="x", prompt="p", activation_probability=2.0))
    with pytest.raises(DefinitionError, match="name must be a single line"):
        serialize_definition(ShadowDefinition(id="x", name="a\nb", prompt="p"))
    with pytest.raises(DefinitionError, match="id must match"):
        serialize_definition(ShadowDefinition(id="../x", name="x", prompt="p"))


_line_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=30).map(js_trim).filter(
    lambda s: bool(s) and "\n" not in s and "\r" not in s
)
_tool = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)


@st.composite
def definitions(draw: st.DrawFn) -> ShadowDefinition:
    return ShadowDefinition(
        id=draw(st.from_regex(r"[a-z0-9][a-z0-9_-]{0,10}", fullmatch=True)),
        name=draw(_line_text),
        enabled=draw(st.booleans()),
        debug=draw(st.booleans()),
        activation_probability=draw(st.floats(0, 1)),
        active_for_models=tuple(draw(st.lists(_line_text, max_size=3, unique=True))),
        run_with_model=draw(st.none() | st.from_regex(r"[a-z]{1,5}/[a-z0-9./-]{1,10}", fullmatch=True)),
        reasoning_effort=draw(st.none() | _line_text),
        timeout_seconds=draw(st.none() | st.floats(min_value=1e-3, max_value=1e9)),
        tools=tuple(draw(st.lists(_tool, max_size=3, unique=True))),
        capture=draw(st.sampled_from(["full", "since-compaction"])),
        context=draw(st.sampled_from(["standard", "minimal"])),
        think_first=draw(st.booleans()),
        holdout=draw(st.booleans()),
        prompt=draw(st.text(min_size=1, max_size=60).map(lambda s: js_trim(s.replace("\r", ""))).filter(bool)),
    )


@settings(max_examples=150, deadline=None)
@given(definitions())
def test_round_trip(d: ShadowDefinition) -> None:
    assert parse(serialize_definition(d)) == d


# ------------------------------------------------------------ registry list


def test_missing_directory_is_an_empty_catalog(registry: ShadowRegistry) -> None:
    assert registry.list() == Catalog()
    assert not registry.root.exists()


def test_paths(registry: ShadowRegistry, home: Path) -> None:
    root = home.absolute() / "shadow-minds"
    assert registry.root == root
    assert registry.log_root == root / "logs"
    assert registry.value_loop_path == root / "value-loop.jsonl"
    assert registry.holdout_keys_path == root / "holdout-keys.json"
    assert registry.debug_log_path("default") == root / "logs" / "default.jsonl"


def test_list_sorted_and_diagnostics_isolated(registry: ShadowRegistry) -> None:
    put(registry, "b.md", doc("name: B\n"))
    put(registry, "a.md", doc("name: A\n"))
    put(registry, "bad.md", doc("enabled: yes\n"))
    put(registry, "c.md", "no frontmatter\n")
    put(registry, "notes.txt", "ignored")
    (registry.root / "dir.md").mkdir()
    os.symlink(registry.root / "a.md", registry.root / "link.md")
    catalog = registry.list()
    assert catalog.ids == ("a", "b")
    assert catalog.diagnostics == (
        DefinitionDiagnostic("bad.md", "enabled must be a boolean"),
        DefinitionDiagnostic("c.md", "definition must start with YAML frontmatter"),
    )
    assert catalog.get("b") is not None and catalog.get("b").name == "B"  # type: ignore[union-attr]
    assert catalog.get("zzz") is None
    assert catalog.legacy == catalog.definitions


def test_list_reports_undecodable_files(registry: ShadowRegistry) -> None:
    registry.root.mkdir(parents=True)
    (registry.root / "bin.md").write_bytes(b"---\nname: \xff\n---\nx\n")
    (registry.root / "bom.md").write_bytes("\ufeff".encode() + doc("name: B\n").encode())
    catalog = registry.list()
    assert catalog.ids == ("bom",)
    assert catalog.diagnostics == (DefinitionDiagnostic("bin.md", "definition is not UTF-8 text"),)


def test_duplicate_ids_first_valid_file_wins(registry: ShadowRegistry) -> None:
    put(registry, "a.md", doc("id: same\nname: A\nenabled: nope\n"))  # invalid: not a valid source
    put(registry, "b.md", doc("id: same\nname: B\n"))
    put(registry, "c.md", doc("id: same\nname: C\n"))
    put(registry, "same.md", doc("name: D\n"))
    catalog = registry.list()
    assert [(d.id, d.name) for d in catalog.definitions] == [("same", "B")]
    assert catalog.diagnostics == (
        DefinitionDiagnostic("a.md", "enabled must be a boolean"),
        DefinitionDiagnostic("c.md", 'duplicate id "same"; first valid source is b.md'),
        DefinitionDiagnostic("same.md", 'duplicate id "same"; first valid source is b.md'),
    )


def test_diagnostics_never_hold_absolute_paths(registry: ShadowRegistry, tmp_path: Path) -> None:
    put(registry, "x.md", doc("holdout: true\n"))
    put(registry, "y.md", doc("tools: [Nope]\n"))
    for diagnostic in registry.list().diagnostics:
        assert str(tmp_path) not in diagnostic.error and "/" not in diagnostic.path


# ----------------------------------------------------------- holdout sidecar


SIDECAR_CASES = [
    ("missing", None, f'holdout definition "default" needs {SIDECAR_DISPLAY} containing {{"default": ["literal", ...]}}; create the sidecar as the operator, or remove "holdout: true" from the definition'),
    ("bad json", '{"default": ["SECRET_A"', "invalid holdout key sidecar JSON"),
    ("not utf-8", b"\xff\xfe", "invalid holdout key sidecar JSON"),
    ("nested too deeply", '{"default": ' + "[" * 100_000 + "]" * 100_000 + "}", "invalid holdout key sidecar JSON: nested too deeply"),
    ("array", '["SECRET_A"]', "holdout key sidecar must be a JSON object"),
    ("string", '"SECRET_A"', "holdout key sidecar must be a JSON object"),
    ("id missing", '{"other": ["SECRET_A"]}', 'holdout definition "default" needs unique non-empty literal keys'),
    ("not a list", '{"default": "SECRET_A"}', 'holdout definition "default" needs unique non-empty literal keys'),
    ("empty list", '{"default": []}', 'holdout definition "default" needs unique non-empty literal keys'),
    ("blank key", '{"default": ["SECRET_A", " "]}', 'holdout definition "default" needs unique non-empty literal keys'),
    ("non-string", '{"default": ["SECRET_A", 7]}', 'holdout definition "default" needs unique non-empty literal keys'),
    ("duplicates", '{"default": ["SECRET_A", "SECRET_A"]}', 'holdout definition "default" needs unique non-empty literal keys'),
]


@pytest.mark.parametrize(("content", "message"), [(c, m) for _, c, m in SIDECAR_CASES], ids=[n for n, _, _ in SIDECAR_CASES])
def test_holdout_sidecar_failures(registry: ShadowRegistry, tmp_path: Path, content: str | bytes | None, message: str) -> None:
    registry.root.mkdir(parents=True)
    if isinstance(content, bytes):
        registry.holdout_keys_path.write_bytes(content)
    elif content is not None:
        registry.holdout_keys_path.write_text(content)
    with pytest.raises(HoldoutKeyError) as info:
        registry.holdout_keys("default")
    assert info.value.message.startswith(message)
    assert "SECRET_A" not in info.value.message and str(tmp_path) not in info.value.message
    assert info.value.__cause__ is None  # the decoder error (which holds the text) is not chained
    # the same failure hides a holdout definition from the catalog, as a diagnostic
    put(registry, "default.md", doc("holdout: true\n"))
    catalog = registry.list()
    assert catalog.definitions == ()
    assert catalog.diagnostics[0].path == "default.md"
    assert catalog.diagnostics[0].error.startswith(message)


def test_holdout_sidecar_ok(registry: ShadowRegistry) -> None:
    put_sidecar(registry, json.dumps({"default": [" KEEP SPACES ", "B"], "other": ["C"]}))
    assert registry.holdout_keys("default") == [" KEEP SPACES ", "B"]
    assert registry.holdout_keys("other") == ["C"]
    put(registry, "default.md", doc("holdout: true\n"))
    put(registry, "plain.md", doc("{}\n"))  # no holdout: the sidecar does not matter
    assert registry.list().ids == ("default", "plain")


def test_holdout_sidecar_unreadable(registry: ShadowRegistry, tmp_path: Path) -> None:
    registry.root.mkdir(parents=True)
    registry.holdout_keys_path.mkdir()  # reading a directory fails with an OSError
    with pytest.raises(HoldoutKeyError) as info:
        registry.holdout_keys("default")
    assert info.value.message.startswith(f"cannot read {SIDECAR_DISPLAY}")
    assert str(tmp_path) not in info.value.message


# ------------------------------------------------------- default definition


def test_default_is_created_from_the_builtin(registry: ShadowRegistry) -> None:
    d = registry.default_definition()
    assert d == builtin_default()
    assert d.name == "Shadow" and d.enabled and d.activation_probability == 0.7
    assert d.prompt == DEFAULT_PROMPT
    assert d.source_path == registry.default_path
    text = registry.default_path.read_text()
    assert text == serialize_definition(builtin_default())
    assert mode(registry.default_path) == 0o600
    assert mode(registry.root) == 0o700
    assert registry.list().ids == ("default",)
    assert os.listdir(registry.root) == ["default.md"]  # no starters, nothing else


def test_default_prompt_covers_the_checks_and_rules() -> None:
    lowered = DEFAULT_PROMPT.lower()
    for needle in (
        "requirement", "tool results", "security", "data loss", "concurrency", "platform",
        "verification", "retry", "style", "naming", "redacted", "hidden reasoning",
        "problem", "evidence", "impact", "fix", "`refs`", "`report`", "`silent`", "`not_relevant`",
        "challenge", "gap", "confirm", "uncertain",
    ):
        assert needle in lowered, needle


def test_existing_default_is_returned_unchanged(registry: ShadowRegistry) -> None:
    path = put(registry, "default.md", doc("name: Mine\nactivation_probability: 0.1\n"))
    before = path.read_text()
    assert registry.default_definition().name == "Mine"
    assert path.read_text() == before


def test_default_seeded_from_first_legacy_definition(registry: ShadowRegistry) -> None:
    put(registry, "beta.md", doc("name: Beta\n"))
    put(registry, "alpha.md", doc(
        "name: Alpha Persona\nenabled: false\ndebug: true\nactivation_probability: 0.2\n"
        "active_for_models: [gpt-*]\nrun_with_model: openai/gpt-5\nreasoning_effort: low\n"
        "timeout_seconds: 12\ntools: [bash]\ncapture: since-compaction\ncontext: minimal\n"
        "think_first: true\n",
        "Alpha duty.",
    ))
    d = registry.default_definition()
    assert d == ShadowDefinition(
        id="default",
        name="Alpha Persona",
        enabled=False,
        debug=True,
        activation_probability=0.7,  # forced
        active_for_models=(),  # not copied
        run_with_model="openai/gpt-5",
        reasoning_effort="low",
        timeout_seconds=None,  # not copied
        tools=("bash",),
        capture="since-compaction",
        context="minimal",
        think_first=True,
        holdout=False,
        prompt="Alpha duty.",
    )
    assert registry.list().ids == ("alpha", "beta", "default")


def test_legacy_holdout_is_not_copied(registry: ShadowRegistry) -> None:
    put_sidecar(registry, json.dumps({"secret": ["K"]}))
    put(registry, "secret.md", doc("holdout: true\n"))
    d = registry.default_definition()
    assert d.holdout is False and "holdout" not in registry.default_path.read_text()


def test_invalid_default_refuses_creation(registry: ShadowRegistry, tmp_path: Path) -> None:
    path = put(registry, "default.md", doc("enabled: maybe\n"))
    before = path.read_bytes()
    with pytest.raises(DefinitionError) as info:
        registry.default_definition()
    assert info.value.reason.startswith("shadow definition path already exists: default.md and is invalid (")
    assert "enabled must be a boolean" in info.value.reason
    assert "delete it" in info.value.reason
    assert str(tmp_path) not in str(info.value)
    assert path.read_bytes() == before


def test_broken_symlink_default_refuses_creation(registry: ShadowRegistry) -> None:
    registry.root.mkdir(parents=True)
    os.symlink(registry.root / "missing-target.md", registry.default_path)
    with pytest.raises(DefinitionError, match="already exists"):
        registry.default_definition()


# -------------------------------------------------------------- save_default


async def test_save_default_full_definition_round_trip(registry: ShadowRegistry) -> None:
    wanted = ShadowDefinition(
        id="default", name="Saved", activation_probability=0.4, run_with_model="a/b",
        reasoning_effort="max", timeout_seconds=45.5, tools=("bash",), think_first=True, prompt="Do it.",
    )
    saved = await registry.save_default(wanted)
    assert saved == wanted
    assert registry.list().get("default") == wanted
    assert registry.default_path.read_text() == serialize_definition(wanted)
    assert mode(registry.default_path) == 0o600 and mode(registry.root) == 0o700


async def test_save_default_rejects_other_ids(registry: ShadowRegistry) -> None:
    message = 'only the default reviewer definition can be saved; expected id "default"'
    with pytest.raises(DefinitionError) as info:
        await registry.save_default(ShadowDefinition(id="other", name="x", prompt="p"))
    assert info.value.reason == message
    with pytest.raises(DefinitionError, match="only the default reviewer definition"):
        await registry.save_default({"id": "other"})
    assert not registry.default_path.exists()


async def test_save_default_patch_merges_and_none_clears(registry: ShadowRegistry) -> None:
    await registry.save_default(
        ShadowDefinition(id="default", name="Base", run_with_model="a/b", reasoning_effort="high",
                         timeout_seconds=10.0, tools=("bash",), prompt="Base duty.")
    )
    saved = await registry.save_default(
        {"name": "Patched", "run_with_model": None, "reasoning_effort": None, "timeout_seconds": None}
    )
    assert (saved.name, saved.prompt, saved.tools) == ("Patched", "Base duty.", ("bash",))
    assert saved.run_with_model is None and saved.reasoning_effort is None and saved.timeout_seconds is None
    text = registry.default_path.read_text()
    for key in ("run_with_model", "reasoning_effort", "timeout_seconds"):
        assert key not in text


async def test_save_default_full_definition_none_drops_keys(registry: ShadowRegistry) -> None:
    await registry.save_default(ShadowDefinition(id="default", name="x", run_with_model="a/b", prompt="p"))
    saved = await registry.save_default(ShadowDefinition(id="default", name="x", prompt="p"))
    assert saved.run_with_model is None
    assert "run_with_model" not in registry.default_path.read_text()


async def test_save_default_patch_validates_like_a_file(registry: ShadowRegistry) -> None:
    registry.default_definition()
    before = registry.default_path.read_text()
    with pytest.raises(DefinitionError) as info:
        await registry.save_default({"activation_probability": True})
    assert info.value.reason == "activation_probability must be a finite number from 0 through 1"
    with pytest.raises(DefinitionError, match="run_with_model must use provider/model"):
        await registry.save_default({"run_with_model": "nope"})
    with pytest.raises(DefinitionError, match=r"unknown definition field\(s\): bogus"):
        await registry.save_default({"bogus": 1})
    assert registry.default_path.read_text() == before


async def test_save_default_patch_needs_an_existing_default(registry: ShadowRegistry) -> None:
    with pytest.raises(DefinitionError, match=r"the default reviewer definition \(default\) does not exist yet"):
        await registry.save_default({"name": "x"})


async def test_holdout_request_validates_sidecar_first(registry: ShadowRegistry) -> None:
    registry.default_definition()
    before = registry.default_path.read_text()
    with pytest.raises(HoldoutKeyError, match="needs"):
        await registry.save_default({"holdout": True, "name": "changed"})
    assert registry.default_path.read_text() == before
    put_sidecar(registry, json.dumps({"default": ["K"]}))
    assert (await registry.save_default({"holdout": True})).holdout is True


async def test_holdout_is_sticky(registry: ShadowRegistry) -> None:
    put_sidecar(registry, json.dumps({"default": ["K"]}))
    await registry.save_default(ShadowDefinition(id="default", name="x", holdout=True, prompt="p"))
    saved = await registry.save_default(ShadowDefinition(id="default", name="y", holdout=False, prompt="p"))
    assert saved.holdout is True and saved.name == "y"
    saved = await registry.save_default({"holdout": False, "name": "z"})
    assert saved.holdout is True
    # even when the sidecar breaks (so the catalog no longer lists the default)
    registry.holdout_keys_path.unlink()
    assert registry.list().get("default") is None
    saved = await registry.save_default(ShadowDefinition(id="default", name="w", prompt="p"))
    assert saved.holdout is True
    assert "holdout: true" in registry.default_path.read_text()


async def test_save_default_overwrites_an_invalid_file(registry: ShadowRegistry) -> None:
    put(registry, "default.md", doc("enabled: maybe\n"))
    saved = await registry.save_default(ShadowDefinition(id="default", name="Fixed", prompt="p"))
    assert registry.list().get("default") == saved


async def test_concurrent_saves_are_serialized(registry: ShadowRegistry) -> None:
    registry.default_definition()

    async def save(i: int) -> None:
        await registry.save_default({"name": f"n{i}"})

    async with trio.open_nursery() as nursery:
        for i in range(8):
            nursery.start_soon(save, i)
    final = registry.list().get("default")
    assert final is not None and final.name.startswith("n")
    assert [p.name for p in registry.root.iterdir() if p.name.endswith(".tmp")] == []


def test_encode_record_hides_credentials_in_values_only() -> None:
    line = encode_record({"reason": "provider said: invalid api_key=sk-abcdef0123456789", "token_count": 3})
    assert json.loads(line) == {"reason": "provider said: invalid api_key=[credential]", "token_count": 3}


def test_encode_record_refuses_non_json_values() -> None:
    with pytest.raises(TypeError):
        encode_record({"path": Path("/secret")})


# --------------------------------------------------------------------- cache


def test_cache_skips_unchanged_files(registry: ShadowRegistry) -> None:
    put(registry, "a.md", doc("name: A\n"))
    put(registry, "b.md", doc("name: B\n"))
    put(registry, "bad.md", doc("enabled: maybe\n"))
    first = registry.list()
    assert registry.parse_count == 3
    assert registry.list() is first
    assert registry.list() == first
    assert registry.parse_count == 3


def test_cache_reparses_only_what_changed(registry: ShadowRegistry) -> None:
    put(registry, "a.md", doc("name: A\n"))
    b = put(registry, "b.md", doc("name: B\n"))
    registry.list()
    assert registry.parse_count == 2

    b.write_text(doc("name: B2\n"))  # changed in place
    backdate(b, 30)
    assert [d.name for d in registry.list().definitions] == ["A", "B2"]
    assert registry.parse_count == 3

    put(registry, "c.md", doc("name: C\n"))  # appears
    assert registry.list().ids == ("a", "b", "c")
    assert registry.parse_count == 4

    (registry.root / "a.md").unlink()  # disappears
    assert registry.list().ids == ("b", "c")
    assert registry.parse_count == 4

    registry.root.joinpath("b.md").unlink()
    registry.root.joinpath("c.md").unlink()
    registry.root.rmdir()
    assert registry.list() == Catalog()


def test_cache_same_size_same_mtime_rewrite_is_seen(registry: ShadowRegistry) -> None:
    a = put(registry, "a.md", doc("name: AAA\n"))
    registry.list()
    st_before = a.stat()
    a.write_text(doc("name: BBB\n"))  # same size, in place
    os.utime(a, ns=(st_before.st_atime_ns, st_before.st_mtime_ns))  # and the same mtime
    # ctime still moved, so the stamp differs
    assert registry.list().get("a").name == "BBB"  # type: ignore[union-attr]


def test_cache_distrusts_racy_files(registry: ShadowRegistry) -> None:
    put(registry, "a.md", doc("name: A\n"), age=0)  # modified "just now"
    registry.list()
    registry.list()
    assert registry.parse_count == 2  # re-read while inside the racy window
    backdate(registry.root / "a.md")
    registry.list()
    count = registry.parse_count
    registry.list()
    assert registry.parse_count == count


def test_cache_follows_the_sidecar(registry: ShadowRegistry) -> None:
    put(registry, "default.md", doc("holdout: true\n"))
    assert registry.list().get("default") is None
    put_sidecar(registry, json.dumps({"default": ["K"]}))
    assert registry.list().ids == ("default",)
    assert registry.parse_count == 1  # the definition itself was not re-parsed
    registry.holdout_keys_path.unlink()
    assert registry.list().get("default") is None


async def test_cache_sees_own_writes(registry: ShadowRegistry) -> None:
    registry.default_definition()
    assert registry.list().get("default").name == "Shadow"  # type: ignore[union-attr]
    await registry.save_default({"name": "Renamed"})
    assert registry.list().get("default").name == "Renamed"  # type: ignore[union-attr]


# ------------------------------------------------------------------ starters

STARTER_NAMES = {
    "architect": "Architecture Shadow",
    "contrarian": "Contrarian Shadow",
    "failure-path": "Failure-path Shadow",
    "evidence": "Evidence Shadow",
    "simplification": "Simplification Shadow",
}


def test_starters_are_packaged_and_disabled() -> None:
    assert list_starters() == sorted(STARTER_NAMES)
    for name, title in STARTER_NAMES.items():
        d = load_starter(name)
        assert (d.id, d.name) == (name, title)
        assert d.enabled is False
        assert d.activation_probability == 0.3
        assert d.capture == "since-compaction"
        assert d.holdout is False and d.tools == ()
        assert d.prompt.endswith(CLOSING_RULE)


def test_starter_files_contain_their_rendered_checklist() -> None:
    for spec in STARTER_SPECS:
        source = starter_source(spec.id)
        assert render_probe_checklist(STARTER_PROBES[spec.id]) in source
        # the files are generated: regenerate with `python -m shadow_mind_plugin.definitions.regen_starters --write`
        assert source == render_starter(spec), spec.id


def test_probe_checklist_rendering() -> None:
    text = render_probe_checklist(["long_output", "failed_tool_call"])
    assert text.startswith("## Probe checklist\n\n- Failed tool call (`failed_tool_call`)\n  - Trigger: ")
    assert text.index("failed_tool_call") < text.index("long_output")  # canonical order
    assert "evidence gap" in text
    assert render_probe_checklist(PROBE_IDS).count("  - Probe: ") == 6
    assert STARTER_PROBES["contrarian"] == PROBE_IDS
    with pytest.raises(ValueError, match="unknown probe class"):
        render_probe_checklist(["nope"])


def test_unknown_starter_lists_the_available_ones() -> None:
    with pytest.raises(DefinitionError) as info:
        load_starter("../default")
    assert "architect, contrarian, evidence, failure-path, simplification" in info.value.message


def test_examples_symlink_points_at_the_package() -> None:
    repo = Path(__file__).resolve().parents[2]
    link = repo / "examples" / "shadow-minds"
    assert link.is_symlink()
    assert os.readlink(link) == "../shadow_mind_plugin/starters"
    assert sorted(p.stem for p in link.glob("*.md")) == sorted(STARTER_NAMES)


def test_registry_never_installs_starters(registry: ShadowRegistry) -> None:
    registry.list()
    assert not registry.root.exists()
    registry.default_definition()
    assert sorted(os.listdir(registry.root)) == ["default.md"]
    assert registry.default_definition().prompt == DEFAULT_PROMPT


def test_definition_equality_ignores_source_path() -> None:
    a = ShadowDefinition(id="x", name="x", prompt="p", source_path=Path("/a/x.md"))
    assert a == attrs.evolve(a, source_path=None)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=20))
def test_parser_only_raises_definition_errors(frontmatter: str, body: str) -> None:
    for text in (f"---\n{frontmatter}\n---\n{body}", frontmatter):
        try:
            parse(text)
        except DefinitionError:
            pass
