"""What bounds a float on the page: prose paragraphs, headings, other captions.

A table or figure sits next to its caption and stops where running text, a section heading
or another float's caption begins. These helpers answer "is this block prose?" and "how far
can a float reach from its caption?" for both the table and the figure finder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from extractors.paper.layout import Block, Box, Line, PageText, x_overlap


@dataclass
class PageContext:
    """Per-page facts shared by the float finders."""

    page: PageText
    body: float
    prose: list[Box] = field(default_factory=list)
    headings: list[Box] = field(default_factory=list)
    captions: list[Box] = field(default_factory=list)
    taken: list[Box] = field(default_factory=list)  # regions already given to a float

    def barriers(self, exclude: Box | None = None) -> list[Box]:
        out = self.prose + self.headings + self.captions + self.taken
        return [b for b in out if b != exclude]


def is_prose(block: Block, page: PageText, body: float) -> bool:
    """Running text: body-size lines that fill their column and read like sentences."""
    lines = [ln for ln in block.lines if not ln.furniture]
    if not lines:
        return False
    if sum(1 for ln in lines if abs(ln.size - body) <= 0.8) < 0.7 * len(lines):
        return False
    if sum(1 for ln in lines if ln.gappy) > 0.3 * len(lines):
        return False
    lo, hi = page.column_of(block.bbox)
    col = max(hi - lo, 1.0)
    mean_width = sum(ln.width for ln in lines) / len(lines)
    words = sum(len(ln.text.split()) for ln in lines)
    if len(lines) >= 3 and words >= 5 * len(lines) and _wordy(lines):
        return True  # also narrow prose wrapped around a float
    if len(lines) >= 2:
        return mean_width >= 0.6 * col and words >= 8 * len(lines) * 0.6
    return lines[0].width >= 0.85 * col and words >= 9 and lines[0].text[:1].isalpha()


def _wordy(lines: list[Line]) -> bool:
    text = " ".join(ln.text for ln in lines)
    letters = sum(c.isalpha() for c in text)
    return (
        letters >= 0.7 * len(text.replace(" ", ""))
        and sum(c.islower() for c in text) > 0.5 * letters
    )


def prose_boxes(page: PageText, body: float, inside: list[Box]) -> list[Box]:
    """Boxes of prose blocks, except those drawn inside a frame (text set in a figure box)."""
    out: list[Box] = []
    for b in page.blocks:
        if not is_prose(b, page, body):
            continue
        if any(_encloses(f, b.bbox) for f in inside):
            continue
        out.append(b.bbox)
    return out


def _encloses(outer: Box, inner: Box) -> bool:
    return (
        outer[0] - 2 <= inner[0]
        and outer[1] - 2 <= inner[1]
        and inner[2] <= outer[2] + 2
        and inner[3] <= outer[3] + 2
    )


def reach(
    ctx: PageContext, cap: Box, xr: tuple[float, float], direction: int, limit: float = 0.0
) -> float:
    """How far (a y coordinate) a float may extend from its caption before a barrier.

    direction -1 looks up (float above its caption), +1 down.
    """
    page = ctx.page
    top_margin = 0.04 * page.height
    bottom_margin = 0.96 * page.height
    edge = top_margin if direction < 0 else bottom_margin
    box = (xr[0], 0.0, xr[1], page.height)
    for b in ctx.barriers(exclude=cap):
        if x_overlap(b, box) <= 0.25 * min(b[2] - b[0], xr[1] - xr[0]):
            continue
        if direction < 0 and b[3] <= cap[1] + 1:
            edge = max(edge, b[3])
        elif direction > 0 and b[1] >= cap[3] - 1:
            edge = min(edge, b[1])
    if limit:
        edge = max(edge, cap[1] - limit) if direction < 0 else min(edge, cap[3] + limit)
    for ln in page.lines():
        if ln.furniture and x_overlap(ln.bbox, box) > 0:
            if direction < 0 and ln.bbox[3] <= cap[1]:
                edge = max(edge, ln.bbox[3])
            elif direction > 0 and ln.bbox[1] >= cap[3]:
                edge = min(edge, ln.bbox[1])
    return edge


def lines_between(
    page: PageText, xr: tuple[float, float], y0: float, y1: float, skip: list[Box]
) -> list[Line]:
    """Non-furniture lines inside a band of the page and horizontally inside the x-range."""
    out = []
    for ln in page.lines():
        if ln.furniture:
            continue
        cy = (ln.bbox[1] + ln.bbox[3]) / 2
        cx = (ln.bbox[0] + ln.bbox[2]) / 2
        if not (y0 <= cy <= y1 and xr[0] - 2 <= cx <= xr[1] + 2):
            continue
        if any(_encloses(s, ln.bbox) for s in skip):
            continue
        out.append(ln)
    return out


def text_run(
    ctx: PageContext, cap: Box, xr: tuple[float, float], direction: int, skip: list[Box]
) -> list[Line]:
    """Lines stacked closely against the caption: a float set as bare text (no rules)."""
    edge = reach(ctx, cap, xr, direction)
    lo, hi = (edge, cap[1]) if direction < 0 else (cap[3], edge)
    lines = lines_between(ctx.page, xr, lo, hi, skip)
    lines.sort(key=lambda ln: ln.bbox[1], reverse=direction < 0)
    run: list[Line] = []
    frontier = cap[1] if direction < 0 else cap[3]
    for ln in lines:
        gap = frontier - ln.bbox[3] if direction < 0 else ln.bbox[1] - frontier
        if gap > 1.6 * max(ln.size, 6.0) + 4:
            break
        # Prose in another type size after the rows (tables are set smaller than the body
        # text around them): the float has ended.
        if len(run) >= 2 and not ln.gappy and abs(ln.size - _median_size(run)) >= 0.8:
            break
        run.append(ln)
        frontier = min(frontier, ln.bbox[1]) if direction < 0 else max(frontier, ln.bbox[3])
    return run


def _median_size(lines: list[Line]) -> float:
    sizes = sorted(ln.size for ln in lines)
    return sizes[len(sizes) // 2]
