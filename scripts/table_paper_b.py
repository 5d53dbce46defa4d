"""Rule ``table_paper_b``: a Paper B simulation table (B2 Tables 3-11) laid out like the paper.

Writes CSV, Markdown and LaTeX. Cells print ``mean (dispersion)`` with the
table's decimals; the dispersion is what the paper prints there (the sd over
replicates, the se of the mean, or nothing).
"""

from dprank.io import atomic_path, read_csv
from dprank.tables import order_rows, pivot_table, to_csv, to_latex, to_markdown
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    summary = read_csv(snakemake.input.summary)
    spec = snakemake.params.table
    rows = order_rows(summary, spec)
    dispersion = spec.get("dispersion", "sd")
    table = pivot_table(
        rows,
        spec["index"],
        spec["columns"],
        int(spec.get("digits", 4)),
        dispersion=None if dispersion == "none" else dispersion,
    )
    caption = spec["caption"]
    for path, text in (
        (snakemake.output.csv, to_csv(table)),
        (snakemake.output.md, to_markdown(table, caption)),
        (snakemake.output.tex, to_latex(table, caption, snakemake.wildcards.table)),
    ):
        with atomic_path(path) as tmp:
            tmp.write_text(text)
    log.info("%s: %d rows x %d columns", snakemake.wildcards.table, *table.shape)
