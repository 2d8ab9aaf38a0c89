"""`expcurate`: the curator's and operator's command line.

Every option has an `EXPCURATE_*` environment twin. Bad input ends with one clear line and
exit code 2, and the paper is recorded as failed with the reason; bugs keep their traceback.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.table import Table

from expcurate.cli.common import (
    BAD_INPUT,
    STATUS_MARK,
    app,
    configure,
    configured_store,
    console,
    fail,
    quiet_prefect,
)
from expcurate.cli.options import (
    AutoApprove,
    Background,
    DataDir,
    DbUrl,
    Model,
    PaperOpt,
    Reviewer,
    StageOpt,
)
from expcurate.curation.services import PaperSummary
from expcurate.records import PaperListEntry, PaperStatus, Stage
from expcurate.settings import Settings


def _print_summary(summary: PaperSummary) -> None:
    stages = ", ".join(f"{k}={v.value}" for k, v in summary.stages.items())
    tasks = ", ".join(f"{k}={v}" for k, v in sorted(summary.tasks.items()))
    console.print(
        f"[bold]{summary.paper_id}[/bold]: {summary.status.value} at {summary.stage or '-'}"
    )
    if stages:
        console.print(f"  stages: {stages}")
    if tasks:
        console.print(f"  tasks: {tasks}")
    for note in summary.notes:
        console.print(f"  note: {note}", highlight=False)


@app.command()
def extract(
    pdf: Annotated[str, typer.Option("--pdf", help="Paper PDF: a path or an http(s) URL.")],
    repo: Annotated[str, typer.Option("--repo", help="Code repository: a folder or a git URL.")],
    paper_id: Annotated[
        str | None, typer.Option("--paper-id", help="Id of the paper (default: from the PDF name).")
    ] = None,
    commit: Annotated[str, typer.Option("--commit", help="Pin this commit (default: HEAD).")] = "",
    title: Annotated[str, typer.Option("--title", help="Title, if the PDF's is wrong.")] = "",
    conference: Annotated[
        str | None,
        typer.Option(
            "--conference", envvar="EXPCURATE_CONFERENCE", help="Conference folder in exports."
        ),
    ] = None,
    model: Model = None,
    auto_approve: AutoApprove = None,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Extract tasks from one paper, up to its first open checkpoint."""
    from expcurate.curation.services import admit_paper, derive_paper_id, open_store

    settings = configure(model=model, auto_approve=auto_approve, data_dir=data_dir, db_url=db_url,
                         conference=conference)  # fmt: skip
    pid = paper_id or derive_paper_id(pdf)
    entry = PaperListEntry(id=pid, pdf_url=pdf, code_url=repo, commit=commit, title=title,
                           conference=settings.conference)  # fmt: skip
    # The flow's own gate, run first so that bad input is told before the engine starts
    # (seconds); the flow runs it again, which only registers the paper once more.
    problem = admit_paper(open_store(settings), entry, settings.model, settings.auto_approve)
    if problem:
        fail(f"paper {pid} failed at ingest: {problem}")
    quiet_prefect()
    from flows.run import curate

    with console.status(f"curating {pid} …"):
        summary = curate(entry)
    _print_summary(summary)
    if summary.status == PaperStatus.failed:
        fail(f"paper {pid} failed at {summary.stage}: {summary.error}")
    if summary.status == PaperStatus.awaiting_review:
        console.print("  next: review in the browser (expcurate ui) or `expcurate approve`.")


def read_paper_list(path: Path) -> list[PaperListEntry]:
    """Read an EXP-Bench paper list; paths in it are relative to the list's folder."""
    if not path.is_file():
        fail(f"paper list not found: {path}")
    entries = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            data["id"] = str(data.get("id", ""))
            data.setdefault("conference", data.get("conf", ""))
            entry = PaperListEntry.model_validate(data)
        except (json.JSONDecodeError, ValueError) as exc:
            fail(
                f"{path}:{n}: not a paper entry with id, pdf_url and code_url ({str(exc).splitlines()[0]})"
            )
        for attr in ("pdf_url", "code_url"):
            value = getattr(entry, attr)
            if "://" not in value and not Path(value).is_absolute():
                candidate = (path.parent / value).resolve()
                if candidate.exists() or not Path(value).exists():
                    setattr(entry, attr, str(candidate))
        entries.append(entry)
    return entries


