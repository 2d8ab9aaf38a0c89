"""The drafting heuristic's reading of a paper: its method name and its tables."""

from __future__ import annotations

import pytest

from expcurate.records import Axis, Figure, ParsedPaper, Section, Table, TaskFields
from extractors.paper.layout import dingbat_marks
from extractors.tasks.context import proposed_method
from extractors.tasks.grids import fold_metrics, read_grid
from extractors.tasks.heuristic import draft
from extractors.validate import validate_draft


@pytest.mark.parametrize(
    ("title", "abstract", "expected"),
    [
        ("FooNet: Fast Things", "We study things.", "FooNet"),
        (
            "Learning Things",
            "In this paper, we propose a method called Gated Mixing (GM) for x.",
            "GM",
        ),
        (
            "Learning Things",
            "We propose a simple recipe, named Slow Cooker, for forecasting.",
            "Slow Cooker",
        ),
        ("Learning Things", "Here we introduce BiRank, a ranker for graphs.", "BiRank"),
        ("Learning Things", "We propose an AI system (PLANR) that plans.", "PLANR"),
        ("Learning Things", "We propose new LLM benchmarks for AI agents.", ""),
    ],
)
def test_proposed_method_from_title_or_abstract(title: str, abstract: str, expected: str) -> None:
    assert proposed_method(ParsedPaper(title=title, abstract=abstract)) == expected


def test_packed_columns_are_split_and_the_named_method_compared() -> None:
    """Two sub-columns run together ("0.41 0.52") become two columns; the acronym the abstract
    introduces is found in the rows and compared with the best other row per column."""
    table = Table(
        label="Table 2",
        caption="Table 2: Results on two datasets (MSE and MAE, lower is better).",
        page=3,
        rows=[
            ["Method", "ETT", "Weather"],
            ["Baseline", "0.45 0.52", "0.30 0.31"],
            ["GM (ours)", "0.41 0.50", "0.28 0.33"],
        ],
    )
    grid = read_grid(table)
    assert grid is not None and len(grid.header) == 4
    paper = ParsedPaper(
        title="Learning Things",
        abstract="We propose a model called Gated Mixing (GM) for forecasting.",
        tables=[table],
    )
    (task,) = draft(paper).tasks
    assert task.question.startswith("How does GM (ours) compare with Baseline on ETT and Weather")
    assert "0.41" in task.expected_outcome and "0.45" in task.expected_outcome
    assert "0.41" not in task.question


def _paper_with(figure: Figure) -> ParsedPaper:
    cite = f"As {figure.label} shows, accuracy rises from 61.2 to 70.4 with more layers."
    return ParsedPaper(
        title="Deep Things",
        abstract="We propose DeepThing.",
        sections=[Section(number="4", title="Results", text=cite, page=3)],
        figures=[figure],
    )


@pytest.mark.parametrize(
    ("figure", "drafted"),
    [
        # a plot: the caption names a quantity's behaviour, or the figure prints tick labels
        (Figure(label="Figure 2", caption="Figure 2: Accuracy vs depth.", page=3), True),
        (
            Figure(label="Figure 2", caption="Figure 2: Depth.", page=3, kind="vector", ticks=9),
            True,
        ),
        # the method drawn, or its outputs shown: the paper's numbers about it do not matter
        (Figure(label="Figure 2", caption="Figure 2: Overview of the framework.", page=3), False),
        (
            Figure(label="Figure 2", caption="Figure 2: Qualitative results.", page=3, ticks=12),
            False,
        ),
        # a vector drawing with no numbers in it and no word of measurement
        (
            Figure(label="Figure 2", caption="Figure 2: Three decoders.", page=3, kind="vector"),
            False,
        ),
        # a raster cannot be read: the paper's sentence with numbers about it decides
        (
            Figure(label="Figure 2", caption="Figure 2: Three decoders.", page=3, kind="raster"),
            True,
        ),
    ],
)
def test_only_figures_that_plot_measurements_become_trend_tasks(
    figure: Figure, drafted: bool
) -> None:
    tasks = draft(_paper_with(figure)).tasks
    assert [t.key for t in tasks] == (["figure-2:trend"] if drafted else [])


