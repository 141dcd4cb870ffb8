"""Tools: the registry, the execution pipeline, argument schemas and the built-in tools."""
