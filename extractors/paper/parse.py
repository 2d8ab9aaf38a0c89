"""The parsing engine: one readable PDF in, one `ParsedPaper` out.

`parse_pdf` reads every page's text and drawings, finds the captions, locates and reads each
table and figure beside them, then walks the rest in reading order for the title, authors,
abstract, sections and links. The helpers it leans on live in the sibling modules (layout,
captions, tables, figures, front, sections, links); this module only sequences them and
records what went wrong on the result instead of raising.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from expcurate.records import Figure, ParsedPaper, Section, Severity, Table
from extractors.paper.captions import Caption, find_captions
from extractors.paper.errors import PaperLoadError, open_pdf
from extractors.paper.figures import (
    Renderer,
    locate_figure,
    read_figure_text,
    with_axis_titles,
)
from extractors.paper.front import find_abstract, find_authors, find_title
from extractors.paper.graphics import Graphics, read_graphics
from extractors.paper.layout import (
    Box,
    Line,
    PageText,
    body_size,
    mark_furniture,
    read_page,
    set_columns,
)
from extractors.paper.limits import IMAGE_SHARE, STAGE, Budget, ImageTooLarge
from extractors.paper.links import dedupe, page_links
from extractors.paper.regions import PageContext, prose_boxes
from extractors.paper.sections import Heading, find_headings, join_lines, reading_order
from extractors.paper.tables import locate_table, read_table, table_options

__all__ = ["parse_pdf"]


def parse_pdf(
    path: Path,
    images_dir: Path | None = None,
    *,
    max_pages: int = 400,
    deadline_s: float | None = None,
    max_image_mb: float = 2048 / IMAGE_SHARE,
) -> ParsedPaper:
    """Parse one paper; raises `PaperLoadError` only when the file is not a readable PDF.

    `deadline_s` is the time budget in seconds (None: unlimited); `max_image_mb` caps the
    pixels one table or figure crop may decode."""
    budget = Budget(deadline_s, max_image_mb)
    doc, notes = open_pdf(Path(path))
    result = ParsedPaper(pages=doc.page_count)
    for category, message in notes:
        result.add_error(STAGE, category, message)
    damaged = any(category == "damaged_pdf" for category, _ in notes)
    try:
        _parse(doc, result, images_dir, max_pages, budget)
    finally:
        doc.close()
    budget.report(result)
    no_text = any(e.category == "no_text_layer" and e.page is None for e in result.errors)
    if damaged and no_text:
        raise PaperLoadError(
            f"{path}: truncated or corrupt PDF: MuPDF repaired its structure but no page "
            "has readable content; download it again"
        )
    result.errors.sort(key=lambda e: e.page or 0)
    return result


def _parse(
    doc: pymupdf.Document,
    result: ParsedPaper,
    images_dir: Path | None,
    max_pages: int,
    budget: Budget,
) -> None:
    count = min(doc.page_count, max_pages)
    if doc.page_count > max_pages:
        result.add_error(
            STAGE,
            "too_many_pages",
            f"the PDF has {doc.page_count} pages; only the first {max_pages} were parsed "
            "(raise max_pages to read them all)",
            severity=Severity.warning,
        )
    pages: list[PageText] = []
    broken: set[int] = set()
    for n in range(count):
        if n and budget.expired():  # page 1 always, for the title
            budget.skip(f"stopped after {n} of {count} pages")
            break
        try:
            pages.append(read_page(doc[n]))
        except Exception as exc:  # a broken page must not lose the rest of the paper
            result.add_error(STAGE, "page_unreadable", f"page could not be read: {exc}", page=n + 1)
            pages.append(PageText(number=n + 1, width=612, height=792, blocks=[], words=[]))
            broken.add(n + 1)
    if not _has_text(pages, doc, result, broken):
        return
    body = body_size(pages)
    mark_furniture(pages)
    set_columns(pages, body)

    order = reading_order(pages)
    toc = _toc(doc, count)
    rough_heads = find_headings(order, body, toc)
    floats_out = _floats(doc, pages, body, rough_heads, result, images_dir, budget)
    inside = _float_lines(pages, floats_out)
    body_order = [(p, ln) for p, ln in order if id(ln) not in inside]

    title, title_lines = find_title(pages[0], body, inside)
    skip = {id(ln) for ln in title_lines}
    body_order = [(p, ln) for p, ln in body_order if id(ln) not in skip]
    heads = find_headings(body_order, body, toc)
    abstract, a_start, _ = find_abstract(body_order, heads)
    result.title = title
    stop_y = _abstract_top(body_order, heads, a_start, pages[0])
    result.authors = find_authors(pages[0], title_lines, stop_y)
    result.abstract = abstract
    _sections(result, body_order, heads)
    _assign_sections(result, order, heads, floats_out)
    result.links = _links(doc, pages, budget)
    if not result.sections:
        result.add_error(
            STAGE,
            "no_sections",
            "no numbered section headings were recognised; section texts are missing",
            severity=Severity.warning,
        )


def _has_text(
    pages: list[PageText], doc: pymupdf.Document, result: ParsedPaper, broken: set[int]
) -> bool:
    empty = [p.number for p in pages if not p.words and p.number not in broken]
    if len(broken) == len(pages):
        return False  # every page already has its error
    if len(empty) + len(broken) == len(pages):
        result.add_error(
            STAGE,
            "no_text_layer",
            "scanned, no text layer, OCR not enabled: no page has extractable text; "
            "run OCR (e.g. ocrmypdf) on the PDF and parse the result",
        )
        return False
    for n in empty:
        if doc[n - 1].get_image_info():
            result.add_error(
                STAGE,
                "no_text_layer",
                "page is an image without a text layer (scanned?); OCR not enabled",
                severity=Severity.warning,
                page=n,
            )
    return True


def _toc(doc: pymupdf.Document, count: int) -> list[tuple[int, str, int]]:
    try:
        return [(lvl, title, page) for lvl, title, page in doc.get_toc() if 0 < page <= count]
    except Exception:  # a broken outline is not worth failing the paper for
        return []


class _Floats:
    def __init__(self) -> None:
        self.boxes: dict[int, list[Box]] = {}
        self.captions: dict[int, list[Caption]] = {}
        self.tables: list[tuple[Table, Caption]] = []
        self.figures: list[tuple[Figure, Caption]] = []


def _floats(
    doc: pymupdf.Document,
    pages: list[PageText],
    body: float,
    heads: list[Heading],
    result: ParsedPaper,
    images_dir: Path | None,
    budget: Budget,
) -> _Floats:
    out = _Floats()
    head_boxes: dict[int, list[Box]] = {}
    for h in heads:
        head_boxes.setdefault(h.page, []).append(h.line.bbox)
    work: list[_CaptionPage] = []
    for i, p in enumerate(pages):
        caps = find_captions(p, body)
        if not caps:
            continue
        if budget.expired():
            budget.skip(f"tables and figures looked for on {i} of {len(pages)} pages")
            break
        out.captions[p.number] = caps
        page = doc[p.number - 1]
        try:
            g = read_graphics(page)
        except Exception as exc:
            result.add_error(STAGE, "graphics_unreadable", f"drawings: {exc}", page=p.number)
            g = Graphics()
        frames = [s for s in g.shapes if (s[2] - s[0]) > 40 and (s[3] - s[1]) > 20] + g.images
        ctx = PageContext(
            page=p,
            body=body,
            prose=prose_boxes(p, body, frames),
            headings=head_boxes.get(p.number, []),
            captions=[c.bbox for c in caps],
        )
        work.append(_CaptionPage(Renderer(page, max_bytes=budget.max_image_bytes), ctx, g, caps))
    reader = _FloatReader(result, images_dir, prefer=_table_side(work))
    for k, at in enumerate(work):
        if budget.expired():
            budget.skip(f"tables and figures read on {k} of {len(work)} pages with captions")
            break
        boxes = out.boxes.setdefault(at.ctx.page.number, [])
        # Tables first: a figure's region must not swallow a table found beside it.
        for cap in sorted(at.caps, key=lambda c: c.kind != "table"):
            if cap.kind == "table":
                table = reader.table(at, cap)
                out.tables.append((table, cap))
                bbox = table.bbox
            else:
                figure = reader.figure(at, cap)
                out.figures.append((figure, cap))
                bbox = figure.bbox
            if bbox:
                at.ctx.taken.append(bbox)
                boxes.append(bbox)
    result.tables = [t for t, _ in out.tables]
    result.figures = [f for f, _ in out.figures]
    return out


@dataclass
class _CaptionPage:
    """A page with captions on it, and what reading its floats needs."""

    render: Renderer
    ctx: PageContext
    g: Graphics
    caps: list[Caption]


def _table_side(work: list[_CaptionPage]) -> int:
    """Where this paper sets tables relative to their captions: +1 below, -1 above, 0 unsure."""
    votes = 0
    for at in work:
        for cap in at.caps:
            if cap.kind == "table":
                opts = table_options(at.ctx, at.g, cap)
                if len(opts) == 1:
                    votes += next(iter(opts))
    return (votes > 0) - (votes < 0)


@dataclass
class _FloatReader:
    """Reads each captioned table and figure of one paper, cropping its image into
    `images_dir`; what cannot be read is an error on `result`, never an exception."""

    result: ParsedPaper
    images_dir: Path | None
    prefer: int  # the paper's table side (see `_table_side`)

    def table(self, at: _CaptionPage, cap: Caption) -> Table:
        table = Table(label=cap.label, caption=cap.text, page=cap.page)
        try:
            bbox = locate_table(at.ctx, at.g, cap, self.prefer)
            if bbox is None:
                self._missing(cap, "table_not_found", "no table beside it; cells not extracted")
                return table
            grid = read_table(at.render.page, at.ctx, at.g, cap, bbox)
        except Exception as exc:  # one odd table must not cost the paper
            self.result.add_error(STAGE, "table_failed", f"{cap.label}: {exc}", page=cap.page)
            return table
        table.bbox = _round(grid.bbox)
        table.rows, table.bold = grid.rows, grid.bold
        if grid.rows:
            table.reader = grid.method
            table.header_rows, table.blocks, table.doubts = (
                grid.header_rows,
                grid.blocks,
                grid.doubts,
            )
        if not grid.rows:
            self.result.add_error(
                STAGE,
                "table_cells_unreadable",
                f"{cap.label}: cells could not be read ({grid.problem}); see its image",
                page=cap.page,
            )
        table.image = self._crop(at.render, grid.bbox, "table", cap)
        return table

    def figure(self, at: _CaptionPage, cap: Caption) -> Figure:
        figure = Figure(label=cap.label, caption=cap.text, page=cap.page)
        try:
            found = locate_figure(at.ctx, at.g, cap)
        except Exception as exc:
            self.result.add_error(STAGE, "figure_failed", f"{cap.label}: {exc}", page=cap.page)
            return figure
        if found is None:
            self._missing(cap, "figure_not_found", "no graphics beside it; no image")
            return figure
        found.bbox = with_axis_titles(at.ctx.page, found.bbox)
        figure.bbox, figure.kind = _round(found.bbox), found.kind
        printed = read_figure_text(at.ctx.page, found.bbox)
        figure.axes, figure.ticks, figure.legend = printed.axes, printed.ticks, printed.legend
        figure.image = self._crop(at.render, found.bbox, "figure", cap)
        return figure

    def _missing(self, cap: Caption, check: str, what: str) -> None:
        message = f"{cap.label}: caption found but {what}"
        self.result.add_error(STAGE, check, message, page=cap.page)

    def _crop(self, render: Renderer, bbox: Box, kind: str, cap: Caption) -> str:
        if self.images_dir is None:
            return ""
        name = f"{kind}-{re.sub(r'[^A-Za-z0-9]+', '-', cap.number)}-p{cap.page}.png"
        target = Path(self.images_dir) / name
        try:
            if not render.crop(bbox, target):
                return ""
        except ImageTooLarge as exc:
            self.result.add_error(
                STAGE,
                "image_too_large",
                f"{cap.label}: not rendered: the region {exc} (a quarter of "
                "EXPCURATE_PARSE_MAX_MEMORY_MB); raise that setting to render it",
                page=cap.page,
            )
            return ""
        except Exception as exc:
            self.result.add_error(STAGE, "render_failed", f"{cap.label}: {exc}", page=cap.page)
            return ""
        folder = Path(self.images_dir).name
        return f"{folder}/{name}" if folder else name


def _round(b: Box) -> Box:
    return (round(b[0], 1), round(b[1], 1), round(b[2], 1), round(b[3], 1))


def _float_lines(pages: list[PageText], floats: _Floats) -> set[int]:
    """Lines that belong to a float or its caption: kept out of the section text."""
    out: set[int] = set()
    for caps in floats.captions.values():
        for c in caps:
            out.update(id(ln) for ln in c.lines)
    for p in pages:
        boxes = floats.boxes.get(p.number, [])
        if not boxes:
            continue
        for ln in p.lines():
            cx = (ln.bbox[0] + ln.bbox[2]) / 2
            cy = (ln.bbox[1] + ln.bbox[3]) / 2
            if any(b[0] - 1 <= cx <= b[2] + 1 and b[1] - 1 <= cy <= b[3] + 1 for b in boxes):
                out.add(id(ln))
    return out


def _abstract_top(
    order: list[tuple[int, Line]], heads: list[Heading], a_start: int, first: PageText
) -> float:
    if 0 <= a_start - 1 < len(order) and order[max(a_start - 1, 0)][0] == first.number:
        return order[max(a_start - 1, 0)][1].bbox[1]
    for h in heads:
        if h.page == first.number:
            return h.line.bbox[1]
    return 0.45 * first.height


def _paragraphs(lines: list[Line]) -> str:
    """One paragraph per block; a block that goes on mid-sentence (a paragraph running
    into the next column or page) is joined to the one before."""
    paras: list[list[Line]] = []
    for ln in lines:
        if paras and paras[-1][-1].block == ln.block:
            paras[-1].append(ln)
            continue
        if paras and _runs_on(paras[-1][-1].text, ln.text):
            paras[-1].append(ln)
            continue
        paras.append([ln])
    return "\n".join(t for t in (join_lines(p) for p in paras) if t)


def _runs_on(before: str, after: str) -> bool:
    before, after = before.rstrip(), after.lstrip()
    return bool(before and after) and before[-1] not in ".!?:" and after[0].islower()


def _sections(result: ParsedPaper, order: list[tuple[int, Line]], heads: list[Heading]) -> None:
    refs: list[str] = []
    for k, h in enumerate(heads):
        end = heads[k + 1].index if k + 1 < len(heads) else len(order)
        lines = [ln for _, ln in order[h.index + h.span : end]]
        text = _paragraphs(lines)
        if h.tail:
            text = f"{h.tail}\n{text}".strip()
        if h.title.lower() == "abstract" and not h.number:
            continue
        if h.is_references:
            refs.append(text)
            continue
        result.sections.append(
            Section(
                number=h.number,
                title=h.title,
                level=h.level,
                page=h.page,
                text=text,
                appendix=h.appendix,
            )
        )
    result.references = "\n".join(refs)


def _assign_sections(
    result: ParsedPaper, order: list[tuple[int, Line]], heads: list[Heading], floats: _Floats
) -> None:
    """Each float gets the heading of the section its caption sits in."""
    position = {id(ln): i for i, (_, ln) in enumerate(order)}
    marks = sorted(
        (
            (position[id(h.line)], h)
            for h in heads
            if id(h.line) in position and not h.is_references
        ),
        key=lambda m: m[0],
    )
    records: list[tuple[Table | Figure, Caption]] = [*floats.tables, *floats.figures]
    for record, cap in records:
        at = position.get(id(cap.lines[0]), -1)
        current = ""
        for pos, h in marks:
            if pos > at:
                break
            current = f"{h.number} {h.title}".strip()
        record.section = current


def _links(doc: pymupdf.Document, pages: list[PageText], budget: Budget) -> list[str]:
    urls: list[str] = []
    for i, p in enumerate(pages):
        if budget.expired():
            budget.skip(f"links collected from {i} of {len(pages)} pages")
            break
        page = doc[p.number - 1]
        try:
            annotated = doc.xref_get_key(page.xref, "Annots")[0] != "null"
            urls += page_links(page, [ln.text for ln in p.order], annotated)
        except Exception:  # a malformed annotation array: keep the printed URLs
            urls += page_links(page, [ln.text for ln in p.order], False)
    return dedupe(urls)
