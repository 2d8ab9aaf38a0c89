"""Figures: the graphics next to a caption, grouped into one box and rendered to PNG.

A figure is whatever raster images and vector paths sit between its caption and the
nearest barrier (prose, heading, another caption) in the caption's column, plus the text
drawn among them (axis labels, legends, sub-captions). Sub-figures therefore come out as
one box under one caption, which is what a reviewer wants to look at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pymupdf

from expcurate.records import Axis
from extractors.paper.captions import Caption
from extractors.paper.graphics import Graphics
from extractors.paper.layout import Box, Line, PageText, contains, overlaps, union, x_overlap
from extractors.paper.limits import ImageTooLarge, pixel_bytes
from extractors.paper.regions import PageContext, lines_between, reach, text_run

Kind = Literal["raster", "vector", "mixed", "unknown"]
_ADJACENT = 100.0  # points between a caption and the graphics it describes (axis labels between)


@dataclass
class FigureBox:
    bbox: Box
    kind: Kind


# Tick labels: numbers, maybe signed, with %, a thousands k/M, a power of ten or a range dash.
_TICK = re.compile(r"^[\s\d.,%+\-\u2212\u2013eE\u00d7kKM()]+$")
_MAX_LABEL = 60  # characters; longer text inside a figure is a sub-caption or a note
_MAX_LEGEND = 12


@dataclass
class FigureText:
    """What a figure prints: axis titles with their ticks, the count of numbers, other labels."""

    axes: list[Axis] = field(default_factory=list)
    ticks: int = 0
    legend: list[str] = field(default_factory=list)


def _numeric(text: str) -> bool:
    return bool(_TICK.match(text)) and any(c.isdigit() for c in text)


_TITLE_GAP = 24.0  # points between a plot's box and a rotated axis title beside it


def with_axis_titles(page: PageText, bbox: Box) -> Box:
    """The figure's box widened to the rotated axis titles printed just beside it."""
    out = bbox
    for box, _ in page.rotated:
        beside = bbox[0] - _TITLE_GAP <= box[0] and box[2] <= bbox[2] + _TITLE_GAP
        if beside and bbox[1] - 2 <= box[1] and box[3] <= bbox[3] + 2:
            out = union([out, box])
    return out


def read_figure_text(page: PageText, bbox: Box) -> FigureText:
    """Axis titles (rotated text is a y title; a line just under a row of numbers an x title),
    how many numbers the figure prints, and its other short labels (legend entries, panels)."""
    inside = [ln for ln in page.lines() if not ln.furniture and contains(bbox, ln.bbox, pad=2.0)]
    numbers = [ln for ln in inside if _numeric(ln.text)]
    out = FigureText(ticks=sum(len(ln.text.split()) for ln in numbers))
    used: set[int] = set()
    in_rows: set[int] = set()
    for i, ln in enumerate(inside):
        if _numeric(ln.text) or len(ln.text) > _MAX_LABEL:
            continue
        row = _tick_row(ln, numbers)
        if row:
            out.axes.append(Axis(orientation="x", label=ln.text.strip(), ticks=_values(row)))
            used.add(i)
            in_rows |= {id(n) for n in row}
    for box, text in page.rotated:
        if contains(bbox, box, pad=2.0) and not _numeric(text) and len(text) <= _MAX_LABEL:
            column = [
                n
                for n in numbers
                if id(n) not in in_rows
                and 0 <= n.bbox[0] - box[2] <= 40
                and len(n.text.split()) == 1
                and not _in_a_row(n, numbers)
            ]
            column.sort(key=lambda n: -n.bbox[1])  # bottom to top, as the axis runs
            out.axes.insert(0, Axis(orientation="y", label=text, ticks=_values(column)))
    out.legend = [
        ln.text.strip()
        for i, ln in enumerate(inside)
        if i not in used and not _numeric(ln.text) and len(ln.text.strip()) <= _MAX_LABEL // 2
    ][:_MAX_LEGEND]
    return out


def _tick_row(label: Line, numbers: list[Line]) -> list[Line]:
    """The numbers printed just above a text line and across its width: an x axis's ticks."""
    h = max(label.height, 4.0)
    wide = (label.bbox[0] - 6 * h, label.bbox[1], label.bbox[2] + 6 * h, label.bbox[3])
    row = [
        n
        for n in numbers
        if 0 <= label.bbox[1] - n.bbox[3] <= 1.6 * h and x_overlap(n.bbox, wide) > 0
    ]
    return (
        sorted(row, key=lambda n: n.bbox[0])
        if len(row) + sum(len(n.text.split()) - 1 for n in row) >= 2
        else []
    )


def _in_a_row(n: Line, numbers: list[Line]) -> bool:
    """Another number on the same baseline close by: x tick labels, not a y axis column."""
    return any(
        m is not n and abs(m.bbox[3] - n.bbox[3]) <= 2 and abs(m.bbox[0] - n.bbox[0]) <= 60
        for m in numbers
    )


def _values(lines: list[Line]) -> list[str]:
    return [v for ln in lines for v in ln.text.split()]


