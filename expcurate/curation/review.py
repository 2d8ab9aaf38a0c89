"""Checkpoint logic: decisions on stage runs and tasks, and what becomes due after them.

Plain functions over the store, shared by the CLI and the review app, so the rules
("approving the last open item of a stage starts the next") live in one tested place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from expcurate.records import (
    FIRST_PHASE,
    RETRYABLE,
    TASK_STAGES,
    Flag,
    PaperStatus,
    RunStatus,
    Severity,
    Stage,
    TaskFields,
    TaskStatus,
)
from expcurate.store import Store, StoreError
from expcurate.store.rows import Review, StageRun, Task

DECISIONS = ("approve", "approve_with_edits", "reject", "skip")
# Paper.model of a paper imported from EXP-Bench files: it has tasks but no stages to run.
IMPORTED_MODEL = "import:expbench"


class ReviewError(StoreError):
    """A decision that cannot be taken (wrong state, missing reason)."""


@dataclass
class Outcome:
    """What a decision did: the paper it touched and the stages now due."""

    paper_id: str
    stage: str
    stage_complete: bool = False
    due: list[Stage] = field(default_factory=list)


def due_stages(store: Store, paper_id: str) -> list[Stage]:
    """Stages that can run now: inputs present and every upstream checkpoint approved."""
    paper = store.require_paper(paper_id)
    if paper.status == PaperStatus.failed or paper.model == IMPORTED_MODEL:
        return []
    runs = store.current_runs(paper_id)
    if Stage.ingest.value not in runs:
        return [Stage.ingest]
    if runs[Stage.ingest.value].status == RunStatus.failed:
        return []
    missing = [s for s in FIRST_PHASE if s.value not in runs]
    if missing:
        return missing
    for phase in [FIRST_PHASE, *[(s,) for s in TASK_STAGES]]:
        present = [runs.get(s.value) for s in phase]
        if any(r is None for r in present):
            return [s for s, r in zip(phase, present, strict=True) if r is None]
        if any(r is not None and r.status != RunStatus.approved for r in present):
            return []
    return []


def refresh_paper_status(store: Store, paper_id: str) -> str:
    """Derive the paper's status from its stage runs: the one rule for 'ready'."""
    paper = store.require_paper(paper_id)
    runs = store.current_runs(paper_id)
    if paper.status == PaperStatus.failed:
        return paper.status
    if paper.model == IMPORTED_MODEL:  # only its package-stage tasks decide
        status = (
            PaperStatus.awaiting_review
            if open_items(store, paper_id, Stage.package)
            else PaperStatus.ready
        )
        store.set_paper_status(paper_id, status, Stage.package.value)
        return status
    present = [s for s in Stage if s.value in runs]
    failed = [s for s in present if runs[s.value].status in (RunStatus.failed, RunStatus.rejected)]
    if failed:  # a stage that failed while another ran beside it still fails the paper
        run = runs[failed[0].value]
        reason = paper.error or "; ".join(str(e.get("message", "")) for e in run.errors)
        store.set_paper_status(
            paper_id, PaperStatus.failed, run.stage, reason or f"{run.stage} {run.status}"
        )
        return PaperStatus.failed
    waiting = [s for s in present if runs[s.value].status == RunStatus.awaiting_review]
    if len(present) == len(Stage) and all(
        runs[s.value].status == RunStatus.approved for s in present
    ):
        status, stage = PaperStatus.ready, Stage.package.value
    elif waiting:
        status, stage = PaperStatus.awaiting_review, waiting[0].value
    else:
        status, stage = (
            (PaperStatus.running if due_stages(store, paper_id) else PaperStatus.pending),
            (present[-1].value if present else ""),
        )
    store.set_paper_status(paper_id, status, stage)
    return status


def open_items(store: Store, paper_id: str, stage: Stage) -> list[Task]:
    return store.tasks(paper_id, stage=stage.value, status=TaskStatus.awaiting_review)


def _close_stage_if_done(store: Store, paper_id: str, stage: Stage) -> bool:
    run = store.current_runs(paper_id).get(stage.value)
    if run is None or run.id is None:
        return False
    if stage in TASK_STAGES and open_items(store, paper_id, stage):
        return False
    if stage in FIRST_PHASE and run.status != RunStatus.approved:
        return False
    if run.status == RunStatus.awaiting_review:
        store.set_run_status(run.id, RunStatus.approved)
    return True