def test_the_data_set_a_figure_caption_fixes_is_a_constant_of_its_task() -> None:
    """A plot "across the training process on SetA-10" holds its data set fixed, as a table's
    caption does: the setup then runs on SetA-10, not the program's default data."""
    caption = "Figure 2: Accuracy across the training process on SetA-10. Areas are variances."
    (task,) = draft(_paper_with(Figure(label="Figure 2", caption=caption, page=3))).tasks
    assert task.design_complexity.constant_variables.get("setting") == "SetA-10"
    several = "Figure 2: Accuracy across the training process on SetA-10 and SetB-20."
    (task,) = draft(_paper_with(Figure(label="Figure 2", caption=several, page=3))).tasks
    assert "setting" not in task.design_complexity.constant_variables


def test_trend_question_and_design_read_off_the_plot_axes() -> None:
    figure = Figure(
        label="Figure 2",
        caption="Figure 2: Effect of depth on the test set.",
        page=3,
        kind="vector",
        ticks=8,
        axes=[
            Axis(orientation="y", label="Accuracy (%)", ticks=["60", "65", "70"]),
            Axis(orientation="x", label="Number of layers", ticks=["2", "4", "8", "16"]),
        ],
        legend=["DeepThing", "Baseline"],
    )
    (task,) = draft(_paper_with(figure)).tasks
    assert task.question == (
        "In Figure 2 (effect of depth on the test set), how does Accuracy (%) change as "
        "Number of layers varies?"
    )
    assert task.design_complexity.independent_variables == {
        "Number of layers": ["2", "4", "8", "16"],
        "series": ["DeepThing", "Baseline"],
    }
    assert task.design_complexity.dependent_variables == {"Accuracy (%)": "as plotted in Figure 2"}
    assert "61.2" in task.expected_outcome and "61.2" not in task.question


def test_check_mark_ablation_rows_are_named_by_the_components_they_leave_out() -> None:
    """Ablation tables that tick components (pifont check/cross marks) instead of naming rows."""
    table = Table(
        label="Table 6",
        caption="Table 6: Ablation study on the design of the block.",
        page=7,
        rows=[
            ["Branch A", "Branch B", "Gate", "Top-1", "mIoU"],
            ["✓", "✗", "✓", "74.7", "39.6"],
            ["✓", "✓", "✗", "75.2", "39.7"],
            ["✓", "✓", "✓", "75.9", "41.1"],
        ],
    )
    grid = read_grid(table)
    assert grid is not None and grid.header == ["Top-1", "mIoU"]
    assert grid.labels == ["w/o Branch B", "w/o Gate", "full model (Branch A, Branch B, Gate)"]
    tasks = draft(
        ParsedPaper(title="Blocks", abstract="We propose BlockNet.", tables=[table])
    ).tasks
    # One task per ablation table: every variant against the full model.
    assert [t.key for t in tasks] == ["table-6:ablation"]
    assert "75.9" in tasks[0].expected_outcome and "74.7" in tasks[0].expected_outcome
    assert (
        "How does each variant ('w/o Branch B'; 'w/o Gate') compare with the full model "
        "(Branch A, Branch B, Gate) on Top-1 and mIoU in Table 6" in tasks[0].question
    )
    components = tasks[0].design_complexity.independent_variables["component"]
    assert components == [grid.labels[2], *grid.labels[:2]]


