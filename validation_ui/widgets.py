"""Streamlit renderings shared by the pages: flags, diffs, paper evidence, code, traces."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from expcurate.records import (
    BBox,
    Figure,
    Flag,
    IngestResult,
    ParsedPaper,
    RepoIndex,
    Table,
    ToolCall,
)
from validation_ui import evidence as ev
from validation_ui.editing import FieldChange, Problem


@st.cache_data(max_entries=64, show_spinner=False)
def _region(pdf: str, page: int, bbox: BBox | None, mtime: float) -> bytes:
    return ev.render_region(Path(pdf), page, bbox)


def pdf_region(pdf: Path | None, page: int | None, bbox: BBox | None, caption: str) -> None:
    if pdf is None or page is None:
        st.caption("The PDF page is not available.")
        return
    try:
        png = _region(str(pdf), page, bbox, pdf.stat().st_mtime)
    except (OSError, ValueError, RuntimeError) as exc:
        st.caption(f"Could not render page {page}: {exc}")
        return
    st.image(png, caption=caption)


def flags(items: Sequence[Flag]) -> None:
    if not items:
        st.caption("No validator flags.")
        return
    for flag in items:
        check, severity = flag.check, flag.severity.value
        lead, sides = ev.two_sides(flag.message)
        text = f"**{check}** ({severity}): {lead}  \n_{ev.flag_meaning(check)}_"
        {"error": st.error, "warning": st.warning}.get(severity, st.info)(text)
        if sides:  # a merge's two values, a moved reference's old and new code
            for column, (label, version) in zip(st.columns(len(sides)), sides, strict=True):
                with column:
                    st.caption(label)
                    st.code(version or "(nothing)", language=None, wrap_lines=True)


def problems(found: list[Problem]) -> None:
    for p in found:
        (st.error if p.severity == "error" else st.warning)(f"{p.field}: {p.message}")


def diff(changes: list[FieldChange], empty: str = "No differences.") -> None:
    if not changes:
        st.caption(empty)
        return
    for change in changes:
        st.markdown(f"**{change.field}**")
        st.code(change.diff or "(changed whitespace)", language="diff", wrap_lines=True)


def evidence_panel(views: list[ev.EvidenceView], pdf: Path | None) -> None:
    if not views:
        st.caption("The task cites no table, figure or section.")
    for view in views:
        with st.container(border=True):
            where = f" · page {view.page}" if view.page else ""
            st.markdown(f"**{view.label}** ({view.kind}{where})")
            if not view.found and view.kind in ("table", "figure", "section"):
                st.warning(f"{view.label} was not found in the parsed paper.")
                continue
            if view.caption:
                st.caption(view.caption)
            if view.image is not None:
                st.image(str(view.image), caption=f"{view.label}: crop")
            if view.kind in ("table", "figure"):
                pdf_region(pdf, view.page, view.bbox, f"{view.label}: page {view.page} region")
            if view.text:
                st.text(view.text[:1500])


def code_views(views: list[ev.CodeView]) -> None:
    for view in views:
        st.markdown(view.label or f"`{view.path}`")
        if view.problem:
            st.warning(view.problem)
        else:
            st.caption(f"{view.path}, lines {view.first}-{view.last}")
            st.code(view.code, language=view.language)


def trace(calls: list[ToolCall]) -> None:
    if not calls:
        st.caption("No tool-call trace recorded.")
        return
    for n, call in enumerate(calls, 1):
        args = ", ".join(f"{k}={v!r}" for k, v in call.args.items())
        with st.expander(f"{n}. {call.tool}({args})"[:160]):
            st.code(call.result or "(no output)", language="text", wrap_lines=True)


# ------------------------------------------------------------------ first-phase checkpoints


def short_source(source: str) -> str:
    """A URL as is, a local path by its last parts: enough to recognise, no machine paths."""
    if "://" in source or source.startswith("git@") or not source:
        return source
    return "/".join(Path(source).parts[-2:])


def ingest_summary(result: IngestResult) -> None:
    pdf = result.pdf_url or short_source(result.pdf_path)
    repo = short_source(result.repo_url or result.repo_path)
    st.markdown(
        f"- PDF: `{pdf}` (sha256 `{result.pdf_sha256[:16]}…`)\n"
        f"- repository: `{repo}` at commit `{result.commit[:12]}`"
    )


def parsed_summary(parsed: ParsedPaper, art: ev.PaperArtifacts) -> None:
    st.markdown(f"### {parsed.title or '(no title found)'}")
    st.caption(f"{parsed.authors}  \n{parsed.pages} pages")
    if parsed.abstract:
        with st.expander("Abstract"):
            st.write(parsed.abstract)
    st.markdown(
        f"**{len(parsed.sections)} sections, {len(parsed.tables)} tables, "
        f"{len(parsed.figures)} figures, {len(parsed.links)} links**"
    )
    with st.expander(f"Sections ({len(parsed.sections)})"):
        st.dataframe(
            [{"number": s.number, "title": s.title, "page": s.page, "appendix": s.appendix}
             for s in parsed.sections],
            hide_index=True, width="stretch",
        )  # fmt: skip
    floats: list[Table | Figure] = [*parsed.tables, *parsed.figures]
    for item in floats:
        caption = item.caption
        if caption.startswith(item.label):
            caption = caption[len(item.label) :].lstrip(": .")
        with st.expander(f"{item.label} · page {item.page} · {caption[:90]}"):
            left, right = st.columns(2)
            with left:
                path = ev.image_path(art, item.image)
                if path is not None:
                    st.image(str(path), caption="crop")
                rows = getattr(item, "rows", [])
                if rows:
                    st.dataframe(rows, hide_index=True)
            with right:
                pdf_region(art.pdf, item.page, item.bbox, f"page {item.page} region")
    if parsed.code_links():
        st.markdown("Code links: " + ", ".join(parsed.code_links()))


def index_summary(index: RepoIndex) -> None:
    st.markdown(
        f"**{len(index.files)} files, {len(index.entry_points)} entry points, "
        f"{len(index.commands)} documented commands, {len(index.configs)} configs, "
        f"{len(index.results)} result files** at commit `{index.commit[:12]}`"
    )
    if index.entry_points:
        st.dataframe(
            [{"path": e.path, "kind": e.kind, "line": e.line, "flags": len(e.flags)}
             for e in index.entry_points],
            hide_index=True, width="stretch",
        )  # fmt: skip
    if index.commands:
        st.code("\n".join(f"{c.text}    # {c.doc}:{c.line}" for c in index.commands), "bash")
