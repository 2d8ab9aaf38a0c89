"""Paper overview: each stage's status, cost, timing and errors; retry for curators."""

from __future__ import annotations

from textwrap import shorten

import streamlit as st

from expcurate.curation.pipeline import recover_interrupted
from expcurate.records import RunStatus, Stage
from expcurate.settings import get_settings
from validation_ui import common, logic, overview, widgets
from validation_ui import evidence as ev

actor, store = common.page("Papers")

papers = store.papers()
common.stop_if_empty(
    papers, "No papers yet. Curators add them with `expcurate extract` or `expcurate batch`."
)
ids = [p.id for p in papers]
wanted = st.query_params.get("paper")
pid = st.selectbox("Paper", ids, index=ids.index(wanted) if wanted in ids else 0, key="paper-pick")
if st.query_params.get("paper") != pid:
    st.query_params["paper"] = pid
# A run a killed process left `running` is marked interrupted here too, so the page offers
# to start its stage again instead of showing it running for ever.
for line in recover_interrupted(store, get_settings(), pid):
    st.warning(line)
paper = store.require_paper(pid)
rows = overview.stage_rows(store, pid)
tasks = store.tasks(pid)

st.markdown(f"### {paper.title or pid}")
st.markdown(f"**{paper.status}** at **{paper.stage or '-'}**")
m = st.columns(3)
m[0].metric("Cost (USD)", f"{sum(r.cost_usd for r in rows):.4f}")
m[1].metric("Run time (s)", f"{sum(r.duration_s for r in rows):.1f}")
m[2].metric("Tasks", len(tasks))
st.caption(
    f"PDF {widgets.short_source(paper.pdf_source)} · code {widgets.short_source(paper.repo_source)}"
    f" · commit {paper.commit[:12] or '-'}"
)
if paper.error:
    st.error(f"{paper.stage}: {paper.error}")

st.dataframe(
    [
        {"stage": r.stage, "status": r.status, "result": r.result_status, "items": r.items,
         "open items": r.open_items, "cost (USD)": round(r.cost_usd, 4), "tokens": r.tokens,
         "time (s)": round(r.duration_s, 1), "model": r.model,
         "started": f"{r.started_at:%Y-%m-%d %H:%M:%S}" if r.started_at else "",
         "errors": len(r.errors)}
        for r in rows
    ],
    hide_index=True, width="stretch",
)  # fmt: skip

may_retry = logic.can(actor.role, "retry")
for row in rows:
    if not row.errors:
        continue
    with st.container(border=True):
        st.markdown(f"**{row.stage}**: {row.status}")
        for err in row.errors:
            where = " ".join(
                f"{k} {err[k]}" for k in ("page", "file") if err.get(k) not in (None, "")
            )
            text = f"{err.get('category', '')}: {err.get('message', '')} {where}".strip()
            (st.error if err.get("severity", "error") == "error" else st.warning)(text)
        if (
            row.retryable
            and may_retry
            and st.button(f"Retry the {row.stage} stage", key=f"retry-{row.stage}")
        ):
            result = logic.retry(store, pid, Stage(row.stage), actor, common.launcher())
            common.flash(result.message, result.level)
            st.rerun()
    if row.retryable and not may_retry:
        st.caption("A curator can retry this stage.")

due = logic.due_now(store, pid)
running = any(r.status == RunStatus.running for r in rows)
if due and not running:
    names = ", ".join(s.value for s in due)
    st.info(f"Due and not running: {names}.")
    if may_retry and st.button(f"Start {names}", key="start-due"):
        result = logic.start_due(store, pid, actor, common.launcher())
        common.flash(result.message, result.level)
        st.rerun()

st.markdown("#### Tasks")
counts = logic.stage_counts(tasks, "all")  # this paper's own, no queue built
st.caption(" · ".join(f"{stage}: {n}" for stage, n in counts.items() if n) or "No tasks yet.")
questions = store.questions([t.id for t in tasks if t.id is not None])
for task in tasks:
    cols = st.columns([1, 1, 2, 8])
    if cols[0].button("Open", key=f"paper-open-{task.id}"):
        common.open_item(f"task:{task.id}")
    cols[1].write(task.stage)
    cols[2].write(task.status)
    cols[3].write(shorten(questions.get(task.id or 0, ""), 150, placeholder=" …"))

logs = ev.advance_logs(common.settings(), pid)
if logs:
    with st.expander(f"Log of the latest background run ({logs[0].name})"):
        st.code(ev.tail(logs[0]), language="text")
