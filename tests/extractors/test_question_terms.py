"""Questions in the paper's terms: the method's own name, whole caption topics, titles."""

from __future__ import annotations

from expcurate.records import ParsedPaper, Section, Table
from extractors.tasks.context import proposed_method, topic_of
from extractors.tasks.grids import read_grid
from extractors.tasks.phrasing import claim_question


def test_our_method_and_our_design_take_the_methods_name() -> None:
    q = claim_question("Our design in adaptive aggregation performs the best.", "GateMix")
    assert q is not None and q.startswith("Does GateMix's design in adaptive aggregation")
    q = claim_question("Our method outperforms all baselines on ETTh1.", "GateMix")
    assert q is not None and "GateMix" in q and "our" not in q.lower().split()


def test_a_name_a_title_sets_in_capitals_is_spelt_as_the_text_spells_it() -> None:
    text = "GateMix mixes gates. We train GateMix on ETTh1, and GateMix wins. GATEMIX once."
    paper = ParsedPaper(
        title="GATEMIX: GATED MIXING FOR SERIES",
        sections=[Section(number="1", title="Introduction", text=text)],
    )
    assert proposed_method(paper) == "GateMix"
    assert proposed_method(ParsedPaper(title="GATEMIX: GATED MIXING FOR SERIES")) == "GATEMIX"


def test_a_caption_topic_runs_past_abbreviations() -> None:
    assert topic_of("Table 6. Loss Values vs. Validation Accuracy.") == (
        "Loss Values vs. Validation Accuracy"
    )
    assert topic_of("Table 3: Accuracy on ImageNet. Bold is best.") == "Accuracy on ImageNet"


def test_one_title_centred_over_all_value_columns_names_each_of_them() -> None:
    rows = [
        ["", "", "MSVD", "", ""],
        ["Models", "B@4", "R", "M", "C"],
        ["RecNet", "52.3", "69.8", "34.1", "80.3"],
        ["RMN", "54.6", "73.4", "36.5", "94.4"],
    ]
    grid = read_grid(Table(label="Table 2", caption="Results.", page=1, rows=rows))
    assert grid is not None
    assert grid.header == ["MSVD B@4", "MSVD R", "MSVD M", "MSVD C"]
    left = [["", "Abl.", "", "", "", ""], ["Models", "A", "B", "C", "D", "E"]]
    left += [["X", "1.0", "2.0", "3.0", "4.0", "5.0"], ["Y", "1.5", "2.5", "3.5", "4.5", "5.5"]]
    grid = read_grid(Table(label="Table 3", caption="Results.", page=1, rows=left))
    assert grid is not None and grid.header[-1] == "E"  # a title off-centre spans no further


def test_a_question_names_the_average_first_and_leaves_cost_out() -> None:
    from extractors.tasks.grids import question_measures

    heads = ["GPQA", "Formula", "TheoremQA", "HumanEval", "Avg."]
    assert question_measures(heads) == (["Avg.", "GPQA", "Formula"], True)
    assert question_measures(["Params. (M)", "GFLOPs", "mIoU (SS)", "mIoU (MS)"]) == (
        ["mIoU (SS)", "mIoU (MS)"],
        False,
    )
    assert question_measures(["Params (M)", "Memory (GB)", "MSE"], costs=True) == (
        ["Params (M)", "Memory (GB)", "MSE"],
        False,
    )
    # one more than fits is named rather than called "the other columns"
    assert question_measures(["AUROC", "AUPR", "FPR95", "ACC95"]) == (
        ["AUROC", "AUPR", "FPR95", "ACC95"],
        False,
    )


def test_caption_metrics_are_named_once_each_and_never_a_whole_legend() -> None:
    from extractors.tasks.grids import caption_metrics

    assert caption_metrics("Perplexity (PPL) and Hit@5 on Wiki.") == ["Perplexity", "Hit@5"]
    assert caption_metrics("B@4, R, M and C denote BLEU-4, ROUGE, METEOR and CIDEr.") == [
        "BLEU-4",
        "ROUGE",
        "METEOR",
        "CIDEr",
    ]
    legend = "Accuracy, F1, AUC, BLEU and MSE of every model."
    assert caption_metrics(legend) == []  # five: a legend, not what one table measures
    assert caption_metrics("Results on ETTh1 with 3 seeds.") == []
