"""The drafting heuristic's reading of a paper: its method name and its tables."""

from __future__ import annotations

import pytest

from expcurate.records import Axis, Figure, ParsedPaper, Section, Table
from extractors.paper.layout import dingbat_marks
from extractors.tasks.heuristic import draft, proposed_method
from extractors.tasks.tables import read_grid


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
    assert task.question.startswith("Does GM (ours) outperform Baseline")
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
    assert [t.key for t in tasks] == ["table-6:ablation:w-o-branch-b", "table-6:ablation:w-o-gate"]
    assert "75.9" in tasks[0].expected_outcome and "74.7" in tasks[0].expected_outcome
    assert "compare with the full model (Branch A, Branch B, Gate) in Table 6" in tasks[0].question


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
