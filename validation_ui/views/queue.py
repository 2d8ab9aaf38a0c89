"""The queue: what awaits review, filtered, counted per stage, with a "next item" button."""

from __future__ import annotations

from textwrap import shorten

import streamlit as st

from expcurate.records import STAGE_ORDER, PaperStatus
from validation_ui import common, logic, task_form

PAGE_SIZE = 50

actor, store = common.page("Review queue")

items = logic.build_queue(store)
papers = [p.id for p in store.papers()]
checks = logic.flag_checks(items)
saved: logic.QueueFilter = st.session_state.get(task_form.FILTER_KEY, logic.QueueFilter())

c1, c2, c3, c4 = st.columns(4)
chosen_papers = c1.multiselect(
    "Paper", papers, default=[p for p in saved.papers if p in papers], key="f-papers"
)
chosen_stages = c2.multiselect(
    "Stage", [s.value for s in STAGE_ORDER], default=list(saved.stages), key="f-stages"
)
status = c3.selectbox(
    "Status", logic.STATUS_CHOICES, index=logic.STATUS_CHOICES.index(saved.status),
    key="f-status",
)  # fmt: skip
flag_options = [*logic.FLAG_CHOICES, *[f"check:{c}" for c in checks]]
flag = c4.selectbox(
    "Validator flags", flag_options,
    index=flag_options.index(saved.flags) if saved.flags in flag_options else 0, key="f-flags",
)  # fmt: skip
current = logic.QueueFilter(tuple(chosen_papers), tuple(chosen_stages), status, flag)
st.session_state[task_form.FILTER_KEY] = current
shown = logic.filter_queue(items, current)

# Counts per stage over everything else the filter asks for.
counted = logic.filter_queue(
    items, logic.QueueFilter(current.papers, (), current.status, current.flags)
)
counts = logic.stage_counts(counted, status)
for col, (stage, n) in zip(st.columns(len(counts)), counts.items(), strict=True):
    col.metric(stage, n)

running = [p.id for p in store.papers() if p.status in (PaperStatus.running, PaperStatus.pending)]
top = st.columns([1, 1, 4])
if top[0].button("Next item →", type="primary", key="next-item"):
    nxt = logic.next_item(shown, skipped=common.skipped())
    if nxt is None:
        common.show("Nothing matching the filters awaits review.", "info")
    else:
        common.open_item(nxt.ref)
if top[1].button("Refresh", key="refresh"):
    st.rerun()
if running:
    top[2].caption(f"Running: {', '.join(running)}. The list refreshes every 5 s.")
elif common.recently_launched():
    top[2].caption("A stage was started in the last minutes; the list refreshes every 5 s.")


@st.fragment(run_every=5 if running or common.recently_launched() else None)
def _listing() -> None:
    fresh = logic.filter_queue(logic.build_queue(common.store()), current)
    if [it.ref for it in fresh] != [it.ref for it in shown]:
        st.rerun(scope="app")  # new items arrived: refresh the counts too
    st.caption(f"{len(fresh)} items match · {sum(it.status == 'awaiting_review' for it in fresh)} "
               "await review")  # fmt: skip
    if not fresh:
        st.info("Nothing matches. Clear the filters, or wait for a running stage to finish.")
        return
    pages = max(1, -(-len(fresh) // PAGE_SIZE))
    page = st.number_input("Page", 1, pages, 1, key="q-page") if pages > 1 else 1
    rows = fresh[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    titles = logic.item_titles(common.store(), rows)
    head = st.columns([1, 1, 1, 2, 1, 6])
    for col, name in zip(head, ["", "paper", "stage", "status", "flags", "question"], strict=True):
        col.caption(f"**{name}**" if name else "")
    for it in rows:
        cols = st.columns([1, 1, 1, 2, 1, 6])
        if cols[0].button("Open", key=f"open-{it.ref}"):
            common.open_item(it.ref)
        cols[1].write(it.paper_id)
        cols[2].write(it.stage)
        cols[3].write(it.status + (" · skipped" if it.ref in common.skipped() else ""))
        sev = it.severities()
        cols[4].write("⛔" if "error" in sev else "⚠️" if "warning" in sev else "✓")
        cols[5].write(shorten(titles[it.ref], 150, placeholder=" …"))


_listing()
