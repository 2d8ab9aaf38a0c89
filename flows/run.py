"""How a command runs its papers: as Prefect flow runs, or in its own process.

With no Prefect server configured, starting a temporary one costs every command seconds (more
than the sample's stages take), so the flows' bodies (`flows.papers`) run in the command's
own process and Prefect is never imported. A configured server (PREFECT_API_URL, a profile,
a test harness), or EXPCURATE_ENGINE=prefect, keeps Prefect's flow runs, UI, retries and
deployments (`flows.curate`).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Any

from expcurate.curation.services import PaperSummary
from expcurate.records import PaperListEntry
from flows.engine import in_flow_run, orchestrated
from flows.papers import (
    advance_body,
    batch_body,
    curate_body,
    fan_out_locally,
    paper_in_worker,
)
from flows.workers import started_workers, worker_pool


def _as_flow_runs() -> bool:
    return in_flow_run() or orchestrated()


def advance(paper_id: str) -> PaperSummary:
    """Advance a paper: a flow run when orchestrated (or already inside one), else here."""
    if _as_flow_runs():
        from flows.curate import advance_as_flow

        return advance_as_flow(paper_id)
    return advance_body(paper_id)


def curate(
    entry: PaperListEntry, model: str | None = None, auto_approve: bool | None = None
) -> PaperSummary:
    """Curate a paper, the same way as `advance`."""
    if _as_flow_runs():
        from flows.curate import curate_as_flow

        return curate_as_flow(entry, model=model, auto_approve=auto_approve)
    return curate_body(entry, model=model, auto_approve=auto_approve, advance=advance)


def batch(entries: list[PaperListEntry], workers: int = 1) -> list[PaperSummary]:
    """Curate a list of papers: the `curate-batch` flow when orchestrated, else here, the
    papers side by side on `workers` processes (this one among them)."""
    if orchestrated():
        from flows.curate import curate_batch

        return curate_batch(entries, workers=workers)
    return batch_body(entries, workers=workers, curate_one=curate, fan_out=_fan_out_here)


def _fan_out_here(
    entries: list[PaperListEntry], workers: int, model: str | None, auto_approve: bool | None
) -> list[PaperSummary]:
    def spawn_pool() -> ProcessPoolExecutor:  # the command may have started them already
        return started_workers(workers - 1) or worker_pool(workers - 1)

    return fan_out_locally(
        entries, workers, model, auto_approve, curate, paper_in_process, spawn_pool
    )


def paper_in_process(
    entry: dict[str, Any],
    settings: dict[str, Any],
    model: str | None,
    auto_approve: bool | None,
) -> dict[str, Any]:
    """One paper of a parallel batch in a worker process of the plain pool (or of Dask),
    curated the way this command curates (`flows.papers.paper_in_worker`)."""
    return paper_in_worker(entry, settings, model, auto_approve, curate)
