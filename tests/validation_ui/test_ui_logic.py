"""The review app's rules without Streamlit: queue, decisions, conflicts, retries, releases."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from ui_helpers import finish_run, simple_task

from expcurate.records import Flag, Severity, Stage, StageResult, TaskStatus
from expcurate.settings import Settings
from expcurate.store import Store, StoreError
from validation_ui import logic, overview
from validation_ui.logic import Actor, QueueFilter

pytestmark = pytest.mark.databases

RITA = Actor("rita", "reviewer")
OMAR = Actor("omar", "reviewer")
CURT = Actor("curt", "curator")


class Launches:
    """Stands in for the launcher: records which papers it was asked to advance."""

    def __init__(self, fail: bool = False) -> None:
        self.papers: list[str] = []
        self.fail = fail

    def __call__(self, paper_id: str) -> str:
        if self.fail:
            raise ConnectionError("Prefect server unreachable")
        self.papers.append(paper_id)
        return "background process 4242"


def _tasks_stage(store: Store, paper: str = "p", n: int = 2, **flags: str) -> list[int]:
    """A paper past its first phase with `n` drafted tasks awaiting review."""
    store.upsert_paper(paper)
    for stage in ("ingest", "parse", "mine"):
        finish_run(store, paper, stage)
    finish_run(store, paper, "tasks", "awaiting_review")
    ids = []
    for i in range(n):
        task = store.put_machine_task(
            paper, simple_task(f"k{i}"), stage="tasks", author="machine:heuristic", position=i,
            flags=[Flag.model_validate(flags)] if flags else (),
        )  # fmt: skip
        assert task.id is not None
        ids.append(task.id)
    return ids


def test_queue_lists_checkpoints_then_tasks_in_pipeline_order(store: Store) -> None:
    store.upsert_paper("a")
    store.upsert_paper("b")
    finish_run(store, "a", "mine", "awaiting_review")
    finish_run(store, "a", "ingest", "approved")
    store.put_machine_task("a", simple_task("t2"), stage="setup", author="m", position=2)
    store.put_machine_task("a", simple_task("t1"), stage="tasks", author="m", position=1)
    store.put_machine_task("b", simple_task("t0"), stage="tasks", author="m", position=0)
    items = logic.build_queue(store)
    assert [(i.paper_id, i.kind, i.stage) for i in items] == [
        ("a", "checkpoint", "ingest"),
        ("a", "checkpoint", "mine"),
        ("a", "task", "tasks"),
        ("a", "task", "setup"),
        ("b", "task", "tasks"),
    ]
    counts = logic.stage_counts(items)
    assert counts == {"ingest": 0, "parse": 0, "mine": 1, "tasks": 2, "setup": 1, "package": 0}


def test_queue_filters_by_paper_stage_status_and_flags(store: Store) -> None:
    _tasks_stage(store, "p", 1, check="outcome_grounded", severity="error", message="m")
    _tasks_stage(store, "q", 1, check="near_duplicate", severity="warning", message="m")
    _tasks_stage(store, "r", 1)
    items = logic.build_queue(store)

    def keys(f: QueueFilter) -> list[str]:
        return [f"{i.paper_id}:{i.kind}" for i in logic.filter_queue(items, f)]

    assert keys(QueueFilter()) == ["p:task", "q:task", "r:task"]
    assert keys(QueueFilter(papers=("q",))) == ["q:task"]
    assert keys(QueueFilter(flags="with errors")) == ["p:task"]
    assert keys(QueueFilter(flags="with warnings")) == ["q:task"]
    assert keys(QueueFilter(flags="clean")) == ["r:task"]
    assert keys(QueueFilter(flags="check:near_duplicate")) == ["q:task"]
    assert keys(QueueFilter(status="approved", stages=("ingest",))) == [
        "p:checkpoint", "q:checkpoint", "r:checkpoint",
    ]  # fmt: skip
    assert logic.flag_checks(items) == ["near_duplicate", "outcome_grounded"]


def test_next_item_goes_forward_wraps_and_leaves_skipped_for_last(store: Store) -> None:
    ids = _tasks_stage(store, "p", 3)
    items = logic.filter_queue(logic.build_queue(store), QueueFilter())
    refs = [f"task:{i}" for i in ids]
    first = logic.next_item(items)
    assert first is not None and first.ref == refs[0]
    after_second = logic.next_item(items, current=refs[1])
    assert after_second is not None and after_second.ref == refs[2]
    wrapped = logic.next_item(items, current=refs[2])
    assert wrapped is not None and wrapped.ref == refs[0]
    fresh = logic.next_item(items, current=refs[2], skipped={refs[0]})
    assert fresh is not None and fresh.ref == refs[1]
    only_skipped = logic.next_item(items, current=refs[2], skipped={refs[0], refs[1]})
    assert only_skipped is not None and only_skipped.ref == refs[0]
    assert logic.next_item([i for i in items if i.ref == refs[0]], current=refs[0]) is None


def test_next_item_after_a_decision_is_the_one_after_it_not_the_first(store: Store) -> None:
    """The decided item has left the filtered queue; its place is found in the queue as shown."""
    ids = _tasks_stage(store, "p", 4)
    refs = [f"task:{i}" for i in ids]
    before = [it.ref for it in logic.filter_queue(logic.build_queue(store), QueueFilter())]
    store.set_task_status(ids[1], TaskStatus.approved)  # the reviewer approved the second
    after = logic.filter_queue(logic.build_queue(store), QueueFilter())
    assert refs[1] not in [it.ref for it in after]
    nxt = logic.next_item(after, current=refs[1], before=before)
    assert nxt is not None and nxt.ref == refs[2]
    assert logic.next_item(after, current=refs[1]).ref == refs[0]  # type: ignore[union-attr]


def test_approve_with_edit_records_who_and_the_revision(store: Store) -> None:
    tid, _ = _tasks_stage(store)
    edited = store.fields(store.require_task(tid)).model_copy(update={"question": "Better?"})
    result = logic.decide_item(
        store, tid, "approve", RITA, base_head=1, launch=Launches(), fields=edited
    )
    assert result.ok and result.message.startswith(f"Approved with edits task {tid} (revision 2)")
    head = store.revisions(tid)[-1]
    assert (head.number, head.author, head.kind, head.base) == (2, "reviewer:rita", "reviewer", 1)
    review = store.reviews(task_id=tid)[-1]
    assert (review.decision, review.reviewer, review.revision) == ("approve_with_edits", "rita", 2)
    assert store.require_task(tid).status == "approved"


def test_unchanged_edit_is_a_plain_approval(store: Store) -> None:
    tid, _ = _tasks_stage(store)
    same = store.fields(store.require_task(tid))
    result = logic.decide_item(
        store, tid, "approve", RITA, base_head=1, launch=Launches(), fields=same
    )
    assert result.ok
    assert len(store.revisions(tid)) == 1
    assert store.reviews(task_id=tid)[-1].decision == "approve"


def test_reject_needs_a_reason_and_leaves_the_task_open(store: Store) -> None:
    tid, _ = _tasks_stage(store)
    result = logic.decide_item(store, tid, "reject", RITA, base_head=1, launch=Launches())
    assert not result.ok and "reason" in result.message
    assert store.require_task(tid).status == "awaiting_review"
    result = logic.decide_item(
        store, tid, "reject", RITA, base_head=1, launch=Launches(), reason="duplicate of k1"
    )
    assert result.ok
    assert store.require_task(tid).status == "rejected"
    assert store.reviews(task_id=tid)[-1].reason == "duplicate of k1"


def test_second_save_on_the_same_revision_is_refused_and_shows_the_first(store: Store) -> None:
    """Two reviewers open revision 1; the second save must not overwrite the first."""
    tid, _ = _tasks_stage(store)
    base = store.fields(store.require_task(tid))
    first = logic.save_edit(
        store, tid, base.model_copy(update={"method": "Rita's method"}), RITA, base_head=1
    )
    assert first.ok
    second = logic.save_edit(
        store, tid, base.model_copy(update={"method": "Omar's method"}), OMAR, base_head=1
    )
    assert not second.ok and second.level == "error"
    assert second.conflict is not None and second.conflict.author == "reviewer:rita"
    assert "rita saved revision 2" in second.message and "your edit is kept" in second.message
    assert store.fields(store.require_task(tid)).method == "Rita's method"
    # Once Omar has seen Rita's version he can save on top of it.
    third = logic.save_edit(
        store, tid, base.model_copy(update={"method": "Omar's method"}), OMAR, base_head=2
    )
    assert third.ok and store.fields(store.require_task(tid)).method == "Omar's method"


def test_approving_text_someone_changed_since_is_refused(store: Store) -> None:
    """Even without an edit of one's own: nobody approves a revision they have not seen."""
    tid, _ = _tasks_stage(store)
    changed = store.fields(store.require_task(tid)).model_copy(update={"question": "Changed?"})
    store.edit_task(tid, changed, reviewer="omar", expected_head=1)
    result = logic.decide_item(store, tid, "approve", RITA, base_head=1, launch=Launches())
    assert not result.ok and result.conflict is not None and result.conflict.number == 2
    assert "The form now shows their version" in result.message
    assert store.require_task(tid).status == "awaiting_review"


