"""Options shared by the `expcurate` commands (each with its EXPCURATE_* twin)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from expcurate.records import Stage

DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", envvar="EXPCURATE_DATA_DIR", help="Store, artifacts, releases."),
]
DbUrl = Annotated[
    str | None,
    typer.Option("--db-url", envvar="EXPCURATE_DB_URL", help="SQLAlchemy URL of the store."),
]
Model = Annotated[
    str | None,
    typer.Option("--model", envvar="EXPCURATE_MODEL", help="'heuristic' or a litellm model."),
]
AutoApprove = Annotated[
    bool | None,
    typer.Option(
        "--auto-approve/--no-auto-approve",
        envvar="EXPCURATE_AUTO_APPROVE",
        help="Pass each checkpoint whose validators are clean.",
    ),
]
Reviewer = Annotated[
    str, typer.Option("--reviewer", envvar="EXPCURATE_REVIEWER", help="Who decides (recorded).")
]
Background = Annotated[
    bool, typer.Option("--background", help="Start the next stage in the background.")
]
PaperOpt = Annotated[str | None, typer.Option("--paper", help="The paper (with --stage).")]
StageOpt = Annotated[Stage | None, typer.Option("--stage", help="The stage (with --paper).")]
