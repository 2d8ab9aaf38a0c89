"""Build a release from the store's approved tasks.

Only tasks approved at the package stage are published, and none with an error flag that no
reviewer has overridden (with a reason) on its current revision: `export` refuses and lists
them. Each published task gets the patches that mask and restore its files. The package stage
builds them (and flags a task it cannot mask, so a reviewer decides before approval); export
reuses them while the task still names the same files at the same commit, and otherwise, as
for imported papers, builds them from the paper's repository when a checkout is at hand.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from expcurate.curation.pipeline import (
    NOTHING_TO_MASK,
    TaskMask,
    mask_task,
    masked_paths,
    package_masks,
    write_atomically,
)
from expcurate.curation.review import unresolved_errors
from expcurate.records import (
    DraftSet,
    ExpBenchFile,
    FollowUpIdea,
    Stage,
    TaskFields,
    TaskStatus,
)
from expcurate.settings import Settings
from expcurate.store import Store
from expcurate.store.rows import Paper, StageRun, Task
from extractors.package import (
    MaskPatches,
    ReleasePaper,
    ReleaseUnreadable,
    read_release,
    write_release,
)


class PublishError(ValueError):
    pass


@dataclass
class ReleaseSummary:
    name: str
    path: Path
    changes: Path  # the changelog since the previous release
    papers: int
    tasks: int
    manifest_sha256: str
    unmasked: int = 0  # tasks with files to mask whose patches could not be built
    unmasked_reason: str = ""  # why, for the first of them

    def unmasked_line(self) -> str:
        """What a curator must hear about masking: empty when every task is masked."""
        if not self.unmasked:
            return ""
        return (
            f"{self.unmasked} task(s) published without masking (their files are not hidden "
            f"from the agent); first reason: {self.unmasked_reason}"
        )


@dataclass
class Blocked:
    """A task export refuses: approved, but with error flags nobody overrode."""

    task_id: int
    paper_id: str
    checks: list[str]
    messages: list[str] = field(default_factory=list)

    def line(self) -> str:
        return f"task {self.task_id} ({self.paper_id}): {'; '.join(self.messages)}"


def paper_checkout(store: Store, settings: Settings, paper: Paper) -> tuple[Path | None, str]:
    """The paper's repository on this machine and its pinned commit, if there is one."""
    from expcurate.curation.importer import IMPORT_ARTIFACT, ImportRecord
    from expcurate.curation.pipeline import ingest_of, paper_dir

    runs = store.current_runs(paper.id)
    root, commit = "", paper.commit
    if Stage.ingest.value in runs:
        ingest = ingest_of(store, settings, paper.id)
        root, commit = ingest.repo_path, ingest.commit or commit
    else:
        record_path = paper_dir(settings, paper.id) / IMPORT_ARTIFACT
        if record_path.is_file():
            record = ImportRecord.model_validate_json(record_path.read_text())
            root, commit = record.repo_path, record.commit or commit
    path = Path(root) if root and Path(root).is_dir() else None
    return path, commit


def _masks(
    root: Path | None, commit: str, fields: TaskFields, built: TaskMask | None
) -> MaskPatches | str:
    """The task's patches as the package stage built them, or built now if it did not, if
    the task names other files since, or if it failed and a checkout is here to try again:
    the same bytes either way."""
    hidden = masked_paths(fields)
    if (
        built is None
        or (built.commit, built.paths) != (commit, hidden)
        or (not built.built and root is not None)
    ):
        built = mask_task(root, commit, hidden)
    if not built.built:
        return built.reason
    return MaskPatches(
        commit=built.resolved, files=built.files, mask=built.mask, restore=built.restore
    )


def _takeaways(
    store: Store, settings: Settings, paper: Paper, runs: dict[str, StageRun]
) -> DraftSet:
    from expcurate.curation.importer import IMPORT_ARTIFACT, ImportRecord
    from expcurate.curation.pipeline import load_artifact, paper_dir

    if Stage.tasks.value in runs:
        return load_artifact(settings, runs[Stage.tasks.value], DraftSet)
    record_path = paper_dir(settings, paper.id) / IMPORT_ARTIFACT
    if record_path.is_file():
        record = ImportRecord.model_validate_json(record_path.read_text())
        return DraftSet(
            main_takeaways=record.main_takeaways,
            follow_up_work_ideas=record.follow_up_work_ideas,
        )
    return DraftSet()


