"""The paper-level Prefect flows: curate one paper, advance it after a review, run a batch.

Each flow wraps its body in `flows.papers` (where the scheduler and the batch live); a paper
that fails fails its flow run, so Prefect shows it FAILED with the reason. Commands start
these flows only with a Prefect server configured (see `flows.run.orchestrated`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from prefect import flow, task
from prefect.states import Failed, State
from prefect.task_runners import ThreadPoolTaskRunner

from expcurate.curation.services import PaperSummary
from expcurate.records import PaperListEntry, PaperStatus
from expcurate.settings import get_settings
from flows.papers import (
    EngineUnavailable,
    _from_worker,
    advance_body,
    batch_body,
    check_dask,
    curate_body,
    largest_first,
    paper_in_worker,
    reporting,
    run_stages_locally,
)

__all__ = [
    "EngineUnavailable",
    "advance_as_flow",
    "advance_paper",
    "check_dask",
    "curate_as_flow",
    "curate_batch",
    "curate_paper",
    "largest_first",
    "paper_result",
    "reporting",
    "run_stages_locally",
]


def paper_result(state: State[Any]) -> PaperSummary:
    """The summary a paper flow ended with, its paper failed or not. Call the flows with
    `return_state=True` and read them with this: a failed paper fails its flow run (so
    Prefect shows it FAILED, with the reason), and its summary rides on the failed state."""
    result = state.result(raise_on_failure=False)
    if isinstance(result, BaseException):  # a crash, not a failed paper: keep it loud
        raise result
    return PaperSummary.model_validate(result)


def _ended(summary: PaperSummary) -> PaperSummary | State[Any]:
    """What a paper flow returns: the summary, or a failed state carrying it."""
    if summary.status != PaperStatus.failed:
        return summary
    return Failed(
        message=f"paper {summary.paper_id} failed at {summary.stage}: {summary.error}",
        data=summary,
    )


@flow(
    name="advance-paper",
    flow_run_name="advance-{paper_id}",
    task_runner=ThreadPoolTaskRunner(max_workers=4),  # type: ignore[arg-type]
)
def advance_paper(paper_id: str) -> PaperSummary | State[Any]:
    """Run every stage that is due for the paper (`flows.papers.advance_body`), until it
    reaches a checkpoint or the end; the stages are task runs, parse beside mine."""
    return _ended(advance_body(paper_id))


def advance_as_flow(paper_id: str) -> PaperSummary:
    """`advance_paper` as a flow run (a subflow inside one), its summary read back."""
    return paper_result(advance_paper(paper_id, return_state=True))


def curate_as_flow(
    entry: PaperListEntry, model: str | None = None, auto_approve: bool | None = None
) -> PaperSummary:
    """`curate_paper` as a flow run, its summary read back."""
    state = curate_paper(entry, model=model, auto_approve=auto_approve, return_state=True)
    return paper_result(state)


@flow(name="curate-paper", flow_run_name="curate-{paper.id}")
def curate_paper(
    paper: PaperListEntry,
    model: str | None = None,
    auto_approve: bool | None = None,
) -> PaperSummary | State[Any]:
    """Admit one paper and run it as far as its checkpoints allow
    (`flows.papers.curate_body`)."""
    return _ended(
        curate_body(paper, model=model, auto_approve=auto_approve, advance=advance_as_flow)
    )


@flow(name="curate-batch")
def curate_batch(
    entries: list[PaperListEntry],
    model: str | None = None,
    auto_approve: bool | None = None,
    workers: int = 1,
) -> list[PaperSummary]:
    """Curate each paper of a list (`flows.papers.batch_body`); one paper failing never
    stops the others. With `workers` > 1 the papers run side by side on Prefect's process
    pool; with `EXPCURATE_DASK_ADDRESS`, on that Dask cluster through prefect-dask."""
    return batch_body(
        entries, model, auto_approve, workers, curate_one=curate_as_flow, fan_out=_fan_out
    )


@task(name="curate-in-process", task_run_name="curate-{entry.id}")
def curate_in_process(
    entry: PaperListEntry,
    settings: dict[str, Any],
    model: str | None = None,
    auto_approve: bool | None = None,
) -> dict[str, Any]:
    """One paper in a worker process of a parallel batch: the batch's settings (flags
    included) are laid down first, as the process starts with none of them."""
    # The module's own code, imported here: this function arrives by value (cloudpickle), and
    # the flow its globals would name cannot resolve its parameters' annotations.
    import flows.curate as here

    return here._paper_in_worker(entry.model_dump(mode="json"), settings, model, auto_approve)


def _paper_in_worker(
    entry: dict[str, Any],
    settings: dict[str, Any],
    model: str | None,
    auto_approve: bool | None,
) -> dict[str, Any]:
    """`curate_in_process`'s work: the paper curated as a flow run (the worker joined this
    batch's Prefect API)."""
    return paper_in_worker(entry, settings, model, auto_approve, curate_as_flow)


@contextmanager
def _api_for_workers() -> Iterator[None]:
    """Worker processes join this process's Prefect API (the temporary server when none is
    configured) instead of each starting its own; the variable is restored afterwards."""
    from prefect.client.orchestration import get_client

    before = os.environ.get("PREFECT_API_URL")
    with get_client(sync_client=True) as client:
        os.environ["PREFECT_API_URL"] = str(client.api_url)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PREFECT_API_URL", None)
        else:
            os.environ["PREFECT_API_URL"] = before


def _fan_out(
    entries: list[PaperListEntry],
    workers: int,
    model: str | None,
    auto_approve: bool | None,
) -> list[PaperSummary]:
    """Papers on `workers` processes through Prefect's process pool (or on the Dask cluster
    of EXPCURATE_DASK_ADDRESS, through prefect-dask's runner), reported as each ends; the
    results in the list's order."""
    from prefect.futures import as_completed
    from prefect.task_runners import ProcessPoolTaskRunner

    settings = get_settings().model_dump(mode="json")
    done: dict[str, PaperSummary] = {}
    address = get_settings().dask_address
    runner_of: Any = ProcessPoolTaskRunner(max_workers=workers)
    if address:
        check_dask(address).close()  # a clear error before any paper is sent
        from prefect_dask import DaskTaskRunner

        runner_of = DaskTaskRunner(address=address)
    with _api_for_workers(), runner_of as runner:
        futures = {
            runner.submit(
                curate_in_process,
                parameters={
                    "entry": entry,
                    "settings": settings,
                    "model": model,
                    "auto_approve": auto_approve,
                },
            ): entry
            for entry in entries
        }
        by_id = {id(future): entry for future, entry in futures.items()}
        for future in as_completed(list(futures)):
            entry = by_id[id(future)]
            done[entry.id] = _from_worker(entry, future.result)
    return [done[e.id] for e in entries if e.id in done]
