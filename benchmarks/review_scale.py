"""The review app's page logic on a large store: seconds and SQL statements per page.

Fills a fresh SQLite store with PAPERS papers of TASKS tasks each (every task with two
revisions and a validator flag of its own, every paper with its five current stage runs), then times what each page of the
review app computes before it draws anything: the queue (queue, filters, counts and the
titles of its first page of rows), one item (the task, its fields, its history), one paper
(its runs, tasks and questions) and the history page (the task list and one task's
revisions and decisions). The statement count is the number of SQL statements the page
sent; it must not grow with the store. The reference, measured in the same run, is reading
every task row once (`Store.tasks()`), the least any queue can do.

    python benchmarks/review_scale.py [--papers 1000] [--tasks 10] [--db PATH]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sqlalchemy import event  # noqa: E402

from expcurate.records import TaskFields  # noqa: E402
from expcurate.store import Store  # noqa: E402
from expcurate.store.rows import Paper, StageRun, Task, TaskRevision  # noqa: E402
from validation_ui import logic  # noqa: E402

STAGES = ("ingest", "parse", "mine", "tasks", "setup")
PAGE_SIZE = 50


def fill(store: Store, papers: int, tasks: int) -> None:
    """Rows straight into the tables (the pipeline would take hours for this many)."""
    with store.session() as s:
        for p in range(papers):
            pid = f"p{p:05d}"
            s.add(Paper(id=pid, title=f"Paper {p}", status="awaiting_review", stage="tasks"))
            for stage in STAGES:
                status = "approved" if stage in ("ingest", "parse", "mine") else "awaiting_review"
                s.add(StageRun(paper_id=pid, stage=stage, status=status, current=True))
        s.flush()
        for p in range(papers):
            for k in range(tasks):
                # a warning flag each, its message naming the task, as validators write them
                flag = {"check": "near_duplicate", "severity": "warning",
                        "message": f"task {p}-{k} resembles task {p}-{k + 1}", "paths": []}  # fmt: skip
                s.add(Task(paper_id=f"p{p:05d}", key=f"table-{k}", position=k, head=2,
                           flags=[flag]))  # fmt: skip
        s.flush()
        ids = [t.id for t in s.exec(Task.__table__.select())]  # type: ignore[attr-defined]
        for tid in ids:
            for n in (1, 2):
                fields = TaskFields(
                    key=f"t{tid}",
                    question=f"Does method {tid} beat the baseline (revision {n})?",
                    method="Train both and compare.",
                    expected_outcome="It does.",
                )
                s.add(
                    TaskRevision(
                        task_id=tid,
                        number=n,
                        author="machine:heuristic" if n == 1 else "reviewer:ann",
                        fields=fields.model_dump(mode="json"),
                    )
                )


class Counter:
    def __init__(self, store: Store) -> None:
        self.n = 0
        event.listen(store.engine, "before_cursor_execute", self._count)

    def _count(self, *_: Any) -> None:
        self.n += 1


def measure(counter: Counter, work: Callable[[], object], repeat: int = 3) -> tuple[float, int]:
    best = float("inf")
    statements = 0
    for _ in range(repeat):
        counter.n = 0
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
        statements = counter.n
    return best, statements


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--papers", type=int, default=1000)
    ap.add_argument("--tasks", type=int, default=10)
    ap.add_argument("--db", help="SQLite file to fill (default: a temporary one)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(args.db) if args.db else Path(tmp) / "scale.db"
        store = Store(f"sqlite:///{db}")
        started = time.perf_counter()
        fill(store, args.papers, args.tasks)
        print(
            f"filled {args.papers} papers x {args.tasks} tasks in "
            f"{time.perf_counter() - started:.1f} s"
        )
        counter = Counter(store)
        some = store.tasks()[len(store.tasks()) // 2]
        assert some.id is not None
        pid = some.paper_id

        def queue() -> None:
            items = logic.build_queue(store)
            shown = logic.filter_queue(items, logic.QueueFilter())
            logic.stage_counts(shown)
            logic.flag_checks(items)
            logic.item_titles(store, shown[:PAGE_SIZE])

        def item() -> None:
            found = logic.find_item(store, f"task:{some.id}")
            assert found is not None
            task = store.require_task(found.id)
            store.fields(task)
            store.revision(found.id, task.head)
            logic.machine_draft(store, found.id)

        def paper() -> None:
            store.require_paper(pid)
            store.current_runs(pid)
            tasks = store.tasks(pid)
            logic.stage_counts(tasks, "all")
            store.questions([t.id for t in tasks if t.id is not None])

        def history() -> None:
            store.task_summaries()
            task = store.require_task(some.id or 0)
            store.revisions(some.id or 0)
            store.fields(task)
            store.reviews(task_id=some.id)

        reference, _ = measure(counter, store.tasks)
        print(f"reference (read every task row once): {reference:.3f} s\n")
        print("| page | seconds | SQL statements | x reference |")
        print("|---|---|---|---|")
        for name, work in (
            ("queue", queue),
            ("item", item),
            ("paper", paper),
            ("history", history),
        ):
            seconds, statements = measure(counter, work)
            print(f"| {name} | {seconds:.3f} | {statements} | {seconds / reference:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
