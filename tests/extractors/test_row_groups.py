"""Row groups stay apart: group labels land on their rows, and rows of different groups are
compared only within their group (a model size, a dataset, a test set is never a rival)."""

from __future__ import annotations

from expcurate.records import ParsedPaper, Section, Table
from extractors.tasks.claims import Claim
from extractors.tasks.context import names_method
from extractors.tasks.factors import crossing
from extractors.tasks.grids import Grid, is_metric, read_grid
from extractors.tasks.heuristic import draft
from extractors.tasks.spine import claim_rows

HEAD = ["Test set", "Method", "AUROC", "FPR95 (↓)"]


def _table(rows: list[list[str]], caption: str = "Table 2: Detection results.") -> Table:
    return Table(label="Table 2", caption=caption, page=3, rows=rows)


# A multirow group label set beside the middle row of its group, one broken over two lines,
# and a group whose label stands alone on a line of its own.
CENTRED = [
    HEAD,
    ["", "Base", "80.1", "40.2"],
    ["Lakes", "Prior", "82.3", "38.0"],
    ["", "Ours", "85.6", "31.9"],
    ["Deep", "Base", "70.4", "55.0"],
    ["Forest", "Prior", "72.2", "52.1"],
    ["", "Ours", "71.9", "47.3"],
    ["", "Base", "90.0", "20.0"],
    ["Roads", "", "", ""],
    ["", "Prior", "91.5", "18.8"],
    ["", "Ours", "93.0", "15.1"],
]


def test_a_group_label_beside_the_middle_of_its_rows_names_every_row_of_the_group() -> None:
    grid = read_grid(_table(CENTRED))
    assert grid is not None
    assert grid.labels == [
        "Lakes / Base",
        "Lakes / Prior",
        "Lakes / Ours",
        "Deep Forest / Base",
        "Deep Forest / Prior",
        "Deep Forest / Ours",
        "Roads / Base",
        "Roads / Prior",
        "Roads / Ours",
    ]
    assert grid.values[6] == ["90.0", "20.0"]


def test_only_the_first_panel_of_a_table_with_sub_captions_is_read() -> None:
    rows = [
        ["Method", "Acc"],
        ["Base", "70.1"],
        ["Ours", "75.3"],
        ["(a) Accuracy on the first split.", ""],
        ["Method", "Time (s)"],
        ["Base", "12"],
        ["Ours", "9"],
        ["(b) Training time.", ""],
    ]
    grid = read_grid(_table(rows))
    assert grid is not None
    assert (grid.header, grid.labels) == (["Acc"], ["Base", "Ours"])


def test_an_upper_header_broken_into_two_cells_spans_the_block_of_its_sub_columns() -> None:
    rows = [
        ["", "Fast", "Index (ours)", "", "Flat", "", ""],
        ["Query", "NDCG1", "NDCG3", "NDCG5", "NDCG1", "NDCG3", "NDCG5"],
        ["Short", "80.2", "85.1", "86.0", "40.0", "42.5", "44.1"],
        ["Long", "70.9", "75.3", "77.2", "30.5", "33.3", "35.0"],
    ]
    grid = read_grid(_table(rows))
    assert grid is not None
    assert grid.header[:4] == [
        "Fast Index (ours) NDCG1",
        "Fast Index (ours) NDCG3",
        "Fast Index (ours) NDCG5",
        "Flat NDCG1",
    ]


def test_ranking_metrics_at_a_cut_off_are_metrics() -> None:
    assert all(is_metric(m) for m in ("NDCG1", "NDCG@5", "Hit@10", "R@1", "MRR", "Top-1"))
    assert not any(is_metric(m) for m in ("ResNet", "Ratio", "Roads"))


def _paper(*tables: Table, text: str = "", abstract: str = "We propose Ours-Net.") -> ParsedPaper:
    return ParsedPaper(
        title="Detecting Things",
        abstract=abstract,
        sections=[Section(number="4", title="Experiments", text=text, page=3)],
        tables=list(tables),
    )


def test_a_crossed_table_compares_the_papers_method_within_each_group() -> None:
    (task,) = draft(_paper(_table(CENTRED))).tasks
    assert task.key == "table-2:factor"
    assert task.design_complexity.independent_variables == {
        "compared setting": ["Ours", "Base", "Prior"],
        "group": ["Lakes", "Deep Forest", "Roads"],
    }
    outcome = task.expected_outcome
    # Within Deep Forest, Ours (71.9) loses AUROC to Prior (72.2) and wins FPR95 (lower).
    assert "Deep Forest: better on about half of its columns" in outcome
    assert "AUROC: 71.9 vs. Prior 72.2" in outcome
    # Never a row of one group against a row of another.
    assert "93.0 vs. Prior 82.3" not in outcome and "Lakes / Ours" not in outcome


