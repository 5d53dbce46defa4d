rule plot_paper_a_figure:
    input:
        summaries=figure_summaries,
        comparison=paper_a_comparison,
        library=lambda w: script_files(script_path("plot_paper_a_figure"), SRC),
    output:
        # every protocol's figure in one job: they share the start-up and the imports
        **paper_a_figure_outputs(),
    log:
        R("logs/figures/paper_a/{figure}.log"),
    benchmark:
        R("benchmarks/figures/paper_a/{figure}.tsv")
    wildcard_constraints:
        figure="|".join(f for f in PAPER_A_ITEMS if f not in PAPER_A_SINGLE),
    conda:
        "../../envs/plot.yaml"
    params:
        figure=lambda w: canonical(figure_settings(w.figure)),
        summaries=figure_summaries_by_protocol,
        caption=item_caption("paper_a", "paper_a"),
        overlay_caption=item_caption("paper_a", "paper_a_overlay"),
    script:
        "../../scripts/plot_paper_a_figure.py"


# Figure 8 once for both protocols: they give the same means there (declared single).
use rule plot_paper_a_figure as plot_paper_a_single with:
    output:
        **paper_a_single_outputs(),
    wildcard_constraints:
        figure="|".join(PAPER_A_SINGLE) or "^$",
    params:
        figure=lambda w: canonical(figure_settings(w.figure)),
        summaries=figure_summaries_by_protocol,
        caption=item_caption("paper_a", "paper_a_single"),
        overlay_caption=item_caption("paper_a", "paper_a_single_overlay"),


# The B2 figures whose numbers the paper prints in tables are drawn with their overlay
# version, in one job (rule plot_paper_b_figure_overlay); the others by plot_paper_b_figure,
# except those plotting the output of a shorter pipeline: the timing experiment (B2 Figure
# 10, one job) and the car data (B2 Figure 14, after the fetch) have rules of their own, the
# same rule under another name, because the report's rule graph draws a rule once per depth
# of the DAG at which it has jobs (the simulations' figures come after three stages).
ruleorder:
    plot_paper_b_figure_overlay
    > plot_paper_b_timing_figure
    > plot_paper_b_car_figure
    > plot_paper_b_figure


rule plot_paper_b_figure:
    input:
        data=b_figure_inputs,
        library=script_files(script_path("plot_paper_b_figure"), SRC),
    output:
        pdf=R("figures/{bpaper}/{figure}.pdf"),
        png=report(
            R("figures/{bpaper}/{figure}.png"),
            caption=REPORT_ITEM,
            category=report_paper,
            subcategory="figures",
            labels=figure_labels,
        ),
        csv=R("figures/{bpaper}/{figure}.csv"),
    log:
        R("logs/figures/{bpaper}/{figure}.log"),
    benchmark:
        R("benchmarks/figures/{bpaper}/{figure}.tsv")
    conda:
        "../../envs/plot.yaml"
    params:
        figure=lambda w: canonical(item_settings(item(w.bpaper, w.figure))),
        caption=item_caption(None),
    script:
        "../../scripts/plot_paper_b_figure.py"


use rule plot_paper_b_figure as plot_paper_b_timing_figure with:
    wildcard_constraints:
        **b_figures_of(TIMING_EXPERIMENTS),


use rule plot_paper_b_figure as plot_paper_b_car_figure with:
    wildcard_constraints:
        **b_figures_of(["car"]),


rule plot_paper_b_figure_overlay:
    input:
        data=b_figure_inputs,
        comparison=R("comparison/{bpaper}.csv"),
        library=script_files(script_path("plot_paper_b_figure"), SRC),
    output:
        pdf=R("figures/{bpaper}/{figure}.pdf"),
        png=report(
            R("figures/{bpaper}/{figure}.png"),
            caption=REPORT_ITEM,
            category=report_paper,
            subcategory="figures",
            labels=figure_labels,
        ),
        csv=R("figures/{bpaper}/{figure}.csv"),
        overlay_pdf=R("figures/{bpaper}/{figure}_overlay.pdf"),
        overlay_png=report(
            R("figures/{bpaper}/{figure}_overlay.png"),
            caption=OVERLAY_ITEM,
            category=report_paper,
            subcategory="figures",
            labels=overlay_labels,
        ),
    log:
        R("logs/figures/{bpaper}/{figure}.log"),
    benchmark:
        R("benchmarks/figures/{bpaper}/{figure}.tsv")
    wildcard_constraints:
        bpaper="|".join(p for p, figures in B_OVERLAID.items() if figures) or "^$",
        figure="|".join(f for figures in B_OVERLAID.values() for f in figures) or "^$",
    conda:
        "../../envs/plot.yaml"
    params:
        figure=lambda w: canonical(item_settings(item(w.bpaper, w.figure))),
        caption=item_caption(None),
        tables=lambda w: [
            f"B2 Table {t.removeprefix('table')}"
            for t in item(w.bpaper, w.figure)["published"]
        ],
        overlay_caption=item_caption(None, "paper_b_overlay"),
    script:
        "../../scripts/plot_paper_b_figure.py"
