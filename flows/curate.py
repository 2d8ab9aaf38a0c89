"""The paper-level flows: curate one paper, advance it after a review, run a batch.

`advance_paper` is the whole scheduler: it asks the store which stages are due (inputs ready,
upstream approved), runs them (parse and mine side by side), and repeats while auto-approval
keeps clearing checkpoints. No flow ever waits for a human; a review just calls it again.
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.states import Failed, State
from prefect.task_runners import ThreadPoolTaskRunner

from expcurate.curation.pipeline import recover_interrupted
from expcurate.curation.review import due_stages, refresh_paper_status
from expcurate.curation.services import (
    PaperSummary,
    admit_paper,
    fail_paper,
    open_store,
    refused,
    summarize,
)
from expcurate.curation.signals import keep_stopping_cleanly
from expcurate.records import PaperListEntry, PaperStatus, Stage
from expcurate.settings import Settings, get_settings, override_settings, set_settings
from expcurate.store import Store
from expcurate.store.errors import LeaseHeld
from expcurate.store.lease import describe
from flows.engine import in_flow_run, prefect_server
from flows.stages import run_stage

MAX_ROUNDS = 12  # more stages than exist: a guard against a scheduling loop, never reached


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


def _logger() -> logging.Logger | logging.LoggerAdapter[logging.Logger]:
    try:
        return get_run_logger()
    except Exception:
        return logging.getLogger("expcurate")


@flow(
    name="advance-paper",
    flow_run_name="advance-{paper_id}",
    task_runner=ThreadPoolTaskRunner(max_workers=4),  # type: ignore[arg-type]
)
def advance_paper(paper_id: str) -> PaperSummary | State[Any]:
    """Run every stage that is due for the paper, until it reaches a checkpoint or the end.

    Runs a killed process left behind are recovered first (they rerun); a stage another
    live process is running is left to it, and the summary says who holds it."""
    keep_stopping_cleanly()  # the flow engine swapped in its own SIGTERM handler
    settings = get_settings()
    store = open_store(settings)
    paper = store.require_paper(paper_id)
    if "auto_approve" not in settings.model_fields_set and paper.auto_approve:
        # Resuming a paper curated with auto-approval (after a kill, say) keeps it on.
        with override_settings(auto_approve=True):
            return advance_paper.fn(paper_id)
    log = _logger()
    notes = recover_interrupted(store, settings, paper_id)
    for line in notes:
        log.warning("%s", line)
    notes += [f"{LeaseHeld(run, describe(run))}" for run in store.running_runs(paper_id)]
    try:
        for _ in range(MAX_ROUNDS):
            due = due_stages(store, paper_id)
            if not due:
                break
            log.info("paper %s: running %s", paper_id, ", ".join(s.value for s in due))
            if not in_flow_run():
                run_stages_locally([s.value for s in due], paper_id)
            elif len(due) == 1:
                run_stage(due[0].value, paper_id)
            else:
                futures = [run_stage.submit(s.value, paper_id) for s in due]
                for fut in futures:
                    fut.result()
    except LeaseHeld as held:
        log.info("paper %s: %s; not run twice", paper_id, held)
        notes.append(f"{held}; not run twice")
    refresh_paper_status(store, paper_id)
    return _ended(summarize(store, paper_id).model_copy(update={"notes": notes}))


@flow(name="curate-paper", flow_run_name="curate-{paper.id}")
def curate_paper(
    paper: PaperListEntry,
    model: str | None = None,
    auto_approve: bool | None = None,
) -> PaperSummary | State[Any]:
    """Admit one paper and run it as far as its checkpoints allow.

    Bad input (an id that is no file name, a missing or non-PDF file, a missing repository
    folder) fails the paper with one line saying so, as `expcurate extract` reports it."""
    changes: dict[str, Any] = {}
    if model is not None:
        changes["model"] = model
    if auto_approve is not None:
        changes["auto_approve"] = auto_approve
    with override_settings(**changes) as settings:
        store = open_store(settings)
        if not paper.conference:
            paper = paper.model_copy(update={"conference": settings.conference})
        problem = admit_paper(store, paper, settings.model, settings.auto_approve)
        if problem:
            _logger().info("paper %s not curated: %s", paper.id, problem)
            return _ended(_summary_or(store, paper.id, problem))
        try:
            return _ended(advance(paper.id))
        except Exception as exc:
            return _ended(_crashed(store, paper.id, exc))


def _crashed(store: Store, paper_id: str, exc: Exception) -> PaperSummary:
    """A bug, not bad input: keep the traceback in the log and fail the paper, so a batch
    goes on."""
    _logger().error("paper %s crashed:\n%s", paper_id, traceback.format_exc())
    reason = f"internal error: {type(exc).__name__}: {exc}"
    paper = store.get_paper(paper_id)
    if paper is not None:
        fail_paper(store, paper_id, paper.stage or Stage.ingest.value, reason)
    return _summary_or(store, paper_id, reason)


def _summary_or(store: Store, paper_id: str, reason: str) -> PaperSummary:
    """The paper's summary, or a failed one with `reason` when it never got a row."""
    if store.get_paper(paper_id) is None:
        return refused(paper_id, reason)
    return summarize(store, paper_id)


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

    return here._paper_in_process(entry.model_dump(mode="json"), settings, model, auto_approve)


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


