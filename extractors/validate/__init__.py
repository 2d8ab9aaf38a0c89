"""Automatic checks on tasks, each named, with a severity and a message a reviewer understands.

Errors block auto-approval and publishing (unless a reviewer overrides them with a reason);
warnings are shown. Checks are grouped by what they need: the task alone, the paper (drafts),
the repository at the pinned commit (setups), the other tasks of the paper. When the paper or
the repository is not at hand (an imported benchmark), the checks that need it are reported
as skipped with an `info` flag, never silently left out. `CHECKS` and `describe` list them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from expcurate.records import Flag, ParsedPaper, Severity, TaskFields
from expcurate.records.refs import repo_path
from extractors.numbers import NumberBag
from extractors.validate import repo_checks
from extractors.validate.catalog import (
    CHECKS,
    Check,
    blocking,
    describe,
    flag,
    skipped,
    skipped_all,
)
from extractors.validate.draft_checks import check_draft_semantics
from extractors.validate.paper_checks import (
    check_duplicates,
    check_evidence,
    check_grounded,
    check_question_form,
    check_required,
)
from extractors.validate.repo_checks import (
    check_instructions,
    check_paths,
    check_requirements,
    check_requirements_form,
    check_setup_found,
    references,
)
from extractors.validate.schema import check_schema, normalise_task
from extractors.validate.tree import GitTree, RepoTree, WorkTree, as_tree

NO_REPO = "no checkout of the repository at its commit"


def _as_fields(items: Sequence[object]) -> list[TaskFields]:
    return [
        s if isinstance(s, TaskFields) else TaskFields.model_validate(s, from_attributes=True)
        for s in items
    ]


def validate_draft(
    fields: TaskFields, paper: ParsedPaper | None, siblings: Sequence[object] = ()
) -> list[Flag]:
    """Checks on what the task says (the tasks stage); paper checks need the parsed paper."""
    return _draft_flags(fields, paper, _as_fields(siblings), None)


def validate_drafts(tasks: Sequence[object], paper: ParsedPaper | None) -> list[list[Flag]]:
    """`validate_draft` for every task of one paper, each against the others, reading the
    paper's numbers and the tasks' fields once rather than once per task."""
    fields = _as_fields(tasks)
    bag = NumberBag([paper.full_text()]) if paper is not None else None
    return [_draft_flags(f, paper, fields, bag) for f in fields]


def _draft_flags(
    fields: TaskFields,
    paper: ParsedPaper | None,
    siblings: Sequence[TaskFields],
    bag: NumberBag | None,
) -> list[Flag]:
    flags = check_required(fields) + check_question_form(fields)
    flags += check_draft_semantics(fields, paper)
    if paper is None:
        flags += skipped_all("paper", "the paper was not parsed here (imported task)")
    else:
        flags += check_grounded(fields, paper, bag) + check_evidence(fields, paper)
    return flags + check_duplicates(fields, siblings)


def validate_setup(fields: TaskFields, root: Path | RepoTree | None) -> list[Flag]:
    """Checks on the recovered setup (the setup stage), against the repository at its commit."""
    flags = (
        check_setup_found(fields)
        + check_requirements_form(fields)
        + check_instructions(fields)
        + repo_checks.check_unsafe_commands(fields)
    )
    if root is None:  # what the text alone shows: steps and paths that leave the repository
        lexical = check_paths(fields, None) + check_requirements(fields, None)
        skipped = [f for f in skipped_all("repo", NO_REPO) if f.check != "leakage"]
        return lexical + flags + skipped
    tree = as_tree(root)
    return check_paths(fields, tree) + flags + check_requirements(fields, tree)


def check_leakage(fields: TaskFields, root: Path | RepoTree | None) -> list[Flag]:
    """Unmasked docs, notebooks, logs, results and configs holding the answer."""
    if root is None:
        return [skipped("leakage", NO_REPO)]
    return repo_checks.check_leakage(fields, as_tree(root))


def validate_task(
    fields: TaskFields,
    paper: ParsedPaper | None,
    root: Path | RepoTree | None,
    siblings: Sequence[TaskFields] = (),
) -> list[Flag]:
    """Every check, for final approval (the package stage)."""
    tree = as_tree(root) if root is not None else None  # one tree: its reads are cached
    return (
        validate_draft(fields, paper, siblings)
        + validate_setup(fields, tree)
        + repo_checks.check_same_steps(fields, siblings)
        + check_leakage(fields, tree)
    )


def check_commit(commit: str) -> list[Flag]:
    if commit:
        return []
    return [
        flag(
            "commit_pinned",
            Severity.warning,
            "no commit pinned for the repository; give one (paper list `commit`) so the "
            "harness does not clone the default branch",
        )
    ]


__all__ = [
    "CHECKS",
    "Check",
    "GitTree",
    "RepoTree",
    "WorkTree",
    "as_tree",
    "blocking",
    "check_commit",
    "check_leakage",
    "check_schema",
    "describe",
    "normalise_task",
    "references",
    "repo_path",
    "validate_draft",
    "validate_drafts",
    "validate_setup",
    "validate_task",
]
