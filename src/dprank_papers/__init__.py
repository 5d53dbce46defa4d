"""dprank_papers: the reproduction of the two papers, a client of the ranking library.

The package the workflow (``Snakefile``, ``workflow/``, ``scripts/``) runs to regenerate every
figure and table of Paper A (Cai, Chakraborty, Wang 2025) and Paper B (Xu, Sun, Cheng; versions
B1 and B2). It uses only the public names of :mod:`dprank`, the ranking library; the library
never imports it (``tests/test_package_boundary.py``). Its parts:

* :mod:`dprank_papers.studies`: the experiment families of the papers, one subpackage each;
* :mod:`dprank_papers.plotting`, :mod:`dprank_papers.tables`, :mod:`dprank_papers.compare`,
  :mod:`dprank_papers.report`: figures, tables, published against reproduced, the report;
* :mod:`dprank_papers.docs_includes`, :mod:`dprank_papers.docs_values`,
  :mod:`dprank_papers.docs_generate`: the documentation's generated parts;
* :mod:`dprank_papers.config`, ``_papers``, :mod:`dprank_papers.workflow`,
  :mod:`dprank_papers.stage_manifests`, :mod:`dprank_papers.deps`,
  :mod:`dprank_papers.cluster`, :mod:`dprank_papers.grid`, :mod:`dprank_papers.aggregate`:
  the workflow's glue (config, paper declarations, stages, cluster resources);
* :mod:`dprank_papers.rrng`, :mod:`dprank_papers.rbfgs`, :mod:`dprank_papers.introselect`:
  emulations of the authors' code (R's generator, R's BFGS, numpy's argpartition).
"""
