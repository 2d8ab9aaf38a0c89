"""Keeping curated papers current: re-extraction after the code, the PDF or the pipeline
moved on."""

from __future__ import annotations

from collections import Counter
from typing import Annotated

import typer

from expcurate.cli import common
from expcurate.cli.options import DataDir, DbUrl


def reextract(
    papers: Annotated[
        list[str] | None, typer.Argument(help="Papers to re-extract (default: with --all).")
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Every extracted paper.")] = False,
    commit: Annotated[
        str | None,
        typer.Option("--commit", help="Move to this commit (one paper) instead of the newest."),
    ] = None,
    latest: Annotated[
        bool,
        typer.Option("--latest", help="Move to the newest commit of the tracked branch (default)."),
    ] = False,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Bring curated papers to their repository's newest commit (or --commit), their current
    PDF, pipeline and models, rerunning only what changed and keeping every reviewer's edit.

    Says per paper what changed and what was rerun; nothing changed means nothing rerun."""
    _, store = common.configured_store(data_dir, db_url)
    if commit and latest:
        common.fail("--commit and --latest ask for different commits; give one")
    if every == bool(papers):
        common.fail("name the papers to re-extract, or pass --all (not both)")
    common.quiet_prefect()
    from flows.upkeep import extracted_papers, reextract_one

    chosen = extracted_papers(store) if every else list(papers or [])
    if commit and len(chosen) != 1:
        common.fail("--commit names one repository's commit: give exactly one paper")
    for paper_id in chosen:
        store.require_paper(paper_id)  # an unknown paper is one line, before any work
    errors = 0
    for paper_id in chosen:
        report = reextract_one(paper_id, commit)
        errors += bool(report.error)
        common.console.print(report.line(), highlight=False, soft_wrap=True)
        for task_id, why in report.flagged.items():
            common.console.print(f"  task {task_id}: {why}", highlight=False, soft_wrap=True)
    if chosen and errors == len(chosen):
        raise typer.Exit(common.BAD_INPUT)


def drift(
    release: Annotated[
        str | None,
        typer.Option(
            "--release",
            help="A release: its name under data/published, or the path of a release folder "
            "(default: the store's approved tasks).",
        ),
    ] = None,
    paper: Annotated[list[str] | None, typer.Option("--paper", help="Only these papers.")] = None,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """List, per task, the file:line references that no longer point at the same code at the
    head of the paper's repository (moved, changed or gone). Changes nothing."""
    from pathlib import Path

    from expcurate.curation.drift import release_drift, store_drift
    from extractors.package import ReleaseUnreadable

    settings, store = common.configured_store(data_dir, db_url)
    if release:
        folder = Path(release)
        if not folder.is_dir():
            folder = settings.published_dir / release
        if not folder.is_dir():
            common.fail(
                f"no release {release!r}: not a folder, nor one under {settings.published_dir}"
            )
        try:
            papers = release_drift(folder, settings.clones_dir)
        except ReleaseUnreadable as exc:
            common.fail(str(exc))
        if paper:
            papers = [p for p in papers if p.paper_id in paper]
    else:
        papers = store_drift(store, settings, paper or None)
    say = common.console.print
    refs = tasks = 0
    statuses: Counter[str] = Counter()
    for report in papers:
        if report.error:
            say(f"{report.paper_id}: not checked: {report.error}", highlight=False)
            continue
        refs += report.references
        tasks += report.tasks
        statuses += report.counts()
        head = f"{report.commit[:12]} → head {report.head[:12]}"
        say(
            f"{report.paper_id} ({head}): {len(report.drifted)} of {report.references} "
            "references drifted",
            highlight=False,
        )
        for d in report.drifted:
            now = f" (now {d.now})" if d.now else ""
            say(f"  {d.task}: {d.where} {d.reference} {d.status}{now}", highlight=False)
    total = sum(statuses.values())
    shown = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())) or "none"
    share = f" ({100 * total / refs:.0f}%)" if refs else ""
    say(
        f"{refs} references in {tasks} tasks of {len(papers)} papers: {total} drifted{share}: "
        f"{shown}",
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    app.command()(reextract)
    app.command()(drift)
