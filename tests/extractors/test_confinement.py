"""A path that leaves the repository is refused on its text alone: for imported tasks with no
checkout as for the pipeline's own, in the validators, the edit form and the setup agent."""

from __future__ import annotations

from pathlib import Path

from expcurate.records import Setup, Severity, TaskFields
from extractors.agent import validate_references
from extractors.validate import validate_setup
from extractors.validate.repo_checks import reference_problems
from validation_ui.editing import check_fields

ESCAPES = ["Step 1: read the config (../../etc/passwd:1-5)", "Step 2: log (/etc/shadow:1)"]


def _task() -> TaskFields:
    return TaskFields(
        question="Does X help?",
        method="Run X.",
        expected_outcome="X helps.",
        source=["train.py", "../outside.py"],
        requirements=[*ESCAPES, "Final Step: compare (train.py:1-2)"],
    )


def test_traversal_in_requirements_is_an_error_without_a_checkout() -> None:
    """Imported tasks (no checkout) used to pass `(../../etc/passwd:1-5)` into a release."""
    flags = validate_setup(_task(), None)
    errors = [f for f in flags if f.severity == Severity.error]
    assert any("etc/passwd" in f.message and "leaves" in f.message for f in errors), flags
    assert any("/etc/shadow" in f.message for f in errors), flags
    assert any(f.check == "source_exists" and "../outside.py" in f.message for f in errors)


def test_edit_form_refuses_traversal_without_a_checkout() -> None:
    problems = check_fields(_task(), None)
    leaving = [p for p in problems if "leaves the repository" in p.message]
    assert [p.severity for p in leaving] == ["error", "error"]
    assert any("outside.py" in p.message for p in problems if p.field == "source")


def test_one_reference_check_for_every_caller(tmp_path: Path) -> None:
    """The validators, the edit form and the agent read one list of problems."""
    (tmp_path / "train.py").write_text("a = 1\nb = 2\n")
    kinds = [p.kind for p in reference_problems(_task().requirements, None)]
    assert kinds == ["leaves", "leaves"]
    setup = Setup(source=["train.py"], requirements=[*ESCAPES, "Step 3: x (train.py:1-9)"])
    problems = validate_references(setup, tmp_path)
    assert sum("not a file in the repository" in p for p in problems) == 2
    assert any("lines 1-9 of train.py, which has 2 lines" in p for p in problems)
