# The sensitivity study of B2's unstated settings (issue 16, docs/sensitivity.md): which
# settings, if any, reproduce Table 11, Table 10's classic RR and Scenario III's Tables 6-7.
# Its own target, not part of `all`; the main study's defaults do not change.
#
#   results/sensitivity/scenario3/grid/{model}_p{p}.csv     sensitivity_scenario3_grid
#   results/sensitivity/scenario3/{curve,fit,check,check_summary}.csv
#                                                           sensitivity_scenario3_fit
#   results/sensitivity/scenario5/{model}_p{p}.csv          sensitivity_scenario5
#   results/sensitivity/{cells,settings}.csv, findings.md   sensitivity_summary
#   results/figures/sensitivity/sensitivity.{pdf,png,csv}   sensitivity_figure
# Target: sensitivity.

import re

SENS = config.get("sensitivity") or {}
SENS_S3 = SENS.get("scenario3") or {}
SENS_S5 = SENS.get("scenario5") or {}
SENS_B2 = config.get("paper_b2") or {}
SENS_EXP3 = SENS_B2.get("experiments", {}).get(SENS_S3.get("experiment"), {})
SENS_EXP5 = SENS_B2.get("experiments", {}).get(SENS_S5.get("experiment"), {})
#: p as written in file names -> its value
SENS_P3 = {f"{p:g}": float(p) for p in SENS_S3.get("p", [])}
SENS_P5 = {f"{p:g}": float(p) for p in SENS_S5.get("p", [])}
#: the main study's Scenario V setting
SENS_DEFAULT5 = {
    "theta_half": 1.0,
    "p": SENS_EXP5.get("p"),
    "lambda_c": SENS_B2.get("lambda_c", 1.0),
}


#: per part: the published CSVs of its tables and their labels as in the comparison
#: (table6 -> "B2 Table 6"), in the config's order
SENS_PUBLISHED = {
    part: [B2_TABLES[t]["published"] for t in sec.get("tables", [])]
    for part, sec in (("scenario3", SENS_S3), ("scenario5", SENS_S5))
}
SENS_LABELS = {
    part: [f"B2 Table {t.removeprefix('table')}" for t in sec.get("tables", [])]
    for part, sec in (("scenario3", SENS_S3), ("scenario5", SENS_S5))
}
#: per part: what every job shares (seed, the experiment's config, solver, ridge constant)
SENS_COMMON = {
    part: {
        "seed": config["seed"],
        "exp": exp,
        "solver": SENS_B2.get("solver"),
        "lambda_c": SENS_B2.get("lambda_c", 1.0),
    }
    for part, exp in (("scenario3", SENS_EXP3), ("scenario5", SENS_EXP5))
}


rule sensitivity_scenario3_grid:
    input:
        library=script_files(script_path("sensitivity_scenario3_grid"), SRC),
    output:
        R("sensitivity/scenario3/grid/{model}_p{p}.csv"),
    log:
        R("logs/sensitivity/scenario3/grid/{model}_p{p}.log"),
    benchmark:
        R("benchmarks/sensitivity/scenario3/grid/{model}_p{p}.tsv")
    wildcard_constraints:
        model="btl|tm",
        p="|".join(re.escape(p) for p in SENS_P3) or "none",
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical(
            {
                **SENS_COMMON["scenario3"],
                "experiment": SENS_S3["experiment"],
                "model": w.model,
                "p": SENS_P3[w.p],
                "eps0": SENS_S3["eps0"],
                "reps": SENS_S3["reps"],
                "grid": SENS_S3.get("grid"),
            }
        ),
    script:
        "../../scripts/sensitivity_scenario3_grid.py"


