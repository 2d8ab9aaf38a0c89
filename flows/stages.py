"""One Prefect flow per stage, each a thin call into `expcurate.pipeline`.

Caching lives in the store (a run with the same inputs hash is reused), so Prefect's own
result cache is off; Prefect adds retries on transient failures, concurrency, and the run
history an operator watches. Each stage holds a slot of its kind while it runs (`flows.limits`).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE
from pydantic import BaseModel
from sqlalchemy.exc import OperationalError

from expcurate.curation.pipeline import RUNNERS
from expcurate.curation.services import open_store
from expcurate.records import RunStatus, Stage
from expcurate.settings import get_settings
from flows.limits import stage_slot

TRANSIENT = (TimeoutError, ConnectionError, OperationalError, sqlite3.OperationalError)


def _is_transient(_task: Any, _run: Any, state: Any) -> bool:
    """Retry only what can pass on a second try: timeouts, dropped connections, a locked db."""
    try:
        exc = state.result(raise_on_failure=False)
    except Exception:  # the state could not be read: do not retry blindly
        return False
    return isinstance(exc, TRANSIENT)


class StageSummary(BaseModel):
    """What a stage flow returns: which run it made and where it stopped."""

    stage: Stage
    run_id: int | None
    status: RunStatus
    items: int


@task(
    name="run-stage",
    task_run_name="{stage}-{paper_id}",
    retries=2,
    retry_delay_seconds=[1, 5],
    retry_condition_fn=_is_transient,
    cache_policy=NO_CACHE,
)
def run_stage(stage: str, paper_id: str) -> StageSummary:
    """Run one stage for one paper; returns a small summary of the stage run."""
    settings = get_settings()
    with stage_slot(settings, Stage(stage)):
        run = RUNNERS[Stage(stage)](open_store(settings), settings, paper_id)
    return StageSummary(
        stage=Stage(stage), run_id=run.id, status=RunStatus(run.status), items=run.items
    )


def _stage_flow(stage: Stage) -> Any:
    @flow(name=f"stage-{stage.value}", flow_run_name=f"{stage.value}-{{paper_id}}")
    def stage_flow(paper_id: str) -> StageSummary:
        return run_stage(stage.value, paper_id)

    stage_flow.__doc__ = f"Run the {stage.value} stage for one paper and stop at its checkpoint."
    return stage_flow


ingest_flow = _stage_flow(Stage.ingest)
parse_flow = _stage_flow(Stage.parse)
mine_flow = _stage_flow(Stage.mine)
tasks_flow = _stage_flow(Stage.tasks)
setup_flow = _stage_flow(Stage.setup)
package_flow = _stage_flow(Stage.package)

STAGE_FLOWS = {
    Stage.ingest: ingest_flow,
    Stage.parse: parse_flow,
    Stage.mine: mine_flow,
    Stage.tasks: tasks_flow,
    Stage.setup: setup_flow,
    Stage.package: package_flow,
}
