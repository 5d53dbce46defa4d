"""Rule ``car_tables_paper_b2``: B2 Tables 1 and 2 (car preference data) like the paper.

Table 1: the cars' attributes and their non-private ranks by BTL, TM and the
count method (the paper prints one rank row, saying the three agree). Table 2:
mean (SE of the mean) of the full ranking error K per method and model, and
the paired t-tests against ADRR (t (two-sided p)), computed for both models
(the paper prints the BTL tests only).
"""

import json

import pandas as pd

from dprank.io import atomic_path, read_csv
from dprank.tables import format_cell, format_pvalue, to_csv, to_latex, to_markdown
from dprank.workflow import job_logger

METHODS = ["ADRR", "Count", "ClassicRR", "Laplace"]


def write(table, caption, name, outputs):
    for path, text in (
        (outputs[0], to_csv(table)),
        (outputs[1], to_markdown(table, caption)),
        (outputs[2], to_latex(table, caption, name)),
    ):
        with atomic_path(path) as tmp:
            tmp.write_text(text)


with job_logger(snakemake) as log:
    ref = json.loads(open(snakemake.input.nonprivate).read())
    items = pd.DataFrame(ref["items"]).set_index("Car")
    table1 = items.T.astype(str)
    for model, label in (("btl", "Rank (BTL)"), ("tm", "Rank (TM)"), ("count", "Rank (count)")):
        table1.loc[label] = [str(int(r)) for r in ref["ranks"][model]]
    table1.columns = [str(c) for c in table1.columns]
    table1.index.name = "Car"
    write(
        table1,
        "Paper B (B2) Table 1: car attributes and the non-private rankings (1 = best) by BTL, "
        "TM and the count method.",
        "table1",
        snakemake.output.table1,
    )
    stats = read_csv(snakemake.input.table2)
    rows = {}
    for model in ("btl", "tm"):
        s = stats[stats["model"] == model].set_index("method")
        rows[model.upper()] = [format_cell(s.at[m, "mean"], s.at[m, "se"], 4) for m in METHODS]
        rows[f"t (p), {model.upper()}, vs ADRR"] = [
            "–" if m == "ADRR" else f"{s.at[m, 't']:.4f} ({format_pvalue(s.at[m, 'p'])})"
            for m in METHODS
        ]
    table2 = pd.DataFrame.from_dict(rows, orient="index", columns=METHODS)
    table2.index.name = ""
    table2.attrs["dispersion_kinds"] = ("se",)
    write(
        table2,
        "Paper B (B2) Table 2: car data, mean full ranking error K against the Table 1 ranking "
        f"({int(stats['R'].max())} replicates; eps_l ~ U(A, A + 1), A ~ U(0.2, 2)) and paired "
        "t-tests against ADRR (t (two-sided p)).",
        "table2",
        snakemake.output.table2,
    )
    log.info("Table 1 rankings agree: %s; Table 2: %d rows", ref["agree"], len(table2))
