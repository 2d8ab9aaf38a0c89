"""Header rows read as a reader of the PDF reads them: every column named by what stands
over it, no data row taken into the header, no header row taken for data."""

from __future__ import annotations

from expcurate.records import Table
from extractors.numbers import to_float
from extractors.tasks.grids import cell_number, read_grid


def _grid(rows: list[list[str]]):  # type: ignore[no-untyped-def]
    grid = read_grid(Table(label="Table 1", caption="Table 1: Results.", page=1, rows=rows))
    assert grid is not None
    return grid


def test_a_row_of_thresholds_under_a_spanning_metric_is_header_not_a_method() -> None:
    grid = _grid(
        [
            ["", "", "", "FPR@TPR (↓)", "", ""],
            ["Method", "AUROC", "AUPR", "", "", ""],
            ["", "", "", "0.95", "0.90", "0.80"],
            ["Base", "60.1", "58.2", "90.3", "85.0", "70.2"],
            ["Ours", "66.4", "63.0", "88.1", "80.9", "61.5"],
        ]
    )
    assert grid.labels == ["Base", "Ours"]
    assert grid.header == [
        "AUROC",
        "AUPR",
        "FPR@TPR (↓) 0.95",
        "FPR@TPR (↓) 0.90",
        "FPR@TPR (↓) 0.80",
    ]


def test_a_first_data_row_with_missing_values_and_units_is_data() -> None:
    grid = _grid(
        [
            ["Model", "Size", "Storage", "Time", "Acc"],
            ["Big", "7B", "13G", "3 hours", "-"],
            ["Small", "1.2M", "4.7M", "-", "61.0"],
        ]
    )
    assert grid.header == ["Size", "Storage", "Time", "Acc"]
    assert grid.labels == ["Big", "Small"]
    # The magnitude stays on the number, so that 13G of storage is more than 4.7M.
    assert grid.values[0][:3] == ["7B", "13G", "3"]
    assert cell_number("13G") == "13G" and cell_number("12 s") == "12"
    assert to_float("13G") == 13e9 > to_float("16.8M") == 16.8e6  # type: ignore[operator]


def test_centred_labels_over_uneven_spans_name_the_columns_nearest_them() -> None:
    grid = _grid(
        [
            ["", "", "Alpha", "", "", "Beta", "", "Gamma", "Delta"],
            ["Model", "a1", "a2", "a3", "b1", "b2", "b3", "g1", "d1"],
            ["M", "1.0", "2.0", "3.0", "4.0", "5.0", "6.0", "7.0", "8.0"],
        ]
    )
    assert grid.header == [
        "Alpha a1",
        "Alpha a2",
        "Alpha a3",
        "Beta b1",
        "Beta b2",
        "Beta b3",
        "Gamma g1",
        "Delta d1",
    ]


def test_one_metric_in_two_settings_over_two_columns_names_both() -> None:
    grid = _grid(
        [
            ["Method", "GFLOPs", "mIoU", "(SS/MS)"],
            ["A", "10.0", "40.1", "41.0"],
            ["B", "12.0", "42.3", "43.9"],
        ]
    )
    assert grid.header == ["GFLOPs", "mIoU (SS)", "mIoU (MS)"]


def test_a_groups_size_beside_its_name_in_the_groups_first_row_is_a_label() -> None:
    """ "406M" beside "bart-large" on the group's first row (LaTeX multirow) is the group's
    attribute, not a result: the method names in the next column make it stub."""
    grid = _grid(
        [
            ["Backbone", "Size", "Method", "best", "oot"],
            ["bart-large", "406M", "GeneSis", "19.2", "45.7"],
            ["", "", "GeneSis+WN", "20.6", "50.0"],
            ["gpt2-medium", "345M", "PromptSub", "21.4", "50.5"],
            ["", "", "PromptSub+", "21.5", "51.1"],
        ]
    )
    assert grid.header == ["best", "oot"]
    assert grid.labels == [
        "bart-large / 406M / GeneSis",
        "bart-large / 406M / GeneSis+WN",
        "gpt2-medium / 345M / PromptSub",
        "gpt2-medium / 345M / PromptSub+",
    ]


def test_of_two_tables_side_by_side_the_left_one_is_read() -> None:
    """ "0-shot" | "0-shot + CoT": the second table's rows are the same methods under another
    setting, not more columns of the first."""
    grid = _grid(
        [
            ["0-shot", "All", "NLP", "0-shot", "All", "NLP"],
            ["Base", "41.6", "53.8", "Base + CoT", "70.4", "73.7"],
            ["Ours", "59.5", "70.9", "Ours + CoT", "78.6", "75.8"],
        ]
    )
    assert grid.header == ["All", "NLP"]
    assert grid.labels == ["Base", "Ours"]
    assert grid.values == [["41.6", "53.8"], ["59.5", "70.9"]]
