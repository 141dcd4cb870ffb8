"""Slash commands."""

from .parse import parse_command
from .registry import CommandRegistryImpl, help_text

__all__ = ["CommandRegistryImpl", "help_text", "parse_command"]