@pytest.mark.parametrize(
    ("text", "font", "marks"),
    [
        ("3", "ZapfDingbats", "✓"),
        ("\x17", "Dingbats", "✗"),  # a subset font's code, shifted by 0x20
        ("\x13\x13", "AAAAAB+Dingbats", "✓✓"),
        ("3", "Times-Roman", ""),  # a digit in a text font stays a digit
        ("a", "ZapfDingbats", ""),  # other dingbats are not marks
    ],
)
def test_dingbat_check_and_cross_marks_become_unicode(text: str, font: str, marks: str) -> None:
    assert dingbat_marks(text, font) == marks


# A table crossing a design choice with models, as TimesNet's Table 12 prints it: group labels
# carried down, a row of settings repeated under each dataset, metrics as rows.
CROSSED_ROWS = [
    ["", "Datasets", "", "SetA", "", "SetB", ""],
    ["", "Mask Ratio", "", "12.5%", "25%", "12.5%", "25%"],
    ["Alpha", "Unified", "MSE", "0.100", "0.107", "0.114", "0.121"],
    ["", "", "MAE", "0.128", "0.135", "0.142", "0.149"],
    ["", "Independent", "MSE", "0.156", "0.163", "0.110", "0.177"],
    ["", "", "MAE", "0.184", "0.191", "0.198", "0.205"],
    ["Beta", "Unified", "MSE", "0.212", "0.219", "0.226", "0.233"],
    ["", "", "MAE", "0.240", "0.247", "0.254", "0.261"],
    ["", "Independent", "MSE", "0.268", "0.275", "0.282", "0.289"],
    ["", "", "MAE", "0.296", "0.303", "0.310", "0.317"],
]


def _crossed(caption: str) -> Table:
    return Table(label="Table 3", caption=caption, page=4, rows=CROSSED_ROWS)


def test_a_repeated_row_of_settings_is_a_header_and_groups_spread_evenly() -> None:
    grid = read_grid(_crossed("Table 3: Results."))
    assert grid is not None
    assert grid.header == ["SetA 12.5%", "SetA 25%", "SetB 12.5%", "SetB 25%"]
    assert grid.labels[:3] == [
        "Alpha / Unified / MSE",
        "Alpha / Unified / MAE",
        "Alpha / Independent / MSE",
    ]
    assert grid.parts[3] == ["Alpha", "Independent", "MAE"]


def test_metric_rows_fold_into_metric_columns() -> None:
    grid = read_grid(_crossed("Table 3: Results."))
    assert grid is not None
    folded = fold_metrics(grid)
    assert folded.labels == [
        "Alpha / Unified",
        "Alpha / Independent",
        "Beta / Unified",
        "Beta / Independent",
    ]
    assert folded.header[:3] == ["SetA 12.5% MSE", "SetA 12.5% MAE", "SetA 25% MSE"]
    assert folded.values[1][:3] == ["0.156", "0.184", "0.163"]
    # Rows that are not metric rows come back as they were.
    plain_grid = read_grid(
        Table(label="Table 1", caption="x", page=1, rows=[["M", "A"], ["x", "1.0"], ["y", "2.0"]])
    )
    assert plain_grid is not None and fold_metrics(plain_grid) is plain_grid


def test_a_design_choice_named_by_the_caption_gets_one_task_group_by_group() -> None:
    table = _crossed("Table 3: Comparison between unified training and independent training.")
    paper = ParsedPaper(
        title="Models", abstract="We propose GammaNet, a model for forecasting.", tables=[table]
    )
    drafts = draft(paper)
    (task,) = drafts.tasks
    assert task.key == "table-3:factor"
    assert task.question == (
        "How does Unified compare with Independent on MSE and MAE within each of Alpha and Beta "
        "in Table 3 "
        "(Comparison between unified training and independent training)?"
    )
    # Lower is better (MSE, MAE): Alpha's Unified wins 7 of 8 columns, Beta's all 8.
    assert task.expected_outcome.startswith(
        "Unified is better than Independent on most of the compared columns."
    )
    assert "Alpha: better on most of its columns (SetA 12.5% MSE: 0.100 vs. 0.156" in (
        task.expected_outcome
    )
    assert "Beta: better on all of its columns" in task.expected_outcome
    assert task.design_complexity.independent_variables == {
        "compared setting": ["Unified", "Independent"],
        "group": ["Alpha", "Beta"],
    }
    flags = validate_draft(TaskFields.from_draft(task), paper, drafts.tasks)
    assert [f.check for f in flags if f.severity == "error"] == []


