"""Argument types the transcript commands share, apart from the commands (the
Stop hook parses its arguments before it has imported anything heavy)."""

from __future__ import annotations

import argparse
import math


def positive_seconds(text: str) -> float:
    """``--timeout``: a finite number of seconds above 0 (``nan``, ``inf`` and ``-1`` are refused)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of seconds above 0")
    return value