def _after(store: Store, paper_id: str, stage: Stage) -> Outcome:
    complete = _close_stage_if_done(store, paper_id, stage)
    due = due_stages(store, paper_id) if complete else []
    refresh_paper_status(store, paper_id)
    return Outcome(paper_id=paper_id, stage=stage.value, stage_complete=complete, due=due)


def approve_run(store: Store, run_id: int, reviewer: str, reason: str = "") -> Outcome:
    """Approve a stage's checkpoint; for task stages, every open task with it."""
    run = store.get_run(run_id)
    if run is None:
        raise ReviewError(f"no stage run {run_id}")
    if run.status not in (RunStatus.awaiting_review, RunStatus.approved):
        raise ReviewError(
            f"stage run {run_id} is {run.status}; only a run awaiting review can be approved"
        )
    stage = Stage(run.stage)
    if stage in TASK_STAGES:
        _approve_open_items(store, run.paper_id, stage, reviewer, reason)
    store.set_run_status(run_id, RunStatus.approved)
    _record_decision(store, run, "approve", reviewer, reason)
    return _after(store, run.paper_id, stage)


def _record_decision(
    store: Store, run: StageRun, decision: str, reviewer: str, reason: str
) -> None:
    """The review row of a decision on a whole stage run."""
    store.add_review(
        paper_id=run.paper_id,
        stage=run.stage,
        stage_run_id=run.id,
        decision=decision,
        reason=reason,
        reviewer=reviewer,
    )


def _approve_open_items(
    store: Store, paper_id: str, stage: Stage, reviewer: str, reason: str
) -> None:
    for task in open_items(store, paper_id, stage):
        assert task.id is not None
        decide_task(store, task.id, "approve", reviewer, reason=reason, _advance=False)


def approve_stage(
    store: Store, paper_id: str, stage: Stage, reviewer: str, reason: str = ""
) -> Outcome:
    run = store.current_runs(paper_id).get(stage.value)
    paper = store.require_paper(paper_id)
    if run is None and paper.model == IMPORTED_MODEL and stage == Stage.package:
        # An imported paper has tasks but no stage runs: approve its open tasks.
        _approve_open_items(store, paper_id, stage, reviewer, reason)
        return _after(store, paper_id, stage)
    if run is None or run.id is None:
        raise ReviewError(f"paper {paper_id} has no {stage.value} run to approve")
    return approve_run(store, run.id, reviewer, reason)


def reject_run(store: Store, run_id: int, reviewer: str, reason: str) -> StageRun:
    if not reason.strip():
        raise ReviewError("a rejection needs a reason the curator can act on")
    run = store.get_run(run_id)
    if run is None:
        raise ReviewError(f"no stage run {run_id}")
    _record_decision(store, run, "reject", reviewer, reason)
    store.set_paper_status(
        run.paper_id, PaperStatus.failed, run.stage, f"rejected by {reviewer}: {reason}"
    )
    return store.set_run_status(run_id, RunStatus.rejected)


