"""Deployments for the team setup: `expcurate serve` runs them against a Prefect server.

`advance` is what an approval triggers when `EXPCURATE_LAUNCHER=prefect` (the launcher calls
`run_deployment("advance-paper/advance")`); `curate` lets a curator start a paper from the
Prefect UI; `curate-batch` a whole list.
"""

from __future__ import annotations

from typing import Any

from flows.curate import advance_paper, curate_batch, curate_paper

ADVANCE = "advance"


def build_deployments() -> list[Any]:
    """The deployments `expcurate serve` serves (one process, polling the server)."""
    return [
        advance_paper.to_deployment(name=ADVANCE, description="Run the stages due for a paper."),
        curate_paper.to_deployment(name="curate", description="Curate one paper."),
        curate_batch.to_deployment(name="batch", description="Curate a list of papers."),
    ]


def serve_forever(limit: int | None = None) -> None:
    from prefect import serve

    serve(*build_deployments(), limit=limit)
