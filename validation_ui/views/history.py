"""History of a task: every revision, who made it, the decisions, the diff between any two."""

from __future__ import annotations

import streamlit as st

from expcurate.records import TaskFields
from validation_ui import common, widgets
from validation_ui.editing import field_diff

actor, store = common.page("History")

tasks = store.task_summaries()  # (id, paper, stage, status, position, flags)
common.stop_if_empty(tasks, "No tasks yet.")
ids = [t[0] for t in tasks]
wanted = st.query_params.get("task")
default = int(wanted) if wanted and wanted.isdigit() and int(wanted) in ids else ids[0]
labels = {t[0]: f"{t[0]} · {t[1]} · {t[2]} · {t[3]}" for t in tasks}
tid = st.selectbox(
    "Task", ids, index=ids.index(default), format_func=lambda i: labels[i], key="hist-task"
)
if st.query_params.get("task") != str(tid):
    st.query_params["task"] = str(tid)
task = store.require_task(tid)
revs = store.revisions(tid)
st.caption(store.fields(task).question)
if st.button("Open this task for review", key="hist-open"):
    common.open_item(f"task:{tid}")

st.markdown("#### Revisions")
st.dataframe(
    [
        {"revision": r.number, "author": r.author, "kind": r.kind, "stage": r.stage,
         "based on": r.base, "when (UTC)": f"{r.created_at:%Y-%m-%d %H:%M:%S}", "note": r.note}
        for r in revs
    ],
    hide_index=True, width="stretch",
)  # fmt: skip

st.markdown("#### Decisions")
reviews = store.reviews(task_id=tid)
if reviews:
    st.dataframe(
        [
            {"decision": r.decision, "by": r.reviewer, "on revision": r.revision,
             "stage": r.stage, "reason": r.reason,
             "when (UTC)": f"{r.created_at:%Y-%m-%d %H:%M:%S}"}
            for r in reviews
        ],
        hide_index=True, width="stretch",
    )  # fmt: skip
else:
    st.caption("No decisions yet.")

st.markdown("#### Compare two revisions")
numbers = [r.number for r in revs]
c1, c2 = st.columns(2)
a = c1.selectbox("From", numbers, index=0, key=f"hist-a-{tid}")
b = c2.selectbox("To", numbers, index=len(numbers) - 1, key=f"hist-b-{tid}")
by_number = {r.number: r for r in revs}
old = TaskFields.model_validate(by_number[a].fields)
new = TaskFields.model_validate(by_number[b].fields)
widgets.diff(field_diff(old, new), f"Revisions {a} and {b} hold the same fields.")
with st.expander(f"Revision {b} in full"):
    st.json(by_number[b].fields, expanded=False)
