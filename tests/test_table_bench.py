"""The table benchmark's truth files and scorer (benchmarks/table_structure.py)."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks" / "tables"))

from truth import Truth, load_all, problems  # noqa: E402

from benchmarks.table_structure import Read, score  # noqa: E402


def _truth() -> Truth:
    return Truth(
        paper="p",
        label="Table 1",
        page=1,
        bbox=(0, 0, 100, 100),
        rows=[
            ["Method", "Acc.", "F1"],
            ["Base [3]", "70.1", "0.61"],
            ["Ours", "72.3", "0.66"],
            ["Big", "80.2", "0.71"],
            ["Ours-L", "82.0", "0.75"],
        ],
        header_rows=1,
        stub_columns=1,
        blocks=[(1, 2, ""), (3, 4, "")],
    )


def test_every_truth_file_is_well_formed_and_there_are_forty() -> None:
    truths = load_all()
    assert len(truths) >= 40
    assert len({(t.paper, t.label) for t in truths}) == len(truths)
    assert all(t.rows[0] and t.body for t in truths)


def test_truth_problems_are_named() -> None:
    bad = {"paper": "p", "label": "T", "page": 1, "bbox": [0, 0, 1, 1], "header_rows": 1,
           "stub_columns": 0, "rows": [["a", "b"], ["1"]], "blocks": [[0, 1, ""]]}  # fmt: skip
    found = problems(bad)
    assert "row 1 has 1 cells, row 0 has 2" in found
    assert any(p.startswith("bad block") for p in found)


def test_a_perfect_reading_scores_full_marks() -> None:
    t = _truth()
    s = score(t, Read(rows=[list(r) for r in t.rows], header_rows=1, blocks=[3]), "x")
    assert (s.exact, s.cells, s.header_ok, s.pure, s.labels, s.found, s.boundaries) == (
        12, 12, True, 4, 4, 1, 1,
    )  # fmt: skip


def test_glued_numbers_a_lost_row_and_a_missed_block_cost_points() -> None:
    t = _truth()
    rows = [
        ["", "", ""],  # a stray empty line above the header
        ["Method", "Acc.", "F1"],
        ["Base [3] 70.1", "0.61", ""],  # a value glued into the label
        ["Ours", "72.3", "0.66"],
        ["Ours-L", "82.0", "0.75"],  # "Big" lost
    ]
    s = score(t, Read(rows=rows, header_rows=1, blocks=[]), "x")
    assert (s.exact, s.cells) == (6, 12)  # Ours and Ours-L; the glued row's cells are off
    assert not s.header_ok  # the first body row is row 2 here, not 1
    assert s.labels == 3 and s.pure == 2
    assert (s.found, s.boundaries) == (0, 1)
    assert not s.empty
    assert score(t, Read(rows=[]), "x").empty
