"""Operator commands: serving or deploying the flows to a Prefect server, the store's schema."""

from __future__ import annotations

from typing import Annotated

import typer

from expcurate.cli import common
from expcurate.cli.options import DataDir, DbUrl


def _need_server(command: str) -> None:
    from flows.engine import prefect_server

    if not prefect_server():
        common.fail(
            f"{command} needs a Prefect server: run `prefect server start` and set "
            "PREFECT_API_URL (e.g. http://127.0.0.1:4200/api); then set EXPCURATE_LAUNCHER=prefect"
        )


def serve(
    limit: Annotated[
        int | None, typer.Option("--limit", help="Most flow runs at once in this process.")
    ] = None,
) -> None:
    """Serve the curate, batch and advance deployments to the Prefect server (PREFECT_API_URL)."""

    common.configure()
    _need_server("serve")
    from flows.serve import serve_forever

    serve_forever(limit=limit)


def deploy(
    pool: Annotated[
        str, typer.Option("--pool", help="The process work pool (created when missing).")
    ] = "expcurate",
) -> None:
    """Put the curate, batch and advance deployments on a work pool, for workers to run.

    Then start workers with `prefect worker start --pool NAME` wherever ExpCurate is installed
    with the same EXPCURATE_DB_URL and EXPCURATE_DATA_DIR; each takes flow runs in its own
    processes. The stage concurrency limits are set from EXPCURATE_CPU_SLOTS and
    EXPCURATE_LLM_SLOTS."""
    common.configure()
    _need_server("deploy")
    from flows.serve import deploy_to_pool

    created, names, limits = deploy_to_pool(pool)
    say = common.console.print
    say(f"work pool {pool}: {'created' if created else 'exists'} (process)")
    for name in names:
        say(f"deployment {name} on {pool}")
    shown = ", ".join(f"{k} {v or 'off'}" for k, v in sorted(limits.items()))
    say(f"concurrency limits: {shown}")
    say(f"next: `prefect worker start --pool {pool}` on each machine that should run papers")


db_app = typer.Typer(
    help="The store's schema: which revision it is at, and upgrading it.", no_args_is_help=True
)


@db_app.command("current")
def db_current(data_dir: DataDir = None, db_url: DbUrl = None) -> None:
    """Say which schema revision the store is at, without changing it."""
    from sqlmodel import create_engine

    from expcurate.store.migrations import current, head

    settings = common.configure(data_dir=data_dir, db_url=db_url)
    engine = create_engine(settings.database_url())
    try:
        with engine.connect() as conn:
            revision = current(conn)
    finally:
        engine.dispose()
    newest = head()
    said = revision or "none (a new store, or one from before migrations)"
    state = "newest" if revision == newest else f"newest is {newest}; run `expcurate db upgrade`"
    common.console.print(f"{said} ({state})")


@db_app.command("upgrade")
def db_upgrade(data_dir: DataDir = None, db_url: DbUrl = None) -> None:
    """Bring the store to the newest schema revision (every command also does it on start)."""
    from expcurate.store.migrations import head

    common.configured_store(data_dir, db_url)  # opening the store upgrades it
    common.console.print(f"the store is at schema revision {head()} (newest)")


def register(app: typer.Typer) -> None:
    app.command()(serve)
    app.command()(deploy)
    app.add_typer(db_app, name="db")
