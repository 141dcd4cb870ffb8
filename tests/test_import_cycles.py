"""No import circles inside a top-level package, and the contract's values
never import its protocols.

Every module of the four packages (``hookspecs``, ``harness``,
``shadow_mind_plugin``, ``evolution_review_plugin``) is parsed
with ``ast`` and the graph of imports between modules of the same package is
built; any strongly connected component of more than one module, or a module
importing itself, fails the test with the import statements that close it.

What counts as an edge ``A -> B`` (both modules of the package):

* ``import p.b`` / ``from p.b import name`` / the relative spellings, resolved
  against ``A``'s package (``from . import x`` in ``p/a.py`` is ``p.x`` when
  that is a module, else ``p`` itself, i.e. ``p/__init__.py``);
* ``from p import b`` where ``b`` is a submodule is an edge to ``p.b`` only; a
  name that is not a submodule is an edge to ``p`` (its ``__init__``);
* ``importlib.import_module("p.b")`` / ``__import__("p.b")`` with a constant
  absolute name;
* imports inside functions, methods and ``try`` blocks: they run too, just
  later, so a circle through them is still a circle.

What does not count:

* imports in the body of ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``):
  they never run; their ``else`` branch does count;
* the implicit import of parent packages. Importing ``p.b`` runs
  ``p/__init__.py`` first, but that is not an edge ``A -> p``: otherwise every
  package ``__init__`` that re-exports from its children would be in a circle
  with them. ``p/__init__.py`` importing ``p.b`` is an edge ``p -> p.b``; it is a
  circle only if ``p.b`` (or something it imports) imports ``p`` back by name.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Mapping, Sequence

import attrs
import pytest

from tests.test_layering import FORBIDDEN, ROOT, _is_dynamic_import, _resolve_relative, source_files

PACKAGES = sorted(FORBIDDEN)


@attrs.frozen
class Edge:
    source: str
    target: str
    filename: str
    lineno: int

    def describe(self) -> str:
        return f"{self.filename}:{self.lineno}: {self.source} -> {self.target}"


# --- the scanner ------------------------------------------------------------------------


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    if isinstance(test, ast.Attribute):
        return test.attr == "TYPE_CHECKING"
    return False


def _nodes(tree: ast.AST, *, type_checking: bool) -> Iterable[ast.AST]:
    """Every node of ``tree``; without ``type_checking``, not the bodies of ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if not type_checking and isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _known(name: str, modules: frozenset[str]) -> str | None:
    """``name`` or its longest prefix that is a module of the package."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def import_targets(
    source: str, module: str, *, is_package: bool, modules: frozenset[str], type_checking: bool = False
) -> list[tuple[int, str]]:
    """``(lineno, module)`` for every module of ``modules`` that ``source`` imports at
    run time (with ``type_checking``: also for the type checker only)."""
    tree = ast.parse(source)
    parts = module.split(".")
    package_parts = parts if is_package else parts[:-1]
    found: list[tuple[int, str | None]] = []
    for node in _nodes(tree, type_checking=type_checking):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, _known(alias.name, modules)) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base, _ = _resolve_relative(package_parts, node.level, node.module)
            else:
                base = node.module
            if not base:
                continue
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                # ``from p import b``: the submodule p.b when there is one, else p itself
                found.append((node.lineno, submodule if submodule in modules else _known(base, modules)))
        elif isinstance(node, ast.Call) and _is_dynamic_import(node.func):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, _known(node.args[0].value, modules)))
    return sorted({(lineno, target) for lineno, target in found if target is not None})


def import_graph(sources: Mapping[str, tuple[str, bool, str]], *, type_checking: bool = False) -> list[Edge]:
    """Edges between the modules of ``sources`` (module -> (source, is_package, filename))."""
    modules = frozenset(sources)
    edges: list[Edge] = []
    for module, (source, is_package, filename) in sorted(sources.items()):
        targets = import_targets(source, module, is_package=is_package, modules=modules, type_checking=type_checking)
        for lineno, target in targets:
            edges.append(Edge(module, target, filename, lineno))
    return edges


def strongly_connected(nodes: Iterable[str], edges: Sequence[Edge]) -> list[list[str]]:
    """Tarjan's components, each sorted (iterative: no recursion limit)."""
    successors: dict[str, list[str]] = {}
    for edge in edges:
        successors.setdefault(edge.source, []).append(edge.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(set(nodes)):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            following = successors.get(node, [])
            if position < len(following):
                work.append((node, position + 1))
                nxt = following[position]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def cycles(edges: Sequence[Edge], nodes: Iterable[str] = ()) -> list[list[Edge]]:
    """The edges inside each circle: components of size > 1 and self loops."""
    all_nodes = {*nodes, *(e.source for e in edges), *(e.target for e in edges)}
    out: list[list[Edge]] = []
    for component in strongly_connected(all_nodes, edges):
        members = set(component)
        inside = [e for e in edges if e.source in members and e.target in members]
        if len(component) > 1 or inside:
            out.append(inside)
    return out


def package_sources(package: str) -> dict[str, tuple[str, bool, str]]:
    return {
        module: (path.read_text(encoding="utf-8"), is_package, str(path.relative_to(ROOT)))
        for path, module, is_package in source_files(package)
    }


def report(found: Sequence[Sequence[Edge]]) -> str:
    blocks = []
    for inside in found:
        members = sorted({e.source for e in inside})
        blocks.append(
            f"circle of {len(members)}: {', '.join(members)}\n" + "\n".join(f"  {e.describe()}" for e in inside)
        )
    return "\n".join(blocks)


# --- the scanner's own tests ----------------------------------------------------------


def _graph(files: Mapping[str, str], packages: Iterable[str] = ()) -> list[Edge]:
    pkgs = {"p", *packages}
    return import_graph({module: (textwrap.dedent(source), module in pkgs, module) for module, source in files.items()})


def _circles(files: Mapping[str, str]) -> list[list[str]]:
    """The modules of each circle in ``files``, sorted."""
    return sorted(sorted({e.source for e in inside}) for inside in cycles(_graph(files)))


def _targets(edges: Iterable[Edge], source: str) -> set[str]:
    return {e.target for e in edges if e.source == source}


class TestScanner:
    def test_spellings_resolve_to_modules(self) -> None:
        files = {
            "p": "",
            "p.a": """
                import p.b
                from p.c import thing
                from . import d
                from .sub import e
                from .sub.f import g
                import importlib
                importlib.import_module("p.h")
            """,
            "p.b": "",
            "p.c": "",
            "p.d": "",
            "p.sub": "",
            "p.sub.e": "",
            "p.sub.f": "",
            "p.h": "",
        }
        edges = _graph(files, packages=["p.sub"])
        assert _targets(edges, "p.a") == {"p.b", "p.c", "p.d", "p.sub.e", "p.sub.f", "p.h"}

    def test_relative_imports_climb_from_the_module_package(self) -> None:
        files = {
            "p": "",
            "p.sub": "from .. import a\nfrom ..b import x\n",
            "p.sub.m": "from .. import b\n",
            "p.a": "",
            "p.b": "",
        }
        edges = _graph(files, packages=["p.sub"])
        assert _targets(edges, "p.sub") == {"p.a", "p.b"}
        assert _targets(edges, "p.sub.m") == {"p.b"}

    def test_a_name_that_is_not_a_submodule_is_the_package_init(self) -> None:
        edges = _graph({"p": "x = 1\n", "p.a": "from . import x\nfrom p import x as y\n"})
        assert _targets(edges, "p.a") == {"p"}

    def test_imports_outside_the_package_are_ignored(self) -> None:
        edges = _graph({"p": "", "p.a": "import os\nfrom q import b\nfrom pathlib import Path\n"})
        assert edges == []

    def test_type_checking_imports_do_not_count_but_their_else_does(self) -> None:
        files = {
            "p": "",
            "p.a": """
                from typing import TYPE_CHECKING
                import typing
                if TYPE_CHECKING:
                    from .b import B
                else:
                    from .c import C
                if typing.TYPE_CHECKING:
                    import p.d
            """,
            "p.b": "",
            "p.c": "",
            "p.d": "",
        }
        assert _targets(_graph(files), "p.a") == {"p.c"}

    def test_imports_inside_functions_count(self) -> None:
        files = {"p": "", "p.a": "from .b import f\n", "p.b": "def f():\n    from .a import g\n    return g\n"}
        assert _circles(files) == [["p.a", "p.b"]]

    def test_a_package_init_reexporting_its_children_is_not_a_circle(self) -> None:
        files = {"p": "from .a import A\nfrom .b import B\n", "p.a": "class A: ...\n", "p.b": "from .a import A\n"}
        assert _circles(files) == []

    def test_a_child_importing_its_package_init_back_is_a_circle(self) -> None:
        files = {"p": "from .a import A\nX = 1\n", "p.a": "from . import X\nclass A: ...\n"}
        assert _circles(files) == [["p", "p.a"]]

    def test_a_child_importing_a_sibling_through_the_package_is_not_a_circle(self) -> None:
        files = {"p": "from .a import A\n", "p.a": "from p import b\n", "p.b": ""}
        assert _circles(files) == []

    def test_self_loops_and_long_circles_are_found(self) -> None:
        files = {
            "p": "",
            "p.a": "import p.a\n",
            "p.b": "from . import c\n",
            "p.c": "from . import d\n",
            "p.d": "from .b import x\n",
            "p.e": "from .b import x\n",  # leads into the circle but is not part of it
        }
        assert _circles(files) == [["p.a"], ["p.b", "p.c", "p.d"]]
        assert "p.d:1: p.d -> p.b" in report(cycles(_graph(files)))


# --- the packages -------------------------------------------------------------------------


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycles(package: str) -> None:
    sources = package_sources(package)
    assert sources, f"no sources found for {package}"
    found = cycles(import_graph(sources), sources)
    assert not found, f"import circles in {package}:\n{report(found)}"


@pytest.mark.parametrize("package", ["hookspecs", "harness", "shadow_mind_plugin", "evolution_review_plugin"])
def test_no_circles_even_through_annotations(package: str) -> None:
    """The layers point one way even for the type checker. In the contract, the
    values come first and the host-service protocols build on them; in the host,
    code below the agent class (turns, tool calls, visibility, prompt assembly)
    and the session log depend on small protocols, not on the classes that drive
    them; in the plugin, no path imports the wiring or another path's logic."""
    sources = package_sources(package)
    found = cycles(import_graph(sources, type_checking=True), sources)
    assert not found, f"import circles in {package} (counting TYPE_CHECKING imports):\n{report(found)}"


VALUES = "hookspecs.values"
PROTOCOLS = "hookspecs.protocols"


def protocol_imports_in_values(sources: Mapping[str, tuple[str, bool, str]]) -> list[Edge]:
    """Every import, run-time or for the type checker only, from a module of
    ``hookspecs.values`` to ``hookspecs.protocols`` or one of its modules."""
    return [
        edge
        for edge in import_graph(sources, type_checking=True)
        if (edge.source == VALUES or edge.source.startswith(VALUES + "."))
        and (edge.target == PROTOCOLS or edge.target.startswith(PROTOCOLS + "."))
    ]


def test_values_never_import_protocols() -> None:
    """A value that carries a live object names it from ``hookspecs.values.live``;
    the host services build on the values, never the other way round."""
    sources = package_sources("hookspecs")
    found = protocol_imports_in_values(sources)
    assert not found, "hookspecs.values imports the protocols:\n" + "\n".join(e.describe() for e in found)
    assert PROTOCOLS in sources and f"{PROTOCOLS}.agents" in sources, "hookspecs.protocols is a package of modules"
    annotated = {(e.source, e.target) for e in import_graph(sources, type_checking=True)}
    assert (f"{VALUES}.tools", f"{VALUES}.live") in annotated
    assert (f"{PROTOCOLS}.agents", f"{VALUES}.live") in annotated


def test_a_value_importing_a_protocol_is_caught_even_for_the_type_checker() -> None:
    files = {
        "hookspecs": "",
        "hookspecs.protocols": "from .agents import Agent\n",
        "hookspecs.protocols.agents": "class Agent: ...\n",
        "hookspecs.values": "",
        "hookspecs.values.tools": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..protocols import Agent\n",
        "hookspecs.values.commands": "from hookspecs.protocols.agents import Agent\n",
        "hookspecs.values.cancel": "from . import json\n",
        "hookspecs.values.json": "",
    }
    packages = {"hookspecs", "hookspecs.protocols", "hookspecs.values"}
    sources = {module: (source, module in packages, module) for module, source in files.items()}
    found = {(e.source, e.target) for e in protocol_imports_in_values(sources)}
    assert found == {
        ("hookspecs.values.tools", "hookspecs.protocols"),
        ("hookspecs.values.commands", "hookspecs.protocols.agents"),
    }


def test_the_graph_sees_real_edges() -> None:
    sources = package_sources("harness")
    runtime = {(e.source, e.target) for e in import_graph(sources)}
    annotated = {(e.source, e.target) for e in import_graph(sources, type_checking=True)}
    assert ("harness.agents.agent", "harness.agents.turn") in runtime
    assert ("harness.agents", "harness.agents.registry") in runtime  # a package __init__ re-exporting
    assert ("harness.host", "harness.tools.registry") in runtime
    # agent.py names the Runtime bundle for annotations only
    assert ("harness.agents.agent", "harness.runtime") not in runtime
    assert ("harness.agents.agent", "harness.runtime") in annotated
    assert runtime < annotated
