"""The store: revisions are append-only, edits are locked, re-extraction keeps human edits."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from expcurate.records import DesignComplexity, ExpBenchTask, Flag, Severity, TaskFields
from expcurate.store import ConcurrentEditError, Store

pytestmark = pytest.mark.databases


def _fields(key: str = "table-1:compare", **kw: object) -> TaskFields:
    base = dict(
        key=key,
        question="Does A beat B?",
        method="Train A and B.",
        expected_outcome="A gets 81.2 vs 79.0.",
    )
    base.update(kw)
    return TaskFields.model_validate(base)


def test_same_machine_output_twice_adds_no_revision(store: Store) -> None:
    """Re-running a stage on unchanged input must not duplicate tasks or revisions."""
    store.upsert_paper("p1")
    t1 = store.put_machine_task("p1", _fields(), stage="tasks", author="machine:heuristic")
    t2 = store.put_machine_task("p1", _fields(), stage="tasks", author="machine:heuristic")
    assert t1.id == t2.id
    assert len(store.tasks("p1")) == 1
    assert t1.id is not None
    assert len(store.revisions(t1.id)) == 1


def test_flags_go_in_and_come_out_as_records(store: Store) -> None:
    """The store takes and gives `Flag` records; their JSON column is its own business."""
    store.upsert_paper("p1")
    found = [Flag(check="leakage", severity=Severity.error, message="m", paths=["README.md"])]
    task = store.put_machine_task("p1", _fields(), stage="tasks", author="m", flags=found)
    assert task.id is not None
    assert store.require_task(task.id).flag_list() == found
    store.set_flags(task.id, [])
    assert store.require_task(task.id).flag_list() == []


def test_concurrent_edit_is_refused_not_overwritten(store: Store) -> None:
    """Two reviewers on the same revision: the second save fails and names the first."""
    store.upsert_paper("p1")
    task = store.put_machine_task("p1", _fields(), stage="tasks", author="machine:heuristic")
    assert task.id is not None
    store.edit_task(
        task.id, _fields(question="Does A beat B on X?"), reviewer="ann", expected_head=1
    )
    with pytest.raises(ConcurrentEditError) as exc:
        store.edit_task(task.id, _fields(question="Is A better?"), reviewer="bob", expected_head=1)
    assert "ann" in str(exc.value)
    head = store.fields(store.require_task(task.id))
    assert head.question == "Does A beat B on X?"


def test_many_saves_of_one_revision_at_once_land_exactly_one(store: Store) -> None:
    """Twenty reviewers saving the same revision at the same moment, each on its own
    connection: one save lands, nineteen are told who won, none fails otherwise."""
    import threading

    store.upsert_paper("p1")
    task = store.put_machine_task("p1", _fields(), stage="tasks", author="machine:heuristic")
    assert task.id is not None
    task_id = task.id
    url = str(store.engine.url.render_as_string(hide_password=False))
    start = threading.Barrier(20)
    outcomes: list[str] = []

    def save(n: int) -> None:
        mine = Store(url)
        start.wait()
        try:
            mine.edit_task(
                task_id, _fields(question=f"Edit {n}?"), reviewer=f"r{n}", expected_head=1
            )
            outcomes.append("saved")
        except ConcurrentEditError:
            outcomes.append("conflict")
        except Exception as e:  # an IntegrityError or a deadlock would be a bug
            outcomes.append(type(e).__name__)

    threads = [threading.Thread(target=save, args=(n,)) for n in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["conflict"] * 19 + ["saved"]
    assert len(store.revisions(task_id)) == 2


def test_reextraction_keeps_reviewer_edits(store: Store) -> None:
    """A field the reviewer changed keeps their value when the machine re-drafts the task;
    fields they did not touch take the new machine value."""
    store.upsert_paper("p1")
    task = store.put_machine_task("p1", _fields(), stage="tasks", author="machine:heuristic")
    assert task.id is not None
    store.edit_task(
        task.id, _fields(question="Edited by a human?"), reviewer="ann", expected_head=1
    )
    store.put_machine_task(
        "p1",
        _fields(method="Train A and B for 10 epochs."),
        stage="tasks",
        author="machine:heuristic",
    )
    head = store.fields(store.require_task(task.id))
    assert head.question == "Edited by a human?"
    assert head.method == "Train A and B for 10 epochs."
    kinds = [r.kind for r in store.revisions(task.id)]
    assert kinds == ["machine", "reviewer", "machine", "merge"]
    assert store.revisions(task.id)[-1].base == 3


def test_a_field_both_sides_changed_is_a_conflict_for_the_reviewer(store: Store) -> None:
    """The reviewer's value is kept, the task goes back to review, and a merge_conflict flag
    shows both values side by side."""
    store.upsert_paper("p1")
    task = store.put_machine_task("p1", _fields(), stage="tasks", author="machine:heuristic")
    assert task.id is not None
    store.edit_task(task.id, _fields(method="Reviewer's method."), reviewer="ann", expected_head=1)
    again = store.put_machine_task(
        "p1",
        _fields(method="Machine's new method."),
        stage="tasks",
        author="machine:heuristic",
        status="approved",
    )
    assert store.fields(again).method == "Reviewer's method."
    assert again.status == "awaiting_review"
    (clash,) = [f for f in again.flag_list() if f.check == "merge_conflict"]
    assert clash.severity == Severity.error and clash.paths == ["method"]
    assert "Reviewer's method." in clash.message and "Machine's new method." in clash.message
    assert "both changed: method" in store.revisions(task.id)[-1].note


def test_the_same_draft_again_leaves_a_task_that_moved_on_alone(store: Store) -> None:
    """A stage rerun (a re-extraction) whose output for a task equals what that stage wrote
    before leaves the task at its later stage with its decision."""
    store.upsert_paper("p1")
    task = store.put_machine_task("p1", _fields(), stage="tasks", author="machine:heuristic")
    assert task.id is not None
    with_setup = _fields(source=["train.py"], requirements=["Step 1: run (train.py:1-5)"])
    store.put_machine_task(
        "p1", with_setup, stage="package", author="machine:heuristic", status="approved"
    )
    heads = len(store.revisions(task.id))
    again = store.put_machine_task(
        "p1", _fields(), stage="tasks", author="machine:heuristic", status="awaiting_review"
    )
    assert (again.stage, again.status) == ("package", "approved")
    assert len(store.revisions(task.id)) == heads
    assert store.fields(again).source == ["train.py"]


text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@hsettings(max_examples=40, deadline=None)
@given(
    question=text,
    outcome=text,
    values=st.lists(text, max_size=3),
    source=st.lists(text, max_size=3),
)
def test_task_fields_json_round_trip(
    question: str, outcome: str, values: list[str], source: list[str]
) -> None:
    """record → JSON → record is the identity."""
    fields = TaskFields(
        key="k",
        question=question,
        expected_outcome=outcome,
        source=source,
        design_complexity=DesignComplexity(independent_variables={"v": values}),
    )
    assert TaskFields.model_validate_json(fields.model_dump_json()) == fields
    published = fields.published()
    assert ExpBenchTask.model_validate_json(published.model_dump_json()) == published


def test_a_postgresql_url_without_its_driver_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from expcurate.store import StoreError

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if the extra were not installed
    with pytest.raises(StoreError, match=r"driver 'psycopg'.*expcurate\[postgres\]"):
        Store("postgresql+psycopg://pg@127.0.0.1:1/nowhere")
    with pytest.raises(StoreError, match="not one SQLAlchemy reads"):
        Store("nonsense://x")


def test_a_store_opened_while_another_process_creates_it_waits_its_turn(tmp_path: Path) -> None:
    # SQLite refuses the switch to WAL at once, busy timeout or not, while another
    # connection writes the new file: two batch workers opening a new store together.
    path = tmp_path / "new.db"
    creating = threading.Event()

    def create() -> None:
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        other.execute("CREATE TABLE elsewhere (x)")
        creating.set()
        time.sleep(0.5)
        other.execute("COMMIT")
        other.close()

    creator = threading.Thread(target=create)
    creator.start()
    assert creating.wait(5)
    try:
        store = Store(f"sqlite:///{path}")
    finally:
        creator.join()
    store.upsert_paper("p", title="T")
    assert [p.id for p in store.papers()] == ["p"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reading_goes_on_beside_another_process_writing(tmp_path: Path) -> None:
    # a batch's workers share one SQLite file: what one reads between its stages (the due
    # stages, the runs, the paper) must not wait for the other's write to end
    path = tmp_path / "shared.db"
    store = Store(f"sqlite:///{path}")
    store.upsert_paper("p", title="T")
    other = sqlite3.connect(path, isolation_level=None, timeout=30)
    other.execute("BEGIN IMMEDIATE")  # another process's write, under way
    other.execute("UPDATE paper SET title = 'being written' WHERE id = 'p'")
    try:
        started = time.monotonic()
        paper = store.get_paper("p")
        assert [p.id for p in store.papers()] == ["p"]
        assert store.runs("p") == [] and store.tasks("p") == []
        waited = time.monotonic() - started
    finally:
        other.execute("COMMIT")
        other.close()
    assert paper is not None and paper.title == "T"  # what was committed when it read
    assert waited < 5, f"reads waited {waited:.1f} s for the other writer"
    store.upsert_paper("p", title="after")  # writing still takes its turn
    assert store.require_paper("p").title == "after"
