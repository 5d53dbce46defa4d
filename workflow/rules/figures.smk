rule plot_paper_a_figure:
    input:
        summaries=figure_summaries,
        library=lambda w: script_files(script_path("plot_paper_a_figure"), SRC),
    output:
        pdf="results/figures/paper_a/{figure}_{protocol}.pdf",
        png="results/figures/paper_a/{figure}_{protocol}.png",
        csv="results/figures/paper_a/{figure}_{protocol}.csv",
    log:
        "results/logs/figures/paper_a/{figure}_{protocol}.log",
    benchmark:
        "results/benchmarks/figures/paper_a/{figure}_{protocol}.tsv"
    conda:
        "../../envs/plot.yaml"
    params:
        figure=lambda w: canonical(figure_settings(w.figure)),
    script:
        "../../scripts/plot_paper_a_figure.py"


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


rule plot_paper_b_figure:
    input:
        data=b_figure_inputs,
        library=script_files(script_path("plot_paper_b_figure"), SRC),
    output:
        pdf="results/figures/{bpaper}/{figure}.pdf",
        png="results/figures/{bpaper}/{figure}.png",
        csv="results/figures/{bpaper}/{figure}.csv",
    log:
        "results/logs/figures/{bpaper}/{figure}.log",
    benchmark:
        "results/benchmarks/figures/{bpaper}/{figure}.tsv"
    conda:
        "../../envs/plot.yaml"
    params:
        figure=lambda w: canonical(config[w.bpaper]["figures"][w.figure]),
    script:
        "../../scripts/plot_paper_b_figure.py"


rule paper_b2_fig3:
    input:
        expand("results/figures/paper_b2/fig3.{ext}", ext=FIG_EXT),


rule paper_b2_fig4:
    input:
        expand("results/figures/paper_b2/fig4.{ext}", ext=FIG_EXT),


rule paper_b2_fig5:
    input:
        expand("results/figures/paper_b2/fig5.{ext}", ext=FIG_EXT),


rule paper_b2_fig6:
    input:
        expand("results/figures/paper_b2/fig6.{ext}", ext=FIG_EXT),


rule paper_b2_fig7:
    input:
        expand("results/figures/paper_b2/fig7.{ext}", ext=FIG_EXT),


rule paper_b2_fig8:
    input:
        expand("results/figures/paper_b2/fig8.{ext}", ext=FIG_EXT),


rule paper_b2_fig9:
    input:
        expand("results/figures/paper_b2/fig9.{ext}", ext=FIG_EXT),


rule paper_b2_fig10:
    input:
        expand("results/figures/paper_b2/fig10.{ext}", ext=FIG_EXT),


rule paper_b2_fig11:
    input:
        expand("results/figures/paper_b2/fig11.{ext}", ext=FIG_EXT),


rule paper_b2_fig12:
    input:
        expand("results/figures/paper_b2/fig12.{ext}", ext=FIG_EXT),


rule paper_b2_fig13:
    input:
        expand("results/figures/paper_b2/fig13.{ext}", ext=FIG_EXT),


rule paper_b1_fig2:
    input:
        expand("results/figures/paper_b1/fig2.{ext}", ext=FIG_EXT),


rule paper_b1_fig3:
    input:
        expand("results/figures/paper_b1/fig3.{ext}", ext=FIG_EXT),


rule paper_b1_fig4:
    input:
        expand("results/figures/paper_b1/fig4.{ext}", ext=FIG_EXT),


rule paper_b1_fig5:
    input:
        expand("results/figures/paper_b1/fig5.{ext}", ext=FIG_EXT),


rule paper_b1_fig6:
    input:
        expand("results/figures/paper_b1/fig6.{ext}", ext=FIG_EXT),
