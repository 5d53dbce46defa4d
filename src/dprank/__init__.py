"""dprank: differentially private ranking from pairwise comparisons.

A library of the mechanisms, estimators and metrics of

* Cai, Chakraborty, Wang (2025), *Optimal Differentially Private Ranking from
  Pairwise Comparisons* (Paper A), and
* Xu, Sun, Cheng, *Rate-Optimal Rank Aggregation with Private Pairwise
  Rankings* (Paper B),

plus the stage functions the Snakemake workflow of this repository calls.
Submodules are imported explicitly (``from dprank.fit.mle import ...``) so that
the workflow can track exactly which library files each stage depends on;
the public ranking function ``dprank.rank`` (and its result type
``dprank.Ranking``) is loaded on first use from :mod:`dprank.api`.
"""

from ._version import __version__

__all__ = ["Ranking", "__version__", "rank"]


def __getattr__(name: str):
    # Lazy (and by name, not by an import statement): ``import dprank.fit.mle`` must not
    # load the API's dependencies, nor make every workflow stage depend on them.
    if name in ("rank", "Ranking"):
        import importlib

        return getattr(importlib.import_module("dprank.api"), name)
    raise AttributeError(f"module 'dprank' has no attribute {name!r}")
