"""Review one item: a task (form beside its evidence) or a first-phase checkpoint."""

from __future__ import annotations

import streamlit as st

from expcurate.records import IngestResult, ParsedPaper, RepoIndex, RunStatus
from validation_ui import common, logic, task_form, widgets
from validation_ui import evidence as ev

actor, store = common.page()


def _pick() -> logic.QueueItem | None:
    ref = st.query_params.get("item") or st.session_state.get(common.ITEM_KEY)
    if ref:
        return logic.find_item(store, str(ref))
    items = logic.filter_queue(
        logic.build_queue(store), st.session_state.get(task_form.FILTER_KEY, logic.QueueFilter())
    )
    return logic.next_item(items, skipped=common.skipped())


def _checkpoint(item: logic.QueueItem) -> None:
    run = store.get_run(item.id)
    assert run is not None
    st.subheader(f"{run.stage} checkpoint · {run.paper_id}")
    st.caption(
        f"run {run.id} · {run.status} · result {run.result_status or '-'} · "
        f"{run.duration_s:.1f} s · ${run.cost_usd:.4f}"
    )
    widgets.flags(item.flags)
    art = ev.load_artifacts(store, common.settings(), run.paper_id)
    try:
        if run.stage == "ingest":
            widgets.ingest_summary(ev.run_artifact(common.settings(), run, IngestResult))
        elif run.stage == "parse":
            widgets.parsed_summary(ev.run_artifact(common.settings(), run, ParsedPaper), art)
        elif run.stage == "mine":
            widgets.index_summary(ev.run_artifact(common.settings(), run, RepoIndex))
    except (OSError, ValueError) as exc:
        st.error(f"The {run.stage} artifact could not be read: {exc}")
    if run.status != RunStatus.awaiting_review or not logic.can(actor.role, "review"):
        return
    reason = st.text_input("Reason (required to reject)", key=f"run-reason-{run.id}")
    c1, c2, c3 = st.columns(3)
    decision = (
        "approve" if c1.button("Approve", type="primary", key=f"run-approve-{run.id}")
        else "reject" if c2.button("Reject", key=f"run-reject-{run.id}")
        else "skip" if c3.button("Skip", key=f"run-skip-{run.id}")
        else ""
    )  # fmt: skip
    if not decision:
        return
    shown = logic.filter_queue(
        logic.build_queue(store), st.session_state.get(task_form.FILTER_KEY, logic.QueueFilter())
    )
    before = [it.ref for it in shown]  # where the checkpoint sat, before the decision
    result = logic.decide_checkpoint(
        store, item.id, decision, actor, launch=common.launcher(), reason=reason
    )
    common.flash(result.message, result.level)
    if not result.ok:
        st.rerun()
    if decision == "skip":
        common.skipped().add(item.ref)
    items = logic.filter_queue(
        logic.build_queue(store), st.session_state.get(task_form.FILTER_KEY, logic.QueueFilter())
    )
    nxt = logic.next_item(items, current=item.ref, skipped=common.skipped(), before=before)
    if nxt is None:
        common.go("queue")
    common.open_item(nxt.ref)


item = _pick()
if item is None:
    st.title("Review item")
    asked = st.query_params.get("item") or st.session_state.get(common.ITEM_KEY)
    if asked:  # a link to an item that does not exist (a typo, a deleted store)
        st.error(f"There is no {str(asked).replace(':', ' ')} in this store.")
        st.session_state.pop(common.ITEM_KEY, None)
    else:
        st.info("Nothing awaits review. New items appear in the queue when a stage finishes.")
    st.page_link(common.PAGES["queue"], label="Back to the queue")
    st.stop()
st.session_state[common.ITEM_KEY] = item.ref
if st.query_params.get("item") != item.ref:
    st.query_params["item"] = item.ref
nav = st.columns([1, 1, 1, 1, 4])
if nav[0].button("← Queue", key="to-queue"):
    common.go("queue")
if nav[1].button("Next item →", key="to-next"):
    queue = logic.filter_queue(
        logic.build_queue(store), st.session_state.get(task_form.FILTER_KEY, logic.QueueFilter())
    )
    nxt = logic.next_item(queue, current=item.ref, skipped=common.skipped())
    if nxt is None:
        common.flash("No other item awaits review.", "info")
        st.rerun()
    common.open_item(nxt.ref)
if nav[2].button("Paper", key="to-paper"):
    common.go("paper", paper=item.paper_id)
if item.kind == "task" and nav[3].button("History", key="to-history"):
    common.go("history", task=item.id)
if item.kind == "task":
    task_form.render(item, actor)
else:
    _checkpoint(item)