@app.command()
def batch(
    papers: Annotated[Path, typer.Argument(help="JSONL paper list: id, title, pdf_url, code_url.")],
    model: Model = None,
    auto_approve: AutoApprove = None,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            min=1,
            envvar="EXPCURATE_WORKERS",
            help="Papers run side by side, each in its own process (about one per core).",
        ),
    ] = 1,
) -> None:
    """Extract every paper of a list; one failing paper never stops the others."""
    from rich.progress import Progress

    settings = configure(model=model, auto_approve=auto_approve, data_dir=data_dir, db_url=db_url)
    entries = read_paper_list(papers)
    if min(workers, len(entries)) > 1 and not settings.dask_address:
        from flows.engine import orchestrated

        if not orchestrated():
            from flows.workers import start_workers

            # they import the pipeline while this process does
            start_workers(min(workers, len(entries)) - 1)
    quiet_prefect()
    from flows.papers import EngineUnavailable, reporting
    from flows.run import batch as run_batch

    with Progress(console=console) as progress:
        bar = progress.add_task("papers", total=len(entries))

        def done(summary: PaperSummary) -> None:
            line = f"{summary.paper_id}: {summary.status.value}"
            if summary.error:
                line += f" ({summary.error})"
            progress.console.print(line, highlight=False)
            progress.advance(bar)

        with reporting(done):
            try:
                summaries = run_batch(entries, workers=workers)
            except EngineUnavailable as exc:
                fail(str(exc))
    failed = sum(s.status == PaperStatus.failed for s in summaries)
    console.print(f"{len(entries)} papers, {failed} failed")
    if failed == len(entries) and entries:
        raise typer.Exit(BAD_INPUT)


def sample_dir() -> Path | None:
    """The bundled sample (a paper and its repository): inside the installed package, or
    `data/sample` of a checkout."""
    here = Path(__file__).resolve().parents[1]  # the expcurate package
    for candidate in (here / "sample", here.parent / "data" / "sample"):
        if (candidate / "paper.pdf").is_file() and (candidate / "repo").is_dir():
            return candidate
    return None