def test_last_open_item_starts_the_next_stage_and_says_so(store: Store) -> None:
    a, b = _tasks_stage(store)
    launches = Launches()
    first = logic.decide_item(store, a, "approve", RITA, base_head=1, launch=launches)
    assert first.ok and launches.papers == [] and "started" not in first.message
    last = logic.decide_item(store, b, "reject", RITA, base_head=1, launch=launches, reason="dup")
    assert launches.papers == ["p"]
    assert last.started == "background process 4242"
    assert "last open item of tasks for p: started setup (background process 4242)" in last.message


def test_a_launch_failure_keeps_the_decision_and_says_what_to_do(store: Store) -> None:
    (tid,) = _tasks_stage(store, n=1)
    result = logic.decide_item(store, tid, "approve", RITA, base_head=1, launch=Launches(fail=True))
    assert result.ok and result.level == "warning"
    assert "starting setup failed (ConnectionError: Prefect server unreachable)" in result.message
    assert "curator can start it" in result.message
    assert store.require_task(tid).status == "approved"


def test_skip_is_recorded_and_changes_nothing_else(store: Store) -> None:
    (tid,) = _tasks_stage(store, n=1)
    result = logic.decide_item(store, tid, "skip", RITA, base_head=1, launch=Launches())
    assert result.ok
    assert store.require_task(tid).status == "awaiting_review"
    assert [(r.decision, r.reviewer) for r in store.reviews(task_id=tid)] == [("skip", "rita")]


