"""Single-stage commands: `parse`, `draft`, `setup`.

They run one extractor on files, without the store or Prefect, so a curator can try a stage
on a paper in seconds and chain them: `draft` writes EXP-Bench's file format, which `setup`
reads back. The same code runs as the stages of the flow.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from expcurate.cli import common
from expcurate.records import (
    ExpBenchFile,
    ExpBenchTask,
    ParsedPaper,
    Setup,
    SetupResult,
    StageError,
    Status,
    TaskFields,
)
from extractors.package.tasks_file import parse_tasks, tasks_file_text

Out = Annotated[Path | None, typer.Option("--out", help="Write the result as JSON here.")]


def parse(
    pdf: Annotated[Path, typer.Argument(help="The paper's PDF.")],
    out: Out = None,
    images: Annotated[
        Path | None, typer.Option("--images", help="Write table and figure crops (PNG) here.")
    ] = None,
) -> None:
    """Parse one PDF: sections, tables as cells, figures, links; print a summary."""
    from extractors.paper import PaperLoadError, parse_pdf

    settings = common.configure()
    try:
        paper = parse_pdf(pdf, images, max_pages=settings.max_pdf_pages)
    except PaperLoadError as exc:
        common.fail(str(exc))
    _summarize(paper, common.console)
    if out:
        out.write_text(paper.model_dump_json(indent=1))
        common.console.print(f"wrote {out}")
    if paper.status.value == "failed":
        raise typer.Exit(common.BAD_INPUT)


def _summarize(paper: ParsedPaper, console: Any) -> None:
    console.print(f"[bold]{paper.title or '(no title found)'}[/bold]")
    console.print(
        f"{paper.pages} pages, {len(paper.sections)} sections, {len(paper.tables)} tables "
        f"({sum(bool(t.rows) for t in paper.tables)} with cells), {len(paper.figures)} figures "
        f"({sum(bool(f.image) for f in paper.figures)} with an image), {len(paper.links)} links, "
        f"{len(paper.errors)} errors; status {paper.status.value}"
    )
    for err in paper.errors:
        where = f" (page {err.page})" if err.page else ""
        console.print(f"  {err.severity.value}: {err.category}: {err.message}{where}")


def draft(
    pdf: Annotated[Path, typer.Argument(help="The paper's PDF.")],
    out: Annotated[Path, typer.Option("--out", help="Tasks file to write (EXP-Bench format).")],
    model: Annotated[
        str | None,
        typer.Option("--model", envvar="EXPCURATE_MODEL", help="'heuristic' or a litellm model."),
    ] = None,
    images: Annotated[
        Path | None, typer.Option("--images", help="Folder for crops (shown to vision models).")
    ] = None,
) -> None:
    """Draft one task per experiment of a paper, with the evidence each rests on."""
    from extractors.paper import PaperLoadError, parse_pdf
    from extractors.tasks import draft_tasks
    from extractors.validate import validate_drafts

    settings = common.configure(model=model)
    try:
        paper = parse_pdf(pdf, images, max_pages=settings.max_pdf_pages)
    except PaperLoadError as exc:
        common.fail(str(exc))
    drafts = draft_tasks(
        paper, settings.model, settings=settings, images_root=images.parent if images else None
    )
    if drafts.status.value == "failed":
        common.fail("; ".join(e.message for e in drafts.errors) or "drafting failed")
    all_fields = [TaskFields.from_draft(d) for d in drafts.tasks]
    all_flags = validate_drafts(all_fields, paper)
    questions = [
        _with_notes(fields, flags=[f.model_dump(mode="json") for f in flags])
        for fields, flags in zip(all_fields, all_flags, strict=True)
    ]
    file = ExpBenchFile(
        questions=questions,
        main_takeaways=drafts.main_takeaways,
        follow_up_work_ideas=drafts.follow_up_work_ideas,
    )
    out.write_text(tasks_file_text(file))
    flagged = sum(bool(flags) for flags in all_flags)
    cost = f", ${drafts.usage.cost_usd:.4f}" if drafts.usage.calls else ""
    common.console.print(f"{len(questions)} tasks ({flagged} flagged{cost}) → {out}")


def _with_notes(fields: TaskFields, **notes: Any) -> ExpBenchTask:
    """A task as our commands write it: the published fields, its key and evidence, notes."""
    row = fields.published().model_dump(mode="json")
    row |= {"key": fields.key, "evidence": [e.model_dump(mode="json") for e in fields.evidence]}
    return ExpBenchTask.model_validate(row | notes)


def read_tasks(path: Path) -> tuple[ExpBenchFile, list[TaskFields]]:
    """Tasks in EXP-Bench's file format, repaired as `import-expbench` repairs them."""
    errors: list[StageError] = []
    parsed = parse_tasks(json.loads(path.read_text()), str(path), errors, keep_keys=True)
    if parsed is None or errors:
        raise ValueError("; ".join(e.message for e in errors))
    tasks, takeaways, ideas = parsed
    fields = [t.fields for t in tasks]
    return ExpBenchFile(main_takeaways=takeaways, follow_up_work_ideas=ideas), fields


def setup(
    tasks: Annotated[Path, typer.Option("--tasks", help="Tasks in EXP-Bench's file format.")],
    repo: Annotated[str, typer.Option("--repo", help="The code: a folder or a git URL.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the tasks with setups.")],
    commit: Annotated[str, typer.Option("--commit", help="Pin this commit (default: HEAD).")] = "",
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="'heuristic' or a litellm model (default: EXPCURATE_SETUP_MODEL, else "
            "EXPCURATE_MODEL), the same agent as the pipeline's setup stage.",
        ),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", envvar="EXPCURATE_DATA_DIR", help="Where clones are cached."),
    ] = None,
) -> None:
    """Recover each task's setup in the repository; same tasks, same order, setup filled."""
    from extractors.agent import recover_setups

    settings = common.configure(data_dir=data_dir)
    if not tasks.is_file():
        common.fail(f"tasks file not found: {tasks}")
    try:
        header, drafts = read_tasks(tasks)
    except (ValueError, json.JSONDecodeError) as exc:
        common.fail(f"cannot read {tasks}: {str(exc).splitlines()[0]}")
    root, sha, index = common.open_repo(repo, commit, settings)
    model = model or settings.stage_model("setup")
    result = recover_setups([f.draft() for f in drafts], index, root, settings, model=model)
    if result.status == Status.failed:
        common.fail("; ".join(e.message for e in result.errors) or "setup recovery failed")
    answered = 0
    for fields in drafts:
        s = result.setups.get(fields.key, Setup(no_answer="not reached: " + _problems(result)))
        header.questions.append(_with_notes(fields.with_setup(s)))
        answered += not s.no_answer
    for e in result.errors:
        common.err.print(f"{e.severity.value}: {e.category}: {e.message}", highlight=False)
    header.repository = {"source": repo, "commit": sha}  # type: ignore[attr-defined]
    out.write_text(tasks_file_text(header))
    common.console.print(
        f"{len(drafts)} tasks, {answered} with a setup, {len(drafts) - answered} no_answer "
        f"(commit {sha[:10]}) → {out}"
    )


def _problems(result: SetupResult) -> str:
    return "; ".join(e.message for e in result.errors) or "the run stopped early"


def register(app: typer.Typer) -> None:
    app.command()(parse)
    app.command()(draft)
    app.command()(setup)
