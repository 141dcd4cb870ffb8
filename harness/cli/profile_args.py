"""``--profile``/``--patch`` and ``$DSH_HOME``, with nothing heavy imported: the
Stop hook parses its arguments and may answer before it loads anything else."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from harness.home import resolve_dsh_home

if TYPE_CHECKING:
    from harness.profiles import ComposedProfile

#: the profile a command reads when none is given on its command line
PROFILE_ENV = "DSH_PROFILE"


def dsh_home(environ: Mapping[str, str] | None = None) -> Path:
    return resolve_dsh_home(environ)


def load_profile(args: argparse.Namespace, home: Path) -> ComposedProfile | None:
    """The composed profile named by ``--profile`` (or ``$DSH_PROFILE``); None when
    no profile was asked for and ``$DSH_HOME/profiles/default.yml`` does not exist."""
    # imported here: the profile machinery (and the contract's values under it)
    # loads only for a command that reads a profile, not for --help or a Stop
    # hook that finds nothing new
    from harness.profiles import compose_profile
    from harness.profiles.compose import PROFILES_DIR

    name = args.profile or os.environ.get(PROFILE_ENV)
    # a command's own --patch list is kept apart (argparse would let it replace
    # the one given before the command): the patches apply in the order given
    patches = [Path(p) for p in (*(args.patch or ()), *(getattr(args, COMMAND_PATCHES, None) or ()))]
    if not name:
        default = home / PROFILES_DIR / "default.yml"
        if not default.exists():
            return None
        name = str(default)
    return compose_profile(name, dsh_home=home, patches=patches)


#: where a command's parser keeps the ``--patch`` files given after the command
COMMAND_PATCHES = "command_patch"


def add_profile_arguments(parser: argparse.ArgumentParser, *, command: bool = False) -> None:
    """``--profile`` and ``--patch``; on a ``command``'s parser they are left
    unset unless given after the command, so ``harness --profile P run ...``
    keeps P (argparse lets a subcommand's defaults replace what came before it),
    and its patches are listed apart, so those given before it apply too."""
    default: str | None = argparse.SUPPRESS if command else None
    parser.add_argument(
        "--profile",
        metavar="P",
        help="profile file, or a name in $DSH_HOME/profiles/ (default: $DSH_PROFILE, then 'default' if present)",
        default=default,
    )
    parser.add_argument(
        "--patch",
        metavar="FILE",
        action="append",
        help="extra profile patch layer (repeatable, applied last)",
        default=default,
        dest=COMMAND_PATCHES if command else "patch",
    )
