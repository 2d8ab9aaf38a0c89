"""Concurrency limits by kind of stage: lock-file slots without a Prefect API, Prefect's
global concurrency limits inside flow runs."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import threading
import time
from contextlib import ExitStack, suppress
from pathlib import Path

import pytest
from conftest import sample_paper_list

from expcurate.records import Stage
from expcurate.settings import Settings
from expcurate.store import Store
from flows.limits import ensure_limits, file_slot, limit_name, slots, stage_kind

ROOT = Path(__file__).resolve().parents[1]


def test_each_stage_takes_the_slot_of_the_work_it_does() -> None:
    offline = Settings(model="heuristic")
    assert stage_kind(offline, Stage.ingest) is None
    assert {stage_kind(offline, s) for s in Stage if s != Stage.ingest} == {"cpu"}
    drafter = Settings(model="heuristic", tasks_model="gpt-4o-mini")
    assert (stage_kind(drafter, Stage.tasks), stage_kind(drafter, Stage.setup)) == ("llm", "cpu")
    agent = Settings(model="ollama/qwen")
    assert (stage_kind(agent, Stage.setup), stage_kind(agent, Stage.parse)) == ("llm", "cpu")
    assert slots(Settings(), "cpu") == (os.cpu_count() or 1)
    assert (slots(Settings(cpu_slots=0), "cpu"), slots(Settings(llm_slots=2), "llm")) == (0, 2)


def test_a_full_set_of_slots_makes_the_next_one_wait_until_one_is_given_back(
    tmp_path: Path,
) -> None:
    entered = threading.Event()

    def third() -> None:
        with file_slot(tmp_path, "cpu", 2):
            entered.set()

    with ExitStack() as held:
        held.enter_context(file_slot(tmp_path, "cpu", 2))
        second = held.enter_context(ExitStack())
        second.enter_context(file_slot(tmp_path, "cpu", 2))
        waiter = threading.Thread(target=third)
        waiter.start()
        assert not entered.wait(0.5)  # both slots are held
        with file_slot(tmp_path, "llm", 2):  # another kind is counted apart
            pass
        second.close()  # one slot given back
        assert entered.wait(10)
        waiter.join(10)


def test_a_killed_process_gives_its_slot_back(tmp_path: Path) -> None:
    marker = tmp_path / "holding"
    code = (
        "import sys, time, pathlib; sys.path.insert(0, sys.argv[1])\n"
        "from flows.limits import file_slot\n"
        "with file_slot(pathlib.Path(sys.argv[2]), 'cpu', 1):\n"
        "    pathlib.Path(sys.argv[3]).write_text('1')\n"
        "    time.sleep(600)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(ROOT), str(tmp_path), str(marker)])
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert holder.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        got = threading.Event()

        def take() -> None:
            with file_slot(tmp_path, "cpu", 1):
                got.set()

        waiter = threading.Thread(target=take, daemon=True)
        waiter.start()
        assert not got.wait(0.5)
        holder.send_signal(signal.SIGKILL)
        assert got.wait(10)
    finally:
        holder.kill()
        holder.wait()


def test_one_cpu_slot_runs_one_computing_stage_at_a_time_across_worker_processes(
    tmp_path: Path, sample_repo: Path
) -> None:
    """`batch --workers 2` with EXPCURATE_CPU_SLOTS=1, no Prefect API: both papers end ready,
    and no two computing stages (of one paper or of two) ever ran at the same time."""
    papers = sample_paper_list(tmp_path, sample_repo)
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EXPCURATE_", "PREFECT_API"))}
    env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "EXPCURATE_CPU_SLOTS": "1",
            "EXPCURATE_ENGINE": "local"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "expcurate", "batch", str(papers), "--auto-approve",
         "--workers", "2", "--data-dir", str(data)],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0 and "2 papers, 0 failed" in done.stdout, done.stdout + done.stderr
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    computing = sorted(
        (run.started_at, run.finished_at, run.paper_id, run.stage)
        for run in store.runs()
        if run.stage != Stage.ingest.value
    )
    assert {r[2] for r in computing} == {"one", "two"} and len(computing) == 10
    for before, after in itertools.pairwise(computing):
        assert before[1] is not None and before[1] <= after[0], (before, after)


@pytest.mark.prefect
def test_team_slots_inside_flow_runs_are_prefect_limits_made_from_the_settings(
    tmp_path: Path, sample_repo: Path, prefect_harness: None
) -> None:
    """With EXPCURATE_SLOTS_SCOPE=team a flow run creates the missing global concurrency
    limits from the settings, holds a slot per stage and gives every one back; `update` sets
    them to the settings' values."""
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    from expcurate.records import PaperListEntry
    from expcurate.settings import override_settings
    from flows.run import curate

    with get_client(sync_client=True) as client:
        for kind in ("cpu", "llm"):
            with suppress(Exception):
                client.delete_global_concurrency_limit_by_name(limit_name(kind))
    with override_settings(
        data_dir=tmp_path / "data",
        db_url="",
        engine="prefect",
        cpu_slots=1,
        auto_approve=True,
        slots_scope="team",
    ):
        entry = PaperListEntry(id="p", pdf_url=str(ROOT / "data/sample/paper.pdf"),
                               code_url=str(sample_repo))  # fmt: skip
        summary = curate(entry)
    assert summary.status.value == "ready", summary
    with get_client(sync_client=True) as client:
        cpu = client.read_global_concurrency_limit_by_name(limit_name("cpu"))
        with pytest.raises(ObjectNotFound):  # no stage called a model
            client.read_global_concurrency_limit_by_name(limit_name("llm"))
    assert (cpu.limit, cpu.active, cpu.active_slots) == (1, True, 0)

    assert ensure_limits(Settings(cpu_slots=3, llm_slots=0), update=True) == {
        limit_name("cpu"): 3,
        limit_name("llm"): 0,
    }
    with get_client(sync_client=True) as client:
        cpu = client.read_global_concurrency_limit_by_name(limit_name("cpu"))
        llm = client.read_global_concurrency_limit_by_name(limit_name("llm"))
    assert (cpu.limit, cpu.active, llm.active) == (3, True, False)