# Who hears each paper's summary of a batch as it ends (the CLI's progress bar). Not a flow
# parameter: a callable would have to travel to the worker processes with the flow's context.
_LISTENERS: list[Callable[[PaperSummary], None]] = []


@contextmanager
def reporting(on_paper: Callable[[PaperSummary], None]) -> Iterator[None]:
    """`on_paper` hears each paper's summary of a batch run in this process, as it ends."""
    _LISTENERS.append(on_paper)
    try:
        yield
    finally:
        _LISTENERS.remove(on_paper)


def _report(summary: PaperSummary) -> None:
    for listener in list(_LISTENERS):
        listener(summary)


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


class EngineUnavailable(RuntimeError):
    """The engine the settings name cannot be used (not installed, not reachable)."""


def check_dask(address: str, timeout_s: float = 10.0, *, as_default: bool = False) -> Any:
    """A client of the Dask scheduler at `address` (use it as a context manager; the
    process's default client with `as_default`), or EngineUnavailable saying what is
    missing."""
    try:
        from distributed import Client
    except ImportError:
        raise EngineUnavailable(
            "EXPCURATE_DASK_ADDRESS needs Dask: pip install 'expcurate[dask]'"
        ) from None
    try:
        return Client(address, timeout=timeout_s, set_as_default=as_default)
    except (OSError, TimeoutError) as exc:
        raise EngineUnavailable(
            f"no Dask scheduler answered at {address} within {timeout_s:.0f} s ({exc}); "
            "start one (dask scheduler) or unset EXPCURATE_DASK_ADDRESS"
        ) from None


def _from_worker(entry: PaperListEntry, result: Callable[[], Any]) -> PaperSummary:
    """A paper's summary as its worker sent it back, reported; a worker that crashed or died
    fails its paper, and the batch goes on."""
    try:
        summary = PaperSummary.model_validate(result())
    except Exception as exc:
        summary = _crashed(open_store(get_settings()), entry.id, exc)
    _report(summary)
    return summary


@flow(name="curate-batch")
def curate_batch(
    entries: list[PaperListEntry],
    model: str | None = None,
    auto_approve: bool | None = None,
    workers: int = 1,
) -> list[PaperSummary]:
    """Curate each paper of a list; one paper failing never stops the others.

    Each paper's summary is reported as soon as it is done (see `reporting`). With `workers`
    > 1 the papers run side by side in that many processes (Prefect's process pool); with
    `EXPCURATE_DASK_ADDRESS`, on that Dask cluster's workers."""
    if (workers > 1 or get_settings().dask_address) and len(entries) > 1:
        fan_out = _fan_out if in_flow_run() else _fan_out_locally
        return fan_out(entries, min(workers, len(entries)), model, auto_approve)
    results = []
    for entry in entries:
        try:
            summary = curate(entry, model=model, auto_approve=auto_approve)
        except Exception as exc:  # curate_paper records bad input itself; this is a bug
            summary = _crashed(open_store(get_settings()), entry.id, exc)
        results.append(summary)
        _report(summary)
    return results