def test_roles_limit_what_an_actor_may_do(store: Store) -> None:
    (tid,) = _tasks_stage(store, n=1)
    result = logic.decide_item(store, tid, "approve", CURT, base_head=1, launch=Launches())
    assert not result.ok and "curt is a curator" in result.message
    assert store.require_task(tid).status == "awaiting_review"
    run = finish_run(store, "p", "setup", "failed")
    assert run
    assert not logic.retry(store, "p", Stage.setup, RITA, Launches()).ok
    assert logic.can("admin", "review") and logic.can("admin", "retry")
    assert not logic.can("reviewer", "publish") and logic.can("curator", "publish")


def test_approving_the_last_first_phase_checkpoint_starts_tasks(store: Store) -> None:
    store.upsert_paper("p")
    runs = [finish_run(store, "p", s, "awaiting_review") for s in ("ingest", "parse", "mine")]
    launches = Launches()
    for run_id in runs[:2]:
        result = logic.decide_checkpoint(store, run_id, "approve", RITA, launch=launches)
        assert result.ok and launches.papers == []
    result = logic.decide_checkpoint(store, runs[2], "approve", RITA, launch=launches)
    assert launches.papers == ["p"] and "started tasks" in result.message
    assert [r.reviewer for r in store.reviews("p")] == ["rita"] * 3