def test_a_crossed_table_compares_within_groups_even_when_the_caption_is_silent() -> None:
    """Rows of different groups are never rivals: with no caption naming the choice, its
    values are compared group by group in the table's order."""
    paper = ParsedPaper(
        title="Models",
        abstract="We propose GammaNet, a model for forecasting.",
        tables=[_crossed("Table 3: Results.")],
    )
    (task,) = draft(paper).tasks
    assert task.key == "table-3:factor"
    assert task.design_complexity.independent_variables == {
        "compared setting": ["Unified", "Independent"],
        "group": ["Alpha", "Beta"],
    }


def test_a_column_of_cited_years_is_part_of_the_row_name() -> None:
    table = Table(
        label="Table 9",
        caption="Table 9: Anomaly detection.",
        page=9,
        rows=[
            ["Method", "", "F1"],
            ["LSTM", "(1997)", "81.2"],
            ["TCN", "(2019)", "82.0"],
            ["GammaNet", "(Ours)", "85.5"],
        ],
    )
    grid = read_grid(table)
    assert grid is not None
    assert grid.header == ["F1"]
    assert grid.labels == ["LSTM", "TCN", "GammaNet / (Ours)"]


def test_models_as_columns_with_mse_and_mae_are_compared_lower_is_better() -> None:
    """No column names a metric once transposed (columns are datasets), but every metric the
    table prints is lower-is-better, so the comparison is too."""
    table = Table(
        label="Table 2",
        caption="Table 2: Long-term forecasting results.",
        page=2,
        rows=[
            ["Models", "GammaNet", "", "Other", ""],
            ["Metric", "MSE", "MAE", "MSE", "MAE"],
            ["Weather", "0.40", "0.41", "0.45", "0.47"],
            ["Traffic", "0.30", "0.33", "0.29", "0.35"],
        ],
    )
    paper = ParsedPaper(
        title="Models", abstract="We propose GammaNet, a model for forecasting.", tables=[table]
    )
    (task,) = draft(paper).tasks
    assert task.expected_outcome.startswith("GammaNet is best on 3 of 4 reported columns")


def test_bold_gathered_in_a_column_makes_the_columns_the_methods() -> None:
    """No row or column names the proposed method, but each dataset row sets its best method
    in bold, and one column holds most of them: that column is compared, and summary rows
    ("Average") never stand for a method."""
    table = Table(
        label="Table 2",
        caption="Table 2: AUC on eight networks.",
        page=2,
        rows=[
            ["Data", "MF", "SEAL", "Ours-2"],
            ["USAir", "94.08", "97.09", "98.10"],
            ["NS", "74.55", "97.71", "98.85"],
            ["PB", "94.30", "95.01", "94.07"],
            ["Average", "87.64", "96.60", "97.01"],
        ],
        bold=[
            [False] * 4,
            [False, False, False, True],
            [False, False, False, True],
            [False, False, True, False],
            [True, True, True, True],  # a summary row printed in bold throughout
        ],
    )
    paper = ParsedPaper(title="Links", abstract="A study of link prediction.", tables=[table])
    (task,) = draft(paper).tasks
    assert task.question.startswith("How does Ours-2 compare with MF and SEAL on USAir")
    assert task.expected_outcome.startswith("Ours-2 is best on 3 of 4 reported columns")
    assert "USAir: Ours-2 98.10 vs. SEAL 97.09" in task.expected_outcome


