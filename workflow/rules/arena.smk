# The price of privacy for a leaderboard with ties (issue 47, docs/leaderboard.md): the
# Chatbot Arena snapshot and CEMS, edge, voter-level and local DP against the non-private
# Davidson leaderboard. Its own target, not part of `all`.
#
#   results/arena/{dataset}/{privacy}_eps{epsilon}.csv    arena_cell (one job per cell)
#   results/tables/arena/price_of_privacy.{csv,md}        arena_table
#   results/figures/arena/price_of_privacy.{pdf,png,csv}  arena_figure
# Target: arena.

from dprank_papers.studies import arena as _arena

ARENA = config.get("arena") or {}
# (dataset, privacy, epsilon) of every cell; epsilon inf is the non-private reference
ARENA_CELLS = _arena.cells(ARENA)


rule arena_cell:
    input:
        data=lambda w: DATA_FILES[w.dataset][0],
        library=script_files(script_path("arena_cell"), SRC),
    output:
        R("arena/{dataset}/{privacy}_eps{epsilon}.csv"),
    log:
        R("logs/arena/{dataset}/{privacy}_eps{epsilon}.log"),
    benchmark:
        R("benchmarks/arena/{dataset}/{privacy}_eps{epsilon}.tsv")
    wildcard_constraints:
        dataset="chatbot_arena|cems",
        privacy="edge|individual|local|none",
    conda:
        "../../envs/estimate.yaml"
    resources:
        mem_mb=1500,
    params:
        job=lambda w: canonical(
            _arena.cell_job(ARENA, config["seed"], w.dataset, w.privacy, w.epsilon)
        ),
    script:
        "../../scripts/arena_cell.py"


rule arena_table:
    input:
        rows=[R(f"arena/{d}/{p}_eps{e:g}.csv") for d, p, e in ARENA_CELLS],
        library=script_files(script_path("arena_table"), SRC),
    output:
        csv=R("tables/arena/price_of_privacy.csv"),
        md=R("tables/arena/price_of_privacy.md"),
    log:
        R("logs/arena/table.log"),
    benchmark:
        R("benchmarks/arena/table.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        level=ARENA.get("level"),
    script:
        "../../scripts/arena_table.py"


rule arena_figure:
    input:
        table=R("tables/arena/price_of_privacy.csv"),
        library=script_files(script_path("arena_figure"), SRC),
    output:
        pdf=R("figures/arena/price_of_privacy.pdf"),
        png=report(
            R("figures/arena/price_of_privacy.png"),
            caption="../report/arena.rst",
            category="Benchmark",
            subcategory="arena",
            labels={"figure": "price of privacy for a leaderboard"},
        ),
        csv=R("figures/arena/price_of_privacy.csv"),
    log:
        R("logs/arena/figure.log"),
    benchmark:
        R("benchmarks/arena/figure.tsv")
    conda:
        "../../envs/plot.yaml"
    params:
        level=ARENA.get("level"),
    script:
        "../../scripts/arena_figure.py"


rule arena:
    input:
        study_pages("arena"),
        rules.arena_table.output,
        rules.arena_figure.output,
