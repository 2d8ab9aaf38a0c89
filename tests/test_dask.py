"""A batch's papers on a Dask cluster (EXPCURATE_DASK_ADDRESS): a real local cluster of two
worker processes on loopback, with and without a Prefect server."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import run_cli, sample_paper_list, tasks_in

from expcurate.records import PaperListEntry
from expcurate.store import Store


def _local_cli(args: list[str], data: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, data, EXPCURATE_ENGINE="local", **env)


distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
pytest.importorskip("prefect_dask", reason="the dask extra is not installed")

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "data" / "sample" / "paper.pdf"


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """Two worker processes and a scheduler on loopback; its address."""
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as local:
        yield str(local.scheduler_address)


def test_a_batch_runs_on_the_dask_cluster_with_the_sametasks_in(
    tmp_path: Path, sample_repo: Path, cluster: str
) -> None:
    papers = sample_paper_list(tmp_path, sample_repo)
    done = _local_cli(["batch", str(papers), "--auto-approve"], tmp_path / "seq")
    assert done.returncode == 0, done.stdout + done.stderr
    done = _local_cli(
        ["batch", str(papers), "--auto-approve"], tmp_path / "dask", EXPCURATE_DASK_ADDRESS=cluster
    )
    assert done.returncode == 0 and "2 papers, 0 failed" in done.stdout, done.stdout + done.stderr
    assert tasks_in(tmp_path / "seq") == tasks_in(tmp_path / "dask") != []
    # the papers ran in the cluster's worker processes, not in the command's own
    store = Store(f"sqlite:///{tmp_path / 'dask' / 'expcurate.db'}")
    owners = {int(run.owner.split(":")[1]) for run in store.runs()}  # host:pid:token
    client = distributed.Client(cluster, set_as_default=False)
    try:
        worker_pids = set(client.run(os.getpid).values())
    finally:
        client.close()
    assert owners and owners <= worker_pids, (owners, worker_pids)


@pytest.mark.prefect
def test_under_a_prefect_server_the_batch_uses_prefect_dasks_runner(
    tmp_path: Path, sample_repo: Path, cluster: str, prefect_harness: None
) -> None:
    from expcurate.settings import override_settings
    from flows.run import batch

    entries = [
        PaperListEntry(id=pid, pdf_url=str(PDF), code_url=str(sample_repo)) for pid in ("a", "b")
    ]
    with override_settings(
        data_dir=tmp_path / "data", db_url="", engine="prefect", dask_address=cluster,
        auto_approve=True,
    ) as settings:  # fmt: skip
        summaries = batch(entries, workers=1)
        store = Store(settings.database_url())
    assert [s.status.value for s in summaries] == ["ready", "ready"], summaries
    assert {p.status for p in store.papers()} == {"ready"}


def test_a_scheduler_that_does_not_answer_is_one_line(tmp_path: Path, sample_repo: Path) -> None:
    papers = sample_paper_list(tmp_path, sample_repo)
    done = _local_cli(
        ["batch", str(papers)], tmp_path / "data", EXPCURATE_DASK_ADDRESS="tcp://127.0.0.1:9"
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "no Dask scheduler answered at tcp://127.0.0.1:9" in done.stderr
