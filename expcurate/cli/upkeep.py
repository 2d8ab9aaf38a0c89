"""Keeping curated papers current: re-extraction after the code, the PDF or the pipeline
moved on."""

from __future__ import annotations

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
    from expcurate.curation.pipeline import recover_interrupted
    from expcurate.curation.reextract import reextract_paper
    from expcurate.curation.review import due_stages

    settings, store = common.configured_store(data_dir, db_url)
    if commit and latest:
        common.fail("--commit and --latest ask for different commits; give one")
    if every == bool(papers):
        common.fail("name the papers to re-extract, or pass --all (not both)")
    chosen = [p.id for p in store.papers()] if every else list(papers or [])
    if commit and len(chosen) != 1:
        common.fail("--commit names one repository's commit: give exactly one paper")
    for paper_id in chosen:
        store.require_paper(paper_id)  # an unknown paper is one line, before any work
    errors = 0
    for paper_id in chosen:
        recover_interrupted(store, settings, paper_id)
        report = reextract_paper(store, settings, paper_id, commit=commit)
        errors += bool(report.error)
        due = due_stages(store, paper_id) if not report.error else []
        if due:
            common.quiet_prefect()
            from flows.curate import advance

            summary = advance(paper_id)
            if summary.status.value == "awaiting_review":
                report.awaiting = summary.stage
            report.rerun += [s.value for s in due if s.value not in report.rerun]
        common.console.print(report.line(), highlight=False, soft_wrap=True)
        for task_id, why in report.flagged.items():
            common.console.print(f"  task {task_id}: {why}", highlight=False, soft_wrap=True)
    if chosen and errors == len(chosen):
        raise typer.Exit(common.BAD_INPUT)


def register(app: typer.Typer) -> None:
    app.command()(reextract)