# ------------------------------------------------------------------ without a Prefect API
#
# With no Prefect server configured, starting a temporary one costs every command seconds
# (more than the sample's stages take). The same flow code then runs in this process: the
# flows' bodies (`.fn`), the stages on threads with the task's retries, a batch's papers on a
# plain process pool. A configured server (PREFECT_API_URL, a profile, a test harness), or
# EXPCURATE_ENGINE=prefect, keeps Prefect's flow runs, UI, retries and deployments.


def orchestrated() -> bool:
    """Do commands run as Prefect flow runs (see the comment above)?"""
    engine = get_settings().engine
    if engine != "auto":
        return engine == "prefect"
    return bool(prefect_server())


def _summary(value: PaperSummary | State[Any]) -> PaperSummary:
    """A flow body's return value as a summary (a failed paper comes back as a Failed state
    carrying it)."""
    if isinstance(value, PaperSummary):
        return value
    if isinstance(value.data, PaperSummary):
        return value.data
    return paper_result(value)


def _as_flow_runs() -> bool:
    return in_flow_run() or orchestrated()


def advance(paper_id: str) -> PaperSummary:
    """`advance_paper`: a flow run when orchestrated (or already inside one), else in-process."""
    if _as_flow_runs():
        return paper_result(advance_paper(paper_id, return_state=True))
    return _summary(advance_paper.fn(paper_id))


def curate(
    entry: PaperListEntry, model: str | None = None, auto_approve: bool | None = None
) -> PaperSummary:
    """`curate_paper`, the same way as `advance`."""
    if _as_flow_runs():
        state = curate_paper(entry, model=model, auto_approve=auto_approve, return_state=True)
        return paper_result(state)
    return _summary(curate_paper.fn(entry, model=model, auto_approve=auto_approve))


def batch(entries: list[PaperListEntry], workers: int = 1) -> list[PaperSummary]:
    """`curate_batch`, the same way as `advance`."""
    if orchestrated():
        return curate_batch(entries, workers=workers)
    return curate_batch.fn(entries, workers=workers)


def _stage_with_retries(stage: str, paper_id: str) -> None:
    """`run_stage` with the retries its Prefect task declares (transient errors only)."""
    from flows.stages import TRANSIENT

    declared = run_stage.retry_delay_seconds
    delays = list(declared) if isinstance(declared, list) else [declared or 0] * run_stage.retries
    for delay in (*delays[: run_stage.retries], None):
        try:
            run_stage.fn(stage, paper_id)
            return
        except TRANSIENT:
            if delay is None:
                raise
            time.sleep(delay)


def run_stages_locally(stages: list[str], paper_id: str) -> None:
    """The due stages side by side on threads (parse beside mine), as the flow's task runner
    would; the first failure is raised once all have ended."""
    if len(stages) == 1:
        _stage_with_retries(stages[0], paper_id)
        return
    with ThreadPoolExecutor(max_workers=len(stages)) as pool:
        futures = [pool.submit(_stage_with_retries, s, paper_id) for s in stages]
    for future in futures:
        future.result()


def _paper_in_process(
    entry: dict[str, Any],
    settings: dict[str, Any],
    model: str | None,
    auto_approve: bool | None,
) -> dict[str, Any]:
    """One paper of a parallel batch in a worker process of the plain pool."""
    set_settings(Settings.model_validate(settings))
    try:
        summary = curate(PaperListEntry.model_validate(entry), model, auto_approve)
    except Exception as exc:  # an exception may not survive the trip back: its text does
        raise RuntimeError(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}") from None
    return summary.model_dump(mode="json")