def decide_task(
    store: Store,
    task_id: int,
    decision: str,
    reviewer: str,
    *,
    reason: str = "",
    fields: TaskFields | None = None,
    expected_head: int | None = None,
    _advance: bool = True,
) -> Outcome:
    """Record a reviewer's decision on one task (and their edit, if any).

    `expected_head` is the revision the reviewer saw: a decision is refused with
    `ConcurrentEditError` when the task has a newer revision or was decided meanwhile (None:
    the current revision, for callers that show none, such as the command line)."""
    if decision not in DECISIONS:
        raise ReviewError(f"unknown decision {decision!r}; use one of {', '.join(DECISIONS)}")
    task = store.require_task(task_id)
    stage = Stage(task.stage)
    if task.status != TaskStatus.awaiting_review and decision != "skip":
        raise ReviewError(
            f"task {task_id} is {task.status} at stage {task.stage}, not awaiting review"
        )
    if decision == "reject" and not reason.strip():
        raise ReviewError("a rejection needs a reason")
    if fields is not None:
        if expected_head is None:
            raise ReviewError("an edit must say which revision it was made on (expected_head)")
        rev = store.edit_task(task_id, fields, reviewer=reviewer, expected_head=expected_head)
        expected_head = rev.number  # the decision is on the edit just saved
        if decision == "approve":
            decision = "approve_with_edits"
    elif decision == "approve_with_edits":
        raise ReviewError("approve_with_edits needs the edited fields")
    seen = task.head if expected_head is None else expected_head
    record = {
        "paper_id": task.paper_id,
        "stage": task.stage,
        "decision": decision,
        "reason": reason,
        "reviewer": reviewer,
    }
    if decision == "skip":  # no decision on the task: nothing to refuse
        store.add_review(task_id=task_id, revision=seen, **record)
    else:
        status = TaskStatus.rejected if decision == "reject" else TaskStatus.approved
        store.decide(task_id, expected_head=seen, status=status, review=record)
        if status == TaskStatus.approved:
            _settle(store, task_id)
    if not _advance:
        return Outcome(paper_id=task.paper_id, stage=stage.value)
    return _after(store, task.paper_id, stage)


# Flags that ask a reviewer to choose, not the task to change: approving the task is the
# choice (a merge's two values, a reference the code moved under), so they go with it.
SETTLED_BY_APPROVAL = frozenset({"merge_conflict", "reference_drift"})


def _settle(store: Store, task_id: int) -> None:
    task = store.require_task(task_id)
    flags = task.flag_list()
    kept = [f for f in flags if f.check not in SETTLED_BY_APPROVAL]
    if len(kept) != len(flags):
        store.set_flags(task_id, kept)


def retry_stage(store: Store, paper_id: str, stage: Stage, curator: str) -> list[Stage]:
    """Put a failed or rejected stage back on the schedule; returns the stages now due.

    The old run stays in the history (no longer current) and the retry is recorded as a
    review, so the paper's timeline shows who asked for it and when. The caller starts the
    due stages (launcher), exactly as after an approval.
    """
    paper = store.require_paper(paper_id)
    run = store.current_runs(paper_id).get(stage.value)
    if run is not None and run.status not in RETRYABLE:
        raise ReviewError(
            f"the {stage.value} stage of {paper_id} is {run.status}; only a failed or "
            "rejected stage can be retried"
        )
    if run is None and paper.status != PaperStatus.failed:
        raise ReviewError(f"paper {paper_id} has no failed {stage.value} run to retry")
    if run is not None and run.id is not None:
        store.retire_run(run.id)
    store.set_paper_status(paper_id, PaperStatus.pending, stage.value, "")
    store.add_review(
        paper_id=paper_id,
        stage=stage.value,
        stage_run_id=run.id if run else None,
        decision="retry",
        reason=f"retry after: {paper.error or (run.status if run else '')}",
        reviewer=curator,
    )
    return due_stages(store, paper_id)


def error_flags(task: Task) -> list[Flag]:
    return [f for f in task.flag_list() if f.severity == Severity.error]


def override_errors(store: Store, task_id: int, reviewer: str, reason: str) -> Review:
    """Accept a task's error flags with a reason, so it can be published as it stands.

    The override holds for the revision it was made on: an edit afterwards needs a new one,
    because the flags it accepted may no longer describe the task.
    """
    if not reason.strip():
        raise ReviewError("an override needs a reason a later reader can check")
    task = store.require_task(task_id)
    if not error_flags(task):
        raise ReviewError(f"task {task_id} has no error flags to override")
    return store.add_review(
        paper_id=task.paper_id,
        stage=task.stage,
        task_id=task_id,
        revision=task.head,
        decision="override",
        reason=reason,
        reviewer=reviewer,
    )


def unresolved_errors(store: Store, task: Task) -> list[Flag]:
    """Error flags that block publishing: none once overridden on the current revision."""
    errors = error_flags(task)
    if not errors or task.id is None:
        return errors
    overridden = any(
        r.decision == "override" and r.revision == task.head for r in store.reviews(task_id=task.id)
    )
    return [] if overridden else errors
