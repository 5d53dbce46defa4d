"""Rule ``car_tables_paper_b2``: B2 Tables 1 and 2 (car preference data) like the paper.

Table 1: the cars' attributes and their non-private ranks by BTL, TM and the
count method (the paper prints one rank row, saying the three agree). Table 2:
mean (SE of the mean) of the full ranking error K per method and model, and
the paired t-tests against ADRR, computed for both models (the paper prints
the BTL tests only). The CSVs keep the machine-readable layout; Markdown, LaTeX
and HTML (the report's copy) are laid out and labelled as the paper prints them.
"""

import json

import pandas as pd

from dprank.base.io import atomic_path, read_csv
from dprank_papers.tables import (
    format_cell,
    format_pvalue,
    latex_escape,
    paper_label,
    pvalue_text,
    to_csv,
    to_html,
    to_latex,
    to_markdown,
)
from dprank_papers.workflow import job_logger

METHODS = ["local_adrr", "local_count", "local_classic_rr", "local_laplace"]
#: B2 Table 1's row labels
ASPECTS = {"Body": "Body type", "Transmission": "Transmission", "Engine": "Engine", "Fuel": "Fuel"}
RANKS = (("btl", "Ranking (BTL)"), ("tm", "Ranking (TM)"), ("count", "Ranking (Count Method)"))
NOT_PRINTED = "ours, not printed: the paper prints the t-tests under BTL only"


def write(outputs, csv, shown, tex, caption, name, notes=()):
    text = caption + "".join(f" {n}" for n in notes)
    for path, content in (
        (outputs[0], to_csv(csv)),
        (outputs[1], to_markdown(shown, text, sparsify=True)),
        (outputs[2], to_latex(tex, text, name, sparsify=True, escape=False)),
        (outputs[3], to_html(shown, caption, notes=notes)),
    ):
        with atomic_path(path) as tmp:
            tmp.write_text(content)


def table2_display(stats: pd.DataFrame, tex: bool) -> pd.DataFrame:
    """Table 2 as printed: per model the mean error row, then the t statistic and p-value."""
    rows = {}
    for model in ("btl", "tm"):
        s = stats[stats["model"] == model].set_index("method")
        name = paper_label(model, tex)
        mark = "" if model == "btl" else " (ours)"
        rows[name, "Mean full ranking error"] = [
            format_cell(s.at[m, "mean"], s.at[m, "se"], 4) for m in METHODS
        ]
        rows[name, f"Paired t-test: t statistic{mark}"] = [
            "–" if m == "local_adrr" else f"{s.at[m, 't']:.4f}" for m in METHODS
        ]
        rows[name, f"Paired t-test: p-value{mark}"] = [
            "–" if m == "local_adrr" else pvalue_text(s.at[m, "p"], tex) for m in METHODS
        ]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=[paper_label(m) for m in METHODS])
    table.index = pd.MultiIndex.from_tuples(table.index, names=["Model", ""])
    if tex:
        table = table.map(lambda c: c if c.startswith("$") else latex_escape(c))
    table.attrs["dispersion_kinds"] = ("se",)
    return table


with job_logger(snakemake) as log:
    ref = json.loads(open(snakemake.input.nonprivate).read())
    items = pd.DataFrame(ref["items"]).set_index("Car")
    table1 = items.T.astype(str)
    for model, label in (("btl", "Rank (BTL)"), ("tm", "Rank (TM)"), ("count", "Rank (count)")):
        table1.loc[label] = [str(int(r)) for r in ref["ranks"][model]]
    table1.columns = [str(c) for c in table1.columns]
    table1.index.name = "Car"
    shown1 = items.T.astype(str).rename(index=ASPECTS)
    for model, label in RANKS:
        shown1.loc[label] = [str(int(r)) for r in ref["ranks"][model]]
    shown1.columns = [str(c) for c in shown1.columns]
    shown1.index.name = "Aspects"
    write(
        snakemake.output.table1,
        table1,
        shown1,
        shown1.map(latex_escape).rename(index=latex_escape),
        snakemake.params.caption,
        "table1",
    )
    stats = read_csv(snakemake.input.table2)
    rows = {}
    for model in ("btl", "tm"):
        s = stats[stats["model"] == model].set_index("method")
        rows[model.upper()] = [format_cell(s.at[m, "mean"], s.at[m, "se"], 4) for m in METHODS]
        rows[f"t (p), {model.upper()}, vs ADRR"] = [
            "–" if m == "local_adrr" else f"{s.at[m, 't']:.4f} ({format_pvalue(s.at[m, 'p'])})"
            for m in METHODS
        ]
    table2 = pd.DataFrame.from_dict(rows, orient="index", columns=METHODS)
    table2.index.name = ""
    table2.attrs["dispersion_kinds"] = ("se",)
    write(
        snakemake.output.table2,
        table2,
        table2_display(stats, tex=False),
        table2_display(stats, tex=True),
        snakemake.params.second_caption,
        "table2",
        notes=(f"Rows marked (ours) are {NOT_PRINTED}.",),
    )
    log.info("Table 1 rankings agree: %s; Table 2: %d rows", ref["agree"], len(table2))