def test_a_sweep_states_how_each_measure_moves_and_keeps_cost_apart() -> None:
    table = Table(
        label="Table 4",
        caption="Table 4: Ablation on inserted layers.",
        page=5,
        rows=[["Layers", "Params", "Val Acc (%)"], ["8", "0.9", "51.2"], ["16", "1.3", "70.4"],
              ["32", "1.8", "80.1"]],
    )  # fmt: skip
    paper = ParsedPaper(title="Layers", abstract="We propose LayerNet, an adapter.", tables=[table])
    (task,) = draft(paper).tasks
    assert task.key == "table-4:sweep"
    assert task.expected_outcome == (
        "Val Acc (%) rises from 51.2 at Layers 8 to 80.1 at Layers 32. "
        "Cost: Params rises from 0.9 at Layers 8 to 1.8 at Layers 32."
    )
    assert task.design_complexity.independent_variables == {"Layers": ["8", "16", "32"]}
    # whose layers: the caption does not say, so the question names the method
    assert "How does Val Acc (%) of LayerNet change as Layers varies (8, 16, 32)" in task.question


def test_constants_come_from_what_the_paper_fixes_not_from_schedules_or_definitions() -> None:
    from extractors.tasks.context import _hyperparameters, caption_constants

    # Two datasets, each defining a metric: no one setting, but where each measure is taken.
    caption = (
        "Table 6: Ablation of the block. Acc means accuracy on SetA and IoU means IoU on SetB."
    )
    assert caption_constants(caption) == {"Acc measured on": "SetA", "IoU measured on": "SetB"}
    assert caption_constants("Table 1: Results on SetA-LT using ResNet18.") == {
        "setting": "SetA-LT",
        "backbone": "ResNet18",
    }
    # a later sentence saying where the experiments ran, when the subject names no data
    later = "Table 6: Combining with other methods. The experiment is conducted on SetB-100 data."
    assert caption_constants(later) == {"setting": "SetB-100"}
    assert caption_constants("Table 5: Ablation. Results are reported on the val split.") == {}
    both = "Table 7: Results on SetA-LT. Experiments are conducted on SetB-100."
    assert caption_constants(both) == {"setting": "SetA-LT"}  # the subject's, said first
    # the first of several data sets is not the one the table holds fixed
    for several in (
        "Table 2: Comparing with the state of the art on SetA and SetB-VT datasets.",
        "Table 9: Comparison on the SetA, SetB and SetC benchmarks.",
        "Figure 1: Accuracy-cost curves on the SetA (left) and SetB (right) validation sets.",
        "Table 5: The key ingredients. Experiments are conducted on SetA-10 and SetA-100.",
    ):
        assert "setting" not in caption_constants(several), several
    text = (
        "The initial learning rate is set to 1e-4 and is divided by 10 every 10 epochs. "
        "We train for 30 epochs with a batch size of 64."
    )
    assert _hyperparameters(text) == {"learning_rate": "1e-4", "batch_size": "64", "epochs": "30"}


@pytest.mark.parametrize(
    ("caption", "setting"),
    [
        ("Table 4: Results on masked word prediction in contexts from Wikicorpus.", "Wikicorpus"),
        ("Table 5: Accuracy on questions drawn from the BioASQ collection.", "BioASQ"),
        ("Table 6: Results from Table 2 on sentences from Table 3.", None),
        ("Table 7: Examples from BookCorpus and Wikipedia.", None),
    ],
)
def test_the_data_a_caption_draws_its_samples_from_is_held(
    caption: str, setting: str | None
) -> None:
    from extractors.tasks.context import caption_constants

    assert caption_constants(caption).get("setting") == setting