def _provenance(
    store: Store, paper: Paper, task: Task, runs: dict[str, StageRun]
) -> dict[str, Any]:
    assert task.id is not None
    revs = store.revisions(task.id)
    reviews = store.reviews(task_id=task.id)
    return {
        "task_key": task.key,
        "revision": task.head,
        "pdf_sha256": paper.pdf_sha256,
        "repo_commit": paper.commit,
        "models": sorted({r.author for r in revs if r.kind == "machine"}),
        "reviewers": sorted({rv.reviewer for rv in reviews}),
        "prompt_versions": sorted({r.prompt_version for r in runs.values() if r.prompt_version}),
        "pipeline_versions": sorted({r.pipeline_version for r in runs.values()}),
        "overrides": [
            {"reviewer": r.reviewer, "reason": r.reason, "revision": r.revision}
            for r in reviews
            if r.decision == "override" and r.revision == task.head
        ],
    }


def collect(
    store: Store, settings: Settings, paper_ids: list[str] | None = None
) -> tuple[list[ReleasePaper], list[Blocked]]:
    """The release's papers, and the approved tasks that may not be published yet."""
    out, blocked = [], []
    for paper in store.papers():
        if paper_ids and paper.id not in paper_ids:
            continue
        tasks = store.tasks(paper.id, stage=Stage.package.value, status=TaskStatus.approved)
        if not tasks:
            continue
        runs = store.current_runs(paper.id)
        drafts = _takeaways(store, settings, paper, runs)
        root, commit = paper_checkout(store, settings, paper)
        built = package_masks(store, settings, paper.id)
        questions, provenance, masks = [], [], []
        for task in tasks:
            assert task.id is not None
            errors = unresolved_errors(store, task)
            if errors:
                blocked.append(
                    Blocked(
                        task.id,
                        paper.id,
                        sorted({f.check for f in errors}),
                        [f"{f.check}: {f.message}" for f in errors],
                    )
                )
                continue
            fields = store.fields(task)
            questions.append(fields.published())
            provenance.append(_provenance(store, paper, task, runs))
            masks.append(_masks(root, commit, fields, built.tasks.get(task.key) if built else None))
        out.append(
            ReleasePaper(
                id=paper.id,
                conference=paper.conference or settings.conference,
                title=paper.title,
                pdf_url=paper.pdf_source,
                code_url=paper.repo_source,
                commit=commit,
                pdf_sha256=paper.pdf_sha256,
                tasks=ExpBenchFile(
                    questions=questions,
                    main_takeaways=drafts.main_takeaways,
                    follow_up_work_ideas=[
                        FollowUpIdea.model_validate(i) for i in drafts.follow_up_work_ideas
                    ],
                ),
                provenance=provenance,
                masks=masks,
            )
        )
    return out, blocked


def export(
    store: Store, settings: Settings, name: str, paper_ids: list[str] | None = None
) -> ReleaseSummary:
    if not name or "/" in name or name.startswith("."):
        raise PublishError(f"release name {name!r} must be a plain folder name")
    papers, blocked = collect(store, settings, paper_ids)
    if blocked:
        shown = "\n  ".join(b.line() for b in blocked[:20])
        more = f"\n  … and {len(blocked) - 20} more" if len(blocked) > 20 else ""
        raise PublishError(
            f"{len(blocked)} approved task(s) have error flags nobody overrode:\n  {shown}{more}\n"
            "fix them and approve again, or accept them with "
            '`expcurate override --task N --reason "…"`'
        )
    if not any(p.tasks.questions for p in papers):
        raise PublishError(
            "no approved tasks to publish; approve the package stage first (expcurate status)"
        )
    out = settings.published_dir / name
    notes = changelog(store, settings, papers, name)
    manifest = write_release(papers, out)
    # Beside the release, not in it: a release's bytes depend on its tasks alone.
    changes = changes_path(settings, name)
    write_atomically(changes, notes)
    digest = hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
    store.add_release(
        name=name,
        path=str(out.relative_to(settings.resolved_data_dir())),
        manifest_sha256=digest,
        paper_count=manifest["papers"],
        task_count=manifest["tasks"],
    )
    reasons = [m for p in papers for m in p.masks if isinstance(m, str) and m != NOTHING_TO_MASK]
    return ReleaseSummary(
        name,
        out,
        changes,
        manifest["papers"],
        manifest["tasks"],
        digest,
        unmasked=len(reasons),
        unmasked_reason=reasons[0] if reasons else "",
    )


