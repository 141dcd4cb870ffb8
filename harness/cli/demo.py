"""``harness demo``: run a demo shipped inside an installed distribution.

A distribution declares a demo in the ``dsh.demos`` entry-point group:
``shadow-mind = "shadow_mind_plugin:demo"`` names a directory inside a package
(the same ``package:resource`` form as ``dsh.bundles``). The directory holds a
``demo.yml`` manifest::

    description: one line for ``harness demo --list``
    prompt: the prompt sent to the root agent
    profile: profile.yml      # relative to the demo directory
    workspace: workspace      # likewise: the agents' working directory

The host never imports the plugin: it reads the directory through
``importlib.resources`` and loads plugins by the names the profile gives.

The demo runs in a temporary copy of that directory, so nothing is written
where the command is typed: the process works from the copy (relative paths in
the profile resolve against the profile's directory anyway), the agents work in
the copy's workspace, and ``$DSH_HOME`` is a temporary directory unless one is
set. All of it is removed afterwards.

``--serve`` runs the demo's prompt as ``harness demo`` does, then serves the web
client over the same ``$DSH_HOME`` and workspace until Ctrl-C: the page lists
the demo's session, and further questions can be asked there.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import attrs
import trio
from ruamel.yaml import YAML

from hookspecs.errors import DshError

from ..entry_points import entry_points
from ..paths import resolve_dsh_home
from ..profiles import compose_profile
from .common import add_profile_arguments
from .parsers import add_chat_parser, add_demo_parser, add_run_parser
from .run import run_prompt
from .serve import add_serve_parser, run_serve

#: Entry-point group of shipped demos: name -> ``package:directory``.
DEMOS_ENTRY_POINT_GROUP = "dsh.demos"
MANIFEST = "demo.yml"


@attrs.frozen(kw_only=True)
class Demo:
    name: str
    #: ``package:directory``
    value: str

    def directory(self) -> Traversable:
        package, sep, resource = self.value.partition(":")
        if not sep or not package.strip() or not resource.strip():
            raise DshError(f"demo {self.name!r}: entry point value must be 'package:directory'", code="USAGE")
        try:
            ref = resources.files(package.strip())
        except ModuleNotFoundError as exc:
            raise DshError(f"demo {self.name!r}: package {package.strip()!r} not importable: {exc}", code="USAGE") from exc
        for part in resource.strip().split("/"):
            ref = ref.joinpath(part)
        if not ref.joinpath(MANIFEST).is_file():
            raise DshError(f"demo {self.name!r} ({self.value}): no {MANIFEST} in it", code="USAGE")
        return ref

    def manifest(self) -> dict[str, str]:
        data = YAML(typ="safe").load(self.directory().joinpath(MANIFEST).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("prompt", "profile", "workspace")):
            raise DshError(f"demo {self.name!r}: {MANIFEST} needs string keys prompt, profile and workspace", code="USAGE")
        return {str(k): str(v) for k, v in data.items()}


def available_demos() -> dict[str, Demo]:
    """Every declared demo by name; the first declaration of a name wins."""
    found: dict[str, Demo] = {}
    for ep in entry_points(group=DEMOS_ENTRY_POINT_GROUP):
        found.setdefault(ep.name, Demo(name=ep.name, value=ep.value.strip()))
    return found


def pick_demo(name: str | None) -> Demo:
    demos = available_demos()
    if name is None and len(demos) == 1:
        return next(iter(demos.values()))
    if name in demos:
        return demos[name]
    known = ", ".join(sorted(demos)) or "none installed"
    asked = f"no demo {name!r}" if name else "several demos are installed; name one"
    raise DshError(f"{asked} (demos: {known})", code="USAGE")


def copy_tree(source: Traversable, target: Path) -> None:
    """Copy a resource directory (on disk or inside a zip) to ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for entry in source.iterdir():
        if entry.name == "__pycache__":
            continue
        if entry.is_dir():
            copy_tree(entry, target / entry.name)
        else:
            (target / entry.name).write_bytes(entry.read_bytes())


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    previous = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def run_demo(args: argparse.Namespace) -> int:
    if args.list:
        for name, demo in sorted(available_demos().items()):
            print(f"{name}\t{demo.manifest().get('description', '')}")
        return 0
    demo = pick_demo(args.name)
    manifest = demo.manifest()
    with tempfile.TemporaryDirectory(prefix=f"dsh-demo-{demo.name}-") as tmp:
        root = Path(tmp) / "demo"
        copy_tree(demo.directory(), root)
        own_home = not os.environ.get("DSH_HOME")
        home = Path(tmp) / "home" if own_home else resolve_dsh_home()
        workspace = root / manifest["workspace"]
        where = "a temporary DSH_HOME" if own_home else "DSH_HOME from the environment"
        print(f"demo {demo.name}: in a temporary copy of its workspace, with {where}", file=sys.stderr)
        with working_directory(root):
            composed = compose_profile(root / manifest["profile"], dsh_home=home)
            if args.chat:
                from .chat import run_chat  # the terminal chat (and rich) load only to chat

                chat_args = command_args("chat", "--cwd", str(workspace))
                return trio.run(run_chat, chat_args, composed.rows, home)
            json_flag = ["--json"] if args.json else []
            run_args = command_args("run", "--cwd", str(workspace), *json_flag, "--", manifest["prompt"])
            print(f"you> {manifest['prompt']}", file=sys.stderr if args.json else sys.stdout, flush=True)
            code = trio.run(run_prompt, run_args, composed.rows, home)
            if not args.serve or code != 0:
                return code
            print(
                f"demo {demo.name}: the session above is in the web client; open the URL below "
                "(the offline model answers one question; Ctrl-C stops the server and removes the demo)",
                file=sys.stderr,
                flush=True,
            )
            serve_args = command_args("serve", "--cwd", str(workspace), "--port", str(args.port))
            return trio.run(run_serve, serve_args, composed.rows, home)


def command_args(command: str, *argv: str) -> argparse.Namespace:
    """``harness run|chat|serve`` arguments exactly as their own parsers build them,
    defaults included, so an option added there needs nothing here."""
    parser = argparse.ArgumentParser(prog="harness")
    sub = parser.add_subparsers(dest="command")
    add_run_parser(sub, add_profile_arguments)
    add_chat_parser(sub, add_profile_arguments)
    add_serve_parser(sub, add_profile_arguments)
    return parser.parse_args([command, *argv])


__all__ = ["DEMOS_ENTRY_POINT_GROUP", "Demo", "add_demo_parser", "available_demos", "run_demo"]