rule sensitivity_scenario3_fit:
    input:
        grid=expand(
            R("sensitivity/scenario3/grid/{model}_p{p}.csv"),
            model=SENS_EXP3.get("grid", {}).get("model", []),
            p=SENS_P3,
        ),
        published=SENS_PUBLISHED["scenario3"],
        library=script_files(script_path("sensitivity_scenario3_fit"), SRC),
    output:
        curve=R("sensitivity/scenario3/curve.csv"),
        fit=R("sensitivity/scenario3/fit.csv"),
        check=R("sensitivity/scenario3/check.csv"),
        summary=R("sensitivity/scenario3/check_summary.csv"),
    log:
        R("logs/sensitivity/scenario3/fit.log"),
    benchmark:
        R("benchmarks/sensitivity/scenario3/fit.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical(
            {
                **SENS_COMMON["scenario3"],
                "experiment": SENS_S3["experiment"],
                "check_reps": SENS_S3["check_reps"],
                "grid": SENS_S3.get("grid"),
                "labels": SENS_LABELS["scenario3"],
                "z": config["comparison"]["z"],
            }
        ),
    script:
        "../../scripts/sensitivity_scenario3_fit.py"


rule sensitivity_scenario5:
    input:
        library=script_files(script_path("sensitivity_scenario5"), SRC),
    output:
        R("sensitivity/scenario5/{model}_p{p}.csv"),
    log:
        R("logs/sensitivity/scenario5/{model}_p{p}.log"),
    benchmark:
        R("benchmarks/sensitivity/scenario5/{model}_p{p}.tsv")
    wildcard_constraints:
        model="btl|tm",
        p="|".join(re.escape(p) for p in SENS_P5) or "none",
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical(
            {
                **SENS_COMMON["scenario5"],
                "experiment": SENS_S5["experiment"],
                "model": w.model,
                "p": SENS_P5[w.p],
                "theta_half": SENS_S5["theta_half"],
                "lambda_cs": SENS_S5["lambda_c"],
                "reps": SENS_S5["reps"],
            }
        ),
    script:
        "../../scripts/sensitivity_scenario5.py"


rule sensitivity_summary:
    input:
        scenario5=expand(
            R("sensitivity/scenario5/{model}_p{p}.csv"),
            model=SENS_EXP5.get("grid", {}).get("model", []),
            p=SENS_P5,
        ),
        fit=R("sensitivity/scenario3/fit.csv"),
        check=R("sensitivity/scenario3/check_summary.csv"),
        published=SENS_PUBLISHED["scenario5"],
        library=script_files(script_path("sensitivity_summary"), SRC),
    output:
        cells=R("sensitivity/cells.csv"),
        settings=R("sensitivity/settings.csv"),
        findings=R("sensitivity/findings.md"),
        html=report(
            R("report/sensitivity/findings.html"),
            caption="../report/sensitivity.rst",
            category="Agreement with the papers",
            subcategory="Sensitivity study (B2)",
            labels={"page": "findings"},
        ),
    log:
        R("logs/sensitivity/summary.log"),
    benchmark:
        R("benchmarks/sensitivity/summary.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical(
            {
                "labels": SENS_LABELS["scenario5"],
                "z": config["comparison"]["z"],
                "default5": SENS_DEFAULT5,
                "default3": {
                    "p": SENS_EXP3.get("p"),
                    "eps0": SENS_EXP3.get("eps", {}).get("eps0"),
                },
            }
        ),
    script:
        "../../scripts/sensitivity_summary.py"


rule sensitivity_figure:
    input:
        curve=R("sensitivity/scenario3/curve.csv"),
        fit=R("sensitivity/scenario3/fit.csv"),
        cells=R("sensitivity/cells.csv"),
        library=script_files(script_path("sensitivity_figure"), SRC),
    output:
        pdf=R("figures/sensitivity/sensitivity.pdf"),
        png=report(
            R("figures/sensitivity/sensitivity.png"),
            caption="../report/sensitivity.rst",
            category="Agreement with the papers",
            subcategory="Sensitivity study (B2)",
            labels={"figure": "sensitivity"},
        ),
        csv=R("figures/sensitivity/sensitivity.csv"),
    log:
        R("logs/sensitivity/figure.log"),
    benchmark:
        R("benchmarks/sensitivity/figure.tsv")
    conda:
        "../../envs/plot.yaml"
    params:
        default5=SENS_DEFAULT5,
    script:
        "../../scripts/sensitivity_figure.py"


rule sensitivity:
    input:
        study_pages("sensitivity"),
        rules.sensitivity_summary.output,
        rules.sensitivity_figure.output,
        rules.sensitivity_scenario3_fit.output,
