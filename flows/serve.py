"""Deployments for the team setup, served by one process or run by a work pool's workers.

`advance` is what an approval triggers when `EXPCURATE_LAUNCHER=prefect` (the launcher calls
`run_deployment("advance-paper/advance")`); `curate` lets a curator start a paper from the
Prefect UI; `curate-batch` a whole list; `reextract-papers/reextract` re-extracts every paper,
on the cron schedule of EXPCURATE_REEXTRACT_CRON when it is set.

Two ways to run them:
- `expcurate serve`: one process polls the server and runs every flow run itself;
- `expcurate deploy --pool NAME`: the deployments go to a process work pool, and any number of
  `prefect worker start --pool NAME` processes, on any machine with ExpCurate installed and
  the same store settings, take the flow runs (each in its own process).
"""

from __future__ import annotations

from typing import Any

from expcurate.settings import get_settings
from flows.curate import advance_paper, curate_batch, curate_paper
from flows.limits import ensure_limits
from flows.upkeep import reextract_papers

ADVANCE = "advance"
REEXTRACT = "reextract"


def build_deployments(work_pool: str | None = None) -> list[Any]:
    """The deployments: for `serve` (one process), or for a work pool's workers, which import
    the flows from the installed package (a module path, not a file of this checkout)."""
    extra: dict[str, Any] = {}
    if work_pool is not None:
        from prefect.deployments.runner import EntrypointType

        extra = {"work_pool_name": work_pool, "entrypoint_type": EntrypointType.MODULE_PATH}
    return [
        advance_paper.to_deployment(
            name=ADVANCE, description="Run the stages due for a paper.", **extra
        ),
        curate_paper.to_deployment(name="curate", description="Curate one paper.", **extra),
        curate_batch.to_deployment(name="batch", description="Curate a list of papers.", **extra),
        reextract_papers.to_deployment(
            name=REEXTRACT,
            description="Bring every extracted paper to its repository's newest commit, its "
            "PDF, pipeline and models, keeping reviewers' work (EXPCURATE_REEXTRACT_CRON).",
            cron=get_settings().reextract_cron or None,
            **extra,
        ),
    ]


def serve_forever(limit: int | None = None) -> None:
    from prefect import serve

    ensure_limits(get_settings(), update=True)
    serve(*build_deployments(), limit=limit)


def deploy_to_pool(pool: str) -> tuple[bool, list[str], dict[str, int]]:
    """Create the process work pool `pool` when missing, put the deployments on it and set
    the stage concurrency limits from the settings. Returns (pool created, the deployments
    as flow/name, the limits)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectAlreadyExists, ObjectNotFound
    from prefect.workers.process import ProcessWorker

    created = False
    with get_client(sync_client=True) as client:
        try:
            client.read_work_pool(pool)
        except ObjectNotFound:
            template = ProcessWorker.get_default_base_job_template()
            try:
                client.create_work_pool(
                    WorkPoolCreate(name=pool, type="process", base_job_template=template)
                )
                created = True
            except ObjectAlreadyExists:  # made meanwhile by another deploy
                pass
    names = []
    for deployment in build_deployments(work_pool=pool):
        deployment.apply(work_pool_name=pool)
        names.append(f"{deployment.flow_name}/{deployment.name}")
    return created, names, ensure_limits(get_settings(), update=True)
