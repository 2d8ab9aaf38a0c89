"""Kill and resume: a real `expcurate extract` killed with SIGKILL at each stage (while it runs
and between stages), then run again, reaches the same tasks as an uninterrupted run, with no
duplicate tasks, revisions or runs, and a store that passes SQLite's integrity check. Two
`advance` of one paper at once run each stage once.

Each process is held at its kill point by the `pause_at` setting (it writes a marker file and
waits), so the kill lands where it should every time instead of by timing.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import make_sample_repo, sample_paper_list

from expcurate.records import RunStatus
from expcurate.store import Store

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "data" / "sample" / "paper.pdf"
PAPER = "90001"
# While a stage runs (its lease taken), and between stages (the next one not yet claimed).
KILL_POINTS = ["parse", "mine", "before-tasks", "tasks", "setup", "package"]
WAIT_S = 240


@pytest.fixture(scope="module")
def api_url(prefect_harness: None) -> str:
    """The test session's Prefect API: the CLI processes use it instead of starting their own
    temporary server each (seconds apiece)."""
    from prefect.settings import PREFECT_API_URL

    url = PREFECT_API_URL.value()
    assert url
    return str(url)


def _start(args: list[str], data: Path, api_url: str, pause: str = "") -> subprocess.Popen[str]:
    """The command against the session's Prefect API, or with `api_url` "" without any (the
    flows then run in the command's own process)."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("EXPCURATE_", "PREFECT_API"))},
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "EXPCURATE_DATA_DIR": str(data),
        "EXPCURATE_PAUSE_AT": pause,
    }
    env |= {"PREFECT_API_URL": api_url} if api_url else {"EXPCURATE_ENGINE": "local"}
    return subprocess.Popen(
        [sys.executable, "-m", "expcurate", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its own process group: the kill takes its children too
    )


def _extract(repo: Path) -> list[str]:
    return ["extract", "--pdf", str(PDF), "--repo", str(repo), "--paper-id", PAPER,
            "--auto-approve"]  # fmt: skip


def _finish(proc: subprocess.Popen[str]) -> str:
    out, _ = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, out
    return out


def _held_at(proc: subprocess.Popen[str], data: Path, point: str) -> Path:
    """Wait until the process holds at `point`; returns its marker file."""
    marker = data / "artifacts" / PAPER / f"paused-{point}"
    deadline = time.monotonic() + WAIT_S
    while not marker.exists():
        if proc.poll() is not None:
            pytest.fail(f"ended before reaching {point}:\n{proc.communicate()[0]}")
        assert time.monotonic() < deadline, f"never reached {point}"
        time.sleep(0.1)
    return marker


def _kill_at(proc: subprocess.Popen[str], data: Path, point: str) -> None:
    marker = _held_at(proc, data, point)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    marker.unlink()


def _state(data: Path, paper: str = PAPER) -> dict[str, Any]:
    """What a resumed run must share with an uninterrupted one."""
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    tasks = store.tasks(paper)
    fields = [store.fields(t) for t in tasks]
    return {
        "paper": store.require_paper(paper).status,
        "tasks": [
            (t.key, t.stage, t.status, f.question, f.expected_outcome, f.source, f.requirements)
            for t, f in zip(tasks, fields, strict=True)
        ],
        "revisions": [len(store.revisions(t.id)) for t in tasks if t.id is not None],
        "current": {s: r.status for s, r in store.current_runs(paper).items()},
        # finished runs per stage, the interrupted ones left out: each stage's work once
        "finished": Counter(r.stage for r in store.runs(paper) if r.status != "interrupted"),
    }


def _integrity(data: Path) -> str:
    db = sqlite3.connect(data / "expcurate.db")
    try:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        db.close()


@pytest.fixture(scope="module")
def reference(
    api_url: str, tmp_path_factory: pytest.TempPathFactory, sample_repo_module: Path
) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("reference") / "data"
    _finish(_start(_extract(sample_repo_module), data, api_url))
    state = _state(data)
    assert state["paper"] == "ready" and state["tasks"]
    return state


@pytest.fixture(scope="module")
def sample_repo_module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_sample_repo(tmp_path_factory.mktemp("repo") / "gatemix-repo")


@pytest.mark.parametrize("point", KILL_POINTS)
def test_killed_at_any_stage_the_same_command_resumes_to_the_same_tasks(
    point: str,
    api_url: str,
    reference: dict[str, Any],
    sample_repo_module: Path,
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    _kill_at(_start(_extract(sample_repo_module), data, api_url, pause=point), data, point)
    out = _finish(_start(_extract(sample_repo_module), data, api_url))
    assert f"{PAPER}: ready at package" in out
    if not point.startswith("before-"):  # a run was left running: the rerun says so
        assert f"the {point} run was interrupted" in " ".join(out.split())
    state = _state(data)
    assert state == reference
    assert _integrity(data) == "ok"


@pytest.mark.parametrize("point", ["parse", "tasks", "before-setup"])
def test_without_a_prefect_server_a_kill_resumes_to_the_same_tasks_too(
    point: str, reference: dict[str, Any], sample_repo_module: Path, tmp_path: Path
) -> None:
    """The in-process engine (no Prefect API): killed and rerun, it reaches the state the
    Prefect flow runs reached uninterrupted."""
    data = tmp_path / "data"
    _kill_at(_start(_extract(sample_repo_module), data, "", pause=point), data, point)
    out = _finish(_start(_extract(sample_repo_module), data, ""))
    assert f"{PAPER}: ready at package" in out
    assert _state(data) == reference
    assert _integrity(data) == "ok"


def test_two_advances_at_once_run_each_stage_once(
    api_url: str, reference: dict[str, Any], sample_repo_module: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    # The first stops at the checkpoint after ingest has been approved… by holding tasks.
    first = _start(_extract(sample_repo_module), data, api_url, pause="tasks")
    _held_at(first, data, "tasks")
    second = _finish(_start(["advance", PAPER], data, api_url))
    assert "the tasks stage of 90001 is being run by process" in " ".join(second.split())
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    assert [r.status for r in store.runs(PAPER) if r.stage == "tasks"] == [RunStatus.running]
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate()
    # `advance` resumes with the auto-approval the paper was extracted with
    _finish(_start(["advance", PAPER], data, api_url))
    assert _state(data) == reference


def test_sigterm_marks_the_running_stage_interrupted_and_exits_with_one_line(
    api_url: str, reference: dict[str, Any], sample_repo_module: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    proc = _start(_extract(sample_repo_module), data, api_url, pause="parse")
    marker = _held_at(proc, data, "parse")
    proc.send_signal(signal.SIGTERM)  # the process only, as a supervisor would
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, out
    # parse, and mine too when it was still running beside it; a stage thread that was still
    # running may have Prefect log its dropped result after the line, so the last line of ours
    ours = [ln for ln in out.strip().splitlines() if not re.match(r"\d\d:\d\d:\d\d\.\d+ \|", ln)]
    assert re.fullmatch(
        r"stopped by SIGTERM; [12] running stage\(s\) marked interrupted; run the same command "
        r"again to resume",
        ours[-1],
    ), out
    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    assert [r.status for r in store.runs(PAPER) if r.stage == "parse"] == ["interrupted"]
    marker.unlink()
    _finish(_start(_extract(sample_repo_module), data, api_url))
    assert _state(data) == reference


def test_a_parallel_batch_killed_mid_run_resumes_to_the_same_tasks(
    sample_repo_module: Path, tmp_path: Path
) -> None:
    """`batch --workers 2` without a Prefect server (this process and a spawned worker,
    started before the pipeline is imported), killed with its workers while a paper drafts
    its tasks, then run again: every paper reaches what an uninterrupted batch reaches."""
    ids = ("a1", "a2", "a3")
    papers = sample_paper_list(tmp_path, sample_repo_module, ids)
    batch = ["batch", str(papers), "--auto-approve", "--workers", "2"]
    clean = tmp_path / "clean"
    _finish(_start(batch, clean, ""))
    data = tmp_path / "data"
    proc = _start(batch, data, "", pause="tasks")
    deadline = time.monotonic() + WAIT_S
    while not list((data / "artifacts").glob("*/paused-tasks")):
        assert proc.poll() is None, proc.communicate()[0]
        assert time.monotonic() < deadline, "no paper reached its tasks stage"
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate()
    for marker in (data / "artifacts").glob("*/paused-tasks"):
        marker.unlink()
    out = _finish(_start(batch, data, ""))
    assert "3 papers, 0 failed" in out, out
    assert [_state(data, p) for p in ids] == [_state(clean, p) for p in ids]
    assert _integrity(data) == "ok"
