"""One Prefect flow per stage, each a thin call into `expcurate.pipeline`.

Caching lives in the store (a run with the same inputs hash is reused), so Prefect's own
result cache is off; Prefect adds retries on transient failures, concurrency, and the run
history an operator watches. Each stage holds a slot of its kind while it runs (`flows.limits`).
"""

from __future__ import annotations

from typing import Any

from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from expcurate.records import Stage
from flows.stage_run import RETRIES, RETRY_DELAYS, TRANSIENT, StageSummary, stage_run

__all__ = ["STAGE_FLOWS", "TRANSIENT", "StageSummary", "run_stage"]


def _is_transient(_task: Any, _run: Any, state: Any) -> bool:
    """Retry only what can pass on a second try: timeouts, dropped connections, a locked db."""
    try:
        exc = state.result(raise_on_failure=False)
    except Exception:  # the state could not be read: do not retry blindly
        return False
    return isinstance(exc, TRANSIENT)


@task(
    name="run-stage",
    task_run_name="{stage}-{paper_id}",
    retries=RETRIES,
    retry_delay_seconds=RETRY_DELAYS,
    retry_condition_fn=_is_transient,
    cache_policy=NO_CACHE,
)
def run_stage(stage: str, paper_id: str) -> StageSummary:
    """Run one stage for one paper; returns a small summary of the stage run."""
    return stage_run(stage, paper_id)


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
