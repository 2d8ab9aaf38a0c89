"""Reviewing one task: the edit form beside its evidence, the diff, and the decision buttons.

Nothing typed is lost: the form's values are copied into `st.session_state` on every run (a
draft per task, with the revision it was started from), so a rerun, a page switch or a
refused save brings the same text back. A save made on an old revision is refused by the
store; the page then shows the other reviewer's version and lets this one choose.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import streamlit as st

from expcurate.curation import review
from expcurate.records import TaskFields, TaskStatus
from expcurate.records.task import SETUP_FIELDS, field_title
from expcurate.store.rows import Task
from validation_ui import common, logic, widgets
from validation_ui import evidence as ev
from validation_ui.editing import (
    LIST_FIELDS,
    TEXT_FIELDS,
    VARIABLE_KINDS,
    EditForm,
    ParsedEdit,
    field_diff,
    form_from_fields,
    parse_form,
    rebase,
)

DRAFTS_KEY = "expcurate_drafts"
CONFLICTS_KEY = "expcurate_conflicts"
SEEN_KEY = "expcurate_seen"  # task -> the revision the reviewer was shown
FILTER_KEY = "expcurate_filter"


def _drafts() -> dict[int, dict[str, Any]]:
    value: dict[int, dict[str, Any]] = st.session_state.setdefault(DRAFTS_KEY, {})
    return value


def _conflicts() -> dict[int, int]:
    value: dict[int, int] = st.session_state.setdefault(CONFLICTS_KEY, {})
    return value


def _seen() -> dict[int, int]:
    """The revision each task was shown at: a decision names it, and a rerun (every click
    is one) must not quietly move it to whatever was saved since."""
    value: dict[int, int] = st.session_state.setdefault(SEEN_KEY, {})
    return value


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _edit_widgets(tid: int, base: int, seed: EditForm, setup_open: bool) -> EditForm:
    """The form; each widget is seeded once from the draft (or the revision), then kept."""
    prefix = f"t{tid}-r{base}"

    def seeded(name: str, value: str) -> str:
        key = f"{prefix}-{name}"
        if key not in st.session_state:
            st.session_state[key] = value
        return key

    text, lists = {}, {}
    for name in ("question", "method", "expected_outcome", "subsection_source"):
        height = 68 if name in ("question", "subsection_source") else 160
        text[name] = st.text_area(field_title(name), key=seeded(name, seed.text.get(name, "")),
                                  height=height)  # fmt: skip
    st.markdown('**Design variables** (value: text, or a JSON list such as `["a", "b"]`)')
    table_key, seed_key = f"{prefix}-vars", f"{prefix}-vars-seed"
    if table_key not in st.session_state:  # a fresh editor: start from the draft's rows
        st.session_state[seed_key] = [dict(r) for r in seed.variables]
    frame = pd.DataFrame(st.session_state[seed_key], columns=["kind", "name", "value"])
    edited = st.data_editor(
        frame, key=table_key, num_rows="dynamic", hide_index=True, width="stretch",
        column_config={
            "kind": st.column_config.SelectboxColumn("kind", options=VARIABLE_KINDS, required=True),
            "name": st.column_config.TextColumn("name", required=True),
            "value": st.column_config.TextColumn("value", width="large"),
        },
    )  # fmt: skip
    rows = [{k: _cell(v) for k, v in r.items()} for r in edited.to_dict("records")]
    evidence = st.text_area(
        "Evidence (one per line: 'table: Table 3 (p. 4)')",
        key=seeded("evidence", seed.evidence), height=68,
    )  # fmt: skip
    with st.expander("Setup in the code", expanded=setup_open):
        for name in SETUP_FIELDS:
            if name in LIST_FIELDS:
                lists[name] = st.text_area(
                    field_title(name), key=seeded(name, seed.lists.get(name, ""))
                )
            else:
                text[name] = st.text_area(
                    field_title(name), key=seeded(name, seed.text.get(name, ""))
                )
    return EditForm(text=text, lists=lists, variables=rows, evidence=evidence)


def _read_only(fields: TaskFields) -> None:
    _show_form(form_from_fields(fields))


def _show_form(form: EditForm) -> None:
    """A task's fields (or a reviewer's unsaved edit of them) as text to read or copy."""
    for name in TEXT_FIELDS:
        if form.text.get(name):
            st.markdown(f"**{field_title(name)}**")
            # as text: a "# heading" or "**" in a task field is the task's, not the page's
            st.code(form.text[name], language="text", wrap_lines=True)
    st.markdown("**Design variables**")
    st.dataframe(pd.DataFrame(form.variables, columns=["kind", "name", "value"]), hide_index=True)
    for name in LIST_FIELDS:
        if form.lists.get(name):
            st.markdown(f"**{field_title(name)}**")
            st.code(form.lists[name], language="text", wrap_lines=True)


EVIDENCE_VIEWS = ("Paper", "Code", "Agent trace", "Flags")


def _evidence(fields: TaskFields, task: Task, art: ev.PaperArtifacts) -> None:
    """One evidence view at a time (a hidden tab would mount its code blocks without height)."""
    default = "Paper" if task.stage == "tasks" else "Code"
    view = st.segmented_control(
        "Evidence", EVIDENCE_VIEWS, default=default, key=f"evidence-{task.id}",
        label_visibility="collapsed",
    ) or default  # fmt: skip
    if view == "Paper":
        widgets.evidence_panel(ev.evidence_views(fields.evidence, art), art.pdf)
    elif view == "Code":
        if not fields.requirements and not fields.source:
            st.caption("No setup yet: the setup stage fills source files and requirements.")
        if art.repo is None and fields.requirements:  # once, not once per step
            st.info(
                "The repository is not available here (an imported task, or its snapshot "
                "was removed): the steps are listed without their code."
            )
            for req in fields.requirements:
                st.markdown(req)
        else:
            widgets.code_views(ev.requirement_code(fields.requirements, art.repo))
        for path in fields.source:
            if art.repo is not None:
                with st.expander(f"source: {path}"):
                    widgets.code_views([ev.read_lines(art.repo, path, 1, None, context=0)])
    elif view == "Agent trace":
        widgets.trace(fields.trace)
    else:
        widgets.flags(task.flag_list())


def _shown_queue() -> list[str]:
    """The refs of the queue as the reviewer's filter shows it, in order."""
    items = logic.filter_queue(
        logic.build_queue(common.store()), st.session_state.get(FILTER_KEY, logic.QueueFilter())
    )
    return [it.ref for it in items]


