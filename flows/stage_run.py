"""One stage for one paper, without Prefect: the body the `run-stage` task wraps.

Kept apart from `flows.stages` so that a command with no Prefect server runs the stages
without importing Prefect (about a second of every command's start). The retries declared
here are the task's, and the ones the in-process runner applies.
"""

from __future__ import annotations

import sqlite3

from pydantic import BaseModel
from sqlalchemy.exc import OperationalError

from expcurate.curation.pipeline import RUNNERS
from expcurate.curation.services import open_store
from expcurate.records import RunStatus, Stage
from expcurate.settings import get_settings
from flows.limits import stage_slot

TRANSIENT = (TimeoutError, ConnectionError, OperationalError, sqlite3.OperationalError)
RETRIES = 2
RETRY_DELAYS: list[float] = [1, 5]  # seconds before the first and the second retry


class StageSummary(BaseModel):
    """What a stage run returns: which run it made and where it stopped."""

    stage: Stage
    run_id: int | None
    status: RunStatus
    items: int


def stage_run(stage: str, paper_id: str) -> StageSummary:
    """Run one stage for one paper; returns a small summary of the stage run."""
    settings = get_settings()
    with stage_slot(settings, Stage(stage)):
        run = RUNNERS[Stage(stage)](open_store(settings), settings, paper_id)
    return StageSummary(
        stage=Stage(stage), run_id=run.id, status=RunStatus(run.status), items=run.items
    )
