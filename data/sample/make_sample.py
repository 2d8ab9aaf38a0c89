"""Write the sample paper (`paper.pdf`) that every stage and test of ExpCurate runs on.

Usage: python data/sample/make_sample.py [--out DIR_OR_FILE]

The paper is drawn with PyMuPDF primitives only, so the layout is fully under our control:
tables get ruling lines that `page.find_tables()` can find, Figure 1 is vector graphics,
Figure 2 is a PNG made here pixel by pixel, and the code link is a real link annotation.
Metadata and dates are fixed so that two runs give the same bytes with the same PyMuPDF.
The words, tables and figure data live in `paper_text.py`.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parent))  # paper_text.py sits here

from paper_text import (
    ABSTRACT,
    AFFILIATION,
    APPENDIX,
    AUTHORS,
    BODY,
    CODE_URL,
    EMAILS,
    REFERENCES,
    REFERENCES_HEADING,
    TITLE,
    VENUE,
    Block,
    Equation,
    Heading,
    HeatmapFigure,
    Item,
    LineFigure,
    Para,
    TableSpec,
)

PAGE_W, PAGE_H = 612.0, 792.0
LEFT, WIDTH = 108.0, 396.0
TOP, BOTTOM = 72.0, 716.0
BODY_SIZE, LEADING = 10.0, 12.2
SMALL = 9.0
ROW_H = 14.0
FIXED_DATE = "D:20991201000000Z"
Token = tuple[str, str]  # (word, fontname)
COLORS = [(0.80, 0.15, 0.15), (0.12, 0.35, 0.70), (0.20, 0.55, 0.25), (0.40, 0.40, 0.40)]


def width_of(text: str, font: str, size: float) -> float:
    return pymupdf.get_text_length(text, fontname=font, fontsize=size)


def tokens(text: str, font: str = "tiro", bold: str = "tibo") -> list[Token]:
    """Split text into words; `**...**` switches to the bold font."""
    out: list[Token] = []
    for i, part in enumerate(text.split("**")):
        out += [(w, bold if i % 2 else font) for w in part.split()]
    return out


def wrap(words: list[Token], width: float, size: float) -> list[list[Token]]:
    lines: list[list[Token]] = [[]]
    used = 0.0
    for word, font in words:
        w = width_of(word, font, size)
        gap = width_of(" ", font, size) if lines[-1] else 0.0
        if lines[-1] and used + gap + w > width:
            lines.append([])
            used, gap = 0.0, 0.0
        lines[-1].append((word, font))
        used += gap + w
    return lines


class Pen:
    """A cursor over the pages: places blocks top to bottom and opens pages as needed."""

    def __init__(self, doc: pymupdf.Document) -> None:
        self.doc = doc
        self.page: pymupdf.Page
        self.shape: pymupdf.Shape | None = None
        self.note = ""  # footnote of the current page, written when the page is closed
        self.y = TOP
        self.toc: list[list[int | str]] = []
        self.new_page()

    def new_page(self) -> None:
        self.close()
        self.page = self.doc.new_page(width=PAGE_W, height=PAGE_H)
        # One shape per page collects all text and drawing: one content stream per page.
        self.shape = self.page.new_shape()
        self.y = TOP

    @property
    def sh(self) -> pymupdf.Shape:
        assert self.shape is not None
        return self.shape

    def close(self) -> None:
        if self.shape is not None:
            number = str(self.page.number + 1)  # footer last, as LaTeX writes it
            x = (PAGE_W - width_of(number, "tiro", BODY_SIZE)) / 2
            if self.note:
                self.shape.insert_text((LEFT, 732), self.note, fontname="tiro", fontsize=8)
                self.note = ""
            self.shape.insert_text((x, 752), number, fontname="tiro", fontsize=BODY_SIZE)
            self.shape.commit()
            self.shape = None

    def need(self, height: float) -> None:
        if self.y + height > BOTTOM:
            self.new_page()

    def line(self, words: list[Token], x: float, size: float, justify: float = 0.0) -> None:
        """Draw one line at the cursor; with `justify`, stretch the gaps to that width."""
        widths = [width_of(w, f, size) for w, f in words]
        gaps = [width_of(" ", f, size) for _, f in words[1:]]
        if justify and len(words) > 1:
            extra = (justify - sum(widths) - sum(gaps)) / len(gaps)
            gaps = [g + extra for g in gaps]
        baseline = self.y + size * 0.8
        for i, (word, font) in enumerate(words):
            self.sh.insert_text((x, baseline), word, fontname=font, fontsize=size)
            x += widths[i] + (gaps[i] if i < len(gaps) else 0.0)
        self.y += size * (LEADING / BODY_SIZE)

    def text(
        self,
        words: list[Token],
        x: float = LEFT,
        width: float = WIDTH,
        size: float = BODY_SIZE,
        indent: float = 0.0,
        center: bool = False,
    ) -> None:
        lines = wrap(words, width - indent, size)
        for i, words_in_line in enumerate(lines):
            self.need(size * 1.3)
            if center:
                w = sum(width_of(t, f, size) for t, f in words_in_line)
                w += sum(width_of(" ", f, size) for _, f in words_in_line[1:])
                self.line(words_in_line, x + (width - w) / 2, size)
            else:
                last = i == len(lines) - 1
                start = x + (indent if i == 0 else 0.0)
                span = width - (indent if i == 0 else 0.0)
                self.line(words_in_line, start, size, justify=0.0 if last else span)

    # ---------------------------------------------------------------- blocks

    def heading(self, h: Heading) -> None:
        size = 12.0 if h.level == 1 else 10.5
        self.need(size + 4 * LEADING)  # keep a heading with its first lines
        self.y += 8.0 if h.level == 1 else 5.0
        label = f"{h.number}  {h.title}" if h.number else h.title
        self.sh.insert_text((LEFT, self.y + size * 0.8), label, fontname="tibo", fontsize=size)
        self.toc.append([h.level, label, self.page.number + 1])
        self.y += size + 5.0

    def para(self, p: Para) -> None:
        words = tokens(f"**{p.head}** {p.text}" if p.head else p.text)
        self.text(words, indent=0.0 if p.head else 12.0)
        self.y += 3.0

    def item(self, it: Item, size: float = BODY_SIZE, hang: float = 22.0) -> None:
        self.need(2 * LEADING)
        self.sh.insert_text(
            (LEFT + 4, self.y + size * 0.8), it.label, fontname="tiro", fontsize=size
        )
        self.text(tokens(it.text), x=LEFT + hang, width=WIDTH - hang, size=size)
        self.y += 2.0

    def equation(self, eq: Equation) -> None:
        self.need(LEADING + 4)
        w = width_of(eq.text, "tiit", BODY_SIZE)
        base = self.y + 2 + BODY_SIZE * 0.8
        self.sh.insert_text(((PAGE_W - w) / 2, base), eq.text, fontname="tiit", fontsize=10)
        number = f"({eq.number})"
        nx = LEFT + WIDTH - width_of(number, "tiro", BODY_SIZE)
        self.sh.insert_text((nx, base), number, fontname="tiro", fontsize=BODY_SIZE)
        self.y += LEADING + 4

    def caption(self, label: str, caption: str) -> None:
        self.text(tokens(f"{label}: {caption}"), x=LEFT + 12, width=WIDTH - 24, size=SMALL)

    def table(self, t: TableSpec) -> None:
        grid = t.header + t.body
        n_cols = len(grid[0])
        natural = [10.0] * n_cols  # padding; a spanning header cell does not count
        for row in grid:
            for c, cell in enumerate(row):
                if cell not in (None, "^") and (c + 1 == n_cols or row[c + 1] is not None):
                    natural[c] = max(natural[c], width_of(cell.strip("*"), "tibo", SMALL) + 10)
        if sum(natural) > WIDTH:
            raise ValueError(f"{t.label}: too wide for the text column")
        total = min(WIDTH, max(sum(natural) * 1.2, WIDTH * 0.6))
        spare = total - sum(natural)
        widths = [n + spare * w / sum(t.widths) for n, w in zip(natural, t.widths, strict=True)]
        lines = wrap(tokens(f"{t.label}: {t.caption}"), WIDTH - 24, SMALL)
        self.need(len(lines) * 11 + len(grid) * ROW_H + 20)
        self.y += 4.0
        self.caption(t.label, t.caption)
        self.y += 4.0
        x0, y0 = (PAGE_W - total) / 2, self.y
        xs = [x0 + sum(widths[:j]) for j in range(n_cols + 1)]
        ys = [y0 + i * ROW_H for i in range(len(grid) + 1)]
        self._rules(grid, xs, ys, len(t.header))
        for r, row in enumerate(grid):
            for c, cell in enumerate(row):
                if cell is None or cell == "^":
                    continue
                span_c, span_r = 1, 1
                while c + span_c < n_cols and row[c + span_c] is None:
                    span_c += 1
                while r + span_r < len(grid) and grid[r + span_r][c] == "^":
                    span_r += 1
                text, font = cell.strip("*"), "tibo" if cell.startswith("**") else "tiro"
                w = width_of(text, font, SMALL)
                left, right = xs[c], xs[c + span_c]
                x = left + 4 if c == 0 else (left + right - w) / 2
                mid = (ys[r] + ys[r + span_r]) / 2
                self.sh.insert_text((x, mid + SMALL * 0.33), text, fontname=font, fontsize=SMALL)
        self.y = ys[-1] + 10.0

    def _rules(
        self, grid: list[list[str | None]], xs: list[float], ys: list[float], nh: int
    ) -> None:
        """Ruling lines; a merged cell leaves out the rule it spans over."""
        shape = self.sh
        for i, y in enumerate(ys):
            for c in range(len(xs) - 1):
                inner = 0 < i < len(grid)
                if not (inner and grid[i][c] == "^"):
                    shape.draw_line((xs[c], y), (xs[c + 1], y))
        for k, x in enumerate(xs):
            for r in range(len(grid)):
                if not (0 < k < len(xs) - 1 and grid[r][k] is None):
                    shape.draw_line((x, ys[r]), (x, ys[r + 1]))
        shape.finish(color=(0, 0, 0), width=0.5)
        for y in (ys[0], ys[nh], ys[-1]):  # heavier top, header and bottom rules
            shape.draw_line((xs[0], y), (xs[-1], y))
        shape.finish(color=(0, 0, 0), width=1.0)

    def line_figure(self, f: LineFigure) -> None:
        """A line plot in vector graphics: axes, ticks, one polyline per series, legend."""
        plot_w, plot_h, pad_l, legend_w = 250.0, 150.0, 36.0, 90.0
        x0 = (PAGE_W - (pad_l + plot_w + legend_w)) / 2 + pad_l
        self.need(plot_h + 60 + 3 * 11)
        top = self.y + 6
        bottom = top + plot_h
        lo, hi = f.y_range
        step = plot_w / (len(f.x_ticks) - 1)

        def px(i: int) -> float:
            return x0 + 10 + i * (step * (plot_w - 20) / plot_w)

        def py(v: float) -> float:
            return bottom - (v - lo) / (hi - lo) * plot_h

        page = shape = self.sh
        shape.draw_line((x0, top), (x0, bottom))
        shape.draw_line((x0, bottom), (x0 + plot_w, bottom))
        for i, tick in enumerate(f.x_ticks):
            shape.draw_line((px(i), bottom), (px(i), bottom + 3))
            label = str(tick)
            at = (px(i) - width_of(label, "helv", 7) / 2, bottom + 11)
            page.insert_text(at, label, fontname="helv", fontsize=7)
        for v in f.y_ticks:
            shape.draw_line((x0 - 3, py(v)), (x0, py(v)))
            label = f"{v:.2f}"
            at = (x0 - 5 - width_of(label, "helv", 7), py(v) + 2.5)
            page.insert_text(at, label, fontname="helv", fontsize=7)
        shape.finish(color=(0, 0, 0), width=0.6)
        xl = x0 + (plot_w - width_of(f.x_label, "helv", 8)) / 2
        page.insert_text((xl, bottom + 24), f.x_label, fontname="helv", fontsize=8)
        yl = top + (plot_h + width_of(f.y_label, "helv", 8)) / 2
        page.insert_text((x0 - 26, yl), f.y_label, fontname="helv", fontsize=8, rotate=90)
        for k, (name, values) in enumerate(f.series.items()):
            color, dashes = COLORS[k % len(COLORS)], "[3 2] 0" if k == 3 else None
            points = [pymupdf.Point(px(i), py(v)) for i, v in enumerate(values)]
            shape.draw_polyline(points)
            shape.finish(color=color, width=1.3, dashes=dashes, closePath=False)
            for p in points:
                shape.draw_circle(p, 1.8)
            shape.finish(color=color, fill=color, width=0.5)
            ly = top + 12 + k * 13
            lx = x0 + plot_w + 12
            shape.draw_line((lx, ly), (lx + 18, ly))
            shape.finish(color=color, width=1.3, dashes=dashes)
            page.insert_text((lx + 23, ly + 2.5), name, fontname="helv", fontsize=7.5)
        self.y = bottom + 32
        self.caption(f.label, f.caption)
        self.y += 6.0

    def heatmap_figure(self, f: HeatmapFigure) -> None:
        png = heatmap_png(f)
        pix = pymupdf.Pixmap(png)
        w = WIDTH * 0.85
        h = w * pix.height / pix.width
        self.need(h + 50)
        rect = pymupdf.Rect((PAGE_W - w) / 2, self.y + 6, (PAGE_W + w) / 2, self.y + 6 + h)
        self.page.insert_image(rect, stream=png)
        self.y = rect.y1 + 8
        self.caption(f.label, f.caption)
        self.y += 6.0

    def block(self, b: Block) -> None:
        handlers = {
            Heading: self.heading,
            Para: self.para,
            Item: self.item,
            Equation: self.equation,
            TableSpec: self.table,
            LineFigure: self.line_figure,
            HeatmapFigure: self.heatmap_figure,
        }
        handlers[type(b)](b)  # type: ignore[operator]


# ------------------------------------------------------------------ raster figure


def gate_value(f: HeatmapFigure, row: int, col: int) -> float:
    """Invented but structured gate pattern: recency in block 1, daily period in the last."""
    recency = col / (f.cols - 1)
    wobble = 0.04 * math.sin(1.7 * col + 2.3 * row)
    if row == 0:
        return 0.12 + 0.8 * recency**2 + wobble
    if row == f.rows - 1:
        daily = max(0.0, math.cos(2 * math.pi * (col - (f.cols - 1)) / f.period))
        return 0.15 + (0.45 + 0.35 * recency) * daily + wobble
    return 0.3 + 0.3 * recency + 0.12 * math.sin(col / 2.0) + wobble


def colormap(v: float) -> tuple[int, int, int]:
    """Dark violet to yellow, in the spirit of perceptual colour maps."""
    anchors = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
    v = min(max(v, 0.0), 1.0) * (len(anchors) - 1)
    i = min(int(v), len(anchors) - 2)
    t = v - i
    a, b = anchors[i], anchors[i + 1]
    return tuple(round(a[k] + (b[k] - a[k]) * t) for k in range(3))  # type: ignore[return-value]


def heatmap_png(f: HeatmapFigure, cell_w: int = 10, cell_h: int = 30) -> bytes:
    """The heat map plus a colour bar, as PNG bytes built from raw RGB samples."""
    bar_gap, bar_w = 14, 12
    width = f.cols * cell_w + bar_gap + bar_w
    height = f.rows * cell_h
    rows = bytearray()
    for y in range(height):
        row_idx = y // cell_h
        for x in range(width):
            if x < f.cols * cell_w:
                rgb = colormap(gate_value(f, row_idx, x // cell_w))
                if y % cell_h == cell_h - 1 and row_idx < f.rows - 1:
                    rgb = (255, 255, 255)  # thin separator between blocks
            elif x < f.cols * cell_w + bar_gap:
                rgb = (255, 255, 255)
            else:
                rgb = colormap(1.0 - y / (height - 1))
            rows += bytes(rgb)
    pix = pymupdf.Pixmap(pymupdf.csRGB, width, height, bytes(rows), False)
    return pix.tobytes("png")


# ------------------------------------------------------------------ document


def title_block(pen: Pen) -> None:
    page = pen.sh
    page.draw_line((LEFT, TOP), (LEFT + WIDTH, TOP))
    page.finish(width=2.0)
    pen.y = TOP + 10
    pen.text(tokens(TITLE, font="tibo"), size=16.0, center=True)
    pen.y += 4
    page.draw_line((LEFT, pen.y), (LEFT + WIDTH, pen.y))
    page.finish(width=0.6)
    pen.y += 16
    pen.text(tokens(AUTHORS), size=10.5, center=True)
    pen.text(tokens(AFFILIATION, font="tiit"), size=9.5, center=True)
    pen.text([(w, "cour") for w in EMAILS.split()], size=8.5, center=True)
    pen.y += 14
    pen.text(tokens("Abstract", font="tibo"), size=12.0, center=True)
    pen.y += 3
    pen.text(tokens(ABSTRACT), x=LEFT + 30, width=WIDTH - 60)
    pen.note = VENUE


def build() -> pymupdf.Document:
    doc = pymupdf.open()
    pen = Pen(doc)
    title_block(pen)
    for b in BODY:
        pen.block(b)
    pen.heading(REFERENCES_HEADING)
    for ref in REFERENCES:
        label, text = ref.split(" ", 1)
        pen.item(Item(label, text), size=SMALL, hang=18.0)
    pen.new_page()
    for b in APPENDIX:
        pen.block(b)
    pen.close()
    for page in doc:
        for rect in page.search_for(CODE_URL):
            page.insert_link({"kind": pymupdf.LINK_URI, "from": rect, "uri": CODE_URL})
    doc.set_toc(pen.toc)
    doc.set_metadata(
        {
            "title": TITLE,
            "author": AUTHORS,
            "subject": "ExpCurate sample paper (fictitious method and results)",
            "keywords": "time series, forecasting, MLP, gating",
            "creator": "ExpCurate data/sample/make_sample.py",
            "producer": "PyMuPDF",
            "creationDate": FIXED_DATE,
            "modDate": FIXED_DATE,
        }
    )
    return doc


def write(out: Path) -> Path:
    """Build the paper and save it to `out` (a .pdf file or a folder); return the file."""
    path = out if out.suffix.lower() == ".pdf" else out / "paper.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = build()
    doc.save(path, garbage=4, deflate=True, no_new_id=True)
    doc.close()
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent,
        help="folder to write paper.pdf into, or a path ending in .pdf (default: data/sample)",
    )
    path = write(parser.parse_args(argv).out)
    print(path)


if __name__ == "__main__":
    main()
