"""The review app's rules as plain functions over the store: who may do what, the queue, and
what a decision does (save, decide, start the next stage, say so).

Pages call these and only render; everything here is tested without Streamlit. Starting the
next stage is passed in as `launch(paper_id) -> how`, so tests can see it called and the app
can use `expcurate.launcher.start_next`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from expcurate.curation import review
from expcurate.records import FIRST_PHASE, STAGE_ORDER, Flag, Stage, TaskFields, TaskStatus
from expcurate.store import ConcurrentEditError, Store, StoreError
from expcurate.store.rows import Task, TaskRevision

Launch = Callable[[str], str]
Level = Literal["success", "info", "warning", "error"]

PERMISSIONS: dict[str, frozenset[str]] = {
    "review": frozenset({"reviewer", "admin"}),  # edit, approve, reject, skip
    "retry": frozenset({"curator", "admin"}),  # retry a failed stage, start due stages
    "publish": frozenset({"curator", "admin"}),  # build a release
    "users": frozenset({"admin"}),  # add users in the app
}
STATUS_CHOICES = (*TaskStatus, "all")
FLAG_CHOICES = ("any", "with errors", "with warnings", "clean")


def can(role: str, action: str) -> bool:
    return role in PERMISSIONS.get(action, frozenset())


@dataclass(frozen=True)
class Actor:
    """Who is acting: recorded on every revision and review."""

    username: str
    role: str


class NotAllowed(PermissionError):
    pass


def _require(actor: Actor, action: str) -> None:
    if not can(actor.role, action):
        roles = " or ".join(sorted(PERMISSIONS[action]))
        raise NotAllowed(f"{actor.username} is a {actor.role}; this needs a {roles}")


# ------------------------------------------------------------------ the queue


@dataclass(frozen=True)
class QueueItem:
    """One thing to review: a task, or a first-phase stage run (ingest, parse, mine)."""

    kind: Literal["task", "checkpoint"]
    id: int
    paper_id: str
    stage: str
    status: str
    position: int = 0
    flags: tuple[Flag, ...] = ()

    @property
    def ref(self) -> str:
        return f"{self.kind}:{self.id}"

    def severities(self) -> set[str]:
        return {f.severity.value for f in self.flags}


def _run_flags(errors: list[dict[str, Any]]) -> tuple[Flag, ...]:
    """A first-phase run's recorded errors, shown and filtered like a task's flags."""
    return tuple(
        Flag(check=e.get("category", "error"), severity=e.get("severity", "error"),
             message=e.get("message", ""))
        for e in errors
    )  # fmt: skip


def build_queue(store: Store) -> list[QueueItem]:
    """Every reviewable item, in paper order, then stage order, then position in the paper.

    Three queries, however large the store, reading only the columns a queue row shows."""
    items: list[QueueItem] = []
    papers = store.paper_ids()
    for rid, pid, stage, status, errors in store.checkpoint_summaries(
        [s.value for s in FIRST_PHASE]
    ):
        items.append(QueueItem("checkpoint", rid, pid, stage, status, flags=_run_flags(errors)))
    for tid, pid, stage, status, position, flags in store.task_summaries():
        items.append(QueueItem("task", tid, pid, stage, status, position, _flags(flags)))
    order = {s.value: i for i, s in enumerate(STAGE_ORDER)}
    rank = {pid: i for i, pid in enumerate(papers)}
    items.sort(
        key=lambda it: (
            rank.get(it.paper_id, 0),
            order.get(it.stage, 99),
            _promise(it),
            it.position,
        )
    )
    return items


_FLAGS: dict[str, Flag] = {}


def _flags(raw: list[dict[str, Any]]) -> tuple[Flag, ...]:
    """Stored flags as records, each distinct one validated once per process (thousands
    of tasks share a handful of messages)."""
    out = []
    for f in raw:
        key = repr(f)  # as stored; the same validator writes the same dict the same way
        flag = _FLAGS.get(key)
        if flag is None:
            if len(_FLAGS) > 50_000:
                _FLAGS.clear()
            flag = _FLAGS[key] = Flag.model_validate(f)
        out.append(flag)
    return tuple(out)


def _promise(item: QueueItem) -> int:
    """Most promising first within a stage: clean drafts, then warned, then those with errors
    (a task's position already puts the paper's headline results first)."""
    sev = item.severities()
    return 2 if "error" in sev else 1 if "warning" in sev else 0


@dataclass(frozen=True)
class QueueFilter:
    papers: tuple[str, ...] = ()
    stages: tuple[str, ...] = ()
    status: str = TaskStatus.awaiting_review  # one of STATUS_CHOICES
    flags: str = "any"  # one of FLAG_CHOICES, or "check:<name>"


def matches(item: QueueItem, f: QueueFilter) -> bool:
    if f.papers and item.paper_id not in f.papers:
        return False
    if f.stages and item.stage not in f.stages:
        return False
    if f.status != "all" and item.status != f.status:
        return False
    sev = item.severities()
    if f.flags == "with errors":
        return "error" in sev
    if f.flags == "with warnings":
        return "warning" in sev
    if f.flags == "clean":
        return not ({"error", "warning"} & sev)
    if f.flags.startswith("check:"):
        return any(fl.check == f.flags[6:] for fl in item.flags)
    return True


def filter_queue(items: Iterable[QueueItem], f: QueueFilter) -> list[QueueItem]:
    return [it for it in items if matches(it, f)]


def stage_counts(
    items: Iterable[QueueItem | Task], status: str = TaskStatus.awaiting_review
) -> dict[str, int]:
    """Queue items or tasks per stage (every stage listed, zeros included, in pipeline
    order), of `status` or, with "all", of any status."""
    counts = {s.value: 0 for s in STAGE_ORDER}
    for it in items:
        if status == "all" or it.status == status:
            counts[it.stage] = counts.get(it.stage, 0) + 1
    return counts


def flag_checks(items: Iterable[QueueItem]) -> list[str]:
    return sorted({f.check for it in items for f in it.flags if f.check})


def next_item(
    items: list[QueueItem],
    current: str | None = None,
    skipped: Iterable[str] = (),
    before: Sequence[str] = (),
) -> QueueItem | None:
    """The next item awaiting review after `current`, wrapping around; skipped ones come last.

    `before` is the queue's order as it was shown: after a decision the decided item has left
    the filtered queue, and its place is found there (else "next" is the first open item)."""
    open_items = [
        it for it in items if it.status == TaskStatus.awaiting_review and it.ref != current
    ]
    if not open_items:
        return None
    skip = set(skipped)
    fresh = [it for it in open_items if it.ref not in skip] or open_items
    refs = list(before) if current in before else [it.ref for it in items]
    if current in refs:
        here = refs.index(current)
        later = [it for it in fresh if it.ref not in refs or refs.index(it.ref) > here]
        if later:
            return later[0]
    return fresh[0]


def item_titles(store: Store, items: Sequence[QueueItem]) -> dict[str, str]:
    """What each item is about (a task's question), for a page of the queue in one query."""
    questions = store.questions([it.id for it in items if it.kind == "task"])
    return {
        it.ref: f"{it.stage} checkpoint"
        if it.kind == "checkpoint"
        else questions.get(it.id) or "(no question)"
        for it in items
    }


def find_item(store: Store, ref: str) -> QueueItem | None:
    """The queue item a reference such as 'task:12' or 'checkpoint:3' points at."""
    kind, _, num = ref.partition(":")
    if not num.isdigit():
        return None
    if kind == "task":
        task = store.get_task(int(num))
        if task is None or task.id is None:
            return None
        return QueueItem("task", task.id, task.paper_id, task.stage, task.status,
                         task.position, tuple(task.flag_list()))  # fmt: skip
    if kind == "checkpoint":
        run = store.get_run(int(num))
        if run is None or run.id is None:
            return None
        return QueueItem("checkpoint", run.id, run.paper_id, run.stage, run.status,
                         flags=_run_flags(run.errors))  # fmt: skip
    return None


# ------------------------------------------------------------------ decisions


@dataclass
class ActionResult:
    """What an action did, in words for the reviewer; `conflict` is the other's version."""

    ok: bool
    message: str
    level: Level = "success"
    conflict: TaskRevision | None = None
    started: str = ""


def machine_draft(store: Store, task_id: int) -> TaskFields:
    """The newest machine (or merge) revision: what a reviewer's edits are measured against."""
    revs = store.revisions(task_id)
    rev = next((r for r in reversed(revs) if r.kind in ("machine", "merge")), revs[0])
    return TaskFields.model_validate(rev.fields)


def _conflict(
    task_id: int, base_head: int, current: TaskRevision, *, edited: bool = True
) -> ActionResult:
    who = current.author.removeprefix("reviewer:").removeprefix("machine:")
    then = (
        "Their version is shown below; your edit is kept in the form. Apply it on top of "
        "theirs, or discard it."
        if edited
        else "The form now shows their version: read it and decide again."
    )
    return ActionResult(
        False,
        f"Not saved: {who} saved revision {current.number} of task {task_id} after you opened "
        f"revision {base_head}. {then}",
        "error",
        conflict=current,
    )


def _changed(store: Store, task: Task, fields: TaskFields | None) -> TaskFields | None:
    if fields is None:
        return None
    current = store.fields(task)
    same = fields.model_dump(mode="json", exclude={"key"}) == current.model_dump(
        mode="json", exclude={"key"}
    )
    return None if same else fields


def save_edit(
    store: Store, task_id: int, fields: TaskFields, actor: Actor, *, base_head: int
) -> ActionResult:
    """Save a reviewer's edit as a new revision without deciding (refused if stale)."""
    try:
        _require(actor, "review")
        task = store.require_task(task_id)
        if _changed(store, task, fields) is None and task.head == base_head:
            return ActionResult(True, "Nothing to save: the fields are unchanged.", "info")
        rev = store.edit_task(task_id, fields, reviewer=actor.username, expected_head=base_head)
    except ConcurrentEditError as exc:
        return _conflict(task_id, base_head, exc.current)
    except (StoreError, NotAllowed) as exc:
        return ActionResult(False, f"Not saved: {exc}", "error")
    return ActionResult(True, f"Saved revision {rev.number} of task {task_id}.")


def override_item(store: Store, task_id: int, actor: Actor, reason: str) -> ActionResult:
    """Accept a task's error flags with a reason, so a release may publish it as it stands.

    Holds for the current revision only: an edit afterwards needs a new override.
    """
    if not reason.strip():
        return ActionResult(False, "Not overridden: say why the errors are acceptable.", "error")
    try:
        _require(actor, "review")
        task = store.require_task(task_id)
        review.override_errors(store, task_id, actor.username, reason.strip())
    except (StoreError, NotAllowed) as exc:
        return ActionResult(False, f"Not overridden: {exc}", "error")
    return ActionResult(
        True, f"Errors of task {task_id} accepted for revision {task.head}: {reason.strip()}"
    )


def _launch_due(outcome: review.Outcome, launch: Launch) -> tuple[str, str, Level]:
    """Start what became due; the sentence saying so, how it started, and its level."""
    if not outcome.stage_complete:
        return "", "", "success"
    due = ", ".join(s.value for s in outcome.due)
    if not outcome.due:
        return "", "", "success"
    try:
        how = launch(outcome.paper_id)
    except Exception as exc:  # the decision stands; say why nothing started and what to do
        return (
            f" The {outcome.stage} stage is complete, but starting {due} failed "
            f"({type(exc).__name__}: {exc}); a curator can start it from the paper page.",
            "",
            "warning",
        )
    return (
        f" That was the last open item of {outcome.stage} for {outcome.paper_id}: "
        f"started {due} ({how}).",
        how,
        "success",
    )


def decide_item(
    store: Store,
    task_id: int,
    decision: str,
    actor: Actor,
    *,
    base_head: int,
    launch: Launch,
    fields: TaskFields | None = None,
    reason: str = "",
) -> ActionResult:
    """Approve (with edits), reject with a reason, or skip a task; start what becomes due.

    `base_head` is the revision the reviewer was shown: a decision on a task someone changed
    since is refused even without an edit, so nobody approves text they have not read.
    """
    if decision not in review.DECISIONS:
        return ActionResult(False, f"Unknown decision {decision!r}.", "error")
    if decision == "reject" and not reason.strip():
        return ActionResult(False, "Not rejected: say why in the reason box.", "error")
    try:
        _require(actor, "review")
        task = store.require_task(task_id)
        edit = _changed(store, task, fields) if decision != "skip" else None
        if task.head != base_head and decision != "skip":
            seen = store.revision(task_id, base_head).fields
            edited = fields is not None and fields.model_dump(mode="json") != seen
            return _conflict(task_id, base_head, store.revision(task_id, task.head), edited=edited)
        outcome = review.decide_task(
            store, task_id, "approve" if decision == "approve_with_edits" else decision,
            actor.username, reason=reason.strip(), fields=edit, expected_head=base_head,
        )  # fmt: skip
    except ConcurrentEditError as exc:
        return _conflict(task_id, base_head, exc.current)
    except (StoreError, NotAllowed) as exc:
        return ActionResult(False, f"Not recorded: {exc}", "error")
    if decision == "skip":
        kept = "; your unsaved edit stays in its form" if _changed(store, task, fields) else ""
        return ActionResult(True, f"Skipped task {task_id}{kept}.", "info")
    verb = "Rejected" if decision == "reject" else "Approved"
    if edit is not None:
        verb += " with edits" if verb == "Approved" else " after saving your edits"
    extra, how, level = _launch_due(outcome, launch)
    rev = store.require_task(task_id).head
    return ActionResult(True, f"{verb} task {task_id} (revision {rev}).{extra}", level, started=how)


def decide_checkpoint(
    store: Store,
    run_id: int,
    decision: str,
    actor: Actor,
    *,
    launch: Launch,
    reason: str = "",
) -> ActionResult:
    """Approve, reject (with a reason) or skip a first-phase stage run."""
    try:
        _require(actor, "review")
        run = store.get_run(run_id)
        if run is None:
            return ActionResult(False, f"No stage run {run_id}.", "error")
        if decision == "approve":
            outcome = review.approve_run(store, run_id, actor.username, reason.strip())
            extra, how, level = _launch_due(outcome, launch)
            return ActionResult(
                True, f"Approved the {run.stage} checkpoint of {run.paper_id}.{extra}", level,
                started=how,
            )  # fmt: skip
        if decision == "reject":
            if not reason.strip():
                return ActionResult(False, "Not rejected: say why in the reason box.", "error")
            review.reject_run(store, run_id, actor.username, reason.strip())
            return ActionResult(
                True,
                f"Rejected the {run.stage} checkpoint of {run.paper_id}; the paper is marked "
                "failed until a curator retries the stage.",
            )
        if decision == "skip":
            store.add_review(
                paper_id=run.paper_id, stage=run.stage, stage_run_id=run_id,
                decision="skip", reason=reason.strip(), reviewer=actor.username,
            )  # fmt: skip
            return ActionResult(True, f"Skipped the {run.stage} checkpoint of {run.paper_id}.")
    except (StoreError, NotAllowed) as exc:
        return ActionResult(False, f"Not recorded: {exc}", "error")
    return ActionResult(False, f"Unknown decision {decision!r}.", "error")


def retry(store: Store, paper_id: str, stage: Stage, actor: Actor, launch: Launch) -> ActionResult:
    """A curator's "retry this stage": put it back on the schedule and start it."""
    try:
        _require(actor, "retry")
        due = review.retry_stage(store, paper_id, stage, actor.username)
    except (StoreError, NotAllowed) as exc:
        return ActionResult(False, f"Not retried: {exc}", "error")
    if not due:
        return ActionResult(
            True,
            f"The failed {stage.value} run of {paper_id} is set aside; it runs again once the "
            "stages before it are approved.",
            "info",
        )
    return start_due(store, paper_id, actor, launch, due=due)


def due_now(store: Store, paper_id: str) -> list[Stage]:
    return review.due_stages(store, paper_id)


def start_due(
    store: Store,
    paper_id: str,
    actor: Actor,
    launch: Launch,
    *,
    due: list[Stage] | None = None,
) -> ActionResult:
    """Start the stages that are due (after a crash left a paper with nothing running)."""
    try:
        _require(actor, "retry")
        due = review.due_stages(store, paper_id) if due is None else due
    except (StoreError, NotAllowed) as exc:
        return ActionResult(False, str(exc), "error")
    if not due:
        return ActionResult(False, f"Nothing is due for {paper_id}.", "info")
    names = ", ".join(s.value for s in due)
    try:
        how = launch(paper_id)
    except Exception as exc:
        return ActionResult(False, f"Starting {names} failed: {type(exc).__name__}: {exc}", "error")
    return ActionResult(True, f"Started {names} for {paper_id} ({how}).", started=how)
