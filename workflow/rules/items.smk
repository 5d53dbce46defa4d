# The papers' figures and tables, declared once in workflow/papers/<paper>.yaml (PAPERS):
# every item's target rule <paper>_<item> (paper_a_fig5, paper_b2_table3, ...) and each
# paper's aggregate rule <paper> (its items and PAPER_EXTRAS; all of them in `all`) are
# generated here; the generic rules that draw them (plot_paper_a_figure, plot_paper_b_figure,
# table_paper_b, car_tables_paper_b2, table1_paper_b1) read the items' settings and captions.


def item_files(paper, name):
    """The files of one declared item: its target rule's input."""
    if name.startswith("table"):
        return expand(R(f"tables/{paper}/{name}.{{ext}}"), ext=TABLE_EXT)
    if PAPERS[paper]["kind"] == "paper_a":
        return paper_a_figure_files(name)
    return paper_b_figure_files(paper, name)


def paper_files(paper):
    """Every declared item's files of one paper (its aggregate rule's input)."""
    return [f for name in PAPERS[paper]["items"] for f in item_files(paper, name)]


for _paper, _decl in PAPERS.items():
    for _name in _decl["items"]:

        rule:
            name:
                f"{_paper}_{_name}"
            input:
                item_files(_paper, _name),

    rule:
        name:
            _paper
        input:
            paper_files(_paper),
            PAPER_EXTRAS.get(_paper, []),