def test_a_caption_fixes_a_setting_by_a_symbol_not_a_result_by_one() -> None:
    from extractors.tasks.context import caption_values

    assert caption_values("Table 7: Results on SetA-LT (ρ = 50) using ResNet18.") == {"ρ": "50"}
    assert caption_values("Table 3: Few-shot results with K = 5 and T = 10.") == {
        "K": "5",
        "T": "10",
    }
    assert caption_values("Table 2: seq_len=336, pred_len=720 on SetA") == {
        "seq_len": "336",
        "pred_len": "720",
    }
    # a sweep, a correlation and a value the table's cells hold are no setting
    assert caption_values("Table 1: Results (ρ = 10, 50, 100).") == {}
    assert caption_values("Figure 2: Scores agree with people (Pearson R = 0.47).") == {}
    assert caption_values("Table 4: Results (N = 64).", frozenset({"64", "0.3"})) == {}
    # only the first sentence: what a later one says is its own remark
    assert caption_values("Table 5: Results on the val split. Bold is best (at p = 5).") == {}
    table = Table(
        label="Table 7",
        caption="Table 7: Results on SetA-LT (ρ = 50) using ResNet18.",
        page=6,
        rows=[["Method", "AUROC", "FPR95"], ["Base", "80.1", "50.2"], ["BlockNet", "85.3", "40.1"]],
    )  # fmt: skip
    paper = ParsedPaper(title="Blocks", abstract="We propose BlockNet.", tables=[table])
    (task,) = draft(paper).tasks
    assert task.design_complexity.constant_variables["ρ"] == "50"
    assert task.design_complexity.constant_variables["setting"] == "SetA-LT"


def test_an_ablation_row_says_which_way_it_moves_the_scored_columns() -> None:
    table = Table(
        label="Table 5",
        caption="Table 5: Ablation of the components (MSE, lower is better).",
        page=6,
        rows=[["Model", "SetA", "SetB", "Params (M)"], ["Full model", "0.30", "0.40", "5.0"],
              ["w/o Gate", "0.35", "0.41", "4.0"]],
    )  # fmt: skip
    paper = ParsedPaper(title="Gates", abstract="We propose GateNet.", tables=[table])
    (task,) = draft(paper).tasks
    # Params is what the model pays, not a result: two scored columns, both worse.
    assert task.expected_outcome.startswith(
        "The variant is worse than the full model (SetA 0.30, SetB 0.40, Params (M) 5.0) on all "
        "of the scored columns: 'w/o Gate' is worse on all of the scored columns (SetA 0.35,"
    )


def test_a_table_the_text_measures_on_one_dataset_names_it_and_ablations_lead_with_the_summary() -> (
    None
):
    table = Table(
        label="Table 5",
        caption="Table 5: Ablation of the components.",
        page=6,
        rows=[["Model", "Acc"], ["Full model", "80.1"], ["w/o Gate", "75.3"],
              ["w/o Mixer", "77.0"]],
    )  # fmt: skip
    text = (
        "We ablate GateNet on QuizSet-2 in Table 5. "
        "We can find that each component contributes to the final accuracy."
    )
    paper = ParsedPaper(
        title="Gates",
        abstract="We propose GateNet.",
        sections=[Section(number="4", title="Ablation", text=text, page=6)],
        tables=[table],
    )
    tasks = draft(paper).tasks
    assert [t.key for t in tasks] == ["table-5:ablation"]
    for task in tasks:
        assert " on QuizSet-2 in Table 5 (" in task.question
        assert task.design_complexity.constant_variables["setting"] == "QuizSet-2"
        assert task.expected_outcome.startswith(
            "Each component contributes to the final accuracy. In Table 5: Every variant is worse"
        )


def _two_tables(text: str) -> ParsedPaper:
    segm = Table(
        label="Table 3",
        caption="Table 3: Segmentation results.",
        page=5,
        rows=[["Method", "mIoU"], ["GateNet-T", "41.0"], ["PlainNet-T", "39.5"]],
    )
    heads = Table(
        label="Table 4",
        caption="Table 4: Results of the decoder heads.",
        page=5,
        rows=[["Head", "mIoU"], ["w/ Ham head", "42.2"], ["w/ Light head", "40.1"]],
    )
    return ParsedPaper(
        title="Gates",
        abstract="We propose GateNet.",
        sections=[Section(number="4", title="Results", text=text, page=5)],
        tables=[segm, heads],
    )


