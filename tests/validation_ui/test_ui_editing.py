"""Turning the review form into fields: exact round trips, refusals with reasons, diffs."""

from __future__ import annotations

from pathlib import Path

from expcurate.records import DesignComplexity, Evidence, TaskFields, ToolCall
from validation_ui.editing import (
    EditForm,
    field_diff,
    form_from_fields,
    parse_form,
    rebase,
    word_diff,
)


def _rich() -> TaskFields:
    return TaskFields(
        key="table-2:ablation",
        question="Does gating help on ETTh1?",
        method="Train with and without the gate.",
        expected_outcome="Removing the gate raises MSE from 0.361 to 0.384.",
        design_complexity=DesignComplexity.model_validate(
            {
                "constant_variables": {"dataset": "ETTh1", "seeds": ["1", "2", "3"], "lr": 0.001},
                "independent_variables": {"gate": ["on", "off"], "grid": {"k": [1, 2]}},
                "dependent_variables": {"mse": "test MSE at horizon 96"},
                "notes": "kept as an extra",
            }
        ),
        source=["gatemix/model.py", "scripts/run.sh"],
        requirements=["Step 1: Build the model (gatemix/model.py:1-3)", "Final Step: Report."],
        evidence=[
            Evidence(kind="table", label="Table 2", page=4),
            Evidence(kind="text", label="x"),
        ],
        trace=[ToolCall(tool="search", args={"q": "gate"}, result="model.py")],
        extra_annotation="kept too",  # type: ignore[call-arg]
    )


def test_unchanged_form_round_trips_exactly() -> None:
    """Opening a task and saving without typing must not change one value (no spurious edit)."""
    fields = _rich()
    parsed = parse_form(form_from_fields(fields), fields)
    assert parsed.ok, parsed.problems
    assert parsed.fields is not None
    assert parsed.fields.model_dump(mode="json") == fields.model_dump(mode="json")
    assert field_diff(fields, parsed.fields) == []


def test_form_survives_session_serialisation() -> None:
    form = form_from_fields(_rich())
    assert EditForm.from_dict(form.to_dict()) == form


def test_lists_take_one_item_per_line_and_drop_blank_lines() -> None:
    fields = _rich()
    form = form_from_fields(fields)
    form.lists["masked_source"] = "  gatemix/model.py \n\n\nscripts/run.sh\n"
    parsed = parse_form(form, fields)
    assert parsed.fields is not None
    assert parsed.fields.masked_source == ["gatemix/model.py", "scripts/run.sh"]


def test_variable_table_edits_parse_text_and_json_lists() -> None:
    fields = _rich()
    form = form_from_fields(fields)
    form.variables = [
        {"kind": "constant", "name": "dataset", "value": "Weather"},
        {"kind": "independent", "name": "gate", "value": '["on", "off", "soft"]'},
        {"kind": "dependent", "name": "mae", "value": "0.25"},
        {"kind": "", "name": "", "value": ""},  # the empty row a table editor adds
    ]
    parsed = parse_form(form, fields)
    assert parsed.ok, parsed.problems
    assert parsed.fields is not None
    dc = parsed.fields.design_complexity
    assert dc.constant_variables == {"dataset": "Weather"}
    assert dc.independent_variables == {"gate": ["on", "off", "soft"]}
    assert dc.dependent_variables == {"mae": "0.25"}  # numbers stay text, as in EXP-Bench
    assert dc.model_extra == {"notes": "kept as an extra"}


def test_bad_variable_rows_are_refused_with_the_row_named() -> None:
    fields = _rich()
    form = form_from_fields(fields)
    form.variables = [
        {"kind": "constant", "name": "a", "value": "[1, 2"},
        {"kind": "constant", "name": "a", "value": "x"},
        {"kind": "sideways", "name": "b", "value": "y"},
        {"kind": "dependent", "name": "", "value": "z"},
    ]
    parsed = parse_form(form, fields)
    assert not parsed.ok
    messages = " | ".join(p.message for p in parsed.errors)
    assert "does not parse" in messages
    assert "row 2: constant variable 'a' appears twice" in messages
    assert "row 3: kind must be one of" in messages
    assert "row 4: the variable has no name" in messages


def test_blank_required_field_refuses_the_save() -> None:
    fields = _rich()
    form = form_from_fields(fields)
    form.text["question"] = "   "
    parsed = parse_form(form, fields)
    assert not parsed.ok
    assert [p.field for p in parsed.errors] == ["question"]


def test_question_without_question_mark_only_warns() -> None:
    fields = _rich()
    form = form_from_fields(fields)
    form.text["question"] = "Gating helps on ETTh1."
    parsed = parse_form(form, fields)
    assert parsed.ok
    assert [(p.field, p.severity) for p in parsed.problems] == [("question", "warning")]


