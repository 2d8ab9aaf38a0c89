"""Package-stage commands: `import-expbench`, `override`, `mask`, `mask-also`.

`import-expbench` brings an existing EXP-Bench benchmark into the store so a team can audit
and repair it in the review app; `override` accepts a task's error flags with a reason so it
can be published; `mask` builds a task's masked starter repository; `mask-also` hides files
that leak the answer (by default the ones the leakage check listed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from expcurate.cli import common
from expcurate.cli.options import DataDir, DbUrl, Reviewer
from expcurate.records import Severity

Repos = Annotated[
    Path | None,
    typer.Option(
        "--repos",
        envvar="EXPCURATE_REPOS",
        help="Folder of repository checkouts (named after each repository) to check against.",
    ),
]
TaskId = Annotated[int, typer.Option("--task", help="Id of the task (see the review app).")]


def import_expbench(
    path: Annotated[
        Path, typer.Argument(help="A *_complete_final.json, a folder of them, or a paper list.")
    ],
    repos: Repos = None,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Load EXP-Bench files as tasks awaiting review, repaired and validated."""
    from expcurate.curation.importer import import_expbench as run_import
    from extractors.validate import CHECKS

    settings, store = common.configured_store(data_dir, db_url)
    if not path.exists():
        common.fail(f"not found: {path}; pass a *_complete_final.json, a folder or a paper list")
    summary = run_import(store, settings, path, repos=repos)
    for problem in summary.errors:
        common.err.print(f"[yellow]not imported:[/yellow] {problem}", highlight=False)
    if summary.listed_without_file:
        common.console.print(
            f"{len(summary.listed_without_file)} listed papers have no tasks file: "
            + ", ".join(summary.listed_without_file[:10])
        )
    table = Table("check", "tasks with error", "with warning", "not checked (info)")
    for name in CHECKS:
        counts = [summary.flagged[s.value][name] for s in Severity]
        if any(counts):
            table.add_row(name, *(str(c) for c in counts))
    common.console.print(table)
    common.console.print(
        f"imported {summary.papers} papers, {summary.tasks} tasks "
        f"({summary.tasks_with_errors} with errors); review them: expcurate ui"
    )
    if summary.papers == 0:
        raise typer.Exit(common.BAD_INPUT)


def override(
    task: TaskId,
    reason: Annotated[str, typer.Option("--reason", help="Why the errors are acceptable.")],
    reviewer: Reviewer = "cli",
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Accept a task's error flags with a reason, so export publishes it as it stands."""
    from expcurate.curation import review

    _, store = common.configured_store(data_dir, db_url)
    try:
        review.override_errors(store, task, reviewer, reason)
    except review.ReviewError as exc:
        common.fail(str(exc))
    checks = sorted({f.check for f in review.error_flags(store.require_task(task))})
    common.console.print(f"task {task}: overrode {', '.join(checks)} (recorded with your reason)")


def _task(store: Any, task_id: int) -> Any:
    found = store.get_task(task_id)
    if found is None:
        common.fail(f"no task {task_id} in the store")
    return found


def mask(
    task: TaskId,
    out: Annotated[Path, typer.Option("--out", help="Folder for the starter repository.")],
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Build a task's masked starter repository, its bundle and the two patches."""
    from expcurate.curation.pipeline import masked_paths
    from expcurate.curation.publish import paper_checkout
    from extractors.package import MaskError, build_masked_repo

    settings, store = common.configured_store(data_dir, db_url)
    found = _task(store, task)
    fields = store.fields(found)
    root, commit = paper_checkout(store, settings, store.require_paper(found.paper_id))
    if root is None or not commit:
        common.fail(f"paper {found.paper_id} has no local checkout at a pinned commit")
    assert root is not None  # common.fail does not return
    try:
        built = build_masked_repo(root, commit, masked_paths(fields), out)
    except MaskError as exc:
        common.fail(str(exc))
    common.console.print(
        f"masked {len(built.files)} files of {commit[:10]} → {built.tree}\n"
        f"  bundle {built.bundle}\n  mask {built.mask_patch}\n  restore {built.restore_patch}"
    )


def mask_also(
    task: TaskId,
    path: Annotated[
        list[str] | None,
        typer.Option("--path", help="File to hide (default: what the leakage check listed)."),
    ] = None,
    reviewer: Reviewer = "cli",
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Hide files that leak the answer from the task's starter repository."""
    _, store = common.configured_store(data_dir, db_url)
    found = _task(store, task)
    leaks = [p for f in found.flag_list() if f.check == "leakage" for p in f.paths]
    chosen = list(path or leaks)
    if not chosen:
        common.fail(f"task {task} has no leakage flag; name the files with --path")
    fields = store.fields(found)
    merged = sorted(set(fields.mask_also) | set(chosen))
    store.edit_task(
        task,
        fields.model_copy(update={"mask_also": merged}),
        reviewer=reviewer,
        expected_head=found.head,
        note=f"hide {len(chosen)} leaking file(s)",
    )
    common.console.print(f"task {task}: {len(merged)} extra file(s) hidden: {', '.join(merged)}")


def register(app: typer.Typer) -> None:
    app.command("import-expbench")(import_expbench)
    app.command()(override)
    app.command()(mask)
    app.command("mask-also")(mask_also)
