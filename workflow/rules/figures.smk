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
        figure="|".join(f for f in PAPER_A_FIGURE_STUDY if f not in PAPER_A_SINGLE),
    conda:
        "../../envs/plot.yaml"
    params:
        figure=lambda w: canonical(figure_settings(w.figure)),
        summaries=figure_summaries_by_protocol,
        caption=lambda w: (
            f"{CAPTIONS['paper_a'][w.figure]} The label 'protocol' says which protocol: "
            "'paper' runs the algorithms as stated, 'authors' as the authors' code does. "
            "Published versus reproduced: Paper A's comparison summaries."
        ),
        overlay_caption=lambda w: (
            f"{CAPTIONS['paper_a'][w.figure]} The label 'protocol' says which protocol. "
            "Overlay: the published points (the authors' stored results for Figures 1-4, "
            "points digitised from the paper for Figures 5-8) as hollow markers over our "
            "curves."
        ),
    script:
        "../../scripts/plot_paper_a_figure.py"


# Figure 8 once for both protocols: they give the same means there (PAPER_A_SINGLE).
use rule plot_paper_a_figure as plot_paper_a_single with:
    output:
        **paper_a_single_outputs(),
    wildcard_constraints:
        figure="|".join(PAPER_A_SINGLE) or "^$",
    params:
        figure=lambda w: canonical(figure_settings(w.figure)),
        summaries=figure_summaries_by_protocol,
        caption=lambda w: (
            f"{CAPTIONS['paper_a'][w.figure]} One figure for both protocols: here they "
            "differ only in the ridge of the non-private reference fit (authors: the private "
            "fit's gamma = 2L/eps; paper: none), which ranks the items the same on both data "
            "sets at every eps, and they share the noise draws, so their means are equal (the "
            "job checks it; the CSV holds both). Published versus reproduced: Paper A's "
            "comparison summaries."
        ),
        overlay_caption=lambda w: (
            f"{CAPTIONS['paper_a'][w.figure]} Overlay: the points digitised from the "
            "paper's figure as hollow markers over our curves (both protocols: equal means)."
        ),


rule paper_a_fig1:
    input:
        paper_a_figure_files("fig1"),


rule paper_a_fig2:
    input:
        paper_a_figure_files("fig2"),


rule paper_a_fig3:
    input:
        paper_a_figure_files("fig3"),


rule paper_a_fig4:
    input:
        paper_a_figure_files("fig4"),


rule paper_a_fig5:
    input:
        paper_a_figure_files("fig5"),


rule paper_a_fig6:
    input:
        paper_a_figure_files("fig6"),


rule paper_a_fig7:
    input:
        paper_a_figure_files("fig7"),


rule paper_a_fig8:
    input:
        paper_a_figure_files("fig8"),


# The B2 figures whose numbers the paper prints in tables are drawn with their overlay
# version, in one job (rule plot_paper_b_figure_overlay); the others by this rule.
ruleorder: plot_paper_b_figure_overlay > plot_paper_b_figure


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
        figure=lambda w: canonical(config[w.bpaper]["figures"][w.figure]),
        caption=lambda w: CAPTIONS[w.bpaper][w.figure],
    script:
        "../../scripts/plot_paper_b_figure.py"


rule paper_b2_fig3:
    input:
        paper_b_figure_files("paper_b2", "fig3"),


rule paper_b2_fig4:
    input:
        paper_b_figure_files("paper_b2", "fig4"),


rule paper_b2_fig5:
    input:
        paper_b_figure_files("paper_b2", "fig5"),


rule paper_b2_fig6:
    input:
        paper_b_figure_files("paper_b2", "fig6"),


rule paper_b2_fig7:
    input:
        paper_b_figure_files("paper_b2", "fig7"),


rule paper_b2_fig8:
    input:
        paper_b_figure_files("paper_b2", "fig8"),


rule paper_b2_fig9:
    input:
        paper_b_figure_files("paper_b2", "fig9"),


rule paper_b2_fig10:
    input:
        paper_b_figure_files("paper_b2", "fig10"),


rule paper_b2_fig11:
    input:
        paper_b_figure_files("paper_b2", "fig11"),


rule paper_b2_fig12:
    input:
        paper_b_figure_files("paper_b2", "fig12"),


rule paper_b2_fig13:
    input:
        paper_b_figure_files("paper_b2", "fig13"),


rule paper_b1_fig2:
    input:
        paper_b_figure_files("paper_b1", "fig2"),


rule paper_b1_fig3:
    input:
        paper_b_figure_files("paper_b1", "fig3"),


rule paper_b1_fig4:
    input:
        paper_b_figure_files("paper_b1", "fig4"),


rule paper_b1_fig5:
    input:
        paper_b_figure_files("paper_b1", "fig5"),


rule paper_b1_fig6:
    input:
        paper_b_figure_files("paper_b1", "fig6"),


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
        bpaper="paper_b2",
        figure="|".join(B2_OVERLAID) or "^$",
    conda:
        "../../envs/plot.yaml"
    params:
        figure=lambda w: canonical(config[w.bpaper]["figures"][w.figure]),
        caption=lambda w: CAPTIONS[w.bpaper][w.figure],
        tables=lambda w: [
            f"B2 Table {t.removeprefix('table')}"
            for t in config[w.bpaper]["figures"][w.figure]["published"]
        ],
        overlay_caption=lambda w: (
            f"{CAPTIONS[w.bpaper][w.figure]} Overlay: the published table values as hollow "
            "markers over our curves."
        ),
    script:
        "../../scripts/plot_paper_b_figure.py"


rule paper_b1_fig7:
    input:
        paper_b_figure_files("paper_b1", "fig7"),


rule paper_b2_fig14:
    input:
        paper_b_figure_files("paper_b2", "fig14"),
