"""The reference host: a small, real agent harness built on :mod:`hookspecs`."""
