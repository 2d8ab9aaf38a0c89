"""Checkpoint rules: what becomes due, and when a stage closes."""

from __future__ import annotations

import pytest

from expcurate.curation import review
from expcurate.records import PaperListEntry, Stage, StageResult, TaskFields
from expcurate.settings import Settings
from expcurate.store import Store

pytestmark = pytest.mark.databases


def _finish(store: Store, paper: str, stage: Stage, status: str = "awaiting_review") -> int:
    run = store.start_run(paper, stage.value)
    assert run.id is not None
    store.finish_run(run.id, StageResult(), status=status)
    return run.id


def _task(store: Store, paper: str, key: str, stage: Stage) -> int:
    fields = TaskFields(key=key, question=f"Q {key}?", method="m", expected_outcome="o")
    task = store.put_machine_task(paper, fields, stage=stage.value, author="machine:heuristic")
    assert task.id is not None
    return task.id


def test_first_phase_needs_all_three_approved(store: Store) -> None:
    """Tasks are drafted only once ingest, parse and mine are all approved."""
    store.upsert_paper("p")
    assert review.due_stages(store, "p") == [Stage.ingest]
    _finish(store, "p", Stage.ingest, "approved")
    assert review.due_stages(store, "p") == [Stage.parse, Stage.mine]
    parse = _finish(store, "p", Stage.parse)
    mine = _finish(store, "p", Stage.mine)
    assert review.due_stages(store, "p") == []
    outcome = review.approve_run(store, parse, "ann")
    assert outcome.due == []
    outcome = review.approve_run(store, mine, "ann")
    assert outcome.due == [Stage.tasks]


def test_last_open_task_closes_the_stage(store: Store) -> None:
    """Approving or rejecting the last open task approves the stage run and makes the next due."""
    store.upsert_paper("p")
    for s in (Stage.ingest, Stage.parse, Stage.mine):
        _finish(store, "p", s, "approved")
    _finish(store, "p", Stage.tasks)
    a, b = _task(store, "p", "a", Stage.tasks), _task(store, "p", "b", Stage.tasks)
    first = review.decide_task(store, a, "approve", "ann")
    assert not first.stage_complete and first.due == []
    with pytest.raises(review.ReviewError, match="reason"):
        review.decide_task(store, b, "reject", "ann")
    last = review.decide_task(store, b, "reject", "ann", reason="duplicate of a")
    assert last.stage_complete and last.due == [Stage.setup]
    assert store.current_runs("p")["tasks"].status == "approved"
    decisions = [(r.decision, r.reviewer) for r in store.reviews("p")]
    assert decisions == [("approve", "ann"), ("reject", "ann")]


def test_edit_then_approve_records_approve_with_edits(store: Store) -> None:
    store.upsert_paper("p")
    _finish(store, "p", Stage.tasks)
    tid = _task(store, "p", "a", Stage.tasks)
    edited = TaskFields(key="a", question="Better question?", method="m", expected_outcome="o")
    review.decide_task(store, tid, "approve", "ann", fields=edited, expected_head=1)
    assert store.reviews(task_id=tid)[-1].decision == "approve_with_edits"
    assert store.fields(store.require_task(tid)).question == "Better question?"


def test_failed_paper_has_nothing_due(store: Store) -> None:
    store.upsert_paper("p", status="failed", error="bad pdf")
    assert review.due_stages(store, "p") == []


def test_parallel_stage_cannot_hide_a_failure(store: Store) -> None:
    """Parse failing while mine succeeds beside it leaves the paper failed, with the reason."""
    store.upsert_paper("p", status="running")
    _finish(store, "p", Stage.ingest, "approved")
    _finish(store, "p", Stage.parse, "failed")
    _finish(store, "p", Stage.mine, "approved")
    assert review.refresh_paper_status(store, "p") == "failed"
    assert store.require_paper("p").stage == "parse"


def test_curating_a_failed_paper_again_retries_the_failed_stage(store: Store) -> None:
    from expcurate.curation.services import register_paper

    store.upsert_paper("p", status="failed", error="bad pdf")
    _finish(store, "p", Stage.ingest, "approved")
    _finish(store, "p", Stage.parse, "failed")
    _finish(store, "p", Stage.mine, "approved")
    register_paper(store, PaperListEntry(id="p", pdf_url="fixed.pdf", code_url="repo"))
    assert store.require_paper("p").status == "pending"
    assert review.due_stages(store, "p") == [Stage.parse]
    assert [r.status for r in store.runs("p") if r.stage == "parse"] == ["failed"]


