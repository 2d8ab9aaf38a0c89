"""The store: every read and write of persistent state goes through here.

SQLite by default, any SQLAlchemy URL by setting. Pages, flows and the CLI call these methods
and never write SQL themselves.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

from sqlalchemy import event
from sqlalchemy.engine import CursorResult, Engine
from sqlalchemy.exc import ArgumentError, IntegrityError
from sqlmodel import Session, SQLModel, col, create_engine, select

from expcurate.leaving import before_leaving
from expcurate.records import Flag, RunStatus, Severity, StageResult, TaskFields, TaskStatus
from expcurate.records.task import BOOKKEEPING_FIELDS
from expcurate.store.auth import UserStore
from expcurate.store.errors import ConcurrentEditError, LeaseHeld, LeaseLost, StoreError
from expcurate.store.lease import describe, this_process
from expcurate.store.rows import (
    Paper,
    Release,
    Review,
    StageRun,
    Task,
    TaskRevision,
    utcnow,
)

# The machine's bookkeeping is never merged: the new machine output's always wins.
MERGE_EXCLUDE = frozenset(BOOKKEEPING_FIELDS)

R = TypeVar("R", bound=SQLModel)


BUSY_SECONDS = 30


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # Transactions are begun by `_sqlite_begin`, not by the driver (see there).
    dbapi_conn.isolation_level = None
    cur = dbapi_conn.cursor()
    try:
        cur.execute(f"PRAGMA busy_timeout={BUSY_SECONDS * 1000}")
        cur.execute("PRAGMA foreign_keys=ON")
        _write_ahead(cur)
    finally:
        cur.close()


def _write_ahead(cur: Any) -> None:
    """Put the database in write-ahead-log mode, waiting for other connections if need be.

    WAL is kept in the file, so a store that has it is left alone. Switching to it needs the
    database to itself, and SQLite answers "database is locked" at once, without the busy
    timeout, while another connection writes: two workers opening a new store together, one
    of them creating the schema, is that case. So the switch is tried again until it takes
    or the busy timeout has passed.
    """
    if str(cur.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal":
        return
    deadline = time.monotonic() + BUSY_SECONDS
    pause = 0.01
    while True:
        try:
            mode = cur.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
        else:
            if str(mode).lower() in ("wal", "memory"):  # an in-memory database keeps its own
                return
            if time.monotonic() > deadline:
                raise StoreError(f"SQLite would not switch the store to WAL (it stays {mode})")
        time.sleep(pause)
        pause = min(pause * 2, 0.25)


def _sqlite_begin(conn: Any) -> None:
    """Take the write lock when a transaction that may write starts.

    A deferred transaction that reads, then writes, fails at once with "database is locked"
    when another connection wrote in between (the busy timeout does not apply to that case);
    parse and mine run side by side and both write, so every such transaction starts
    IMMEDIATE and waits its turn instead. Transactions here are short. A session that only
    reads (`Store.reading`) begins deferred: the write-ahead log lets it read beside a writer,
    so it neither waits for another process's write nor holds one up.
    """
    conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(_READS) else "BEGIN IMMEDIATE")


_READS = "expcurate_reads_only"  # the execution option of `Store.reading`'s connections


# The engines of this process's stores, closed when it leaves quickly (`expcurate.leaving`):
# the last connection to close folds SQLite's write-ahead log into the database file.
_OPEN: weakref.WeakSet[Engine] = weakref.WeakSet()


def _close_engines() -> None:
    for engine in list(_OPEN):
        engine.dispose()


before_leaving(_close_engines)


class Store(UserStore):
    def __init__(self, url: str) -> None:
        self.url = url
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            path = url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": BUSY_SECONDS}
        try:
            self.engine: Engine = create_engine(url, **kwargs)
        except ModuleNotFoundError as e:  # a PostgreSQL URL without its driver
            extra = " (pip install 'expcurate[postgres]')" if url.startswith("postgres") else ""
            raise StoreError(
                f"the store URL needs the database driver {e.name!r}, which is not installed{extra}"
            ) from e
        except ArgumentError as e:
            raise StoreError(f"the store URL {url!r} is not one SQLAlchemy reads: {e}") from e
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        _OPEN.add(self.engine)
        self._reader = self.engine.execution_options(**{_READS: True})  # the same pool
        self._migrate()

    def _migrate(self) -> None:
        """Bring the schema to the newest revision (`expcurate.store.migrations`), saying so
        in one line when an existing store was upgraded."""
        from expcurate.store.migrations import upgrade

        done = upgrade(self.engine, self.url)
        if done.changed:
            print(
                f"expcurate: upgraded the store from schema {done.before} to {done.after}",
                file=sys.stderr,
            )

    def checkpoint(self) -> None:
        """Fold SQLite's write-ahead log into the database file (before copying the file)."""
        if not self.url.startswith("sqlite"):
            return
        raw = self.engine.raw_connection()
        try:
            cur = raw.cursor()
            cur.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            cur.close()
        finally:
            raw.close()

    @contextmanager
    def session(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as s:
            yield s
            s.commit()

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A session that only reads (under SQLite it takes no write lock: see
        `_sqlite_begin`); writing in it is a bug."""
        with Session(self._reader, expire_on_commit=False) as s:
            yield s
            s.commit()

    # ------------------------------------------------------------ papers

    def upsert_paper(self, paper_id: str, **fields: Any) -> Paper:
        with self.session() as s:
            paper = s.get(Paper, paper_id)
            if paper is None:
                paper = Paper(id=paper_id, **fields)
            else:
                for name, value in fields.items():
                    setattr(paper, name, value)
            paper.updated_at = utcnow()
            s.add(paper)
            return paper

    def get_paper(self, paper_id: str) -> Paper | None:
        with self.reading() as s:
            return s.get(Paper, paper_id)

    def require_paper(self, paper_id: str) -> Paper:
        with self.reading() as s:
            message = f"no paper {paper_id!r} in the store; see `expcurate status`"
            return _existing(s, Paper, paper_id, message)

    def papers(self) -> list[Paper]:
        with self.reading() as s:
            return list(s.exec(select(Paper).order_by(col(Paper.created_at), col(Paper.id))))

    def set_paper_status(
        self, paper_id: str, status: str, stage: str = "", error: str = ""
    ) -> None:
        self.upsert_paper(paper_id, status=status, stage=stage, error=error)

    # ------------------------------------------------------------ stage runs

    def start_run(self, paper_id: str, stage: str, owner: str = "", **fields: Any) -> StageRun:
        """Claim the stage's lease for `owner` (default: this process): a new running run.

        LeaseHeld when a run of this paper and stage is running already (one claimant at a
        time, enforced by the database's unique index, not by a read before the write)."""
        try:
            with self.session() as s:
                run = StageRun(
                    paper_id=paper_id,
                    stage=stage,
                    status=RunStatus.running,
                    owner=owner or this_process(),
                    heartbeat_at=utcnow(),
                    **fields,
                )
                s.add(run)
                s.flush()
                return run
        except IntegrityError:
            holder = self.running_run(paper_id, stage)
            if holder is None:  # not the lease: a missing paper, say
                raise
            raise LeaseHeld(holder, describe(holder)) from None

    def running_run(self, paper_id: str, stage: str) -> StageRun | None:
        with self.reading() as s:
            return s.exec(
                select(StageRun).where(
                    StageRun.paper_id == paper_id,
                    StageRun.stage == stage,
                    StageRun.status == RunStatus.running,
                )
            ).first()

    def running_runs(self, paper_id: str | None = None) -> list[StageRun]:
        with self.reading() as s:
            q = select(StageRun).where(StageRun.status == RunStatus.running)
            if paper_id is not None:
                q = q.where(StageRun.paper_id == paper_id)
            return list(s.exec(q.order_by(col(StageRun.id))))

    def heartbeat(self, run_id: int) -> bool:
        """Renew a running run's lease; False when it is no longer running (taken over)."""
        with self.session() as s:
            run = s.get(StageRun, run_id)
            if run is None or run.status != RunStatus.running:
                return False
            run.heartbeat_at = utcnow()
            s.add(run)
            return True

    def interrupt_run(self, run_id: int, reason: str) -> bool:
        """Mark a running run interrupted (its process is gone) and take it off its stage's
        checkpoint, so the stage is due again. False when it was not running any more."""
        with self.session() as s:
            run = s.get(StageRun, run_id, with_for_update=True)
            if run is None or run.status != RunStatus.running:
                return False
            run.status = RunStatus.interrupted
            run.current = False
            run.errors = [{"severity": "error", "message": f"interrupted: {reason}"}]
            run.finished_at = utcnow()
            s.add(run)
            return True

    def finish_run(
        self,
        run_id: int,
        result: StageResult,
        *,
        status: str,
        artifact: str = "",
        items: int = 0,
        cost_usd: float = 0.0,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
    ) -> StageRun:
        with self.session() as s:
            run = _existing(s, StageRun, run_id, f"no stage run {run_id}")
            if run.status != RunStatus.running:
                raise LeaseLost(
                    f"the {run.stage} run {run_id} of {run.paper_id} was marked {run.status} "
                    "while it ran (its process looked gone); its result is dropped"
                )
            # The new run becomes the stage's current one; older runs stay as history.
            for old in s.exec(
                select(StageRun).where(
                    StageRun.paper_id == run.paper_id,
                    StageRun.stage == run.stage,
                    StageRun.id != run_id,
                )
            ):
                old.current = False
                s.add(old)
            run.status = status
            run.result_status = result.status.value
            run.errors = [e.model_dump(mode="json") for e in result.errors]
            run.artifact = artifact
            run.items = items
            run.cost_usd = cost_usd
            run.prompt_tokens = prompt_tokens
            run.completion_tokens = completion_tokens
            run.finished_at = utcnow()
            run.duration_s = (run.finished_at - run.started_at).total_seconds()
            run.current = True
            s.add(run)
            return run

    def set_run_status(self, run_id: int, status: RunStatus) -> StageRun:
        return self._update_run(run_id, status=status)

    def get_run(self, run_id: int) -> StageRun | None:
        with self.reading() as s:
            return s.get(StageRun, run_id)

    def current_runs(self, paper_id: str) -> dict[str, StageRun]:
        with self.reading() as s:
            runs = s.exec(
                select(StageRun)
                .where(StageRun.paper_id == paper_id, col(StageRun.current))
                .order_by(col(StageRun.id))
            )
            return {r.stage: r for r in runs}

    def checkpoint_summaries(
        self, stages: Sequence[str]
    ) -> list[tuple[int, str, str, str, list[dict[str, Any]]]]:
        """(id, paper, stage, status, errors) of the current runs of `stages`, every paper at
        once, as plain tuples (the queue's checkpoints)."""
        table = StageRun.__table__  # type: ignore[attr-defined]
        c = table.c
        with self.reading() as s:
            rows = s.execute(
                table.select()
                .with_only_columns(c.id, c.paper_id, c.stage, c.status, c.errors)
                .where(c.current, c.stage.in_(list(stages)))
                .order_by(c.id)
            )
            return [(r[0], r[1], r[2], r[3], r[4] or []) for r in rows]

    def paper_ids(self) -> list[str]:
        """Every paper's id, in the order `papers()` gives them."""
        with self.reading() as s:
            return list(s.exec(select(Paper.id).order_by(col(Paper.created_at), col(Paper.id))))

    def questions(self, task_ids: Sequence[int]) -> dict[int, str]:
        """Each task's question at its head revision, in one query (for lists of tasks)."""
        if not task_ids:
            return {}
        with self.reading() as s:
            rows = s.exec(
                select(TaskRevision.task_id, TaskRevision.fields)
                .join(Task, col(Task.id) == col(TaskRevision.task_id))
                .where(col(TaskRevision.task_id).in_(list(task_ids)))
                .where(col(TaskRevision.number) == col(Task.head))
            )
            return {tid: str((fields or {}).get("question", "")) for tid, fields in rows}

    def runs(self, paper_id: str | None = None) -> list[StageRun]:
        with self.reading() as s:
            q = select(StageRun).order_by(col(StageRun.id))
            if paper_id is not None:
                q = q.where(StageRun.paper_id == paper_id)
            return list(s.exec(q))

    def cached_run(self, paper_id: str, stage: str, inputs_hash: str) -> StageRun | None:
        """The newest finished run of this stage with the same inputs, if its output is usable."""
        with self.reading() as s:
            return s.exec(
                select(StageRun)
                .where(
                    StageRun.paper_id == paper_id,
                    StageRun.stage == stage,
                    StageRun.inputs_hash == inputs_hash,
                    col(StageRun.status).in_([RunStatus.awaiting_review, RunStatus.approved]),
                )
                .order_by(col(StageRun.id).desc())
            ).first()

    # ------------------------------------------------------------ tasks

    def tasks(
        self, paper_id: str | None = None, stage: str | None = None, status: str | None = None
    ) -> list[Task]:
        with self.reading() as s:
            q = select(Task).order_by(col(Task.paper_id), col(Task.position), col(Task.id))
            if paper_id is not None:
                q = q.where(Task.paper_id == paper_id)
            if stage is not None:
                q = q.where(Task.stage == stage)
            if status is not None:
                q = q.where(Task.status == status)
            return list(s.exec(q))

    def task_summaries(self) -> list[tuple[int, str, str, str, int, list[dict[str, Any]]]]:
        """(id, paper, stage, status, position, flags) of every task, as plain tuples: the
        queue needs these columns of thousands of tasks, not their ORM objects."""
        table = Task.__table__  # type: ignore[attr-defined]
        c = table.c
        with self.reading() as s:
            rows = s.execute(
                table.select()
                .with_only_columns(c.id, c.paper_id, c.stage, c.status, c.position, c.flags)
                .order_by(c.paper_id, c.position, c.id)
            )
            return [(r[0], r[1], r[2], r[3], r[4], r[5] or []) for r in rows]

    def get_task(self, task_id: int) -> Task | None:
        with self.reading() as s:
            return s.get(Task, task_id)

    def require_task(self, task_id: int) -> Task:
        with self.reading() as s:
            return _existing(s, Task, task_id, f"no task {task_id} in the store")

    def revisions(self, task_id: int) -> list[TaskRevision]:
        with self.reading() as s:
            return list(
                s.exec(
                    select(TaskRevision)
                    .where(TaskRevision.task_id == task_id)
                    .order_by(col(TaskRevision.number))
                )
            )

    def revision(self, task_id: int, number: int) -> TaskRevision:
        with self.reading() as s:
            rev = s.exec(
                select(TaskRevision).where(
                    TaskRevision.task_id == task_id, TaskRevision.number == number
                )
            ).first()
            if rev is None:
                raise StoreError(f"task {task_id} has no revision {number}")
            return rev

    def fields(self, task: Task) -> TaskFields:
        return TaskFields.model_validate(self.revision(_id(task), task.head).fields)

    def _append(
        self,
        s: Session,
        task: Task,
        fields: TaskFields,
        *,
        author: str,
        kind: str,
        base: int | None,
        note: str = "",
    ) -> TaskRevision:
        rev = TaskRevision(
            task_id=_id(task),
            number=task.head + 1,
            author=author,
            kind=kind,
            stage=task.stage,
            base=base,
            fields=fields.model_dump(mode="json"),
            note=note,
        )
        s.add(rev)
        task.head = rev.number
        task.updated_at = utcnow()
        s.add(task)
        return rev

    def put_machine_task(
        self,
        paper_id: str,
        fields: TaskFields,
        *,
        stage: str,
        author: str,
        position: int = 0,
        status: str = TaskStatus.awaiting_review,
        flags: Sequence[Flag] = (),
    ) -> Task:
        """Record machine output for a task, keeping any human edits made since.

        Idempotent: the same machine output for an unchanged task adds no revision. When a
        reviewer has edited fields since the last machine revision, those fields keep the
        reviewer's value (three-way merge against the base machine revision).
        """
        with self.session() as s:
            task = s.exec(
                select(Task).where(Task.paper_id == paper_id, Task.key == fields.key)
            ).first()
            if task is None:
                task = Task(paper_id=paper_id, key=fields.key, position=position, stage=stage)
                s.add(task)
                s.flush()
                self._append(s, task, fields, author=author, kind="machine", base=None)
            else:
                revs = list(
                    s.exec(
                        select(TaskRevision)
                        .where(TaskRevision.task_id == task.id)
                        .order_by(col(TaskRevision.number))
                    )
                )
                head = revs[-1]
                incoming = fields.model_dump(mode="json")
                # What the reviewer started from at this stage: the machine's last output here.
                at_stage = [r for r in revs if r.kind == "machine" and r.stage == stage]
                last_machine = next((r for r in reversed(revs) if r.kind == "machine"), head)
                base = at_stage[-1] if at_stage else last_machine
                if at_stage and _comparable(base.fields) == _comparable(incoming):
                    # The same machine output as before: nothing to merge, the task keeps
                    # its stage and its decision (a rerun, or a re-extraction that changed
                    # nothing for this task).
                    task.position = position
                    s.add(task)
                    return task
                merged = _merge(base=base.fields, current=head.fields, incoming=incoming)
                clashes = _conflicts(base=base.fields, current=head.fields, incoming=incoming)
                task.stage = stage
                task.position = position
                self._append(s, task, fields, author=author, kind="machine", base=head.number)
                if merged != incoming:
                    note = "kept reviewer edits over new machine output"
                    if clashes:
                        note += f"; both changed: {', '.join(sorted(clashes))}"
                    self._append(
                        s,
                        task,
                        TaskFields.model_validate(merged),
                        author=author,
                        kind="merge",
                        base=task.head,
                        note=note,
                    )
                if clashes:  # a reviewer decides between the two
                    status = TaskStatus.awaiting_review
                    flags = [*flags, *(_conflict_flag(n, v) for n, v in sorted(clashes.items()))]
            task.status = status
            task.flags = _flag_json(flags)
            s.add(task)
            return task

    def put_revision(
        self,
        task_id: int,
        fields: TaskFields,
        *,
        author: str,
        kind: str,
        note: str,
        status: str,
        flags: Sequence[Flag],
    ) -> Task:
        """Append a revision the machine made of the task's current fields (references carried
        to a new commit, say), with the task's new decision and flags; fields equal to the
        head add no revision."""
        with self.session() as s:
            task = _existing(s, Task, task_id, f"no task {task_id} in the store")
            head = s.exec(
                select(TaskRevision).where(
                    TaskRevision.task_id == task_id, TaskRevision.number == task.head
                )
            ).one()
            if head.fields != fields.model_dump(mode="json"):
                self._append(s, task, fields, author=author, kind=kind, base=task.head, note=note)
            task.status = status
            task.flags = _flag_json(flags)
            s.add(task)
            return task

    def edit_task(
        self,
        task_id: int,
        fields: TaskFields,
        *,
        reviewer: str,
        expected_head: int,
        note: str = "",
    ) -> TaskRevision:
        """Append a reviewer's revision, refusing it if someone saved in between.

        The head moves by a conditional update (`… WHERE head = expected`), so of two saves
        on one revision exactly one wins on SQLite and PostgreSQL alike; the other gets
        `ConcurrentEditError`, never a database error."""
        try:
            with self.session() as s:
                task = _existing(s, Task, task_id, f"no task {task_id} in the store")
                if not _update_if_head(s, task_id, expected_head, head=expected_head + 1):
                    raise _Lost
                rev = TaskRevision(
                    task_id=task_id,
                    number=expected_head + 1,
                    author=f"reviewer:{reviewer}",
                    kind="reviewer",
                    stage=task.stage,
                    base=expected_head,
                    fields=fields.model_copy(update={"key": task.key}).model_dump(mode="json"),
                    note=note,
                )
                s.add(rev)
                return rev
        except (IntegrityError, _Lost):  # another save moved the head (or took the number)
            raise self._conflict(task_id, expected_head) from None

    def _conflict(self, task_id: int, expected_head: int) -> ConcurrentEditError:
        with self.session() as s:
            task = _existing(s, Task, task_id, f"no task {task_id} in the store")
            current = s.exec(
                select(TaskRevision).where(
                    TaskRevision.task_id == task_id, TaskRevision.number == task.head
                )
            ).one()
            return ConcurrentEditError(task_id, expected_head, current, status=task.status)

    def decide(
        self, task_id: int, *, expected_head: int, status: str, review: dict[str, Any]
    ) -> Review:
        """Record a decision on the revision the reviewer saw: refused (`ConcurrentEditError`)
        when the task has moved on since (a new revision, or another reviewer's decision),
        decided atomically so that of two decisions at once one wins."""
        try:
            with self.session() as s:
                _existing(s, Task, task_id, f"no task {task_id} in the store")
                if not _update_if_head(
                    s, task_id, expected_head, status=status, awaiting=TaskStatus.awaiting_review
                ):
                    raise _Lost
                row = Review(task_id=task_id, revision=expected_head, **review)
                s.add(row)
                return row
        except _Lost:
            raise self._conflict(task_id, expected_head) from None

    def set_flags(self, task_id: int, flags: Sequence[Flag]) -> Task:
        """Replace a task's validator flags, leaving its fields and status alone."""
        return self._update_task(task_id, flags=_flag_json(flags))

    def set_task_status(self, task_id: int, status: TaskStatus) -> Task:
        """Record a decision on a task; its fields and flags stay as they are."""
        return self._update_task(task_id, status=status)

    def _update_task(self, task_id: int, **changes: Any) -> Task:
        missing = f"no task {task_id} in the store"
        return self._update(Task, task_id, missing, **changes, updated_at=utcnow())

    # ------------------------------------------------------------ reviews, releases

    def add_review(self, **fields: Any) -> Review:
        with self.session() as s:
            review = Review(**fields)
            s.add(review)
            return review

    def reviews(self, paper_id: str | None = None, task_id: int | None = None) -> list[Review]:
        with self.reading() as s:
            q = select(Review).order_by(col(Review.id))
            if paper_id is not None:
                q = q.where(Review.paper_id == paper_id)
            if task_id is not None:
                q = q.where(Review.task_id == task_id)
            return list(s.exec(q))

    def add_release(self, **fields: Any) -> Release:
        with self.session() as s:
            existing = s.exec(select(Release).where(Release.name == fields["name"])).first()
            release = existing or Release(name=fields["name"])
            for name, value in fields.items():
                setattr(release, name, value)
            s.add(release)
            return release

    def releases(self) -> list[Release]:
        with self.reading() as s:
            return list(s.exec(select(Release).order_by(col(Release.id))))

    # ------------------------------------------------------------ stage retries, users

    def retire_run(self, run_id: int) -> StageRun:
        """Take a failed or rejected run off its stage's checkpoint so the stage is due again.

        The run stays in the history; only `current` changes.
        """
        return self._update_run(run_id, current=False)

    def _update_run(self, run_id: int, **changes: Any) -> StageRun:
        return self._update(StageRun, run_id, f"no stage run {run_id}", **changes)

    def _update(self, row: type[R], key: object, missing: str, **changes: Any) -> R:
        """Set some columns of one row; StoreError(`missing`) when there is no such row."""
        with self.session() as s:
            found = _existing(s, row, key, missing)
            for name, value in changes.items():
                setattr(found, name, value)
            s.add(found)
            return found


class _Lost(Exception):
    """A conditional update matched no row: someone else moved the task first."""


def _update_if_head(
    s: Session, task_id: int, seen: int, *, awaiting: str = "", **values: Any
) -> bool:
    """Set `values` on the task only while its head is still `seen` (and, with `awaiting`,
    its status still that): the database decides who saved or decided first."""
    table = Task.__table__  # type: ignore[attr-defined]
    where = [table.c.id == task_id, table.c.head == seen]
    if awaiting:
        where.append(table.c.status == awaiting)
    done = s.execute(table.update().where(*where).values(updated_at=utcnow(), **values))
    return bool(cast(CursorResult[Any], done).rowcount)


def _existing(s: Session, row: type[R], key: object, missing: str) -> R:
    """The row of `row` under `key` in this session, or StoreError(`missing`)."""
    found = s.get(row, key)
    if found is None:
        raise StoreError(missing)
    return found


def _flag_json(flags: Sequence[Flag]) -> list[dict[str, Any]]:
    return [f.model_dump(mode="json") for f in flags]


def _id(task: Task) -> int:
    if task.id is None:
        raise StoreError("task has no id yet")
    return task.id


def _comparable(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if k not in MERGE_EXCLUDE}


def _conflicts(
    base: dict[str, Any], current: dict[str, Any], incoming: dict[str, Any]
) -> dict[str, tuple[Any, Any]]:
    """Fields the reviewer and the new machine output both changed, differently: by name,
    (the reviewer's value, the machine's new value)."""
    return {
        name: (value, incoming.get(name))
        for name, value in current.items()
        if name not in MERGE_EXCLUDE
        and base.get(name) != value
        and base.get(name) != incoming.get(name)
        and incoming.get(name) != value
    }


def _conflict_flag(name: str, values: tuple[Any, Any]) -> Flag:
    """A field both sides changed, for the review app to show side by side."""
    reviewer, machine = (
        v if isinstance(v, str) else json.dumps(v, indent=1, ensure_ascii=False) for v in values
    )
    return Flag(
        check="merge_conflict",
        severity=Severity.error,
        message=(
            f"{name}: a reviewer edited it and the new machine output changed it too; the "
            f"reviewer's value is kept. Decide between them:\n--- reviewer\n{reviewer}\n"
            f"--- machine, new\n{machine}"
        ),
        paths=[name],
    )


def _merge(
    base: dict[str, Any], current: dict[str, Any], incoming: dict[str, Any]
) -> dict[str, Any]:
    """Field-level three-way merge: a field a reviewer changed keeps the reviewer's value."""
    merged = dict(incoming)
    for name, value in current.items():
        if name in MERGE_EXCLUDE:
            continue
        if base.get(name) != value:  # the reviewer touched it
            merged[name] = value
    return merged
