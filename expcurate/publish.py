"""Build a release from the store's approved tasks."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from expcurate.records import ExpBenchFile, FollowUpIdea, Stage
from expcurate.settings import Settings
from expcurate.store import Store
from extractors.package import ReleasePaper, write_release


class PublishError(ValueError):
    pass


@dataclass
class ReleaseSummary:
    name: str
    path: Path
    papers: int
    tasks: int
    manifest_sha256: str


def collect(
    store: Store, settings: Settings, paper_ids: list[str] | None = None
) -> list[ReleasePaper]:
    from expcurate.pipeline import load_artifact
    from expcurate.records import DraftSet

    out = []
    for paper in store.papers():
        if paper_ids and paper.id not in paper_ids:
            continue
        tasks = store.tasks(paper.id, stage=Stage.package.value, status="approved")
        if not tasks:
            continue
        runs = store.current_runs(paper.id)
        drafts = (
            load_artifact(settings, runs[Stage.tasks.value], DraftSet)
            if Stage.tasks.value in runs
            else DraftSet()
        )
        questions, provenance = [], []
        for task in tasks:
            assert task.id is not None
            fields = store.fields(task)
            questions.append(fields.published())
            revs = store.revisions(task.id)
            provenance.append(
                {
                    "task_key": task.key,
                    "revision": task.head,
                    "pdf_sha256": paper.pdf_sha256,
                    "repo_commit": paper.commit,
                    "models": sorted({r.author for r in revs if r.kind == "machine"}),
                    "reviewers": sorted({rv.reviewer for rv in store.reviews(task_id=task.id)}),
                    "prompt_versions": sorted(
                        {r.prompt_version for r in runs.values() if r.prompt_version}
                    ),
                    "pipeline_versions": sorted({r.pipeline_version for r in runs.values()}),
                }
            )
        out.append(
            ReleasePaper(
                paper_id=paper.id,
                conference=paper.conference or settings.conference,
                title=paper.title,
                pdf_url=paper.pdf_source,
                code_url=paper.repo_source,
                commit=paper.commit,
                pdf_sha256=paper.pdf_sha256,
                tasks=ExpBenchFile(
                    questions=questions,
                    main_takeaways=drafts.main_takeaways,
                    follow_up_work_ideas=[
                        FollowUpIdea.model_validate(i) for i in drafts.follow_up_work_ideas
                    ],
                ),
                provenance=provenance,
            )
        )
    return out


def export(
    store: Store, settings: Settings, name: str, paper_ids: list[str] | None = None
) -> ReleaseSummary:
    if not name or "/" in name or name.startswith("."):
        raise PublishError(f"release name {name!r} must be a plain folder name")
    papers = collect(store, settings, paper_ids)
    if not papers:
        raise PublishError(
            "no approved tasks to publish; approve the package stage first (expcurate status)"
        )
    out = settings.published_dir / name
    manifest = write_release(papers, out)
    digest = hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
    store.add_release(
        name=name,
        path=str(out.relative_to(settings.resolved_data_dir())),
        manifest_sha256=digest,
        paper_count=manifest["papers"],
        task_count=manifest["tasks"],
    )
    return ReleaseSummary(name, out, manifest["papers"], manifest["tasks"], digest)
