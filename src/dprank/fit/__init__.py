"""Mathematics, fitting: the maximum likelihood estimators (dense, weighted, sparse,
ties, mixed effects), rankings and top-k selection, and the accuracy metrics.

The likelihood itself is :mod:`dprank.objective`. The package itself imports nothing.
"""
