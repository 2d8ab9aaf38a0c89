"""`expcurate usage-tasks`: draft repo-usage tasks ("How can you ...?") from a repository's docs.

EXP-Bench's mode A asks an agent to use a repository the way its README says; those tasks
need no paper, only the documented commands and the code they run. The command writes
EXP-Bench's file format, so `expcurate setup`, review and export read it like any other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from expcurate.cli import common
from expcurate.records import ExpBenchFile, ExpBenchTask
from extractors.package.tasks_file import tasks_file_text


def usage_tasks(
    repo: Annotated[str, typer.Option("--repo", help="The code: a folder or a git URL.")],
    out: Annotated[Path, typer.Option("--out", help="Tasks file to write (EXP-Bench format).")],
    commit: Annotated[str, typer.Option("--commit", help="Pin this commit (default: HEAD).")] = "",
    limit: Annotated[
        int, typer.Option("--limit", min=1, help="At most this many tasks, one per command.")
    ] = 10,
    data_dir: Annotated[
        Path | None,
        typer.Option("--data-dir", envvar="EXPCURATE_DATA_DIR", help="Where clones are cached."),
    ] = None,
) -> None:
    """Draft usage tasks with their setups from the commands a repository documents."""
    from extractors.agent.usage_tasks import usage_tasks as draft_usage

    settings = common.configure(data_dir=data_dir)
    root, sha, index = common.open_repo(repo, commit, settings)
    questions = [
        ExpBenchTask.model_validate(
            ExpBenchTask.from_parts(draft, setup).model_dump(mode="json")
            | {"key": draft.key, "mode": "A"}
        )
        for draft, setup in draft_usage(index, root, limit=limit)
    ]
    file = ExpBenchFile(questions=questions)
    file.repository = {"source": repo, "commit": sha}  # type: ignore[attr-defined]
    out.write_text(tasks_file_text(file))
    common.console.print(
        f"{len(questions)} usage tasks from {len(index.commands)} documented commands "
        f"(commit {sha[:10]}) → {out}"
    )


def register(app: typer.Typer) -> None:
    app.command("usage-tasks")(usage_tasks)
