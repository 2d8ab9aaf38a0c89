"""What every command shares: the Typer app, the consoles, and how a command fails.

Bad input ends with one clear line and exit code 2 (`fail`); settings are the environment's
with the command's flags laid over them (`configure`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console

from expcurate.records import RepoIndex, RunStatus
from expcurate.settings import Settings, set_settings

if TYPE_CHECKING:
    from expcurate.store import Store

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

app = typer.Typer(
    help="ExpCurate: turn a paper and its code into reviewed EXP-Bench-style tasks.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
err = Console(stderr=True)


def _print_version(asked: bool) -> None:
    if asked:
        from importlib.metadata import PackageNotFoundError, version

        try:
            console.print(f"expcurate {version('expcurate')}")
        except PackageNotFoundError:  # run from a checkout that was never installed
            from expcurate.settings import PIPELINE_VERSION

            console.print(f"expcurate {PIPELINE_VERSION} (not installed)")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """ExpCurate: turn a paper and its code into reviewed EXP-Bench-style tasks."""


BAD_INPUT = 2
STATUS_MARK: dict[str, str] = {
    RunStatus.approved: "ok",
    RunStatus.awaiting_review: "review",
    RunStatus.failed: "FAILED",
    RunStatus.running: "running",
    RunStatus.interrupted: "interrupted",
}


def fail(message: str) -> NoReturn:
    err.print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(BAD_INPUT)


def configure(**changes: Any) -> Settings:
    """Apply CLI flags over the environment's settings for this invocation."""
    base = Settings()
    update = {k: v for k, v in changes.items() if v is not None}
    settings = base.model_copy(update=update)
    set_settings(settings)
    return settings


def configured_store(data_dir: Path | None, db_url: str | None) -> tuple[Settings, Store]:
    """The settings with the command's flags laid over them, and the store they name."""
    from expcurate.curation.services import open_store

    settings = configure(data_dir=data_dir, db_url=db_url)
    return settings, open_store(settings)


def quiet_prefect() -> None:
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # Prefect waits 20 s for its temporary server; a loaded machine needs longer.
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")


def open_repo(repo: str, commit: str, settings: Settings) -> tuple[Path, str, RepoIndex]:
    """The repository checked out at `commit` (default HEAD) and mined as the mine stage
    does; a repository that cannot be had ends the command with one line."""
    from extractors.repo import RepoLoadError, mine_repo, resolve_repo

    try:
        root, sha = resolve_repo(repo, commit or None, settings.clones_dir)
    except RepoLoadError as exc:
        fail(str(exc))
    index = mine_repo(
        root, sha, max_file_bytes=settings.max_file_bytes, max_files=settings.max_repo_files
    )
    return root, sha, index
