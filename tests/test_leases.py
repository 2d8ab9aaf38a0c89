"""Stage run leases in the store: one claimant, owners that die, stale heartbeats, and the
schema upgrade that brings leases to an older store."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from expcurate.curation.pipeline import recover_interrupted
from expcurate.records import RunStatus, StageResult
from expcurate.settings import Settings
from expcurate.store import Store
from expcurate.store.errors import LeaseHeld, LeaseLost
from expcurate.store.lease import HOST, owner_gone, this_process
from expcurate.store.rows import utcnow

pytestmark = pytest.mark.databases


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_one_running_run_per_paper_and_stage(store: Store) -> None:
    store.upsert_paper("p")
    first = store.start_run("p", "parse")
    with pytest.raises(LeaseHeld, match=r"the parse stage of p is being run by process \d+"):
        store.start_run("p", "parse", owner="other-host:1:abc")
    store.start_run("p", "mine")  # another stage is another lease
    assert first.id is not None
    store.finish_run(first.id, StageResult(), status=RunStatus.approved)
    assert store.start_run("p", "parse").status == RunStatus.running  # free again


def test_a_run_whose_process_died_is_interrupted_and_its_stage_is_due_again(
    store: Store, settings: Settings
) -> None:
    store.upsert_paper("p")
    done = store.start_run("p", "ingest")
    assert done.id is not None
    store.finish_run(done.id, StageResult(), status=RunStatus.approved)
    dead = store.start_run("p", "parse", owner=f"{HOST}:{_dead_pid()}:gone")
    alive = store.start_run("p", "mine")  # this very process: alive
    lines = recover_interrupted(store, settings, "p")
    assert len(lines) == 1 and "the parse run was interrupted" in lines[0] and "is gone" in lines[0]
    assert dead.id is not None and alive.id is not None
    assert store.get_run(dead.id).status == RunStatus.interrupted  # type: ignore[union-attr]
    assert store.get_run(alive.id).status == RunStatus.running  # type: ignore[union-attr]
    assert "parse" not in store.current_runs("p")  # off the checkpoint: due again
    assert recover_interrupted(store, settings, "p") == []  # nothing twice
    # The dead owner's process cannot finish it after all.
    with pytest.raises(LeaseLost):
        store.finish_run(dead.id, StageResult(), status=RunStatus.approved)


def test_an_owner_on_another_host_counts_as_gone_only_when_its_heartbeat_is_stale(
    store: Store,
) -> None:
    store.upsert_paper("p")
    run = store.start_run("p", "setup", owner="elsewhere:4242:t0k3n")
    assert owner_gone(run, stale_after_s=60) is None
    later = utcnow() + timedelta(seconds=90)
    assert owner_gone(run, stale_after_s=60, now=later) == (
        "no heartbeat from elsewhere:4242:t0k3n for 90 s"
    )
    assert run.id is not None and store.heartbeat(run.id)
    renewed = store.get_run(run.id)
    assert (
        renewed is not None and owner_gone(renewed, 60, now=later - timedelta(seconds=40)) is None
    )


def test_this_process_with_another_token_is_a_restarted_pid(store: Store) -> None:
    store.upsert_paper("p")
    me = this_process()
    host, pid, _ = me.split(":")
    run = store.start_run("p", "tasks", owner=f"{host}:{pid}:0ther")
    assert owner_gone(run, 60) == f"process {pid} was restarted"


def test_a_schema_1_store_is_upgraded_and_keeps_its_runs(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    Store(f"sqlite:///{path}").upsert_paper("p")
    db = sqlite3.connect(path)  # make it look like a store written by schema 1
    db.executescript(
        """
        DROP TABLE alembic_version;
        DROP INDEX one_running_run;
        ALTER TABLE stagerun DROP COLUMN owner;
        ALTER TABLE stagerun DROP COLUMN heartbeat_at;
        ALTER TABLE paper DROP COLUMN auto_approve;
        UPDATE meta SET value = '1' WHERE key = 'schema_version';
        INSERT INTO stagerun (paper_id, stage, inputs_hash, model, prompt_version,
            pipeline_version, status, result_status, errors, artifact, cost_usd,
            prompt_tokens, completion_tokens, items, started_at, duration_s, current)
        VALUES ('p', 'parse', '', '', '', '', 'running', '', '[]', '', 0, 0, 0, 0,
            '2026-01-01 00:00:00', 0, 1),
               ('p', 'parse', '', '', '', '', 'running', '', '[]', '', 0, 0, 0, 0,
            '2026-01-01 00:00:01', 0, 1);
        """
    )
    db.commit()
    db.close()
    store = Store(f"sqlite:///{path}")
    statuses = [r.status for r in store.runs("p")]
    assert statuses == [RunStatus.interrupted, RunStatus.running]  # the newest is judged later
    with pytest.raises(LeaseHeld):
        store.start_run("p", "parse")
    assert store.require_paper("p").auto_approve is False
    # An owner it never recorded, silent since January: gone.
    assert "no heartbeat" in (owner_gone(store.runs("p")[1], 120) or "")
