"""Check or regenerate the packaged starter files from their source data.

``python -m shadow_mind_plugin.definitions.regen_starters [--write]``; exits 1
when a file is out of date and ``--write`` was not given.
"""

from __future__ import annotations

import argparse
import sys
from importlib import resources
from pathlib import Path

from .starters import STARTER_SPECS, STARTERS_PACKAGE, render_starter


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check or regenerate the packaged starter files.")
    parser.add_argument("--write", action="store_true", help="rewrite the files instead of checking them")
    args = parser.parse_args(argv)
    directory = Path(str(resources.files(STARTERS_PACKAGE)))
    stale = []
    for spec in STARTER_SPECS:
        target = directory / f"{spec.id}.md"
        text = render_starter(spec)
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current != text:
            stale.append(target.name)
            if args.write:
                target.write_text(text, encoding="utf-8")
    verb = "rewrote" if args.write else "out of date"
    print(f"{verb}: {', '.join(stale)}" if stale else "starters are up to date")
    return 1 if stale and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
