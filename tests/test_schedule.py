"""Re-extraction on a schedule: `expcurate serve` against a real Prefect server on loopback
offers `reextract-papers/reextract` with the cron of EXPCURATE_REEXTRACT_CRON; a run of it
re-extracts every paper, and a paper that cannot be re-extracted is a FAILED flow run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_sample_repo, stop

from expcurate.records import PaperListEntry
from expcurate.settings import override_settings
from expcurate.store import Store

pytestmark = pytest.mark.prefect
ROOT = Path(__file__).resolve().parents[1]
CRON = "0 3 * * *"


def test_serve_offers_a_scheduled_reextract_deployment_whose_failed_papers_fail(
    tmp_path: Path, prefect_harness: None
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterParentFlowRunId
    from prefect.deployments import run_deployment
    from prefect.exceptions import ObjectNotFound
    from prefect.settings import PREFECT_API_URL

    from flows.run import curate

    data = tmp_path / "data"
    repos = {pid: make_sample_repo(tmp_path / f"repo-{pid}") for pid in ("p", "q")}
    with override_settings(data_dir=data, db_url="", engine="local", auto_approve=True):
        for pid, repo in repos.items():
            entry = PaperListEntry(
                id=pid, pdf_url=str(ROOT / "data/sample/paper.pdf"), code_url=str(repo)
            )
            assert curate(entry).status.value == "ready"
    cited = re.compile(r"\(train\.py:(\d+)(?:-(\d+))?\)$")

    def train_ranges() -> set[tuple[int, int]]:
        store = Store(f"sqlite:///{data / 'expcurate.db'}")
        steps = [s for t in store.tasks("p") for s in store.fields(t).requirements]
        return {(int(m[1]), int(m[2] or m[1])) for s in steps if (m := cited.search(s))}

    before = train_ranges()
    assert before
    train = repos["p"] / "train.py"
    train.write_text("# moved down a line\n" + train.read_text())
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}  # fmt: skip
    subprocess.run(["git", "commit", "-qam", "shift"], cwd=repos["p"], check=True, env=env)
    shutil.rmtree(repos["q"])  # q's repository is gone: q cannot be re-extracted

    clean = {k: v for k, v in os.environ.items() if not k.startswith(("EXPCURATE_", "PREFECT_"))}
    clean |= {
        "PREFECT_API_URL": str(PREFECT_API_URL.value()),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "EXPCURATE_DATA_DIR": str(data),
        "EXPCURATE_REEXTRACT_CRON": CRON,
    }
    log = tmp_path / "serve.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "expcurate", "serve"],
        stdout=log.open("w"), stderr=subprocess.STDOUT, env=clean, cwd=tmp_path,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        with get_client(sync_client=True) as client:
            while True:
                assert server.poll() is None, log.read_text()[-3000:]
                try:
                    deployment = client.read_deployment_by_name("reextract-papers/reextract")
                    break
                except ObjectNotFound:
                    assert time.monotonic() < deadline, log.read_text()[-3000:]
                    time.sleep(0.5)
            crons = [getattr(s.schedule, "cron", None) for s in deployment.schedules]
            assert crons == [CRON] and all(s.active for s in deployment.schedules)

            run = run_deployment("reextract-papers/reextract", timeout=0)
            while True:
                state = client.read_flow_run(run.id).state
                if state is not None and state.is_final():
                    break
                assert server.poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline + 120, log.read_text()[-3000:]
                time.sleep(1)
            assert state.is_failed(), state
            assert "1 of 2 papers not re-extracted" in (state.message or "")
            assert "q: not re-extracted" in (state.message or "")
            children = client.read_flow_runs(
                flow_run_filter=FlowRunFilter(
                    parent_flow_run_id=FlowRunFilterParentFlowRunId(any_=[run.id])
                )
            )
            by_name = {c.name: c.state.type.value for c in children if c.state}
            assert by_name["reextract-p"] == "COMPLETED" and by_name["reextract-q"] == "FAILED"
    finally:
        stop(server)
    assert train_ranges() == {(a + 1, b + 1) for a, b in before}  # every step moved down one
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    assert store.require_paper("p").status == "ready"
    assert store.require_paper("q").status == "ready"  # the curated version stays as it was
