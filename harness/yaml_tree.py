"""YAML the host reads from files: loaders that refuse deep nesting as they
reach it, and checks on a loaded value before code that assumes a tree walks it."""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.scanner import RoundTripScanner, Scanner

from hookspecs.values.wire import describe_yaml_error

#: How deeply collections may nest in a document the host loads (a profile,
#: the settings document, a script). Real documents stay under ten levels.
MAX_DEPTH = 100


class NestedTooDeeply(Exception):
    """A document nests collections more than :data:`MAX_DEPTH` levels deep."""

    def __init__(self, line: int, column: int) -> None:
        super().__init__(f"nested too deeply (more than {MAX_DEPTH} levels)")
        #: where the collection past the bound opens, 1-based
        self.line, self.column = line, column


class YamlProblem(Exception):
    """A document that does not load; its text is one line, the problem and
    where it is (:func:`hookspecs.values.wire.describe_yaml_error`)."""


def load_tree(text: str, *, typ: str = "safe", yaml: YAML | None = None) -> Any:
    """``text`` loaded by ``yaml`` (default: :func:`bounded_yaml` of ``typ``);
    every failure — syntax, nesting past :data:`MAX_DEPTH`, a tag that cannot be
    built, a recursive alias — raises :class:`YamlProblem`. Callers prefix it
    with their source and ``invalid YAML:``."""
    loader = yaml if yaml is not None else bounded_yaml(typ)
    try:
        data = loader.load(text)
    except Exception as exc:  # ruamel's errors, RecursionError, and plain errors its constructors leak
        raise YamlProblem(describe_yaml_error(exc)) from None
    recursive = recursive_alias_path(data)
    if recursive is not None:
        raise YamlProblem(f"recursive alias at {recursive}")
    return data


class _DepthBoundScanner(Scanner):
    """Counts open collections and refuses the one past :data:`MAX_DEPTH`.

    Without a bound the scanner's per-token work grows with the flow level
    (it revisits one saved key per open ``[``/``{``), so a line of 5000
    brackets took seconds before the composer's recursion gave up.
    """

    def _check_depth(self, opening: int) -> None:
        if len(self.indents) + self.flow_level + opening > MAX_DEPTH:
            mark = self.reader.get_mark()
            raise NestedTooDeeply(mark.line + 1, mark.column + 1)

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: str) -> None:
        self._check_depth(1)
        super().fetch_flow_collection_start(TokenClass, to_push)

    def add_indent(self, column: int) -> bool:
        self._check_depth(1 if self.indent < column else 0)
        return super().add_indent(column)


class _DepthBoundRoundTripScanner(_DepthBoundScanner, RoundTripScanner):
    pass


def bounded_yaml(typ: str) -> YAML:
    """A fresh ``YAML(typ=...)`` (``"rt"`` or ``"safe"``, pure Python) whose
    scanner raises :class:`NestedTooDeeply` at the first collection too deep."""
    yaml = YAML(typ=typ, pure=True)
    yaml.Scanner = _DepthBoundRoundTripScanner if typ == "rt" else _DepthBoundScanner
    return yaml


def recursive_alias_path(data: Any) -> str | None:
    """Where a loaded value first contains itself (a recursive YAML alias such
    as ``&a [*a]``), as a ``$``-rooted path, or None for a tree.

    Shared (non-recursive) aliases are visited once, so the walk is linear.
    """
    done: set[int] = set()
    active: set[int] = set()

    def visit(node: Any, path: str) -> str | None:
        if not isinstance(node, (dict, list)):
            return None
        key = id(node)
        if key in active:
            return path
        if key in done:
            return None
        active.add(key)
        if isinstance(node, dict):
            items = ((f"{path}.{name}", value) for name, value in node.items())
        else:
            items = ((f"{path}[{index}]", value) for index, value in enumerate(node))
        for where, value in items:
            found = visit(value, where)
            if found is not None:
                return found
        active.discard(key)
        done.add(key)
        return None

    return visit(data, "$")