# ------------------------------------------------------------------ the release's changelog


def changes_path(settings: Settings, name: str) -> Path:
    """Where a release's changelog is kept: beside its folder (`NAME.changes.md`)."""
    return settings.published_dir / f"{name}.changes.md"


def changelog(store: Store, settings: Settings, papers: list[ReleasePaper], name: str) -> str:
    """What changed since the store's previous release (the last one made under another
    name whose folder is still here): tasks added, removed and changed, each with why (its
    revisions' notes and authors), and papers whose pinned commit moved."""
    previous = _previous_release(store, settings, name)
    count = sum(len(p.provenance) for p in papers)
    lines = [f"# Changes in {name}", ""]
    if previous is None:
        lines.append(f"The first release: {count} tasks of {len(papers)} papers.")
        return "\n".join(lines) + "\n"
    old_name, folder = previous
    try:
        old_papers, old_rows = read_release(folder)
    except ReleaseUnreadable as exc:
        lines.append(f"{count} tasks of {len(papers)} papers; {old_name} cannot be read: {exc}")
        return "\n".join(lines) + "\n"
    old_tasks: dict[tuple[str, str], int] = {}
    for row in old_rows:
        prov = row.get("provenance") or {}
        old_tasks[(str(row.get("paper")), str(prov.get("task_key")))] = int(
            prov.get("revision") or 0
        )
    old_commits = {str(p.get("id")): str(p.get("commit") or "") for p in old_papers}
    lines.append(f"Since {old_name}: {count} tasks of {len(papers)} papers.")
    lines.append("")
    new_tasks: dict[tuple[str, str], int] = {}
    for paper in papers:
        before = old_commits.get(paper.id)
        if before is not None and before != paper.commit:
            lines.append(f"- {paper.id}: code {before[:12]} → {paper.commit[:12]}")
        for prov in paper.provenance:
            new_tasks[(paper.id, str(prov["task_key"]))] = int(prov["revision"])
    for key in sorted(new_tasks.keys() - old_tasks.keys()):
        lines.append(f"- added {key[0]}/{key[1]}")
    for key in sorted(old_tasks.keys() - new_tasks.keys()):
        lines.append(f"- removed {key[0]}/{key[1]}: {_why_gone(store, *key)}")
    for key in sorted(new_tasks.keys() & old_tasks.keys()):
        if new_tasks[key] != old_tasks[key]:
            why = _why_changed(store, key[0], key[1], old_tasks[key], new_tasks[key])
            lines.append(f"- changed {key[0]}/{key[1]}: {why}")
    if lines[-1] == "":
        lines.append("No task changed.")
    return "\n".join(lines) + "\n"


def _previous_release(store: Store, settings: Settings, name: str) -> tuple[str, Path] | None:
    for release in reversed(store.releases()):
        folder = settings.resolved_data_dir() / release.path
        if release.name != name and (folder / "tasks.jsonl").is_file():
            return release.name, folder
    return None


def _task(store: Store, paper_id: str, key: str) -> Task | None:
    return next((t for t in store.tasks(paper_id) if t.key == key), None)


def _why_gone(store: Store, paper_id: str, key: str) -> str:
    task = _task(store, paper_id, key)
    if task is None:
        return "no longer in the store"
    if task.status == TaskStatus.retired:
        return "retired (no longer drafted from the paper)"
    return f"{task.status} at {task.stage}"


def _why_changed(store: Store, paper_id: str, key: str, old: int, new: int) -> str:
    task = _task(store, paper_id, key)
    if task is None or task.id is None:
        return f"revision {old} → {new}"
    reasons = []
    for rev in store.revisions(task.id):
        if old < rev.number <= new:
            what = rev.note or {"reviewer": "edited", "machine": "new machine output"}.get(
                rev.kind, rev.kind
            )
            reasons.append(f"{what} ({rev.author})")
    return f"revision {old} → {new}: " + "; ".join(dict.fromkeys(reasons))