@app.command()
def demo(
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Curate the bundled sample paper end to end (auto-approved) and publish it as release
    'sample': what `make demo` runs, from an installed wheel too."""
    import tempfile

    sample = sample_dir()
    if sample is None:
        fail("the bundled sample is not in this installation (data/sample)")
    entry = json.loads((sample / "sample.jsonl").read_text().splitlines()[0])
    entry.update(pdf_url=str(sample / "paper.pdf"), code_url=str(sample / "repo"))
    with tempfile.TemporaryDirectory(prefix="expcurate-demo-") as tmp:
        papers = Path(tmp) / "sample.jsonl"
        papers.write_text(json.dumps(entry) + "\n")
        batch(papers, auto_approve=True, data_dir=data_dir, db_url=db_url)
    export_cmd(release="sample", data_dir=data_dir, db_url=db_url)


@app.command()
def status(
    paper: Annotated[str | None, typer.Option("--paper", help="Show one paper's tasks.")] = None,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Papers, their stages and checkpoints (runs a killed process left behind are recovered)."""
    from expcurate.curation.pipeline import recover_interrupted

    settings, store = configured_store(data_dir, db_url)
    for line in recover_interrupted(store, settings, paper):
        console.print(f"recovered: {line}", highlight=False)
    papers = [p for p in store.papers() if not paper or p.id == paper]
    if not papers:
        if paper:
            fail(f"no paper {paper!r} in the store")
        console.print("no papers yet; start with `expcurate extract --pdf … --repo …`")
        return
    table = Table("paper", "status", "stages", "tasks", "error")
    for p in papers:
        runs = store.current_runs(p.id)
        stages = " ".join(
            f"{s.value}:{STATUS_MARK.get(runs[s.value].status, runs[s.value].status)}"
            for s in Stage
            if s.value in runs
        )
        error = (p.error[:80] + "…") if len(p.error) > 80 else p.error
        table.add_row(
            p.id, f"{p.status} ({p.stage or '-'})", stages, str(len(store.tasks(p.id))), error
        )
    console.print(table)
    if paper:
        if store.get_paper(paper) is None:
            fail(f"no paper {paper!r} in the store")
        t = Table("task", "stage", "status", "rev", "flags", "question")
        for task in store.tasks(paper):
            q = store.fields(task).question
            t.add_row(
                str(task.id), task.stage, task.status, str(task.head), str(len(task.flags)), q[:70]
            )
        console.print(t)


def _advance(paper_id: str, settings: Settings, due: list[Stage], background: bool) -> None:
    if not due:
        return
    from flows.engine import prefect_server
    from flows.launcher import start_next

    # A configured Prefect server runs it as a deployment, as the review app's approvals do;
    # else this command runs it (or a detached process, with --background).
    if settings.launcher == "prefect" and prefect_server():
        mode = "prefect"
    else:
        mode = "background" if background else "inline"
    quiet_prefect()
    how = start_next(paper_id, settings, mode=mode)
    console.print(f"started {', '.join(s.value for s in due)} for {paper_id} ({how})")


@app.command()
def approve(
    paper: PaperOpt = None,
    stage: StageOpt = None,
    task: Annotated[int | None, typer.Option("--task", help="Approve one task.")] = None,
    reviewer: Reviewer = "cli",
    reason: Annotated[str, typer.Option("--reason", help="Why (recorded).")] = "",
    background: Background = False,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Approve a checkpoint; approving a stage's last open item starts the next stage."""
    _decide("approve", task, paper, stage, reviewer, reason, background, data_dir, db_url)


@app.command()
def reject(
    reason: Annotated[str, typer.Option("--reason", help="Why (required, recorded).")],
    task: Annotated[int | None, typer.Option("--task", help="Reject one task.")] = None,
    paper: PaperOpt = None,
    stage: StageOpt = None,
    reviewer: Reviewer = "cli",
    background: Background = False,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Reject a task (or a whole stage run) with a reason."""
    _decide("reject", task, paper, stage, reviewer, reason, background, data_dir, db_url)


def _decide(
    verdict: Literal["approve", "reject"],
    task: int | None,
    paper: str | None,
    stage: Stage | None,
    reviewer: str,
    reason: str,
    background: bool,
    data_dir: Path | None,
    db_url: str | None,
) -> None:
    """One task's decision, or a whole stage's; a decision that completes a stage starts what
    comes next (approving a stage run does; rejecting one ends it)."""
    from expcurate.curation import review

    settings, store = configured_store(data_dir, db_url)
    try:
        if task is not None:
            outcome = review.decide_task(store, task, verdict, reviewer, reason=reason)
        elif paper and stage and verdict == "approve":
            outcome = review.approve_stage(store, paper, stage, reviewer, reason)
        elif paper and stage:
            run = store.current_runs(paper).get(stage.value)
            if run is None or run.id is None:
                fail(f"paper {paper} has no {stage.value} run")
            review.reject_run(store, run.id, reviewer, reason)
            console.print(f"rejected the {stage.value} run of {paper}")
            return
        else:
            fail(f"say what to {verdict}: --task N, or --paper P --stage S")
    except (review.ReviewError, ValueError) as exc:
        fail(str(exc))
    if verdict == "reject":
        console.print(f"rejected task {task}")
    else:
        state = "complete" if outcome.stage_complete else "still open"
        console.print(f"approved; {outcome.stage} {state}")
    _advance(outcome.paper_id, settings, outcome.due, background)


@app.command()
def advance(
    paper_id: Annotated[str, typer.Argument(help="Paper to advance.")],
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Run the stages that are due for a paper (what an approval triggers)."""
    _, store = configured_store(data_dir, db_url)
    store.require_paper(paper_id)  # an unknown paper is one line, before the engine starts
    quiet_prefect()
    from flows.run import advance as run_advance

    _print_summary(run_advance(paper_id))


@app.command("export")
def export_cmd(
    release: Annotated[
        str, typer.Option("--release", help="Release name (a folder under data/published).")
    ],
    paper: Annotated[list[str] | None, typer.Option("--paper", help="Only these papers.")] = None,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Publish approved tasks in the EXP-Bench layout."""
    from expcurate.curation.publish import PublishError, export

    settings, store = configured_store(data_dir, db_url)
    try:
        summary = export(store, settings, release, paper or None)
    except PublishError as exc:
        fail(str(exc))
    console.print(
        f"release {summary.name}: {summary.papers} papers, {summary.tasks} tasks → {summary.path}"
    )
    console.print(f"changes since the previous release: {summary.changes}", highlight=False)
    if summary.unmasked:
        console.print(f"[yellow]warning:[/yellow] {summary.unmasked_line()}", highlight=False)


@app.command()
def ui(
    port: Annotated[
        int, typer.Option("--port", envvar="EXPCURATE_UI_PORT", help="Port on localhost.")
    ] = 8501,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Start the review app (Streamlit) on localhost."""
    import subprocess

    settings = configure(data_dir=data_dir, db_url=db_url)
    # Found, not imported: the review app is the CLI's neighbour, started as its own process.
    spec = importlib.util.find_spec("validation_ui")
    assert spec is not None and spec.origin is not None, "validation_ui is part of the install"
    app_path = Path(spec.origin).parent / "app.py"
    env = {**os.environ, "EXPCURATE_DATA_DIR": str(settings.resolved_data_dir())}
    if db_url:
        env["EXPCURATE_DB_URL"] = db_url
    cmd = [sys.executable, "-m", "streamlit", "run", str(app_path), "--server.port", str(port),
           "--server.address", "127.0.0.1", "--server.headless", "true",
           "--browser.gatherUsageStats", "false", "--client.toolbarMode", "minimal"]  # fmt: skip
    console.print(f"review app on http://127.0.0.1:{port}")
    raise typer.Exit(subprocess.call(cmd, env=env))


user_app = typer.Typer(
    help="Accounts of the review app (curator, reviewer, admin).", no_args_is_help=True
)
app.add_typer(user_app, name="user")


def _check_role(role: str) -> str:
    """Refuse a bad role before the password prompt, not after it."""
    from expcurate.store.rows import ROLES

    if role not in ROLES:
        raise typer.BadParameter(f"{role!r} is not one of {', '.join(ROLES)}")
    return role


@user_app.command("add")
def user_add(
    username: Annotated[str, typer.Argument(help="Name to sign in with.")],
    role: Annotated[
        str,
        typer.Option(
            "--role", callback=_check_role, help="curator, reviewer or admin (what they may do)."
        ),
    ] = "reviewer",
    password: Annotated[
        str | None,
        typer.Option(
            "--password",
            envvar="EXPCURATE_PASSWORD",
            prompt=True,
            hide_input=True,
            confirmation_prompt=True,
            help="Password (else asked for, hidden).",
        ),
    ] = None,
    update: Annotated[
        bool, typer.Option("--update", help="Reset the password and role of an existing user.")
    ] = False,
    data_dir: DataDir = None,
    db_url: DbUrl = None,
) -> None:
    """Create a user of the review app; only a salted hash of the password is stored."""
    from expcurate.store import StoreError

    _, store = configured_store(data_dir, db_url)
    try:
        user = store.add_user(username, password or "", role, replace=update)
    except StoreError as exc:
        fail(str(exc))
    console.print(f"user {user.username} ({user.role}) {'updated' if update else 'added'}")


@user_app.command("list")
def user_list(data_dir: DataDir = None, db_url: DbUrl = None) -> None:
    """List the users of the review app and their roles."""
    _, store = configured_store(data_dir, db_url)
    table = Table("user", "role", "created")
    for user in store.users():
        table.add_row(user.username, user.role, f"{user.created_at:%Y-%m-%d %H:%M}")
    console.print(table)
