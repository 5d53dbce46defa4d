"""Rule ``table_paper_b``: a Paper B simulation table (B2 Tables 3-11) laid out like the paper.

Writes the CSV in the config's layout (``index``, ``columns``: the machine-readable copy) and
Markdown, LaTeX and HTML (the report's copy) in the paper's layout with the paper's labels
(:func:`dprank_papers.tables.paper_table`). Cells print ``mean (dispersion)`` with the table's
decimals; the dispersion is what the paper prints there (the sd over replicates, the se of the
mean, or nothing).
"""

from dprank.base.io import atomic_path, read_csv
from dprank_papers.tables import (
    order_rows,
    paper_table,
    pivot_table,
    to_csv,
    to_html,
    to_latex,
    to_markdown,
)
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    summary = read_csv(snakemake.input.summary)
    spec = snakemake.params.table
    name = snakemake.wildcards.table
    dispersion = spec.get("dispersion", "sd")
    table = pivot_table(
        order_rows(summary, spec),
        spec["index"],
        spec["columns"],
        int(spec.get("digits", 4)),
        dispersion=None if dispersion == "none" else dispersion,
    )
    shown = paper_table(summary, spec, name)
    tex = paper_table(summary, spec, name, tex=True)
    caption = snakemake.params.caption  # declared in workflow/papers/<paper>.yaml
    for path, text in (
        (snakemake.output.csv, to_csv(table)),
        (snakemake.output.md, to_markdown(shown, caption, sparsify=True)),
        (snakemake.output.tex, to_latex(tex, caption, name, sparsify=True, escape=False)),
        (snakemake.output.html, to_html(shown, caption)),
    ):
        with atomic_path(path) as tmp:
            tmp.write_text(text)
    log.info("%s: %d rows x %d columns", name, *table.shape)
