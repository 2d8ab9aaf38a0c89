"""`benchmarks/rubric_sample.py`: the rubric's draw and the grade tally (no corpus parsing)."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load():
    spec = importlib.util.spec_from_file_location(
        "rubric_sample", ROOT / "benchmarks" / "rubric_sample.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


rubric = _load()


def test_the_draw_is_the_rubrics_seed_7_sample_of_the_same_population() -> None:
    papers = {"b-paper": 5, "a-paper": 30, "c-paper": 70}
    tasks = [
        (folder, i, f"{folder} task {i}")
        for folder in sorted(papers)
        for i in range(papers[folder])
    ]
    random.seed(123)  # whatever state the caller left behind must not matter
    drawn = rubric.draw_sample(tasks)
    random.seed(7)
    expected = random.sample(tasks, 40)
    assert drawn == expected
    assert len(drawn) == 40 and len(set(drawn)) == 40
    assert rubric.draw_sample(tasks) == drawn  # deterministic


def test_the_draw_refuses_a_population_smaller_than_the_sample() -> None:
    with pytest.raises(ValueError, match="only 3 tasks"):
        rubric.draw_sample([1, 2, 3])


ROWS = [
    {"index": 1, "grade": "A", "reason": ""},
    {"index": 2, "grade": "B", "reason": "method: column header listed as a method"},
    {"index": 3, "grade": "C", "reason": "Direction: lower is better ignored"},
    {"index": 4, "grade": "c", "reason": "direction - FLOPs scored as performance"},
    {"index": 5, "grade": "C", "reason": "figure: architecture drawing"},
    {"index": 6, "grade": "", "reason": ""},  # not rated yet
]


def _check(out: str) -> None:
    assert "5 of 6 sampled tasks graded" in out
    assert "| 1 | 1 | 3 | 40% | 20% |" in out
    assert "| direction | 2 | 0 | 0 | 2 |" in out
    assert "| method | 1 | 0 | 1 | 0 |" in out
    assert "| figure | 1 | 0 | 0 | 1 |" in out
    assert out.index("| direction |") < out.index("| figure |")  # most frequent first


def test_grades_from_a_json_list_are_tallied(tmp_path: Path, capsys) -> None:
    path = tmp_path / "grades.json"
    path.write_text(json.dumps(ROWS))
    assert rubric.main(["--grades", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("```markdown") and out.rstrip().endswith("```")
    assert "strategy `heuristic`" in out
    _check(out)


def test_grades_written_into_the_markdown_sheet_are_tallied(tmp_path: Path, capsys) -> None:
    blocks = []
    for row in ROWS:
        grade = row["grade"] or "_"
        reason = row["reason"] or "_"
        blocks.append(
            f"## {row['index']}. paper: Table 1 p.3\n\n> Question?\n\n"
            f"Grade: {grade}  Reason: {reason}\n\n---\n"
        )
    path = tmp_path / "sample.md"
    path.write_text("# Rating sheet\n\n" + "\n".join(blocks))
    rows = rubric.read_grades(path)
    assert [r["index"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[0]["reason"] == "" and rows[5]["grade"] == "_"
    assert rubric.main(["--grades", str(path)]) == 0
    _check(capsys.readouterr().out)


def test_the_setup_sheet_tallies_every_part_and_a_second_reading(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "setup_sheet", ROOT / "benchmarks" / "setup_sheet.py"
    )
    assert spec is not None and spec.loader is not None
    sheet = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sheet)
    rows = [{"task": f"1/{i}"} for i in range(4)]
    grades = tmp_path / "grades.jsonl"
    lines = [
        {"task": "1/0", "requirements": "C", "requirements_identical": "A", "usage": "b"},
        {"task": "1/1", "requirements": "B", "requirements_identical": "B", "usage": "C"},
        {"task": "1/2", "requirements": "C", "requirements_identical": "C", "why": "A lot"},
    ]
    grades.write_text("\n".join(json.dumps(g) for g in lines) + "\n")
    out = sheet.tally(rows, grades)
    assert out[0] == "requirements: A 0, B 1, C 2, ungraded 1; A+B 1/4 (25%)"
    assert out[1] == "usage: A 0, B 1, C 1, ungraded 2; A+B 1/4 (25%)"
    assert out[3] == "requirements_identical: A 1, B 1, C 1, ungraded 1; A+B 2/4 (50%)"
    assert len(out) == 4  # "why" is prose, not a grade
