"""The one task schema: field groups read off the classes, views between the stages' records,
the EXP-Bench file written and read by one codec, and references confined to the repository."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from expcurate.records import (
    DesignComplexity,
    Evidence,
    ExpBenchFile,
    ExpBenchTask,
    Setup,
    StageError,
    TaskDraft,
    TaskFields,
    ToolCall,
)
from expcurate.records import task as schema
from expcurate.records.refs import confined, inside, last_reference, references
from extractors.package.tasks_file import parse_tasks, tasks_file_text
from validation_ui.editing import form_from_fields, parse_form

# EXP-Bench's published schema, as the design card lists it.
EXPBENCH_FIELDS = {
    "question", "method", "expected_outcome", "design_complexity", "source", "masked_source",
    "usage_instructions", "requirements", "agent_instructions", "no_answer", "subsection_source",
}  # fmt: skip


def test_published_fields_are_expbench_schema() -> None:
    """What we publish is EXP-Bench's field set, no more and no less."""
    assert set(schema.PUBLISHED_FIELDS) == EXPBENCH_FIELDS
    assert set(schema.DRAFT_FIELDS) | set(schema.SETUP_FIELDS) == EXPBENCH_FIELDS
    assert not set(schema.DRAFT_FIELDS) & set(schema.SETUP_FIELDS)


def test_field_groups_follow_the_annotations() -> None:
    """Text, list, path and core groups come from the declared types and markers."""
    assert set(schema.TEXT_FIELDS) == {
        "question", "method", "expected_outcome", "subsection_source", "usage_instructions",
        "agent_instructions", "no_answer",
    }  # fmt: skip
    assert set(schema.LIST_FIELDS) == {"source", "masked_source", "requirements"}
    assert set(schema.PATH_FIELDS) == {"source", "masked_source", "mask_also"}
    assert schema.REQUIRED_TEXT == ("question", "method", "expected_outcome")
    assert set(schema.BOOKKEEPING_FIELDS) == {"key", "trace"}
    assert schema.VARIABLE_KINDS == ("constant", "independent", "dependent")
    assert set(schema.UNPUBLISHED_FIELDS) == set(TaskFields.model_fields) - EXPBENCH_FIELDS


def test_every_edited_field_has_a_label() -> None:
    """The edit form labels each field from the schema, never from a list of its own."""
    for name in schema.EDITED_FIELDS:
        assert schema.field_title(name)
    assert schema.field_title("source") == "Source files (one per line)"


def _fields() -> TaskFields:
    return TaskFields(
        key="table-2",
        question="Does X beat Y on Z?",
        method="Train X and Y.",
        expected_outcome="X reaches 71.2 against 68.0.",
        design_complexity=DesignComplexity(independent_variables={"method": ["X", "Y"]}),
        subsection_source="4.1 Main results",
        evidence=[Evidence(kind="table", label="Table 2", page=5)],
        source=["train.py"],
        masked_source=["model.py"],
        usage_instructions="python train.py --model x",
        requirements=["Step 1: build the model (model.py:1-20)"],
        trace=[ToolCall(tool="search", args={"q": "x"}, result="train.py")],
        mode="A",  # an annotation outside the schema travels along
    )


def test_compose_and_views_are_inverse() -> None:
    """A task is its draft plus its setup; the views give each part back unchanged."""
    fields = _fields()
    draft, setup = fields.draft(), fields.setup()
    assert isinstance(draft, TaskDraft) and isinstance(setup, Setup)
    again = TaskFields.compose(draft, setup)
    assert again.model_dump(exclude={"mode"}) == fields.model_dump(exclude={"mode"})
    assert ExpBenchTask.from_parts(draft, setup).model_dump() == {
        name: getattr(fields, name) for name in schema.PUBLISHED_FIELDS
    } | {"design_complexity": fields.design_complexity.model_dump()}


def test_published_keeps_annotations_and_drops_bookkeeping() -> None:
    """Extra annotations (EXP-Bench's `mode`) are published; evidence, trace and key are not."""
    out = _fields().published().model_dump(mode="json")
    assert out["mode"] == "A"
    assert not set(schema.UNPUBLISHED_FIELDS) & set(out)


def test_with_setup_replaces_only_the_setup_part() -> None:
    fields = _fields()
    new = fields.with_setup(Setup(no_answer="not in this repository"))
    assert new.source == [] and new.trace == [] and new.no_answer
    assert [getattr(new, n) for n in schema.DRAFT_FIELDS] == [
        getattr(fields, n) for n in schema.DRAFT_FIELDS
    ]


_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30).map(str.strip)
_line = _text.filter(bool)


@settings(max_examples=60, deadline=None)
@given(
    question=_line,
    method=_text,
    requirements=st.lists(_line, max_size=3),
    source=st.lists(st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8})?\.py", fullmatch=True), max_size=3),
)
def test_tasks_file_round_trip(
    question: str, method: str, requirements: list[str], source: list[str]
) -> None:
    """What the codec writes, it reads back as the same fields (keys kept on request)."""
    fields = TaskFields(
        key="k-1", question=question, method=method, requirements=requirements, source=source
    )
    text = tasks_file_text(ExpBenchFile(questions=[_own(fields)], main_takeaways=["t"]))
    errors: list[StageError] = []
    import json

    parsed = parse_tasks(json.loads(text), "mem", errors, keep_keys=True)
    assert errors == [] and parsed is not None
    tasks, takeaways, _ = parsed
    assert takeaways == ["t"]
    assert tasks[0].fields.model_dump() == fields.model_dump()


def _own(fields: TaskFields) -> ExpBenchTask:
    return ExpBenchTask.model_validate(fields.published().model_dump() | {"key": fields.key})


@settings(max_examples=40, deadline=None)
@given(question=_line, method=_line, outcome=_line, usage=_text)
def test_edit_form_round_trip(question: str, method: str, outcome: str, usage: str) -> None:
    """The edit form is derived from the schema: an untouched form saves the same task."""
    fields = _fields().model_copy(
        update={
            "question": question,
            "method": method,
            "expected_outcome": outcome,
            "usage_instructions": usage,
        }
    )
    edit = parse_form(form_from_fields(fields), fields)
    assert edit.fields is not None
    assert edit.fields.model_dump() == fields.model_dump()


def test_confined_refuses_paths_out_of_the_repository() -> None:
    """Checked on the text alone, so it holds for imported tasks with no checkout."""
    assert confined("/workspace/src/a.py") == "src/a.py"
    assert confined("./src//a.py") == "src/a.py"
    for bad in ("../../etc/passwd", "src/../../x", "/etc/passwd", "", "  "):
        assert confined(bad) is None, bad


def test_inside_refuses_a_symlink_out(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.py").write_text("x = 1\n")
    (tmp_path / "secret").write_text("s\n")
    os.symlink(tmp_path / "secret", repo / "link")
    assert inside(repo, "a.py") == (repo / "a.py").resolve()
    assert inside(repo, "link") is None
    assert inside(repo, "../secret") is None


def test_references_read_every_cited_range() -> None:
    step = "Step 3: train and log (/workspace/train.py:10-20; utils/log.py:5)"
    assert [tuple(r) for r in references(step)] == [("train.py", 10, 20), ("utils/log.py", 5, 5)]
    assert last_reference("Step 1: x (a.py:7)") == ("a.py", 7, 7)
    assert last_reference("Step 1: no reference") is None
