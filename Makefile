# dprank: the two commands for a fresh machine are `make reproduce` and `make test`
# (see README.md). Everything runs from one virtual environment in .venv, built from
# pyproject.toml with the pinned versions of requirements/constraints.txt.

PYTHON ?= python3
VENV ?= .venv
CORES ?= all
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup wheelhouse reproduce report smoke test slurm-test lint docs docs-includes format bench clean

setup: $(STAMP)

# The package build compiles dprank's C part (setup.py, src/native/); an editable install
# puts the extension beside the sources, where the workflow's jobs import the library from.
$(STAMP): pyproject.toml setup.py requirements/constraints.txt $(wildcard src/native/*) \
    src/dprank/base/_native_build.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c requirements/constraints.txt -e '.[dev,bench,slurm,docs]'
	# peers without their own dependency lists (those they import come with the bench extra):
	# leaderbot's would bring numba, arena-rank pins numpy==2.3.3
	$(BIN)/python -m pip install --quiet --no-deps -c requirements/constraints.txt leaderbot arena-rank
	$(BIN)/python -m dprank_papers._snakemake_configfile  # a missing --configfile: one line, not a traceback
	touch $@

## Every wheel `make setup` installs (and the build backend) into wheelhouse/, with network:
## on a machine without network (same platform and Python), beside a copy of the repository,
## PIP_NO_INDEX=1 PIP_FIND_LINKS=wheelhouse make test installs from there (README, "Offline").
WHEELHOUSE ?= wheelhouse
wheelhouse:
	$(PYTHON) -m venv $(WHEELHOUSE)/.pip
	$(WHEELHOUSE)/.pip/bin/python -m pip wheel --quiet --wheel-dir $(WHEELHOUSE) \
		-c requirements/constraints.txt '.[dev,bench,slurm,docs]' 'setuptools>=77' wheel
	$(WHEELHOUSE)/.pip/bin/python -m pip wheel --quiet --no-deps --wheel-dir $(WHEELHOUSE) \
		-c requirements/constraints.txt leaderbot arena-rank
	rm -rf $(WHEELHOUSE)/.pip $(WHEELHOUSE)/dprank-*.whl build  # build/: pip's wheel of dprank

## Reproduce every figure and table at paper scale (results/), then the HTML report.
reproduce: setup
	$(BIN)/snakemake --cores $(CORES)
	$(MAKE) report

# The report holds `all` and each study beyond the papers that has been built (its last output
# exists): benchmark, beyond_scale, sensitivity, intervals, privacy_audit_full, arena.
REPORT_TARGETS = all \
	$(if $(wildcard results/report/benchmark/thresholds.html),benchmark) \
	$(if $(wildcard results/report/pages/scale_fit.html),beyond_scale) \
	$(if $(wildcard results/report/pages/sensitivity_settings.html),sensitivity) \
	$(if $(wildcard results/report/pages/intervals_coverage.html),intervals) \
	$(if $(wildcard results/report/pages/privacy_harness.html),privacy_audit_full) \
	$(if $(wildcard results/report/pages/arena_price.html),arena)

# The report's stylesheet (figures and tables use the window's width; no raw job parameters).
REPORT_STYLE = --report-stylesheet workflow/report/style.css

## The HTML report (results/report.html) of what has been built at paper scale.
report: setup
	$(BIN)/snakemake --report results/report.html $(REPORT_STYLE) $(REPORT_TARGETS)

## The whole DAG at smoke scale (a few minutes) into results/smoke/ (results_dir of
## .test/config.yaml; the paper-scale results/ stay as they are), then its report.
smoke: setup
	$(BIN)/snakemake --cores $(CORES) --configfile .test/config.yaml
	$(BIN)/snakemake --report results/smoke/report.html $(REPORT_STYLE) --configfile .test/config.yaml

## Unit and workflow tests (includes a smoke run in a temporary copy), with the SIMD kernels
## pinned as the workflow pins them (src/dprank_papers/numerics.py).
test: setup
	env $$($(BIN)/python -m dprank_papers.numerics) $(BIN)/python -m pytest

## The smoke configuration through a one-node Slurm cluster on this machine (root, Debian):
## a failure injected and resumed, results compared with a local run (CI runs it).
slurm-test: setup
	tests/cluster/run_slurm.sh

## Formatting and lint checks (CI runs them before the tests).
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/snakefmt --check Snakefile workflow/
	$(BIN)/snakemake --lint --configfile .test/config.yaml

## The documentation site (docs/, mkdocs.yml) into site/; fails on a broken link or reference.
docs: setup
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

## Rewrite the documentation's generated parts, then commit them (git add docs src/dprank
## README.md): after a full run, docs/includes/*.md (timings, agreement, audit, deviations)
## from results/; always the command's synopses and the values the pages quote
## (docs/includes/values.yaml: derived ones, and those the run's files in results/ measure),
## and after `snakemake benchmark` the default method of each privacy level. RUN="..." names
## the run (machine, date, load) every time measured from results/ comes from.
docs-includes: setup
	$(if $(wildcard results/comparison/paper_b2_summary.csv),$(BIN)/snakemake --cores 1 docs_includes)
	$(if $(wildcard results/tables/intervals/coverage.csv),$(BIN)/snakemake --cores 1 intervals_docs)
	$(BIN)/python -m dprank_papers.docs_generate $(if $(RUN),--run "$(RUN)")

format: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .
	$(BIN)/snakefmt Snakefile workflow/

## Solver benchmark against scipy and choix (prints ratios).
bench: setup
	$(BIN)/python benchmarks/bench_edge_mle.py

clean:
	rm -rf results .snakemake site