def test_variants_written_into_the_row_name_are_compared_within_each_model() -> None:
    rows = [
        ["Model", "mIoU", "Params (M)"],
        ["NetA-S w/o Gate", "40.0", "4.1"],
        ["NetA-S w/ Gate", "41.5", "4.3"],
        ["NetA-L w/o Gate", "45.2", "13.8"],
        ["NetA-L w/ Gate", "46.0", "14.0"],
    ]
    table = _table(rows, "Table 2: Importance of the gate.")
    (task,) = draft(_paper(table, abstract="We propose NetA.")).tasks
    assert task.design_complexity.independent_variables == {
        "compared setting": ["w/ Gate", "w/o Gate"],
        "group": ["NetA-S", "NetA-L"],
    }
    # The parameter count is what the gate costs, not how well it does: not scored.
    assert "Params" not in task.expected_outcome
    assert "w/ Gate is better than w/o Gate on all of the compared columns" in (
        task.expected_outcome
    )


def test_bracketed_variants_cross_with_their_models_and_the_papers_last_variant_leads() -> None:
    rows = [["Model", "Acc"], ["Oracle", "90.0"]]
    for model, base in (("Alpha", 50.0), ("Beta", 60.0)):
        for k, variant in enumerate(("Zero-Shot", "Few-Shot", "Tuna-Split", "Tuna-Mix")):
            rows.append([f"{model} ({variant})", f"{base + 3 * k:.1f}"])
    found = crossing(read_grid(_table(rows)) or Grid([], [], [], []), "Results.", "Tuna")
    assert found is not None
    assert found.values == ["Tuna-Mix", "Zero-Shot", "Few-Shot", "Tuna-Split"]


def test_a_sweep_under_each_method_is_the_group_and_the_methods_are_compared() -> None:
    """Lengths 128 and 256 under each method are settings, never the choice compared: the
    methods are compared at each length."""
    rows = [
        ["Method", "Length", "Acc"],
        ["Alpha", "128", "50.0"],
        ["", "256", "52.0"],
        ["Beta", "128", "55.0"],
        ["", "256", "57.0"],
    ]
    grid = read_grid(_table(rows))
    assert grid is not None
    found = crossing(grid, "Results.", "Gamma")
    assert found is not None and (found.position, found.values) == (0, ["Alpha", "Beta"])


def test_a_longer_name_that_only_starts_like_the_method_is_another_name() -> None:
    assert names_method("CC (Ours)", "CC") and names_method("CC-Large", "CC")
    assert not names_method("CCH Only", "CC")


def test_a_finding_compares_what_it_names_not_the_settings_it_names() -> None:
    """ "Ours beats Prior on Lakes and Roads": the rows are Ours and Prior, whichever way the
    table is set; the test sets are where they were measured."""
    rows = [
        ["Set", "Base", "Prior", "Ours"],
        ["Lakes", "80.1", "82.3", "85.6"],
        ["Roads", "90.0", "91.5", "93.0"],
    ]
    grid = read_grid(_table(rows))
    assert grid is not None
    claim = Claim(text="Ours beats Prior by 3.3 on Lakes and Roads.", labels=["Table 2"])
    found, oriented = claim_rows(grid, [claim])
    assert sorted(oriented.labels[i] for i in found) == ["Ours", "Prior"]


def test_a_group_label_on_its_own_line_between_its_rows_names_them() -> None:
    """A two-row group's centred label sits on a line between its rows, with the group's
    size beside it; the rows after the method column are data, the size is label."""
    rows = [
        ["Backbone", "Size", "Method", "Acc"],
        ["", "", "Base", "50.1"],
        ["big-net", "400M", "", ""],
        ["", "", "Base+", "51.0"],
        ["", "", "Ours", "53.2"],
        ["small-net", "300M", "", ""],
        ["", "", "Ours+", "53.9"],
    ]
    grid = read_grid(_table(rows))
    assert grid is not None
    assert grid.header == ["Acc"]
    assert grid.labels == [
        "big-net / 400M / Base",
        "big-net / 400M / Base+",
        "small-net / 300M / Ours",
        "small-net / 300M / Ours+",
    ]


def test_a_group_label_every_row_shares_is_left_out_of_the_names() -> None:
    rows = [
        ["", "Method", "Acc"],
        ["", "Base", "50.1"],
        ["Average", "Prior", "51.0"],
        ["", "Ours", "53.2"],
    ]
    grid = read_grid(_table(rows))
    assert grid is not None and grid.labels == ["Base", "Prior", "Ours"]


def test_the_row_a_finding_is_about_leads_the_comparison() -> None:
    """No row carries the paper's name ("ToolKit" is the framework, "Kitten-X" its model):
    the row the findings are about is the method, not the row compared with."""
    from extractors.tasks.spine import subject_row

    rows = [["Method", "Pass"], ["Helper-A", "40.0"], ["Helper-B", "60.0"], ["Kitten-X", "58.0"]]
    grid = read_grid(_table(rows))
    assert grid is not None
    claims = [
        Claim(text="(1) Kitten significantly outperforms Helper-A in pass rate.", labels=[]),
        Claim(text="The superiority of Kitten over Helper-B holds on win rate.", labels=[]),
    ]
    assert subject_row(grid, claims) == 2


