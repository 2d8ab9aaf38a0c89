"""Publish: build a release from approved tasks, download any release as a zip."""

from __future__ import annotations

from functools import partial

import streamlit as st

from expcurate.curation.publish import PublishError, export
from expcurate.records import TaskStatus
from expcurate.store import StoreError
from validation_ui import common, logic, overview

actor, store = common.page("Publish")
settings = common.settings()

approved: dict[str, int] = {}
for task in store.tasks(stage="package", status=TaskStatus.approved):
    approved[task.paper_id] = approved.get(task.paper_id, 0) + 1
st.markdown("#### Ready to publish")
if approved:
    st.dataframe(
        [{"paper": pid, "approved tasks": n} for pid, n in sorted(approved.items())],
        hide_index=True,
    )
else:
    st.caption("No task has passed the final (package) checkpoint yet.")

if logic.can(actor.role, "publish"):
    with st.form("build-release"):
        name = st.text_input("Release name (a folder name)", key="rel-name")
        chosen = st.multiselect("Papers (none: all ready papers)", sorted(approved))
        replace = st.checkbox("Replace a release of the same name", key="rel-replace")
        build = st.form_submit_button("Build release", type="primary")
    if build:
        existing = {r.name for r in store.releases()}
        if name in existing and not replace:
            common.show(f"A release named {name!r} exists; tick 'Replace' to rebuild it.", "error")
        else:
            try:
                summary = export(store, settings, name.strip(), chosen or None)
            except PublishError as exc:
                common.show(f"Not published: {exc}", "error")
            else:
                message = (
                    f"Release {summary.name}: {summary.papers} papers, {summary.tasks} tasks "
                    f"(manifest sha256 {summary.manifest_sha256[:12]}…)."
                )
                if summary.unmasked:  # a warning, so it is not read past as a success
                    common.flash(f"{message} {summary.unmasked_line()}", "warning")
                else:
                    common.flash(message)
                st.rerun()
else:
    st.caption(f"Curators and admins build releases; as a {actor.role} you can download them.")

st.markdown("#### Releases")
releases = store.releases()
if not releases:
    st.caption("No release yet.")
for rel in reversed(releases):
    cols = st.columns([2, 2, 2, 2])
    cols[0].markdown(f"**{rel.name}**")
    cols[1].write(f"{rel.paper_count} papers, {rel.task_count} tasks")
    cols[2].write(f"{rel.created_at:%Y-%m-%d %H:%M} UTC")
    try:
        overview.release_dir(settings, rel.path)
    except StoreError as exc:
        cols[3].caption(str(exc))
        continue
    cols[3].download_button(
        "Download zip", partial(overview.release_zip, settings, rel.path),
        file_name=f"{rel.name}.zip", mime="application/zip", key=f"dl-{rel.name}",
        on_click="ignore",
    )  # fmt: skip