def test_requirement_lines_must_be_steps() -> None:
    fields = _rich()
    form = form_from_fields(fields)
    form.lists["requirements"] = (
        "Step 1: Build it (gatemix/model.py:1-2)\nbuild the model\nStep 3: Run it\nFinal Step: Done"
    )
    parsed = parse_form(form, fields)
    assert [(p.severity, p.message.split(":")[0]) for p in parsed.problems] == [
        ("error", "line 2 is not a step"),
        ("warning", "line 3 names no code lines (path"),
    ]


def test_references_are_checked_against_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "a.py").write_text("x = 1\ny = 2\nz = 3\n")
    (tmp_path / "secret.py").write_text("s = 1\n")
    fields = _rich()
    form = form_from_fields(fields)
    form.lists["requirements"] = "\n".join(
        [
            "Step 1: ok (pkg/a.py:1-3)",
            "Step 2: workspace prefix (/workspace/pkg/a.py:2-2)",
            "Step 3: past the end (pkg/a.py:2-9)",
            "Step 4: no such file (pkg/b.py:1-2)",
            "Step 5: escapes (../secret.py:1-1)",
        ]
    )
    form.lists["source"] = "pkg/a.py\n../secret.py\npkg/missing.py"
    problems = parse_form(form, fields, repo).problems
    found = {(p.field, p.severity, p.message) for p in problems}
    assert ("requirements", "warning", "line 3: lines 2-9 are outside pkg/a.py (3 lines)") in found
    assert ("requirements", "error", "line 4: pkg/b.py is not a file of the repository") in found
    assert ("requirements", "error", "line 5: ../secret.py leaves the repository") in found
    assert ("source", "error", "../secret.py: use a path inside the repository") in found
    assert ("source", "warning", "pkg/missing.py does not exist at the pinned commit") in found
    assert not any(p.message.startswith(("line 1", "line 2")) for p in problems)


def test_evidence_lines_parse_and_bad_ones_are_refused() -> None:
    fields = _rich()
    form = form_from_fields(fields)
    form.evidence = "figure: Figure 1 (p. 5)\nsection: 4.2 Main Results\nTable 9"
    parsed = parse_form(form, fields)
    assert [p.field for p in parsed.errors] == ["evidence"]
    form.evidence = "figure: Figure 1 (p. 5)\nsection: 4.2 Main Results"
    parsed = parse_form(form, fields)
    assert parsed.fields is not None
    assert parsed.fields.evidence == [
        Evidence(kind="figure", label="Figure 1", page=5),
        Evidence(kind="section", label="4.2 Main Results"),
    ]


def test_field_diff_names_changed_fields_in_schema_order() -> None:
    old = _rich()
    new = old.model_copy(
        update={
            "question": "Does gating help on ETTh2?",
            "source": ["gatemix/model.py", "gatemix/gate.py"],
            "trace": [],  # the agent's trace is evidence, not a reviewed field
        }
    )
    changes = field_diff(old, new)
    assert [c.field for c in changes] == ["question", "source"]
    assert changes[0].diff == "Does gating help on [-ETTh1?-]{+ETTh2?+}"
    assert changes[1].diff.splitlines() == [
        " gatemix/model.py",
        "-scripts/run.sh",
        "+gatemix/gate.py",
    ]


def test_field_diff_shows_variable_changes_by_name() -> None:
    old = _rich()
    dc = old.design_complexity.model_copy(
        update={"constant_variables": {"dataset": "ETTh2", "seeds": ["1", "2", "3"], "lr": 0.001}}
    )
    changes = field_diff(old, old.model_copy(update={"design_complexity": dc}))
    assert [c.field for c in changes] == ["design_complexity"]
    assert "-constant.dataset = ETTh1" in changes[0].diff
    assert "+constant.dataset = ETTh2" in changes[0].diff


def test_word_diff_marks_insertions_and_deletions() -> None:
    assert word_diff("a b c", "a x c") == "a [-b-]{+x+} c"
    assert word_diff("", "new") == "{+new+}"


def test_word_diff_joins_changes_split_by_single_spaces() -> None:
    assert word_diff("Train and evaluate it.", "New method.") == (
        "[-Train and evaluate it.-]{+New method.+}"
    )
    # a shared word still separates two changes
    assert word_diff("keep this and that", "keep those and them") == (
        "keep [-this-]{+those+} and [-that-]{+them+}"
    )


def test_rebase_keeps_their_changes_and_names_fields_both_changed() -> None:
    base = _rich()
    theirs = base.model_copy(update={"method": "Their method.", "question": "Theirs?"})
    mine = base.model_copy(update={"question": "Mine?", "source": ["gatemix/model.py"]})
    merged, both = rebase(base, mine, theirs)
    assert merged.method == "Their method."  # only they changed it: kept
    assert merged.question == "Mine?"  # both changed it: mine, and said so
    assert merged.source == ["gatemix/model.py"]
    assert both == ["question"]
