"""Rule ``table1_paper_b1``: B1 Table 1 from the measured trends of Figure 3 (Scenario II)."""

from dprank.io import atomic_path, read_csv, write_csv
from dprank.studies.paper_b1 import scheme_table, scheme_trends
from dprank.tables import read_published_table, to_csv, to_latex, to_markdown
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    trends = scheme_trends(read_csv(snakemake.input.summary))
    table = scheme_table(trends, read_published_table(snakemake.input.published))
    table = table.set_index("epsilon_order")
    caption = (
        "Paper B (B1) Table 1: behaviour of the errors as L grows under the three schemes - "
        "the paper's (theory) beside ours (slope of log mean error on log L, Figure 3, mean "
        "over m; |slope| <= 0.1 reads as stable). Our scheme numbers follow the formulas."
    )
    for path, text in (
        (snakemake.output.csv, to_csv(table)),
        (snakemake.output.md, to_markdown(table, caption)),
        (snakemake.output.tex, to_latex(table, caption, "b1table1")),
    ):
        with atomic_path(path) as tmp:
            tmp.write_text(text)
    write_csv(snakemake.output.trends, trends)
    for _, r in trends.iterrows():
        log.info(
            "scheme %d %s: slope %+.3f -> %s", r["scheme"], r["metric"], r["slope"], r["trend"]
        )
