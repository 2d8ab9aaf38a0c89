"""The team setup on loopback: `expcurate deploy` puts the flows on a process work pool, and two
`prefect worker start` processes take the flow runs, each paper in its own process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import stop

from expcurate.store import Store

pytestmark = pytest.mark.prefect
ROOT = Path(__file__).resolve().parents[1]
POOL = "team-test"


def _env(api_url: str, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EXPCURATE_", "PREFECT_"))}
    return env | {
        "PREFECT_API_URL": api_url,
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_WORKER_QUERY_SECONDS": "1",
        "PREFECT_LOGGING_LEVEL": "INFO",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "EXPCURATE_DATA_DIR": str(data),
        "EXPCURATE_ENGINE": "prefect",
    }


def _wait_until_online(workers: list[subprocess.Popen[bytes]], logs: list[Path]) -> None:
    """Both workers have reported to the server (so each can take a run)."""
    from prefect.client.orchestration import get_client

    deadline = time.monotonic() + 120
    with get_client(sync_client=True) as client:
        while len([w for w in client.read_workers_for_work_pool(POOL) if w.status == "ONLINE"]) < 2:
            for worker, log in zip(workers, logs, strict=True):
                assert worker.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, "the workers never came online"
            time.sleep(0.5)


def test_two_workers_on_a_work_pool_run_the_papers_deployed_to_it(
    tmp_path: Path, sample_repo: Path, prefect_harness: None
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment
    from prefect.settings import PREFECT_API_URL

    api_url = str(PREFECT_API_URL.value())
    data = tmp_path / "data"
    env = _env(api_url, data)
    deployed = subprocess.run(
        [sys.executable, "-m", "expcurate", "deploy", "--pool", POOL],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert deployed.returncode == 0, deployed.stdout + deployed.stderr
    assert f"work pool {POOL}: created (process)" in deployed.stdout
    assert f"deployment curate-paper/curate on {POOL}" in deployed.stdout

    start = [sys.executable, "-m", "prefect", "worker", "start", "--pool", POOL, "--limit", "1"]
    logs = [tmp_path / f"worker-{n}.log" for n in range(2)]
    workers = [
        subprocess.Popen(
            [*start, "--name", f"worker-{n}"],
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            env=env,
            cwd=tmp_path,
        )
        for n, log in enumerate(logs)
    ]
    try:
        _wait_until_online(workers, logs)
        runs = [
            run_deployment(
                "curate-paper/curate",
                parameters={
                    "paper": {
                        "id": pid,
                        "pdf_url": str(ROOT / "data/sample/paper.pdf"),
                        "code_url": str(sample_repo),
                    },
                    "auto_approve": True,
                },
                timeout=0,
            )
            for pid in ("one", "two")
        ]
        deadline = time.monotonic() + 300
        with get_client(sync_client=True) as client:
            while True:
                states = [client.read_flow_run(run.id).state for run in runs]
                if all(s is not None and s.is_final() for s in states):
                    break
                for worker, log in zip(workers, logs, strict=True):
                    assert worker.poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline, [s.type if s else None for s in states]
                time.sleep(1)
        detail = "\n".join(log.read_text()[-3000:] for log in logs)
        assert [s.type.value for s in states if s] == ["COMPLETED", "COMPLETED"], detail
    finally:
        for worker in workers:
            stop(worker)

    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    assert {p.id: p.status for p in store.papers()} == {"one": "ready", "two": "ready"}
    # each worker (one flow run at a time) took one paper's run
    took = [re.findall(r"Beginning flow run 'curate-(\w+)'", log.read_text()) for log in logs]
    assert sorted(map(sorted, took)) == [["one"], ["two"]], took
