"""Import an existing EXP-Bench benchmark into the store, to audit and repair it in review.

Each paper becomes a paper record and each task a machine revision authored
`import:expbench`, awaiting review at the package stage with its validator flags. Checks that
need the parsed paper are reported as skipped; checks that need the repository run when a
checkout is given (`repos`), reading the pinned commit from git without touching the work tree.
Re-importing the same files adds no revisions and keeps reviewers' decisions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from expcurate.curation.pipeline import save_artifact
from expcurate.curation.review import IMPORTED_MODEL
from expcurate.curation.services import listed_columns
from expcurate.records import (
    Flag,
    FollowUpIdea,
    PaperStatus,
    Severity,
    Stage,
    TaskFields,
    TaskStatus,
)
from expcurate.settings import Settings
from expcurate.store import Store
from extractors.package.tasks_file import ImportedPaper, read_expbench
from extractors.validate import (
    GitTree,
    RepoTree,
    check_commit,
    validate_task,
)
from extractors.validate.catalog import flag

IMPORT_ARTIFACT = "import-expbench.json"


class ImportRecord(BaseModel):
    """What a paper was imported from; export reads its takeaways and checkout from here."""

    source_file: str
    sha256: str
    commit: str = ""
    repo_path: str = ""  # the checkout the repository checks read, if one was given
    main_takeaways: list[str] = Field(default_factory=list)
    follow_up_work_ideas: list[FollowUpIdea] = Field(default_factory=list)


@dataclass
class ImportSummary:
    papers: int = 0
    tasks: int = 0
    errors: list[str] = field(default_factory=list)  # files or papers not imported, and why
    listed_without_file: list[str] = field(default_factory=list)
    checkouts: dict[str, str] = field(default_factory=dict)  # paper -> tree read, or why none
    # check -> number of tasks with at least one flag of that severity
    flagged: dict[str, Counter[str]] = field(
        default_factory=lambda: {s.value: Counter() for s in Severity}
    )
    tasks_with_errors: int = 0


def find_checkout(repos: Path, paper: ImportedPaper) -> Path | None:
    """A checkout named after the repository (`owner/name` -> `name` or `owner+name`)."""
    names = []
    if paper.repo:
        names += [paper.repo.split("/")[-1], paper.repo.replace("/", "+")]
    if paper.code_url:
        last = paper.code_url.rstrip("/").split("/")[-1]
        names.append(last[:-4] if last.endswith(".git") else last)
    names.append(paper.id)
    for name in dict.fromkeys(n for n in names if n):
        candidate = repos / name
        if (candidate / ".git").exists():
            return candidate
    return None


def _tree(repos: Path | None, paper: ImportedPaper) -> tuple[GitTree | None, str]:
    if repos is None:
        return None, "no --repos folder given"
    root = find_checkout(repos, paper)
    if root is None:
        return None, f"no checkout for {paper.repo or paper.code_url or paper.id}"
    try:
        tree = GitTree(root, paper.commit or "HEAD")
    except Exception as exc:  # any git failure (bad commit, not a repo): no tree to read
        return None, f"{root}: commit {paper.commit or 'HEAD'} unreadable ({type(exc).__name__})"
    return tree, tree.label


def task_flags(
    fields: TaskFields,
    repairs: list[str],
    siblings: list[TaskFields],
    tree: RepoTree | None,
    commit: str,
) -> list[Flag]:
    """Every flag of one imported task: repairs made, schema left over, all validators."""
    flags = []
    if repairs:
        flags.append(flag("schema", Severity.warning, "repaired on import: " + "; ".join(repairs)))
    flags += validate_task(fields, None, tree, siblings)
    return flags + check_commit(commit)


def import_expbench(
    store: Store, settings: Settings, path: Path, *, repos: Path | None = None
) -> ImportSummary:
    found = read_expbench(path)
    summary = ImportSummary(listed_without_file=found.listed_without_file)
    summary.errors += [f"{e.file}: {e.message}" for e in found.errors]
    for paper in found.papers:
        existing = store.get_paper(paper.id)
        if existing is not None and store.current_runs(paper.id):
            summary.errors.append(
                f"paper {paper.id} exists and was curated by the pipeline; not imported "
                "over it (rename the file to import it under another id)"
            )
            continue
        tree, where = _tree(repos, paper)
        summary.checkouts[paper.id] = where
        store.upsert_paper(
            paper.id,
            **listed_columns(paper),
            commit=paper.commit,
            model=IMPORTED_MODEL,
            status=PaperStatus.awaiting_review,
            stage=Stage.package.value,
            error="",
        )
        record = ImportRecord(
            source_file=paper.source_file,
            sha256=paper.sha256,
            commit=paper.commit,
            repo_path=str(tree.root.resolve()) if tree is not None else "",
            main_takeaways=paper.main_takeaways,
            follow_up_work_ideas=paper.follow_up_work_ideas,
        )
        save_artifact(settings, paper.id, IMPORT_ARTIFACT, record)
        siblings = [t.fields for t in paper.tasks]
        for task in paper.tasks:
            flags = task_flags(task.fields, task.repairs, siblings, tree, paper.commit)
            stored = store.put_machine_task(
                paper.id,
                task.fields,
                stage=Stage.package.value,
                author=IMPORTED_MODEL,
                position=task.index,
                status=TaskStatus.awaiting_review,
                flags=flags,
            )
            assert stored.id is not None
            # An unchanged task keeps its status, but its flags follow the latest checks.
            store.set_flags(stored.id, flags)
            for severity in Severity:
                summary.flagged[severity.value].update(
                    {f.check for f in flags if f.severity == severity}
                )
            summary.tasks_with_errors += any(f.severity == Severity.error for f in flags)
        summary.papers += 1
        summary.tasks += len(paper.tasks)
    return summary