def test_a_finding_citing_two_tables_goes_to_the_one_whose_rows_it_names() -> None:
    text = (
        "Our GateNet-T outperforms PlainNet-T by a large margin (Table 3). "
        "As shown in Table 3 and Table 4, the Ham head yields clearly better results than "
        "the light head."
    )
    tasks = {t.evidence[0].label: t for t in draft(_two_tables(text)).tasks}
    assert "Ham head yields clearly better" not in tasks["Table 3"].expected_outcome
    assert "Ham head yields clearly better" in tasks["Table 4"].expected_outcome


def test_a_finding_set_on_another_tables_benchmark_stays_with_that_table() -> None:
    paper = _two_tables(
        "As shown in Table 3 and Table 4, we compare GateNet with others on two benchmarks. "
        "GateNet-T even outperforms PlainNet-T on the QuizSet leaderboard."
    )
    paper.tables[1].caption = "Table 4: Results of the decoder heads on QuizSet."
    paper.tables[1].rows[1][0] = "GateNet-T"
    tasks = {t.evidence[0].label: t for t in draft(paper).tasks}
    assert "QuizSet leaderboard" not in tasks["Table 3"].expected_outcome


def test_a_row_the_table_calls_ours_is_named_as_the_paper_names_its_method() -> None:
    table = Table(
        label="Table 2",
        caption="Table 2: Accuracy on QuizSet.",
        page=4,
        rows=[["Method", "Acc", "F1"], ["OldNet", "70.1", "65.0"], ["Ours", "75.3", "69.9"]],
    )
    paper = ParsedPaper(title="GateNet: gated mixing", abstract="We propose GateNet.",
                        tables=[table])  # fmt: skip
    (task,) = draft(paper).tasks
    assert "GateNet (Ours)" in task.question and "GateNet (Ours)" in task.method
    assert "GateNet (Ours)" in task.expected_outcome


def test_rows_that_tie_for_best_are_both_named() -> None:
    table = Table(
        label="Table 7",
        caption="Table 7: Performance of different decoder structures.",
        page=4,
        rows=[["Decoder", "mIoU (SS)", "mIoU (MS)"], ["Decoder (a)", "40.2", "41.0"],
              ["Decoder (c)", "41.1", "42.2"], ["Decoder (c) w/ stage 1", "40.9", "42.2"]],
    )  # fmt: skip
    (task,) = draft(ParsedPaper(title="Decoders", abstract="", tables=[table])).tasks
    assert task.expected_outcome == (
        "Decoder (c) is best or tied on 2 of 2 columns. Best per column: mIoU (SS): Decoder (c) "
        "(41.1); mIoU (MS): Decoder (c) and Decoder (c) w/ stage 1 (42.2, tied)."
    )


def test_a_finding_in_a_paragraph_set_on_another_tables_dataset_stays_with_that_table() -> None:
    tables = [
        Table(label=f"Table {n}", caption=f"Table {n}: Results on {name}.", page=4,
              rows=[["Method", "AUROC"], ["OldNet", "80.1"], ["Ours", "85.3"]])
        for n, name in ((1, "QuizSet-A"), (2, "QuizSet-B"))
    ]  # fmt: skip
    text = (
        "Table 1 and Table 2 report the results on QuizSet-A and QuizSet-B.\n\n"
        "On QuizSet-B, our approach achieves the best results in seven cases. "
        "Compared with OldNet, our approach achieves 5.21% higher AUROC, 0.96% higher AUPR, and "
        "9.19% higher in-distribution accuracy.\n\n"
        "For instance, on QuizSet-A, our approach achieves a 4.2% AUROC improvement than OldNet."
    )
    paper = ParsedPaper(title="GateNet: gates", abstract="We propose GateNet.", tables=tables,
                        sections=[Section(number="4", title="Results", text=text, page=4)])  # fmt: skip
    tasks = {t.evidence[0].label: t.expected_outcome for t in draft(paper).tasks}
    assert tasks["Table 1"].startswith("On QuizSet-A, our approach achieves a 4.2% AUROC")
    assert "5.21% higher AUROC" not in tasks["Table 1"]
    assert "5.21% higher AUROC" in tasks["Table 2"]