def locate_figure(ctx: PageContext, g: Graphics, cap: Caption) -> FigureBox | None:
    """Graphics above the caption (the usual place), else below it, else a text-only body."""
    xr = ctx.page.column_of(cap.bbox)
    found: list[tuple[float, int, FigureBox]] = []
    for rank, direction in enumerate((-1, 1)):
        hit = _graphics_side(ctx, g, cap, xr, direction)
        if hit is not None:
            found.append((hit[0] + 25 * rank, rank, hit[1]))
    if found:
        return min(found, key=lambda f: (f[0], f[1]))[2]
    for direction in (-1, 1):
        run = text_run(ctx, cap.bbox, xr, direction, ctx.captions)
        if len(run) >= 2:
            return FigureBox(union(ln.bbox for ln in run), "unknown")
    return None


def _graphics_side(
    ctx: PageContext, g: Graphics, cap: Caption, xr: tuple[float, float], direction: int
) -> tuple[float, FigureBox] | None:
    cb = cap.bbox
    edge = reach(ctx, cb, xr, direction)
    y0, y1 = (edge, cb[1]) if direction < 0 else (cb[3], edge)
    if y1 - y0 < 8:
        return None
    band = (xr[0], y0, xr[1], y1)
    taken = ctx.taken
    images = [b for b in g.images if _in_band(b, band) and not _inside_any(b, taken)]
    shapes = [
        b
        for b in g.shapes
        if _in_band(b, band) and not _inside_any(b, taken) and not _margin_rule(b, ctx)
    ]
    if not images and not shapes:
        return None
    elems = images + shapes
    near = min(cb[1] - e[3] for e in elems) if direction < 0 else min(e[1] - cb[3] for e in elems)
    if near > _ADJACENT:
        return None
    box = union(elems)
    for _ in range(2):  # labels and legends around the drawing
        grow = (box[0] - 8, box[1] - 8, box[2] + 8, box[3] + 8)
        lines = lines_between(ctx.page, (band[0] - 40, band[2] + 40), y0, y1, ctx.captions)
        extra = [ln.bbox for ln in lines if overlaps(ln.bbox, grow)]
        if extra:
            box = union([box, *extra])
    box = (box[0], max(box[1], y0), box[2], min(box[3], y1))
    return max(near, 0.0), FigureBox(box, _kind(images, shapes))


def _margin_rule(b: Box, ctx: PageContext) -> bool:
    """The rule under a running header (or over a footer) belongs to the page, not a figure."""
    page = ctx.page
    thin = b[3] - b[1] < 2
    wide = b[2] - b[0] >= 0.8 * (page.right - page.left)
    in_margin = b[3] < 0.1 * page.height or b[1] > 0.9 * page.height
    return thin and wide and in_margin


def _in_band(b: Box, band: Box) -> bool:
    cy = (b[1] + b[3]) / 2
    if not (band[1] - 1 <= cy <= band[3] + 1):
        return False
    if b[1] < band[1] - 4 or b[3] > band[3] + 4:
        return False
    return b[2] >= band[0] and b[0] <= band[2]  # axis lines have zero width


def _inside_any(b: Box, regions: list[Box]) -> bool:
    return any(contains(r, b, pad=2) for r in regions)


def _kind(images: list[Box], shapes: list[Box]) -> Kind:
    if images and not shapes:
        return "raster"
    if shapes and not images:
        return "vector"
    img = union(images)
    if all(contains(img, s, pad=2) for s in shapes):
        return "raster"  # frames and marks drawn over a picture
    return "mixed"


class Renderer:
    """Renders crops of one page from a single display list (built once, reused per crop).

    `max_bytes` caps the pixels one crop may decode; a larger crop raises `ImageTooLarge`
    before anything is drawn, so a page holding a huge scan cannot exhaust memory.
    """

    def __init__(self, page: pymupdf.Page, dpi: int = 110, max_bytes: int | None = None) -> None:
        self.page = page
        self.zoom = pymupdf.Matrix(dpi / 72, dpi / 72)
        self.max_bytes = max_bytes
        self._list: pymupdf.DisplayList | None = None
        self._images: list[dict] | None = None

    def crop(self, bbox: Box, target: Path) -> bool:
        """Write the region as PNG; False when the region is empty."""
        rect = pymupdf.Rect(bbox) & self.page.rect
        if rect.is_empty or rect.width < 2 or rect.height < 2:
            return False
        pad = 2.0
        rect = pymupdf.Rect(rect.x0 - pad, rect.y0 - pad, rect.x1 + pad, rect.y1 + pad)
        rect &= self.page.rect
        if self.max_bytes is not None:
            if self._images is None:
                self._images = self.page.get_image_info()
            need = pixel_bytes(self._images, rect, self.zoom.a)
            if need > self.max_bytes:
                raise ImageTooLarge(need, self.max_bytes)
        if self._list is None:
            self._list = self.page.get_displaylist()
        pix = self._list.get_pixmap(matrix=self.zoom, clip=rect)
        target.parent.mkdir(parents=True, exist_ok=True)
        pix.save(str(target))
        return True