def _fan_out_locally(
    entries: list[PaperListEntry],
    workers: int,
    model: str | None,
    auto_approve: bool | None,
) -> list[PaperSummary]:
    """`_fan_out` without Prefect: this process is one of the `workers` (it is up already,
    the pipeline imported), beside a pool of `workers - 1` spawned processes, each taking the
    next paper of the list when it is free; or the Dask cluster of EXPCURATE_DASK_ADDRESS
    through Dask's own client."""
    import multiprocessing
    import threading

    settings = get_settings().model_dump(mode="json")
    done: dict[str, PaperSummary] = {}
    if get_settings().dask_address:
        return _fan_out_on_dask(entries, settings, model, auto_approve)
    queue, taking, telling = iter(largest_first(entries)), threading.Lock(), threading.Lock()

    def take() -> PaperListEntry | None:
        with taking:
            return next(queue, None)

    def here() -> None:
        """Papers in this process, on a thread (a signal ends the process, and marks its
        running stages interrupted, wherever this thread is)."""
        while (entry := take()) is not None:
            try:
                summary = curate(entry, model=model, auto_approve=auto_approve)
            except Exception as exc:
                summary = _crashed(open_store(get_settings()), entry.id, exc)
            with telling:
                done[entry.id] = summary
                _report(summary)

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers - 1, mp_context=context) as pool:
        in_flight: dict[concurrent.futures.Future[dict[str, Any]], PaperListEntry] = {}

        def feed() -> None:
            entry = take()
            if entry is not None:
                payload = entry.model_dump(mode="json")
                in_flight[
                    pool.submit(_paper_in_process, payload, settings, model, auto_approve)
                ] = entry

        for _ in range(workers - 1):
            feed()
        local = threading.Thread(target=here, name="papers-in-this-process", daemon=True)
        local.start()
        while in_flight:
            finished, _ = concurrent.futures.wait(
                in_flight, return_when=concurrent.futures.FIRST_COMPLETED
            )
            for future in finished:
                entry = in_flight.pop(future)
                with telling:
                    done[entry.id] = _from_worker(entry, future.result)
                feed()
        local.join()
    return [done[e.id] for e in entries if e.id in done]


def largest_first(entries: list[PaperListEntry]) -> list[PaperListEntry]:
    """The papers in the order workers should take them: the largest local PDFs first, so the
    last ones taken are short and no worker is left idle while another finishes a long paper;
    a paper whose PDF is a URL keeps its place after them (its size is not known yet)."""

    def size(entry: PaperListEntry) -> int:
        url = entry.pdf_url
        if "://" in url and not url.startswith("file://"):
            return 0
        try:
            return Path(url.removeprefix("file://")).stat().st_size
        except OSError:
            return 0

    return sorted(entries, key=lambda e: -size(e))


def _fan_out_on_dask(
    entries: list[PaperListEntry],
    settings: dict[str, Any],
    model: str | None,
    auto_approve: bool | None,
) -> list[PaperSummary]:
    """`_fan_out_locally` on the Dask cluster of EXPCURATE_DASK_ADDRESS, through Dask's own
    client (no Prefect API)."""
    from distributed import as_completed as dask_completed

    done: dict[str, PaperSummary] = {}
    with check_dask(get_settings().dask_address, as_default=True) as client:
        futures = [
            client.submit(
                _paper_in_process,
                entry.model_dump(mode="json"),
                settings,
                model,
                auto_approve,
                pure=False,  # a paper run twice is run twice
            )
            for entry in entries
        ]
        by_key = {future.key: entry for future, entry in zip(futures, entries, strict=True)}
        for future in dask_completed(futures):
            entry = by_key[future.key]
            done[entry.id] = _from_worker(entry, future.result)
    return [done[e.id] for e in entries if e.id in done]
