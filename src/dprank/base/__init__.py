"""Foundations of the library: argument checks, seeding, files (CSV cells, YAML), the
compiled part's loader and build facts, LAPACK and scipy on first use.

Nothing here imports another layer; the package itself imports nothing.
"""
