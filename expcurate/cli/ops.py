"""Operator commands: serving the flows to a Prefect server."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from expcurate.cli import common


def serve(
    limit: Annotated[
        int | None, typer.Option("--limit", help="Most flow runs at once in this process.")
    ] = None,
) -> None:
    """Serve the curate, batch and advance deployments to the Prefect server (PREFECT_API_URL)."""

    common.configure()
    if not os.environ.get("PREFECT_API_URL"):
        common.fail(
            "serve needs a Prefect server: run `prefect server start` and set PREFECT_API_URL "
            "(e.g. http://127.0.0.1:4200/api); then set EXPCURATE_LAUNCHER=prefect"
        )
    from flows.serve import serve_forever

    serve_forever(limit=limit)


def register(app: typer.Typer) -> None:
    app.command()(serve)
