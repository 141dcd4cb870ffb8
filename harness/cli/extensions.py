"""Extra top-level ``harness`` commands from the ``dsh.cli`` entry-point group.

Listing them (``harness --help``) never imports them: the one-line help is read
from the command's source file, found the way the import system would find it
but without running any package code. So a slow or broken extension costs
``--help`` nothing; it is reported when it is invoked.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import machinery
from typing import TYPE_CHECKING, Any

from ..entry_points import entry_points
from .profile_args import PROFILE_ENV

if TYPE_CHECKING:
    import ast

#: Entry-point group of extra top-level commands: name -> ``main(argv: list[str]) -> int``.
CLI_ENTRY_POINT_GROUP = "dsh.cli"
#: Larger source files are not parsed for a help line.
_MAX_SOURCE_BYTES = 1 << 20


def add_extension_parsers(sub: argparse._SubParsersAction, *, lazy_help: bool = False) -> Callable[[], None]:
    """One subcommand per ``dsh.cli`` entry point whose name is not a built-in.

    The extension parses its own arguments: every argument after its name,
    options and ``--help`` included, is handed to it (a prefix character no
    argument starts with keeps argparse from reading them as options).

    Returns what fills in the commands' help lines. With ``lazy_help`` they
    are left to it (reading a command's source is for the command list only:
    the parser that prints it calls it first); else they are filled in now.
    """
    seen = set(sub.choices)
    pending: list[tuple[argparse.Action, Any]] = []
    for ep in entry_points(group=CLI_ENTRY_POINT_GROUP):
        if ep.name in seen:  # built-ins win; the first distribution found wins
            continue
        seen.add(ep.name)
        placeholder = f"extension command ({ep.value})".replace("%", "%%")
        ext = sub.add_parser(ep.name, help=placeholder, add_help=False, prefix_chars="\0")
        ext.add_argument("extension_argv", nargs=argparse.REMAINDER)
        ext.set_defaults(extension=ep)
        pending.append((sub._choices_actions[-1], ep))  # the command list's line for it

    def fill_help() -> None:
        while pending:
            line, ep = pending.pop(0)
            line.help = extension_help(ep)

    if not lazy_help:
        fill_help()
    return fill_help


def extension_help(ep: Any) -> str:
    """The first line of ``<callable>.help = "..."`` assigned at the top level of
    the command's module, else of the module docstring, read from source;
    else ``extension command (<module:attr>)``."""
    text = _static_help(ep.module, ep.attr) or ""
    summary = text.strip().splitlines()[0] if text.strip() else f"extension command ({ep.value})"
    return summary.replace("%", "%%")  # argparse %-formats help strings


def run_extension(
    ep: Any, argv: Sequence[str], *, profile: str | None = None, patches: Sequence[str] | None = None
) -> int:
    """Run the extension ``ep`` with ``argv``. A ``profile`` given before its name
    reaches it as ``$DSH_PROFILE``, which every profile reader falls back to; a
    patch has no such channel, so ``patches`` are refused rather than dropped."""
    if patches:
        from .common import EXIT_USAGE

        print(f"harness: --patch before '{ep.name}' does not reach it: give it after the command", file=sys.stderr)
        return EXIT_USAGE
    if profile:
        os.environ[PROFILE_ENV] = profile
    try:
        command: Callable[[list[str]], int] = ep.load()
    except Exception as exc:  # a broken extension breaks only itself
        from hookspecs.scrub import scrub_text  # its detector loads for this error, not for every start

        print(f"harness: cannot load command '{ep.name}' ({ep.value}): {scrub_text(repr(exc))}", file=sys.stderr)
        return 1
    return int(command(list(argv)) or 0)


def _static_help(module: str, attr: str | None) -> str | None:
    path = _source_path(module)
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            source = handle.read(_MAX_SOURCE_BYTES + 1)
        if len(source) > _MAX_SOURCE_BYTES:
            return None
        import ast  # only when the command list is printed

        tree = ast.parse(source, filename=path)
    except (OSError, SyntaxError, ValueError):
        return None  # reported properly if the command is invoked
    name = (attr or "").split(".")[0]
    for node in tree.body:
        if isinstance(node, ast.Assign) and _is_help_of(node.targets, name) and isinstance(node.value, ast.Constant):
            if isinstance(node.value.value, str):
                return node.value.value
    return ast.get_docstring(tree)


def _is_help_of(targets: list[ast.expr], name: str) -> bool:
    import ast

    return any(
        isinstance(t, ast.Attribute) and t.attr == "help" and isinstance(t.value, ast.Name) and t.value.id == name
        for t in targets
    )


def _source_path(module: str) -> str | None:
    """The ``.py`` file of ``module``, asked of the import system's finders
    level by level without importing any package on the way
    (``importlib.util.find_spec`` would import them)."""
    locations: list[str] | None = None
    spec = None
    parts = module.split(".")
    for depth in range(1, len(parts) + 1):
        spec = _find_spec(".".join(parts[:depth]), locations)
        if spec is None:
            return None
        locations = list(spec.submodule_search_locations or [])
    if spec is None or not isinstance(spec.origin, str) or not spec.origin.endswith(".py"):
        return None
    return spec.origin


def _find_spec(fullname: str, locations: list[str] | None) -> machinery.ModuleSpec | None:
    # meta-path finders first, as imports do (an editable install is found by one)
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(fullname, locations)
        except Exception:
            continue
        if spec is not None:
            return spec
    return None