def _after_decision(
    result: logic.ActionResult, tid: int, ref: str, decision: str, before: list[str]
) -> None:
    common.flash(result.message, result.level)
    if not result.ok:
        # With an unsaved edit, show theirs against it; without one, the form simply
        # reloads at their revision for a fresh look.
        if result.conflict is not None and tid in _drafts():
            _conflicts()[tid] = result.conflict.number
        elif result.conflict is not None:
            _seen().pop(tid, None)
        st.rerun()
    _conflicts().pop(tid, None)
    _seen().pop(tid, None)
    if decision == "skip":  # a skipped task keeps its unsaved edit for later
        common.skipped().add(ref)
    else:
        _drafts().pop(tid, None)
    items = logic.filter_queue(
        logic.build_queue(common.store()), st.session_state.get(FILTER_KEY, logic.QueueFilter())
    )
    nxt = logic.next_item(items, current=ref, skipped=common.skipped(), before=before)
    if nxt is None:
        common.go("queue")
    common.open_item(nxt.ref)


def _conflict_panel(tid: int, base_fields: TaskFields, mine: TaskFields | None) -> None:
    number = _conflicts().get(tid)
    if number is None:
        return
    rev = common.store().revision(tid, number)
    theirs = TaskFields.model_validate(rev.fields)
    with st.container(border=True):
        st.error(
            f"Revision {number} by {rev.author} ({rev.created_at:%Y-%m-%d %H:%M} UTC) was saved "
            "while you edited. Nothing was overwritten. Their version against yours:"
        )
        widgets.diff(field_diff(theirs, mine) if mine else [], "Your edit matches their version.")
        c1, c2 = st.columns(2)
        if c1.button("Apply my changes on top of theirs", key=f"rebase-{tid}",
                     disabled=mine is None):  # fmt: skip
            assert mine is not None
            merged, both = rebase(base_fields, mine, theirs)
            _drafts()[tid] = {"base": number, "form": form_from_fields(merged).to_dict()}
            _conflicts().pop(tid, None)
            kept = f" Both of you changed {', '.join(both)}: your text is kept." if both else ""
            common.flash(f"Your changes now sit on revision {number}.{kept} Check, then save.",
                         "info")  # fmt: skip
            st.rerun()
        if c2.button("Discard my edit, load theirs", key=f"discard-{tid}"):
            _drafts().pop(tid, None)
            _conflicts().pop(tid, None)
            _seen().pop(tid, None)
            st.rerun()


