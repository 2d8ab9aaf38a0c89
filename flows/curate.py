"""The paper-level flows: curate one paper, advance it after a review, run a batch.

`advance_paper` is the whole scheduler: it asks the store which stages are due (inputs ready,
upstream approved), runs them (parse and mine side by side), and repeats while auto-approval
keeps clearing checkpoints. No flow ever waits for a human; a review just calls it again.
"""

from __future__ import annotations

import logging
import traceback
from typing import Any

from prefect import flow, get_run_logger
from prefect.task_runners import ThreadPoolTaskRunner

from expcurate.curation.review import due_stages, refresh_paper_status
from expcurate.curation.services import (
    PaperSummary,
    fail_paper,
    open_store,
    register_paper,
    summarize,
)
from expcurate.records import PaperListEntry, Stage
from expcurate.settings import get_settings, override_settings
from flows.stages import run_stage

MAX_ROUNDS = 12  # more stages than exist: a guard against a scheduling loop, never reached


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
def advance_paper(paper_id: str) -> PaperSummary:
    """Run every stage that is due for the paper, until it reaches a checkpoint or the end."""
    store = open_store(get_settings())
    log = _logger()
    for _ in range(MAX_ROUNDS):
        due = due_stages(store, paper_id)
        if not due:
            break
        log.info("paper %s: running %s", paper_id, ", ".join(s.value for s in due))
        if len(due) == 1:
            run_stage(due[0].value, paper_id)
        else:
            futures = [run_stage.submit(s.value, paper_id) for s in due]
            for fut in futures:
                fut.result()
    refresh_paper_status(store, paper_id)
    return summarize(store, paper_id)


@flow(name="curate-paper", flow_run_name="curate-{paper_id}")
def curate_paper(
    paper_id: str,
    pdf: str,
    repo: str,
    commit: str = "",
    title: str = "",
    conference: str = "",
    model: str | None = None,
    auto_approve: bool | None = None,
) -> PaperSummary:
    """Register one paper and run it as far as its checkpoints allow."""
    changes: dict[str, Any] = {}
    if model is not None:
        changes["model"] = model
    if auto_approve is not None:
        changes["auto_approve"] = auto_approve
    with override_settings(**changes) as settings:
        store = open_store(settings)
        register_paper(
            store,
            paper_id,
            pdf=pdf,
            repo=repo,
            commit=commit,
            title=title,
            conference=conference or settings.conference,
            model=settings.model,
        )
        try:
            return advance_paper(paper_id)
        except Exception as exc:  # a bug, not bad input: keep the traceback in the log
            _logger().error("paper %s crashed:\n%s", paper_id, traceback.format_exc())
            fail_paper(
                store,
                paper_id,
                store.require_paper(paper_id).stage or Stage.ingest.value,
                f"internal error: {type(exc).__name__}: {exc}",
            )
            return summarize(store, paper_id)


@flow(name="curate-batch")
def curate_batch(
    entries: list[PaperListEntry],
    model: str | None = None,
    auto_approve: bool | None = None,
) -> list[PaperSummary]:
    """Curate each paper of a list; one paper failing never stops the others."""
    results = []
    for entry in entries:
        results.append(
            curate_paper(
                entry.id,
                entry.pdf_url,
                entry.code_url,
                commit=entry.commit,
                title=entry.title,
                conference=entry.conference,
                model=model,
                auto_approve=auto_approve,
            )
        )
    return results
