"""Shadow Mind: a background reviewer plugin for ``dsh`` hosts.

It imports only :mod:`hookspecs`; any host implementing the contract can run it.
"""
