"""Data: comparisons and their statistics, the models' links, the readers of the
command's inputs (``inputs`` and its ``_input_*`` parts), arena votes, items, the
real data sets (registry, readers, exports) and the simulated designs.

Imports only :mod:`dprank.base`; the package itself imports nothing.
"""
