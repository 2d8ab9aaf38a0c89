"""Every validator check by name: its usual severity, what it needs, what it means.

The review app shows `describe(check)` beside each flag, and the import report counts flags
by these names, so a check that is not listed here is a bug (a test enforces it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from expcurate.records import Flag, Severity

# "checkout": the repository's objects at the pinned commit, which only the package stage
# reads (to build the masking patches); validate_task never runs or skips such a check.
# "curation": raised by the curation steps themselves (a merge, a re-extraction), never by
# validate_task.
Needs = Literal["task", "paper", "repo", "siblings", "checkout", "curation"]


@dataclass(frozen=True)
class Check:
    name: str
    severity: Severity  # the worst severity the check raises
    needs: Needs  # what must be at hand to run it
    meaning: str  # for a reviewer: what is wrong and what to do


_CHECKS: tuple[Check, ...] = (
    Check("schema", Severity.error, "task",
          "The task does not follow EXP-Bench's schema (field names, types, nesting). Import "
          "repairs what it can and says what it changed; what it cannot repair is an error."),
    Check("required_fields", Severity.error, "task",
          "A field every task needs (question, method, expected outcome) is empty."),
    Check("question_form", Severity.error, "task",
          "The question must be one question ending with '?', with no markdown left over "
          "from extraction; a statement or a hypothesis is not a question."),
    Check("question_leaks_outcome", Severity.error, "task",
          "The question gives away numbers of the expected outcome, so an agent could answer "
          "without running anything."),
    Check("outcome_grounded", Severity.error, "paper",
          "A number in the expected outcome was not found in the paper: check it against the "
          "table or figure cited."),
    Check("evidence", Severity.error, "paper",
          "The task cites no table, figure or section, or cites one the parser did not find "
          "in the paper."),
    Check("outcome_meta", Severity.error, "task",
          "The expected outcome says what a table or figure shows ('the results are shown in "
          "Figure 6') instead of the finding: write the trend or comparison the paper states."),
    Check("method_is_header", Severity.error, "task",
          "A compared 'method' is a column header, a metric, a dataset or a summary row "
          "(Average, Gain): the table was read sideways or a header row was taken as data."),
    Check("mixed_blocks", Severity.warning, "task",
          "The compared rows come from several groups of the table (datasets, model sizes, "
          "backbones, settings): a method is only a rival of the rows in its own group."),
    Check("table_reading", Severity.warning, "paper",
          "The table reader was unsure of the cited table's cells (numbers inside row labels, "
          "rows with half their cells missing, a fallback reader): check the task's rows and "
          "numbers against the table's crop."),
    Check("label_numbers", Severity.warning, "task",
          "Numbers are run into a method's name, a sign that table cells were glued together: "
          "check the row against the crop."),
    Check("self_comparison", Severity.error, "task",
          "The outcome compares a method with itself: rows of different blocks (datasets, model "
          "sizes, backbones) were run together, or every method compared is one method at "
          "several settings. Compare within one block, or ask how the setting matters."),
    Check("merged_blocks", Severity.warning, "task",
          "The same column name is measured twice: blocks of the table set side by side (two "
          "models, with and without a setting) were read as one. Make one task per block."),
    Check("own_variants", Severity.warning, "task",
          "The method is compared with other sizes or variants of itself (MSCAN-T against "
          "MSCAN-S and MSCAN-L): they are not its rivals. Compare within one size."),
    Check("model_fallback", Severity.error, "task",
          "The model asked for did not write this setup (its budget was spent, the provider "
          "failed, or its answers were unusable): the heuristic policy's setup stands in. "
          "Check it before approving, or retry the stage."),
    Check("command_flags", Severity.warning, "task",
          "A usage command passes a flag that its script's argument parser does not define "
          "(the model's setup kept it): run the script's --help or read its parser, and fix "
          "the command before approving."),
    Check("unsafe_command", Severity.error, "task",
          "The usage or agent instructions ask for something no experiment needs (deleting "
          "files, sudo, running a downloaded script, writing to system paths, reading keys or "
          "secrets): rewrite them as commands that run the repository's own scripts."),
    Check("question_truncated", Severity.warning, "task",
          "The question is cut off (a caption truncated mid-sentence); finish it in the paper's "
          "terms."),
    Check("direction_disagrees", Severity.warning, "task",
          "The paper's sentence and the compared cells disagree about who wins: check the "
          "metric's direction (lower is better for errors and costs), the subject row, and "
          "the row groups."),
    Check("figure_not_plot", Severity.warning, "paper",
          "The cited figure reads as a drawing, diagram or example, not a plot of measurements; "
          "a trend task needs a measured quantity."),
    Check("near_duplicate", Severity.warning, "siblings",
          "Another task of this paper asks nearly the same thing; keep one of them."),
    Check("same_steps", Severity.warning, "siblings",
          "The setup's steps cite exactly the code another task's of this paper cite. Where "
          "the two experiments differ (an arm, a data set, a subset of items), make the steps "
          "show it; when they do not differ, it is one task twice: keep one."),
    Check("commit_pinned", Severity.warning, "task",
          "No commit is pinned for the repository, so a harness would clone the default "
          "branch and the file:line references can drift."),
    Check("requirement_form", Severity.error, "task",
          "A requirement is not written 'Step k: …' or 'Final Step: …'."),
    Check("requirement_reference", Severity.error, "repo",
          "A requirement's (path:first-last) reference is missing, names a file that is not in "
          "the repository at the pinned commit, or lines the file does not have."),
    Check("source_exists", Severity.error, "repo",
          "A source file is not in the repository at the pinned commit."),
    Check("masked_source_exists", Severity.error, "repo",
          "A file to mask is not in the repository at the pinned commit, so the task cannot be "
          "built."),
    Check("setup_found", Severity.error, "task",
          "The setup has neither source files nor a no_answer reason, or source files with "
          "no requirement steps."),
    Check("instructions_leak_masked", Severity.error, "task",
          "The agent instructions name a masked file, which points the agent at the answer."),
    Check("masking", Severity.error, "checkout",
          "The package stage could not build the patches that hide the masked files (a path "
          "not at the pinned commit, no checkout, no commit): published as is, the task would "
          "give the agent its answer. Fix masked_source / mask_also, or override with a reason."),
    Check("merge_conflict", Severity.error, "curation",
          "A reviewer edited this field and the new machine output (a rerun or a "
          "re-extraction) changed it too. The reviewer's value is kept; compare the two in the "
          "message, edit the field to the right one, then approve: the approval settles it."),
    Check("reference_drift", Severity.error, "curation",
          "Re-extraction moved the repository to a new commit and this reference could not be "
          "carried: lines it cites changed or vanished, or a file is gone. The message shows "
          "the old and the new code; fix the step or path, then approve: the approval settles it."),
    Check("leakage", Severity.warning, "repo",
          "A file the agent will see (docs, notebooks, logs, results, configs) holds the "
          "expected numbers or a copy of masked code; mask it too or accept it with a reason."),
)  # fmt: skip

CHECKS: dict[str, Check] = {c.name: c for c in _CHECKS}


def describe(check: str) -> str:
    """What a flag of this check means, in the reviewer's terms."""
    known = CHECKS.get(check)
    return known.meaning if known else "A finding of the stage; its message says what to check."


def flag(check: str, severity: Severity, message: str, paths: Sequence[str] = ()) -> Flag:
    """Make a flag; the check must be in the catalog so the review app can explain it."""
    if check not in CHECKS:
        raise KeyError(f"validator check {check!r} is not in the catalog; add it to CHECKS")
    return Flag(check=check, severity=severity, message=message, paths=list(paths))


def skipped(check: str, why: str) -> Flag:
    """An `info` flag for a check that could not run: never skip a check silently."""
    return flag(check, Severity.info, f"not checked: {why}")


def skipped_all(needs: Needs, why: str) -> list[Flag]:
    return [skipped(c.name, why) for c in _CHECKS if c.needs == needs]


def blocking(flags: Sequence[Flag | dict[str, object]]) -> list[Flag]:
    """The error-severity flags: what blocks publishing until fixed or overridden."""
    out = []
    for f in flags:
        parsed = f if isinstance(f, Flag) else Flag.model_validate(f)
        if parsed.severity == Severity.error:
            out.append(parsed)
    return out
