"""The starters: bundled reviewer definitions (``*.md`` data files, disabled examples).

A package (not a plain directory) so wheels include the files as package data;
read them with :mod:`shadow_mind_plugin.definitions.starters`.
"""