def test_a_finding_names_a_row_by_its_first_word_only_when_no_other_row_shares_it() -> None:
    rows = [
        ["Method", "Pass"],
        ["Helper-React", "40.0"],
        ["Helper-Search", "60.0"],
        ["Kitten-Search", "58.0"],
        ["Puppy-Small", "30.0"],
        ["Puppy-Large", "35.0"],
    ]
    grid = read_grid(_table(rows))
    assert grid is not None
    claim = Claim(text="Kitten clearly beats Helper-React and Puppy in pass rate.", labels=[])
    found, oriented = claim_rows(grid, [claim])
    # "Kitten" is Kitten-Search; "Puppy" could be either Puppy row, so it names neither.
    assert sorted(oriented.labels[i] for i in found) == ["Helper-React", "Kitten-Search"]


def test_a_best_task_read_across_the_wrong_axis_is_turned_to_the_rows_the_finding_compares() -> (
    None
):
    """Datasets down the side, methods across: the finding names the methods, so the task
    runs the methods and measures them on the datasets."""
    rows = [
        ["Dataset", "Base", "Prior", "Ours"],
        ["Lakes", "80.1", "82.3", "85.6"],
        ["Roads", "90.0", "91.5", "93.0"],
        ["Hills", "70.0", "71.5", "74.0"],
    ]
    text = "On Lakes and Roads, Ours outperforms Prior and Base in Table 2."
    paper = ParsedPaper(
        title="Detecting Things",
        abstract="We propose a detector.",
        sections=[Section(number="4", title="Results", text=text, page=3)],
        tables=[_table(rows)],
    )
    (task,) = draft(paper).tasks
    assert set(task.design_complexity.independent_variables["method"]) == {"Base", "Prior", "Ours"}
    assert task.design_complexity.dependent_variables == {
        "measured on": ["Lakes", "Roads", "Hills"]
    }


# Model sizes set apart by rules (no label names the blocks): the reader records where each
# block starts, and the same families recur in every block.
TIERS = [
    ["Method", "Params (M)", "Acc. (%)"],
    ["Mix-B0", "3.7", "70.5"],
    ["Cnv-T", "4.1", "73.0"],
    ["SageNet-T", "4.2", "75.9"],
    ["Mix-B1", "14.0", "78.7"],
    ["Cnv-S", "13.9", "80.0"],
    ["SageNet-S", "14.0", "81.2"],
]


def _tiers(text: str = "") -> ParsedPaper:
    table = Table(
        label="Table 3",
        caption="Table 3: Classification on the validation set.",
        page=3,
        rows=TIERS,
        header_rows=1,
        blocks=[4],
    )
    return _paper(table, text=text, abstract="We propose SageNet, a classifier.")


def test_rows_of_another_block_are_never_rivals_when_sizes_are_set_apart() -> None:
    grid = read_grid(_tiers().tables[0])
    assert grid is not None and grid.blocks == [0, 0, 0, 1, 1, 1]
    (task,) = draft(_tiers()).tasks
    rivals = task.method.split("compared methods (")[1].split(")")[0]
    assert rivals == "Mix-B1, Cnv-S"  # the focal SageNet-S's own block, not Mix-B0's
    assert "Mix-B0" not in task.expected_outcome


def test_a_finding_about_families_is_grounded_block_by_block() -> None:
    text = "As shown in Table 3, SageNet outperforms Mix and Cnv at every model size."
    (task,) = draft(_tiers(text)).tasks
    assert "(1) Mix-B0: Acc. (%) 70.5" in task.expected_outcome
    assert "(2) Mix-B1: Acc. (%) 78.7" in task.expected_outcome
    assert task.method.startswith(
        "Train and evaluate, block by block as Table 3 sets them apart, "
        "(1) Mix-B0, Cnv-T, SageNet-T; (2) Mix-B1, Cnv-S, SageNet-S and report"
    )


def test_a_transfer_table_asks_whether_training_on_the_test_dataset_does_best() -> None:
    """Rows are the datasets a model was fine-tuned on, columns the datasets it was tested on:
    the rows are not rival methods; the task asks about the diagonal."""
    rows = [
        ["Test Dataset", "Alpha", "", "Beta", "Gamma"],
        ["", "ACC (↑)", "F1 (↑)", "MAE (↓)", "ACC (↑)"],
        ["Finetune Dataset", "", "", "", ""],
        ["Alpha", "71.0", "60.2", "0.90", "50.0"],
        ["Beta", "65.0", "58.1", "0.45", "52.5"],
        ["Gamma", "66.2", "57.0", "0.80", "61.0"],
    ]
    table = Table(
        label="Table 4",
        caption="Table 4: Cross-dataset results of NetX-7b fine-tuned on a single dataset.",
        page=3,
        rows=rows,
    )
    (task,) = draft(_paper(table)).tasks
    assert task.key == "table-4:transfer"
    assert task.design_complexity.independent_variables == {
        "trained on": ["Alpha", "Beta", "Gamma"],
        "tested on": ["Alpha", "Beta", "Gamma"],
    }
    assert task.question.startswith("When NetX-7b is trained on one of Alpha, Beta and Gamma")
    assert task.expected_outcome == (
        "Trained on the test dataset itself, NetX-7b is best on all of the columns whose "
        "dataset it was also trained on."
    )