def test_a_table_repeating_another_ones_question_is_one_task_citing_both() -> None:
    """An appendix table that repeats a main table with more rows asks the same question:
    one task, with both tables as its evidence, not two tasks a reviewer must find alike."""
    rows = [
        ["Method", "Accuracy", "F1"],
        ["ZetaNet", "91.0", "88.0"],
        ["Baseline", "85.0", "80.0"],
        ["Other", "86.0", "81.0"],
    ]
    caption = "Performance of the methods on the prediction tasks."
    main = Table(label="Table 3", caption=f"Table 3: {caption}", page=4, rows=rows)
    extended = Table(
        label="Table 17",
        caption=f"Table 17: {caption}",
        page=19,
        rows=[*rows, ["Third", "84.0", "79.0"]],
    )
    paper = ParsedPaper(
        title="Zeta", abstract="We propose ZetaNet, a predictor.", tables=[main, extended]
    )
    tasks = [t for t in draft(paper).tasks if ":compare" in t.key]
    assert len(tasks) == 1, [t.question for t in tasks]
    assert {e.label for e in tasks[0].evidence} >= {"Table 3", "Table 17"}


def test_a_table_of_measure_rows_asks_which_column_is_best() -> None:
    """Rows are measures ("PPL", "H@1", "H@5": H@k is hits at k), columns the methods on each
    kind of token: the methods are what is compared, not the measures."""
    table = Table(
        label="Table 6",
        caption="Table 6: Results over a sample of the test set, stratified by the token kind.",
        page=5,
        rows=[
            ["", "Enc Others", "Enc Units", "Base Others", "Base Units"],
            ["PPL", "5.1", "7.2", "6.3", "9.0"],
            ["H@1", "41.0", "30.2", "37.5", "25.1"],
            ["H@5", "63.4", "51.0", "60.2", "47.7"],
        ],
    )
    paper = ParsedPaper(title="Reading Numbers", abstract="We study numbers.", tables=[table])
    (task,) = draft(paper).tasks
    arms = next(iter(task.design_complexity.independent_variables.values()))
    assert arms == ["Enc Others", "Enc Units", "Base Others", "Base Units"], task
    assert task.question.startswith("Which of Enc Others, Enc Units"), task.question


def test_rows_marked_as_replacements_of_one_row_stay_a_comparison() -> None:
    # "→X" rows (the model with X in its place) beside the one plain row: drafted as that
    # row's ablation, a reader graded the task C (the reference row has no win rate, the
    # variants change inference, not training) where the comparison was B
    table = Table(
        label="Table 5",
        caption="Table 5: Additional analyses: each variant against the default Solver.",
        page=7,
        rows=[["Model", "Pass", "Win"], ["Solver", "68.0", "-"], ["→Retriever", "62.0", "54.0"],
              ["→Greedy", "19.0", "21.0"], ["→LoRA", "51.0", "34.0"]],
    )  # fmt: skip
    paper = ParsedPaper(
        title="Planning with tools",
        abstract="We propose Solver, a planner for tool use.",
        sections=[Section(number="4", title="Analysis", text="Table 5 holds more.", page=7)],
        tables=[table],
    )
    keys = [t.key for t in draft(paper).tasks]
    assert keys and not any(k.endswith(":ablation") for k in keys), keys
