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
from expcurate.records import ExpBenchTask, ParsedPaper, TaskDraft, TaskFields

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
    questions = []
    all_fields = [TaskFields.from_draft(d) for d in drafts.tasks]
    all_flags = validate_drafts(all_fields, paper)
    for d, fields, flags in zip(drafts.tasks, all_fields, all_flags, strict=True):
        row = fields.published().model_dump(mode="json")
        row["evidence"] = [e.model_dump(mode="json") for e in d.evidence]
        row["key"] = d.key
        row["flags"] = [f.model_dump(mode="json") for f in flags]
        questions.append(row)
    body = {
        "questions": questions,
        "main_takeaways": drafts.main_takeaways,
        "follow_up_work_ideas": [i.model_dump(mode="json") for i in drafts.follow_up_work_ideas],
    }
    out.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
    flagged = sum(bool(q["flags"]) for q in questions)
    cost = f", ${drafts.usage.cost_usd:.4f}" if drafts.usage.calls else ""
    common.console.print(f"{len(questions)} tasks ({flagged} flagged{cost}) → {out}")


def read_tasks(path: Path) -> tuple[dict[str, Any], list[TaskDraft]]:
    """Tasks in EXP-Bench's file format, repaired as `import-expbench` repairs them."""
    body = json.loads(path.read_text())
    if isinstance(body, list):
        body = {"questions": body}
    if not isinstance(body, dict) or not isinstance(body.get("questions"), list):
        raise ValueError(f"{path}: expected {{'questions': [...]}}")
    from extractors.validate import normalise_task

    drafts = []
    for i, q in enumerate(body["questions"]):
        if not isinstance(q, dict):
            raise ValueError(f"{path}: question {i} is not an object")
        fixed, _ = normalise_task(q)  # `hypothesis`, double wrapping, /workspace/ paths …
        if "mask_also" not in q:
            fixed.pop("mask_also", None)  # ours, not EXP-Bench's
        body["questions"][i] = fixed
        task = ExpBenchTask.model_validate(fixed)
        drafts.append(
            TaskDraft(
                key=str(q.get("key") or f"task-{i}"),
                question=task.question,
                method=task.method,
                expected_outcome=task.expected_outcome,
                subsection_source=task.subsection_source,
                design_complexity=task.design_complexity,
            )
        )
    return body, drafts


def setup(
    tasks: Annotated[Path, typer.Option("--tasks", help="Tasks in EXP-Bench's file format.")],
    repo: Annotated[str, typer.Option("--repo", help="The code: a folder or a git URL.")],
    out: Annotated[Path, typer.Option("--out", help="Where to write the tasks with setups.")],
    commit: Annotated[str, typer.Option("--commit", help="Pin this commit (default: HEAD).")] = "",
    model: Annotated[
        str | None,
        typer.Option("--model", envvar="EXPCURATE_MODEL", help="'heuristic' (only policy so far)."),
    ] = None,
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", envvar="EXPCURATE_DATA_DIR", help="Where clones are cached."),
    ] = None,
) -> None:
    """Recover each task's setup in the repository; same tasks, same order, setup filled."""
    from extractors.agent import SetupAgent
    from extractors.repo import RepoLoadError, mine_repo, resolve_repo

    settings = common.configure(model=model, data_dir=data_dir)
    if settings.model != "heuristic":
        common.fail(
            f"model {settings.model!r}: only the heuristic setup policy is available so far; "
            "use --model heuristic"
        )
    if not tasks.is_file():
        common.fail(f"tasks file not found: {tasks}")
    try:
        body, drafts = read_tasks(tasks)
    except (ValueError, json.JSONDecodeError) as exc:
        common.fail(f"cannot read {tasks}: {str(exc).splitlines()[0]}")
    try:
        root, sha = resolve_repo(repo, commit or None, settings.clones_dir)
    except RepoLoadError as exc:
        common.fail(str(exc))
    index = mine_repo(root, sha, max_file_bytes=settings.max_file_bytes)
    agent = SetupAgent(index, root)
    answered = 0
    for q, d in zip(body["questions"], drafts, strict=True):
        s = agent.recover(d, max_steps=settings.agent_max_steps)
        q.update(s.published())
        answered += not s.no_answer
    body["repository"] = {"source": repo, "commit": sha}
    out.write_text(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
    common.console.print(
        f"{len(drafts)} tasks, {answered} with a setup, {len(drafts) - answered} no_answer "
        f"(commit {sha[:10]}) → {out}"
    )


def register(app: typer.Typer) -> None:
    app.command()(parse)
    app.command()(draft)
    app.command()(setup)