def test_a_decision_names_the_revision_seen_and_a_stale_one_is_refused(store: Store) -> None:
    """Reviewer A opened revision 1; B saved revision 2; A's plain Approve is refused, and
    A's decision on revision 2 is recorded as such."""
    from expcurate.store import ConcurrentEditError

    store.upsert_paper("p")
    _finish(store, "p", Stage.tasks)
    tid = _task(store, "p", "a", Stage.tasks)
    theirs = TaskFields(key="a", question="Their question?", method="m", expected_outcome="o")
    store.edit_task(tid, theirs, reviewer="bob", expected_head=1)
    with pytest.raises(
        ConcurrentEditError,
        match=r"changed by reviewer:bob \(revision 2\) after you opened revision 1",
    ):
        review.decide_task(store, tid, "approve", "ann", expected_head=1)
    assert store.require_task(tid).status == "awaiting_review"
    assert store.reviews(task_id=tid) == []
    review.decide_task(store, tid, "approve", "ann", expected_head=2)
    (rec,) = store.reviews(task_id=tid)
    assert (rec.decision, rec.reviewer, rec.revision) == ("approve", "ann", 2)


def test_a_decision_on_a_task_decided_meanwhile_is_refused(store: Store) -> None:
    from expcurate.store import ConcurrentEditError

    store.upsert_paper("p")
    _finish(store, "p", Stage.tasks)
    tid = _task(store, "p", "a", Stage.tasks)
    _task(store, "p", "b", Stage.tasks)  # keeps the stage open
    review.decide_task(store, tid, "reject", "bob", reason="wrong table", expected_head=1)
    with pytest.raises((ConcurrentEditError, review.ReviewError)):
        review.decide_task(store, tid, "approve", "ann", expected_head=1)
    assert store.require_task(tid).status == "rejected"
    with pytest.raises(ConcurrentEditError, match="was rejected by someone else"):
        store.decide(tid, expected_head=1, status="approved", review={"decision": "approve"})


def test_of_many_saves_and_decisions_at_once_exactly_one_wins(store: Store) -> None:
    """Eight threads save on revision 1, then eight decide on the winner's revision: one save
    and one decision land; every other gets the friendly conflict, never a database error."""
    import threading

    from expcurate.store import ConcurrentEditError

    store.upsert_paper("p")
    _finish(store, "p", Stage.tasks)
    tid = _task(store, "p", "a", Stage.tasks)
    _task(store, "p", "b", Stage.tasks)
    outcomes: list[str] = []
    gate = threading.Barrier(8)

    def save(n: int) -> None:
        mine = TaskFields(key="a", question=f"Question {n}?", method="m", expected_outcome="o")
        gate.wait()
        try:
            store.edit_task(tid, mine, reviewer=f"r{n}", expected_head=1)
            outcomes.append("saved")
        except ConcurrentEditError:
            outcomes.append("conflict")

    def decide(n: int) -> None:
        gate.wait()
        try:
            review.decide_task(store, tid, "approve", f"r{n}", expected_head=2, _advance=False)
            outcomes.append("decided")
        except (ConcurrentEditError, review.ReviewError):
            outcomes.append("conflict")

    for work in (save, decide):
        threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert sorted(outcomes) == ["conflict"] * 14 + ["decided", "saved"]
    assert store.require_task(tid).head == 2
    assert [r.revision for r in store.reviews(task_id=tid)] == [2]


def test_the_cli_approval_honours_the_prefect_launcher(
    store: Store, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With EXPCURATE_LAUNCHER=prefect and a server, `expcurate approve` asks for the
    deployment run like the review app; without a server it runs the stage itself."""
    from typer.testing import CliRunner

    import flows.engine
    import flows.launcher
    from expcurate.cli import app

    modes: list[str | None] = []
    monkeypatch.setattr(
        flows.launcher, "start_next", lambda pid, s, mode=None: modes.append(mode) or "x"
    )
    store.upsert_paper("p")
    _finish(store, "p", Stage.ingest, "approved")
    _finish(store, "p", Stage.parse, "approved")
    _finish(store, "p", Stage.mine)
    on = ["--data-dir", str(settings.data_dir), "--db-url", settings.database_url()]
    monkeypatch.setenv("EXPCURATE_LAUNCHER", "prefect")
    server = ["http://127.0.0.1:9/api"]  # a server configured (env or profile), then none
    monkeypatch.setattr(flows.engine, "prefect_server", lambda: server[0])
    result = CliRunner().invoke(app, ["approve", "--paper", "p", "--stage", "mine", *on])
    assert result.exit_code == 0, result.output
    assert modes == ["prefect"] and "started tasks for p" in result.output
    server[0] = ""
    store.upsert_paper("q")
    for stage in (Stage.ingest, Stage.parse):
        _finish(store, "q", stage, "approved")
    _finish(store, "q", Stage.mine)
    result = CliRunner().invoke(app, ["approve", "--paper", "q", "--stage", "mine", *on])
    assert result.exit_code == 0, result.output
    assert modes == ["prefect", "inline"]
