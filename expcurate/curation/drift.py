"""Drift: which of a benchmark's `file:line` references no longer point at the same code at
its repositories' current heads. Read-only: the store and the releases are left as they are
(the repositories' cached clones are fetched, as re-extraction would).

A reference is `same` (the same lines at the same place), `moved` (the same lines elsewhere:
shifted, or the file renamed), `changed` (a line of the range changed, or lines were inserted
into it) or `gone` (its file deleted). Every state but `same` breaks a harness that reads the
reference at the head rather than at the pinned commit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from expcurate.records import TaskFields, TaskStatus
from expcurate.records.refs import repo_path
from expcurate.settings import Settings
from expcurate.store import Store


class ReferenceDrift(BaseModel):
    task: str  # the task's key, or its index in a release
    where: str  # "requirement 3", "source", "masked_source"
    reference: str  # as cited: path or path:first-last
    status: str  # moved | changed | gone
    now: str = ""  # where it is at the head, when it is anywhere


class PaperDrift(BaseModel):
    paper_id: str
    repository: str
    commit: str
    head: str = ""
    references: int = 0  # checked
    tasks: int = 0
    drifted: list[ReferenceDrift] = Field(default_factory=list)
    error: str = ""  # why the paper could not be checked

    def counts(self) -> Counter[str]:
        return Counter(d.status for d in self.drifted)


def paper_drift(
    paper_id: str,
    repository: str,
    commit: str,
    tasks: Iterable[tuple[str, dict[str, Any]]],
    clones_dir: Path,
) -> PaperDrift:
    """The drift of one paper's tasks (task name, published fields) from `commit` to the
    head of `repository`'s tracked branch."""
    import git

    from extractors.repo import RepoLoadError, resolve_repo
    from extractors.repo.carry import CodeDiff, cited

    report = PaperDrift(paper_id=paper_id, repository=repository, commit=commit)
    if not repository or not commit:
        report.error = "no repository or no pinned commit recorded; nothing to compare"
        return report
    try:
        root, report.head = resolve_repo(repository, None, clones_dir, update=True)
        diff = CodeDiff(git.Repo(root), commit, report.head)
    except RepoLoadError as exc:
        report.error = str(exc)
        return report
    except git.GitCommandError:
        report.error = f"commit {commit[:12]} is not in {repository} any more"
        return report
    for name, fields in tasks:
        report.tasks += 1
        for number, step in enumerate(fields.get("requirements") or [], 1):
            for ref in cited(step):
                report.references += 1
                carried = diff.carry(ref)
                if carried.status == "same":
                    continue
                new = carried.new
                report.drifted.append(
                    ReferenceDrift(
                        task=name,
                        where=f"requirement {number}",
                        reference=f"{ref.path}:{ref.first}-{ref.last}",
                        status=carried.status,
                        now=f"{new.path}:{new.first}-{new.last}" if new else "",
                    )
                )
        for where in ("source", "masked_source"):
            for path in fields.get(where) or []:
                report.references += 1
                clean = repo_path(path)
                there = diff.moved_path(clean)
                if there == clean:
                    continue
                status = "gone" if there is None else "moved"
                report.drifted.append(
                    ReferenceDrift(
                        task=name, where=where, reference=clean, status=status, now=there or ""
                    )
                )
    return report


def release_drift(folder: Path, clones_dir: Path) -> list[PaperDrift]:
    """The drift of every paper of a published release (its `papers.jsonl`, `tasks.jsonl`);
    `extractors.package.ReleaseUnreadable` when they cannot be read."""
    from extractors.package import read_release

    papers, tasks = read_release(folder)
    rows: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for row in tasks:
        key = (row.get("provenance") or {}).get("task_key") or f"#{row.get('index', '?')}"
        rows.setdefault(str(row.get("paper", "")), []).append((key, row))
    return [
        paper_drift(
            str(p.get("id", "")),
            str(p.get("code_url", "")),
            str(p.get("commit", "")),
            rows.get(str(p.get("id", "")), []),
            clones_dir,
        )
        for p in papers
    ]


def store_drift(
    store: Store, settings: Settings, paper_ids: list[str] | None = None
) -> list[PaperDrift]:
    """The drift of the store's tasks, paper by paper: a curated paper's approved tasks, an
    imported paper's tasks (an EXP-Bench release loaded with `import-expbench`)."""
    from expcurate.curation.publish import paper_checkout
    from expcurate.curation.review import IMPORTED_MODEL

    out = []
    for paper in store.papers():
        if paper_ids and paper.id not in paper_ids:
            continue
        if paper.model == IMPORTED_MODEL:  # an imported release: every task it holds
            tasks = [
                t
                for t in store.tasks(paper.id)
                if t.status not in (TaskStatus.retired, TaskStatus.rejected)
            ]
        else:  # what a release of the store would publish
            tasks = [
                t for t in store.tasks(paper.id, status=TaskStatus.approved) if t.stage == "package"
            ]
        if not tasks:
            continue
        root, commit = paper_checkout(store, settings, paper)
        repository = paper.repo_source or (str(root) if root else "")
        fields = [(t.key, _published(store.fields(t))) for t in tasks]
        out.append(paper_drift(paper.id, repository, commit, fields, settings.clones_dir))
    return out


def _published(fields: TaskFields) -> dict[str, Any]:
    return fields.model_dump(mode="json", include={"requirements", "source", "masked_source"})
