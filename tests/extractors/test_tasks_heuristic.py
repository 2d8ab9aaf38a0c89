"""The drafting heuristic's reading of a paper: its method name and its tables."""

from __future__ import annotations

import pytest

from expcurate.records import ParsedPaper, Table
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
