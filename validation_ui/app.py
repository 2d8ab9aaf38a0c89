"""Review app: a queue of checkpoint items and a decision form for each.

Reads and writes only through the store and `expcurate.review`; no SQL, no flow internals.
Start it with `expcurate ui` (or `make ui`).
"""

from __future__ import annotations

import json
import os

import streamlit as st

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from expcurate import review  # noqa: E402
from expcurate.records import FIRST_PHASE, TaskFields  # noqa: E402
from expcurate.services import open_store  # noqa: E402
from expcurate.settings import get_settings  # noqa: E402
from expcurate.store import ConcurrentEditError  # noqa: E402


def _start_next(paper_id: str, due: list[object]) -> None:
    if not due:
        return
    from expcurate.launcher import start_next

    how = start_next(paper_id, get_settings())
    st.success(f"Next stage started for {paper_id}: {how}")


def main() -> None:
    st.set_page_config(page_title="ExpCurate review", layout="wide")
    settings = get_settings()
    store = open_store(settings)
    reviewer = st.sidebar.text_input("Reviewer", value=os.environ.get("EXPCURATE_REVIEWER", "reviewer"))
    papers = store.papers()
    st.sidebar.header("Papers")
    for p in papers:
        st.sidebar.write(f"**{p.id}**: {p.status} ({p.stage or '-'})")
    st.title("Review queue")

    runs_open = [
        (p.id, r) for p in papers for s, r in store.current_runs(p.id).items()
        if r.status == "awaiting_review" and s in {x.value for x in FIRST_PHASE}
    ]  # fmt: skip
    tasks_open = store.tasks(status="awaiting_review")
    st.caption(f"{len(runs_open)} stage checkpoints and {len(tasks_open)} tasks await review")

    for paper_id, run in runs_open:
        with st.expander(f"{paper_id} · {run.stage} checkpoint · {run.result_status}"):
            if run.errors:
                st.json(run.errors)
            if st.button("Approve", key=f"run-approve-{run.id}"):
                assert run.id is not None
                outcome = review.approve_run(store, run.id, reviewer)
                _start_next(paper_id, list(outcome.due))
                st.rerun()

    for task in tasks_open:
        assert task.id is not None
        fields = store.fields(task)
        with st.expander(f"{task.paper_id} · {task.stage} · task {task.id}: {fields.question[:90]}"):
            for flag in task.flags:
                st.warning(f"{flag['check']} ({flag['severity']}): {flag['message']}")
            question = st.text_area("question", fields.question, key=f"q-{task.id}")
            method = st.text_area("method", fields.method, key=f"m-{task.id}")
            outcome_text = st.text_area("expected_outcome", fields.expected_outcome, key=f"o-{task.id}")
            if fields.requirements:
                st.code("\n".join(fields.requirements))
            if fields.source:
                st.write("source:", ", ".join(fields.source))
            st.caption("evidence: " + json.dumps([e.model_dump() for e in fields.evidence]))
            reason = st.text_input("reason (needed to reject)", key=f"r-{task.id}")
            col1, col2 = st.columns(2)
            edited = TaskFields.model_validate(
                {**fields.model_dump(), "question": question, "method": method,
                 "expected_outcome": outcome_text}
            )  # fmt: skip
            changed = edited != fields
            try:
                if col1.button("Approve" + (" with edits" if changed else ""), key=f"a-{task.id}"):
                    result = review.decide_task(
                        store, task.id, "approve", reviewer,
                        fields=edited if changed else None,
                        expected_head=task.head if changed else None,
                    )  # fmt: skip
                    _start_next(task.paper_id, list(result.due))
                    st.rerun()
                if col2.button("Reject", key=f"x-{task.id}"):
                    result = review.decide_task(store, task.id, "reject", reviewer, reason=reason)
                    _start_next(task.paper_id, list(result.due))
                    st.rerun()
            except ConcurrentEditError as exc:
                st.error(str(exc))
            except review.ReviewError as exc:
                st.error(str(exc))


main()
