"""The paper-level work, without Prefect: curate one paper, advance it, run a batch.

`advance_body` is the whole scheduler: it asks the store which stages are due (inputs ready,
upstream approved), runs them (parse and mine side by side), and repeats while auto-approval
keeps clearing checkpoints. No run ever waits for a human; a review just calls it again.

The bodies import neither Prefect nor the flows: the flows of `flows.curate` wrap them, and
`flows.run` runs them in the command's own process when no Prefect server is configured (the
stages on threads with the task's retries, a batch's papers on a plain process pool), never
importing Prefect, whose import alone costs about a second. Where a body hands work on (to
advance a paper, to curate one of a batch), its caller says how.
"""

from __future__ import annotations

import concurrent.futures
import logging
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
from expcurate.records import PaperListEntry, Stage
from expcurate.settings import Settings, get_settings, override_settings, set_settings
from expcurate.store import Store
from expcurate.store.errors import LeaseHeld
from expcurate.store.lease import describe
from flows.engine import in_flow_run
from flows.stage_run import RETRIES, RETRY_DELAYS, TRANSIENT, stage_run

MAX_ROUNDS = 12  # more stages than exist: a guard against a scheduling loop, never reached


def _logger() -> logging.Logger | logging.LoggerAdapter[logging.Logger]:
    """The flow run's logger inside one, else the package's."""
    if "prefect" in sys.modules:
        from prefect import get_run_logger

        try:
            return get_run_logger()
        except Exception:
            pass
    return logging.getLogger("expcurate")


def advance_body(paper_id: str) -> PaperSummary:
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
            return advance_body(paper_id)
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
            else:
                from flows.stages import run_stage  # a flow run: the stages are task runs

                if len(due) == 1:
                    run_stage(due[0].value, paper_id)
                else:
                    futures = [run_stage.submit(s.value, paper_id) for s in due]
                    for fut in futures:
                        fut.result()
    except LeaseHeld as held:
        log.info("paper %s: %s; not run twice", paper_id, held)
        notes.append(f"{held}; not run twice")
    refresh_paper_status(store, paper_id)
    return summarize(store, paper_id).model_copy(update={"notes": notes})


def curate_body(
    paper: PaperListEntry,
    model: str | None = None,
    auto_approve: bool | None = None,
    advance: Callable[[str], PaperSummary] = advance_body,
) -> PaperSummary:
    """Admit one paper and run it as far as its checkpoints allow, with `advance` (here, or
    as a flow run under Prefect).

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
            return _summary_or(store, paper.id, problem)
        try:
            return advance(paper.id)
        except Exception as exc:
            return _crashed(store, paper.id, exc)


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


CurateOne = Callable[..., PaperSummary]  # (entry, model=..., auto_approve=...)
FanOut = Callable[[list[PaperListEntry], int, "str | None", "bool | None"], list[PaperSummary]]


def batch_body(
    entries: list[PaperListEntry],
    model: str | None = None,
    auto_approve: bool | None = None,
    workers: int = 1,
    *,
    curate_one: CurateOne,
    fan_out: FanOut,
) -> list[PaperSummary]:
    """Curate each paper of a list with `curate_one`; one paper failing never stops the
    others.

    Each paper's summary is reported as soon as it is done (see `reporting`). With `workers`
    > 1, or `EXPCURATE_DASK_ADDRESS`, `fan_out` runs the papers side by side."""
    if (workers > 1 or get_settings().dask_address) and len(entries) > 1:
        return fan_out(entries, min(workers, len(entries)), model, auto_approve)
    results = []
    for entry in entries:
        try:
            summary = curate_one(entry, model=model, auto_approve=auto_approve)
        except Exception as exc:  # curate_body records bad input itself; this is a bug
            summary = _crashed(open_store(get_settings()), entry.id, exc)
        results.append(summary)
        _report(summary)
    return results


def _stage_with_retries(stage: str, paper_id: str) -> None:
    """A stage with the retries its Prefect task declares (transient errors only)."""
    for delay in (*RETRY_DELAYS[:RETRIES], None):
        try:
            stage_run(stage, paper_id)
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


def paper_in_worker(
    entry: dict[str, Any],
    settings: dict[str, Any],
    model: str | None,
    auto_approve: bool | None,
    curate_one: CurateOne,
) -> dict[str, Any]:
    """One paper of a parallel batch in a worker process: the batch's settings (flags
    included) laid down first, as the process starts with none of them; the paper curated
    with `curate_one`; its summary sent back as JSON, and an exception as its text (it may
    not survive the trip back)."""
    set_settings(Settings.model_validate(settings))
    try:
        summary = curate_one(PaperListEntry.model_validate(entry), model, auto_approve)
    except Exception as exc:
        raise RuntimeError(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}") from None
    return summary.model_dump(mode="json")


InWorker = Callable[
    [dict[str, Any], dict[str, Any], "str | None", "bool | None"], dict[str, Any]
]  # (entry, settings, model, auto_approve) -> summary, in a worker process


def fan_out_locally(
    entries: list[PaperListEntry],
    workers: int,
    model: str | None,
    auto_approve: bool | None,
    curate_one: CurateOne,
    in_worker: InWorker,
    spawn_pool: Callable[[], ProcessPoolExecutor],
) -> list[PaperSummary]:
    """Papers side by side without Prefect: this process is one of the `workers` (it is up
    already, the pipeline imported; it runs `curate_one`), beside a pool of `workers - 1`
    spawned processes running `in_worker` (a module-level function), each taking the next
    paper of the list when it is free; or the Dask cluster of EXPCURATE_DASK_ADDRESS through
    Dask's own client. `spawn_pool` gives the spawned processes (`flows.workers`)."""
    import threading

    settings = get_settings().model_dump(mode="json")
    done: dict[str, PaperSummary] = {}
    if get_settings().dask_address:
        return _fan_out_on_dask(entries, settings, model, auto_approve, in_worker)
    queue, taking, telling = deque(largest_first(entries)), threading.Lock(), threading.Lock()

    def take() -> PaperListEntry | None:
        with taking:
            return queue.popleft() if queue else None

    def here() -> None:
        """Papers in this process, on a thread (a signal ends the process, and marks its
        running stages interrupted, wherever this thread is)."""
        while (entry := take()) is not None:
            try:
                summary = curate_one(entry, model=model, auto_approve=auto_approve)
            except Exception as exc:
                summary = _crashed(open_store(get_settings()), entry.id, exc)
            with telling:
                done[entry.id] = summary
                _report(summary)

    with spawn_pool() as pool:
        in_flight: dict[concurrent.futures.Future[dict[str, Any]], PaperListEntry] = {}

        def feed() -> None:
            """Keep each spawned worker's next paper queued behind its current one while
            many are left (it takes it the moment it is free, not when this process, busy
            with its own paper, gets round to sending one); near the end, one at a time."""
            spawned = workers - 1
            while len(in_flight) < (2 * spawned if len(queue) > 2 * workers else spawned):
                entry = take()
                if entry is None:
                    return
                payload = entry.model_dump(mode="json")
                in_flight[pool.submit(in_worker, payload, settings, model, auto_approve)] = entry

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
    in_worker: InWorker,
) -> list[PaperSummary]:
    """`fan_out_locally` on the Dask cluster of EXPCURATE_DASK_ADDRESS, through Dask's own
    client (no Prefect API)."""
    from distributed import as_completed as dask_completed

    done: dict[str, PaperSummary] = {}
    with check_dask(get_settings().dask_address, as_default=True) as client:
        futures = [
            client.submit(
                in_worker,
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