def render(item: logic.QueueItem, actor: logic.Actor) -> None:
    store, settings = common.store(), common.settings()
    task = store.require_task(item.id)
    assert task.id is not None
    tid = task.id
    draft = _drafts().get(tid)
    base = int(draft["base"]) if draft else _seen().get(tid, task.head)
    _seen()[tid] = base
    base_fields = TaskFields.model_validate(store.revision(tid, base).fields)
    art = ev.load_artifacts(store, settings, task.paper_id)
    for problem in art.problems:
        st.warning(problem)
    st.subheader(f"Task {tid} · {task.paper_id} · {task.stage}")
    st.caption(f"status {task.status} · revision {task.head} · key `{task.key}`")
    choices = [f for f in task.flag_list() if f.check in review.SETTLED_BY_APPROVAL]
    if choices:  # what only the reviewer can decide, before the form: shown side by side
        widgets.flags(choices)
    if draft and base != task.head and tid not in _conflicts():
        st.warning(
            f"Revision {task.head} was saved since you started editing revision {base}; "
            "your edit is kept here. Saving will show you their version first."
        )
    elif not draft and base != task.head:
        author = store.revision(tid, task.head).author
        st.warning(
            f"Revision {task.head} was saved by {author} since you opened revision {base}, "
            "which is what you see here: a decision on it would be refused."
        )
        if st.button(f"Show revision {task.head}", key=f"reload-{tid}"):
            _seen().pop(tid, None)
            st.rerun()
    editable = logic.can(actor.role, "review") and task.status == TaskStatus.awaiting_review
    if draft and not editable and task.status != TaskStatus.awaiting_review:
        _decided_meanwhile(tid, task.status, EditForm.from_dict(draft["form"]))
    # Setup items cite code, which needs the width; drafts cite crops, which fit narrower.
    left, right = st.columns([3, 2] if task.stage == "tasks" else [1, 1], gap="large")
    parsed: ParsedEdit | None = None
    with left:
        if editable:
            seed = EditForm.from_dict(draft["form"]) if draft else form_from_fields(base_fields)
            form = _edit_widgets(tid, base, seed, task.stage != "tasks")
            parsed = parse_form(form, base_fields, art.repo)
            dirty = parsed.fields is None or parsed.fields.model_dump(
                mode="json"
            ) != base_fields.model_dump(mode="json")
            if dirty:
                _drafts()[tid] = {"base": base, "form": form.to_dict()}
            elif tid not in _conflicts():
                _drafts().pop(tid, None)
        else:
            if not logic.can(actor.role, "review"):
                st.info(f"You are signed in as a {actor.role}: you can read this task.")
            _read_only(base_fields)
    with right:
        _evidence(parsed.fields if parsed and parsed.fields else base_fields, task, art)
    current = parsed.fields if parsed and parsed.fields else base_fields
    if parsed:
        widgets.problems(parsed.problems)
    st.markdown("##### Changes against the machine draft")
    widgets.diff(field_diff(logic.machine_draft(store, tid), current), "No changes.")
    _conflict_panel(tid, base_fields, parsed.fields if parsed else None)
    if editable and parsed is not None:
        _actions(tid, item.ref, base, parsed, actor, dirty=tid in _drafts())
    if logic.can(actor.role, "review"):
        _override(tid, actor)


def _decided_meanwhile(tid: int, status: str, form: EditForm) -> None:
    """Someone decided the task while this reviewer had an unsaved edit: say so and keep
    the edit's text on the page to copy, instead of dropping it with the form."""
    last = next(
        (r for r in reversed(common.store().reviews(task_id=tid)) if r.decision != "skip"), None
    )
    who = f" by {last.reviewer} ({last.created_at:%Y-%m-%d %H:%M} UTC)" if last else ""
    st.error(
        f"This task was {status}{who} while you were editing it, so your unsaved edit cannot "
        "be saved here. Its text is kept below to copy; to change the task now, reopen it "
        "through its stage."
    )
    with st.expander("Your unsaved edit", expanded=True):
        _show_form(form)


def _override(tid: int, actor: logic.Actor) -> None:
    """Errors block publishing; a reviewer may accept them for this revision, with a reason."""
    store = common.store()
    task = store.require_task(tid)
    blocking = review.unresolved_errors(store, task)
    if not blocking:
        if review.error_flags(task):
            st.caption("The errors of this revision were accepted by an override.")
        return
    with st.expander(f"Publish despite {len(blocking)} error flag(s)"):
        st.caption("Export refuses tasks with error flags unless a reviewer accepts them here.")
        reason = st.text_input("Why the errors are acceptable", key=f"override-reason-{tid}")
        if st.button("Override errors", key=f"override-{tid}"):
            result = logic.override_item(store, tid, actor, reason)
            common.flash(result.message, result.level)
            st.rerun()


def _actions(
    tid: int, ref: str, base: int, parsed: ParsedEdit, actor: logic.Actor, *, dirty: bool
) -> None:
    store = common.store()
    reason = st.text_input("Reason (required to reject)", key=f"reason-{tid}")
    c1, c2, c3, c4 = st.columns(4)
    approve = c1.button("Approve with edits" if dirty else "Approve", type="primary",
                        key=f"approve-{tid}")  # fmt: skip
    save = c2.button("Save edits", key=f"save-{tid}", disabled=not dirty)
    reject = c3.button("Reject", key=f"reject-{tid}")
    skip = c4.button("Skip", key=f"skip-{tid}")
    if not (approve or save or reject or skip):
        return
    if (approve or save or (reject and dirty)) and not parsed.ok:
        common.show("Not saved: fix the problems listed above first.", "error")
        return
    fields = parsed.fields if dirty else None
    if save and fields is not None:
        result = logic.save_edit(store, tid, fields, actor, base_head=base)
        common.flash(result.message, result.level)
        if result.ok:
            _drafts().pop(tid, None)
            _seen().pop(tid, None)  # the reviewer's own revision is what they see next
        elif result.conflict is not None:
            _conflicts()[tid] = result.conflict.number
        st.rerun()
    decision = "approve" if approve else "reject" if reject else "skip"
    before = _shown_queue()  # where the task sat, before the decision takes it out
    result = logic.decide_item(
        store, tid, decision, actor, base_head=base, launch=common.launcher(),
        fields=fields, reason=reason,
    )  # fmt: skip
    _after_decision(result, tid, ref, decision, before)