def test_rejecting_a_checkpoint_needs_a_reason_and_fails_the_paper(store: Store) -> None:
    store.upsert_paper("p")
    run = finish_run(store, "p", "parse", "awaiting_review")
    assert not logic.decide_checkpoint(store, run, "reject", RITA, launch=Launches()).ok
    result = logic.decide_checkpoint(
        store, run, "reject", RITA, launch=Launches(), reason="tables lost their columns"
    )
    assert result.ok
    paper = store.require_paper("p")
    assert paper.status == "failed" and "tables lost their columns" in paper.error


def test_retry_puts_a_failed_stage_back_and_starts_it(store: Store) -> None:
    store.upsert_paper("p")
    for stage in ("ingest", "parse", "mine"):
        finish_run(store, "p", stage)
    failed = store.start_run("p", "tasks")
    assert failed.id is not None
    result = StageResult()
    result.add_error("tasks", "model", "model X needs OPENAI_API_KEY")
    store.finish_run(failed.id, result, status="failed")
    store.set_paper_status("p", "failed", "tasks", "model X needs OPENAI_API_KEY")
    rows = {r.stage: r for r in overview.stage_rows(store, "p")}
    assert rows["tasks"].retryable and rows["tasks"].errors[0]["category"] == "model"
    launches = Launches()
    outcome = logic.retry(store, "p", Stage.tasks, CURT, launches)
    assert outcome.ok and outcome.message == "Started tasks for p (background process 4242)."
    assert launches.papers == ["p"]
    assert "tasks" not in store.current_runs("p")  # the failed run is history now
    assert store.require_paper("p").status == "pending"
    assert store.reviews("p")[-1].decision == "retry" and store.reviews("p")[-1].reviewer == "curt"


def test_retry_refuses_a_stage_that_did_not_fail(store: Store) -> None:
    store.upsert_paper("p")
    finish_run(store, "p", "ingest", "awaiting_review")
    result = logic.retry(store, "p", Stage.ingest, CURT, Launches())
    assert not result.ok and "only a failed or rejected stage" in result.message


def test_retry_of_a_paper_that_failed_before_any_run_reruns_ingest(store: Store) -> None:
    store.upsert_paper("p", status="failed", stage="ingest", error="PDF not found")
    rows = {r.stage: r for r in overview.stage_rows(store, "p")}
    assert rows["ingest"].retryable and rows["ingest"].errors[0]["message"] == "PDF not found"
    launches = Launches()
    assert logic.retry(store, "p", Stage.ingest, CURT, launches).ok
    assert launches.papers == ["p"]


def test_stage_rows_report_cost_tokens_and_time(store: Store) -> None:
    store.upsert_paper("p")
    run = store.start_run("p", "tasks", model="gpt-x")
    assert run.id is not None
    store.finish_run(run.id, StageResult(), status="approved", cost_usd=0.25, prompt_tokens=900,
                     completion_tokens=100, items=3)  # fmt: skip
    row = next(r for r in overview.stage_rows(store, "p") if r.stage == "tasks")
    assert (row.status, row.cost_usd, row.tokens, row.items, row.model) == (
        "approved", 0.25, 1000, 3, "gpt-x",
    )  # fmt: skip
    assert row.finished_at is not None and row.duration_s >= 0


