"""Rule ``table1_paper_b1``: B1 Table 1 from the measured trends of Figure 3 (Scenario II).

The CSV holds every column (the paper's expected trend, ours with its slope, whether they
agree); Markdown, LaTeX and HTML print the paper's three columns, each cell the paper's word
with ours beside it.
"""

import pandas as pd

from dprank.base.io import atomic_path, read_csv, write_csv
from dprank_papers.studies.paper_b1 import scheme_table, scheme_trends
from dprank_papers.tables import (
    latex_escape,
    read_published_table,
    to_csv,
    to_html,
    to_latex,
    to_markdown,
)
from dprank_papers.workflow import job_logger

#: B1 Table 1's epsilon orders, as printed (text, LaTeX)
ORDERS = {
    "eps ~ 1/(log(mL)*sqrt(mL))": (
        "ε ≍ 1/(log(mL) √(mL))",
        r"$\epsilon \asymp 1/(\log(mL)\sqrt{mL})$",
    ),
    "eps ~ 1/sqrt(mL)": ("ε ≍ 1/√(mL)", r"$\epsilon \asymp 1/\sqrt{mL}$"),
    "eps ~ log(mL)/sqrt(mL)": ("ε ≍ log(mL)/√(mL)", r"$\epsilon \asymp \log(mL)/\sqrt{mL}$"),
}
COLUMNS = {
    "l2_over_sqrt_m": ("E(m^(-1/2) ‖θ̂ − θ*‖₂)", r"$E(m^{-1/2}\|\hat{\theta} - \theta^*\|_2)$"),
    "linf": ("E(‖θ̂ − θ*‖∞)", r"$E(\|\hat{\theta} - \theta^*\|_\infty)$"),
}


def display(table: pd.DataFrame, tex: bool) -> pd.DataFrame:
    """The paper's three columns: epsilon order, then per error 'paper (ours: trend, slope)'."""
    i = 1 if tex else 0
    rows = {}
    for _, r in table.iterrows():
        cells = []
        for metric in COLUMNS:
            text = f"{r[f'{metric} expected']} (ours: {r[f'{metric} observed']})"
            cells.append(latex_escape(text) if tex else text)
        rows[ORDERS[r["epsilon_order"]][i]] = cells
    out = pd.DataFrame.from_dict(rows, orient="index", columns=[c[i] for c in COLUMNS.values()])
    out.index.name = r"$\epsilon$" if tex else "ε"
    return out


with job_logger(snakemake) as log:
    trends = scheme_trends(read_csv(snakemake.input.summary))
    table = scheme_table(trends, read_published_table(snakemake.input.published))
    table = table.set_index("epsilon_order")
    caption = snakemake.params.caption  # declared in workflow/papers/paper_b1.yaml
    shown = display(table.reset_index(), tex=False)
    for path, text in (
        (snakemake.output.csv, to_csv(table)),
        (snakemake.output.md, to_markdown(shown, caption)),
        (
            snakemake.output.tex,
            to_latex(display(table.reset_index(), tex=True), caption, "b1table1", escape=False),
        ),
        (snakemake.output.html, to_html(shown, caption)),
    ):
        with atomic_path(path) as tmp:
            tmp.write_text(text)
    write_csv(snakemake.output.trends, trends)
    for _, r in trends.iterrows():
        log.info(
            "scheme %d %s: slope %+.3f -> %s", r["scheme"], r["metric"], r["slope"], r["trend"]
        )
