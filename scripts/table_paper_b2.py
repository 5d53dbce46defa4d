"""Rule ``table_paper_b2``: a Paper B (B2) table (Tables 5-9) laid out like the paper.

Writes CSV, Markdown and LaTeX. Cells print ``mean (sd over replicates)`` with the
paper's four decimals.
"""

from dprank.io import atomic_path, read_csv
from dprank.tables import pivot_table, to_csv, to_latex, to_markdown
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    summary = read_csv(snakemake.input.summary)
    spec = snakemake.params.table
    rows = summary[summary["metric"].isin(spec["metrics"])].copy()
    rows["model"] = rows["model"].str.upper()
    rows = rows.sort_values([*spec["index"], *spec["columns"]])
    table = pivot_table(rows, spec["index"], spec["columns"], 4, dispersion="sd")
    caption = spec["caption"]
    for path, text in (
        (snakemake.output.csv, to_csv(table)),
        (snakemake.output.md, to_markdown(table, caption)),
        (snakemake.output.tex, to_latex(table, caption, snakemake.wildcards.table)),
    ):
        with atomic_path(path) as tmp:
            tmp.write_text(text)
    log.info("%s: %d rows x %d columns", snakemake.wildcards.table, *table.shape)