def test_release_zip_is_stable_and_stays_in_the_published_folder(settings: Settings) -> None:
    rel = settings.published_dir / "r1"
    (rel / "outputs").mkdir(parents=True)
    (rel / "manifest.json").write_text("{}\n")
    (rel / "outputs" / "a.json").write_text('{"questions": []}\n')
    first = overview.release_zip(settings, "published/r1")
    assert first == overview.release_zip(settings, "published/r1")
    names = zipfile.ZipFile(io.BytesIO(first)).namelist()
    assert names == ["r1/manifest.json", "r1/outputs/a.json"]
    outside = settings.resolved_data_dir() / "artifacts"
    outside.mkdir(parents=True)
    with pytest.raises(StoreError):
        overview.release_zip(settings, "artifacts")
    with pytest.raises(StoreError):
        overview.release_zip(settings, str(Path("published") / ".." / ".."))


def test_retry_before_upstream_is_approved_waits_and_says_so(store: Store) -> None:
    store.upsert_paper("p")
    for stage in ("ingest", "parse", "mine"):
        finish_run(store, "p", stage)
    finish_run(store, "p", "tasks", "awaiting_review")
    finish_run(store, "p", "setup", "failed")
    launches = Launches()
    result = logic.retry(store, "p", Stage.setup, CURT, launches)
    assert result.ok and launches.papers == []
    assert "runs again once the stages before it are approved" in result.message


def test_override_accepts_errors_for_the_current_revision_only(store: Store) -> None:
    """A reviewer's override with a reason unblocks publishing; an edit after it re-blocks."""
    from expcurate.curation import review

    (tid,) = _tasks_stage(store, n=1, check="outcome_grounded", severity="error", message="x")
    task = store.require_task(tid)
    assert review.unresolved_errors(store, task)
    assert not logic.override_item(store, tid, RITA, "  ").ok
    assert not logic.override_item(store, tid, CURT, "checked by hand").ok
    assert logic.override_item(store, tid, RITA, "number is in the appendix table").ok
    assert review.unresolved_errors(store, store.require_task(tid)) == []
    fields = store.fields(store.require_task(tid)).model_copy(update={"method": "edited"})
    logic.save_edit(store, tid, fields, OMAR, base_head=store.require_task(tid).head)
    assert review.unresolved_errors(store, store.require_task(tid))


def test_queue_puts_clean_drafts_of_a_stage_before_flagged_ones(store: Store) -> None:
    """Within one paper's stage the reviewer meets the most promising drafts first: clean,
    then warned, then those with errors; the drafting order decides among equals."""
    flags = {
        0: [Flag(check="self_comparison", severity=Severity.error, message="m")],
        1: [Flag(check="near_duplicate", severity=Severity.warning, message="m")],
        2: [],
        3: [],
    }
    store.upsert_paper("p")
    for position, found in flags.items():
        store.put_machine_task(
            "p", simple_task(f"t{position}"), stage="tasks", author="m", position=position,
            flags=found,
        )  # fmt: skip
    items = [i for i in logic.build_queue(store) if i.kind == "task"]
    assert [i.position for i in items] == [2, 3, 1, 0]


def test_the_queue_and_its_titles_take_the_same_statements_however_many_papers(
    tmp_path: Path,
) -> None:
    """Three queries build the queue and one names a page of it: a store ten times larger
    sends the same statements (the benchmark, benchmarks/review_scale.py, times them)."""
    import sys

    from sqlalchemy import event

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from review_scale import fill

    counts = []
    for n in (2, 20):
        store = Store(f"sqlite:///{tmp_path / f's{n}.db'}")
        fill(store, n, 3)
        seen: list[str] = []
        event.listen(store.engine, "before_cursor_execute", lambda *a, seen=seen: seen.append(a[2]))
        items = logic.build_queue(store)
        page = items[:50]
        titles = logic.item_titles(store, page)
        assert len(items) == n * 6  # five runs (three of them checkpoints) and three tasks
        task = next(it for it in page if it.kind == "task")
        assert titles[task.ref].startswith("Does method")
        counts.append(len(seen))
    assert counts[0] == counts[1]
