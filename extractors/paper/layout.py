"""Page geometry: text lines with font facts, columns, reading order, page furniture.

Everything else in the paper parser reasons over these light objects instead of PyMuPDF's
raw dicts, so that one text extraction per page (one `TextPage`, reused for the line dict
and the word list) serves headings, captions, tables and figures alike. That single pass
is what keeps the parser at tens of pages per second.
"""

from __future__ import annotations

import functools
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import pymupdf

Box = tuple[float, float, float, float]

# Whitespace kept, ligatures expanded ("ﬁ" -> "fi"), text clipped to the page.
TEXT_FLAGS = (
    pymupdf.TEXT_PRESERVE_WHITESPACE
    | pymupdf.TEXT_MEDIABOX_CLIP
    | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE
)
_BOLD_FONT = re.compile(r"bold|black|heavy|semibold|demi|medi|cmbx|cmb\d|\.b\b|-bd|bx\d", re.I)


@dataclass(slots=True)
class Span:
    text: str
    bbox: Box
    size: float
    font: str
    bold: bool


@dataclass(slots=True)
class Line:
    """One visual line: PyMuPDF lines of a block that share a baseline, left to right."""

    bbox: Box
    spans: list[Span]
    block: int
    first_in_block: bool = False
    furniture: bool = False  # running header/footer or page number
    text: str = ""
    size: float = 0.0
    bold: bool = False
    gappy: bool = False  # wide gaps inside: a table row, not a line of prose

    def finish(self) -> Line:
        parts: list[str] = []
        prev: Span | None = None
        for s in self.spans:
            if "   " in s.text.strip():
                self.gappy = True
            if prev is not None:
                gap = s.bbox[0] - prev.bbox[2]
                if gap > 1.5 * max(s.size, 1.0):
                    self.gappy = True
                apart = gap > 0.15 * max(s.size, 1.0)
                if apart and parts and not parts[-1].endswith(" ") and not s.text.startswith(" "):
                    parts.append(" ")
            parts.append(s.text)
            prev = s
        self.text = " ".join("".join(parts).split())
        weights: Counter[float] = Counter()
        bold_chars = 0
        total = 0
        for s in self.spans:
            n = len(s.text.strip())
            weights[round(s.size, 1)] += n
            total += n
            bold_chars += n if s.bold else 0
        self.size = weights.most_common(1)[0][0] if weights else 0.0
        self.bold = total > 0 and bold_chars >= 0.6 * total
        return self

    @property
    def height(self) -> float:
        return self.bbox[3] - self.bbox[1]

    @property
    def width(self) -> float:
        return self.bbox[2] - self.bbox[0]


@dataclass(slots=True)
class Block:
    bbox: Box
    lines: list[Line]


@dataclass(slots=True)
class Word:
    bbox: Box
    text: str
    bold: bool = False


@dataclass
class PageText:
    """The text of one page, with the column facts the region finders need."""

    number: int  # 1-based
    width: float
    height: float
    blocks: list[Block]
    words: list[Word]
    two_column: bool = False
    mid: float = 0.0
    left: float = 0.0  # text area
    right: float = 0.0
    order: list[Line] = field(default_factory=list)  # reading order, furniture included
    # Rotated lines, kept out of the reading order: axis titles of plots, arXiv stamps.
    rotated: list[tuple[Box, str]] = field(default_factory=list)

    def lines(self) -> list[Line]:
        return [ln for b in self.blocks for ln in b.lines]

    def column_of(self, box: Box) -> tuple[float, float]:
        """The x-range a float with this caption box lives in (one column or the full text area)."""
        tol = 0.02 * self.width
        if box[2] <= self.mid + tol:
            return (self.left, self.mid)
        if box[0] >= self.mid - tol:
            return (self.mid, self.right)
        return (self.left, self.right)


# Check and cross marks set in a Dingbats font (LaTeX's pifont \ding{51}/\ding{55}, the usual
# \cmark/\xmark of ablation tables) carry font codes, not Unicode: the ZapfDingbats codes
# 0x33-0x38, or the same shifted down by 0x20 in subsetted fonts.
_DINGBAT_FONT = re.compile(r"dingbat|zapf", re.I)
MARKS = frozenset("✓✔✕✖✗✘")  # the Unicode marks they become
_DINGBAT_MARKS = {
    code + shift: mark
    for shift in (0, -0x20)
    for code, mark in zip(range(0x33, 0x39), "✓✔✕✖✗✘", strict=True)
}


def dingbat_marks(text: str, font: str) -> str:
    """The check/cross marks a Dingbats span draws, as Unicode; "" for anything else."""
    if not _DINGBAT_FONT.search(font):
        return ""
    marks = [_DINGBAT_MARKS.get(ord(c), "") for c in text if not c.isspace()]
    return "".join(marks) if marks and all(marks) else ""


@functools.lru_cache(maxsize=1024)
def is_bold(font: str, flags: int) -> bool:
    return bool(flags & pymupdf.TEXT_FONT_BOLD) or bool(_BOLD_FONT.search(font))


def read_page(page: pymupdf.Page) -> PageText:
    """Extract lines (with fonts) and words from one page through a single TextPage."""
    tp = page.get_textpage(flags=TEXT_FLAGS)
    raw = page.get_text("dict", textpage=tp)
    blocks: list[Block] = []
    all_spans: list[Span] = []
    rotated: list[tuple[Box, str]] = []
    for b in raw.get("blocks", []):
        if b.get("type", 0) != 0:
            continue
        pieces: list[Line] = []
        for ln in b.get("lines", []):
            dx, dy = ln.get("dir", (1.0, 0.0))
            if abs(dy) > 0.1 or dx < 0.9:  # rotated text: arXiv stamps, axis labels
                text = " ".join(s["text"].strip() for s in ln.get("spans", []) if s["text"].strip())
                if text:
                    rotated.append((tuple(ln["bbox"]), text))  # type: ignore[arg-type]
                continue
            spans = [
                Span(
                    text=dingbat_marks(s["text"], s.get("font", "")) or s["text"],
                    bbox=tuple(s["bbox"]),  # type: ignore[arg-type]
                    size=float(s["size"]),
                    font=s.get("font", ""),
                    bold=is_bold(s.get("font", ""), int(s.get("flags", 0))),
                )
                for s in ln.get("spans", [])
                if s["text"].strip()
            ]
            if spans:
                all_spans.extend(spans)
                pieces.append(Line(bbox=_union([s.bbox for s in spans]), spans=spans, block=0))
        lines = _merge_baselines(pieces)
        if lines:
            blocks.append(Block(bbox=_union([ln.bbox for ln in lines]), lines=lines))
    blocks = _join_split_rows(blocks)
    for idx, block in enumerate(blocks):
        for i, line in enumerate(block.lines):
            line.block = idx
            line.first_in_block = i == 0
            line.finish()
    words = [
        Word(bbox=(w[0], w[1], w[2], w[3]), text=w[4])
        for w in page.get_text("words", textpage=tp)
        if w[4].strip()
    ]
    words += [  # words() drops the marks' control codes; the spans keep them
        Word(bbox=s.bbox, text=s.text)
        for s in all_spans
        if _DINGBAT_FONT.search(s.font) and s.text and set(s.text) <= MARKS
    ]
    _mark_bold_words(words, all_spans)
    rect = page.rect
    pt = PageText(
        number=page.number + 1,
        width=rect.width,
        height=rect.height,
        blocks=blocks,
        words=words,
        rotated=rotated,
    )
    return pt


def _merge_baselines(pieces: list[Line]) -> list[Line]:
    """Join pieces of one block that sit on the same baseline ("1" + "Introduction")."""
    out: list[Line] = []
    for p in pieces:
        if out and _same_row(out[-1].bbox, p.bbox) and p.bbox[0] >= out[-1].bbox[2] - 1:
            last = out[-1]
            last.spans.extend(p.spans)
            last.bbox = _union([last.bbox, p.bbox])
        else:
            out.append(p)
    for line in out:
        line.spans.sort(key=lambda s: s.bbox[0])
    return out


def _join_split_rows(blocks: list[Block]) -> list[Block]:
    """MuPDF starts a new block at a sub/superscript ("D_out^test"); glue it back on."""
    out: list[Block] = []
    for b in blocks:
        prev = out[-1] if out else None
        if prev is not None:
            last, first = prev.lines[-1], b.lines[0]
            size = max(s.size for s in last.spans)
            gap = first.bbox[0] - last.bbox[2]
            if _same_row(last.bbox, first.bbox) and -2 <= gap <= 1.5 * size:
                last.spans.extend(first.spans)
                last.bbox = _union([last.bbox, first.bbox])
                prev.lines.extend(b.lines[1:])
                prev.bbox = _union([prev.bbox, b.bbox])
                continue
        out.append(b)
    return out


def _same_row(a: Box, b: Box) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0.5 * min(a[3] - a[1], b[3] - b[1])


def _mark_bold_words(words: list[Word], spans: list[Span]) -> None:
    """Give each word the boldness of the span under its centre (words carry no font)."""
    buckets: dict[int, list[Box]] = {}
    for s in spans:
        if s.bold:
            for k in range(int(s.bbox[1]) // 8, int(s.bbox[3]) // 8 + 1):
                buckets.setdefault(k, []).append(s.bbox)
    if not buckets:
        return
    for w in words:
        cx = (w.bbox[0] + w.bbox[2]) / 2
        cy = (w.bbox[1] + w.bbox[3]) / 2
        for b in buckets.get(int(cy) // 8, ()):
            if b[0] - 0.5 <= cx <= b[2] + 0.5 and b[1] <= cy <= b[3]:
                w.bold = True
                break


def _union(boxes: Iterable[Box]) -> Box:
    bs = list(boxes)
    return (
        min(b[0] for b in bs),
        min(b[1] for b in bs),
        max(b[2] for b in bs),
        max(b[3] for b in bs),
    )


def union(boxes: Iterable[Box]) -> Box:
    return _union(boxes)


def body_size(pages: Sequence[PageText]) -> float:
    """The font size most characters are set in: the yardstick for headings and prose."""
    weights: Counter[float] = Counter()
    for p in pages:
        for ln in p.lines():
            for s in ln.spans:
                weights[round(s.size * 2) / 2] += len(s.text.strip())
    return weights.most_common(1)[0][0] if weights else 10.0


def mark_furniture(pages: Sequence[PageText]) -> None:
    """Flag running headers, footers and page numbers so no stage reads them as content."""
    seen: Counter[str] = Counter()
    keyed: list[tuple[Line, str]] = []
    for p in pages:
        band = 0.08 * p.height
        for ln in p.lines():
            if ln.bbox[3] <= band or ln.bbox[1] >= p.height - band:
                key = re.sub(r"\d+", "#", ln.text.lower()).strip()
                keyed.append((ln, key))
                if re.fullmatch(r"[#ivxl\s.\-–]*", key):
                    ln.furniture = True
    for key in {k for _, k in keyed}:
        seen[key] = 0
    for _, key in keyed:
        seen[key] += 1
    repeat = max(3, len(pages) // 4)
    for ln, key in keyed:
        if seen[key] >= repeat and len(key) > 2:
            ln.furniture = True


def set_columns(pages: Sequence[PageText], body: float) -> None:
    """Decide per page whether text runs in two columns and put lines in reading order."""
    votes = 0
    unsure: set[int] = set()
    for p in pages:
        if _page_columns(p, body):
            votes += 1 if p.two_column else -1
        else:
            unsure.add(p.number)
    sure = [p for p in pages if p.number not in unsure and _has_enough_body(p, body)]
    typical = [p for p in sure if p.two_column == (votes > 0)] or sure
    for p in pages:
        if p.number in unsure or not _has_enough_body(p, body):
            # figure-only pages and half-filled pages follow the document's layout
            p.two_column = votes > 0
            if typical:
                p.left = statistics.median(q.left for q in typical)
                p.right = statistics.median(q.right for q in typical)
                p.mid = statistics.median(q.mid for q in typical)
        _mark_line_numbers(p)
        p.order = _reading_order(p, body)


def _mark_line_numbers(p: PageText) -> None:
    """Review copies number their lines in the margins; those numbers are furniture."""
    for ln in p.lines():
        outside = ln.bbox[2] < p.left - 2 or ln.bbox[0] > p.right + 2
        if ln.text.isdigit() and len(ln.text) <= 3 and outside:
            ln.furniture = True


def _body_lines(p: PageText, body: float) -> list[Line]:
    return [
        ln
        for ln in p.lines()
        if not ln.furniture and abs(ln.size - body) <= 1.0 and len(ln.text) >= 25
    ]


def _has_enough_body(p: PageText, body: float) -> bool:
    return len(_body_lines(p, body)) >= 6


def _page_columns(p: PageText, body: float) -> bool:
    """Set the page's columns; False when the page alone cannot tell (one column used)."""
    lines = _body_lines(p, body) or [ln for ln in p.lines() if not ln.furniture]
    if lines:
        p.left = min(ln.bbox[0] for ln in lines)
        p.right = max(ln.bbox[2] for ln in lines)
    else:
        p.left, p.right = 0.1 * p.width, 0.9 * p.width
    p.mid = (p.left + p.right) / 2
    left = sum(1 for ln in lines if ln.bbox[2] <= p.mid + 0.01 * p.width)
    right = sum(1 for ln in lines if ln.bbox[0] >= p.mid - 0.01 * p.width)
    cross = len(lines) - left - right
    p.two_column = left >= 3 and right >= 3 and left + right > 2 * cross
    if p.two_column:
        p.mid = _gutter(p, body)
        return True
    return cross >= 3 and cross > (left + right) / 2


def _gutter(p: PageText, body: float) -> float:
    mid = (p.left + p.right) / 2
    lines = _body_lines(p, body)
    lefts = [ln.bbox[2] for ln in lines if ln.bbox[2] <= mid + 0.02 * p.width]
    rights = [ln.bbox[0] for ln in lines if ln.bbox[0] >= mid - 0.02 * p.width]
    if lefts and rights and max(lefts) < min(rights):
        return (max(lefts) + min(rights)) / 2
    return mid


def _footnote(b: Block, p: PageText, body: float) -> bool:
    """Small type at the foot of the page led by a marker ("1Our code is at ...")."""
    lines = [ln for ln in b.lines if not ln.furniture]
    if not lines or b.bbox[1] < 0.7 * p.height:
        return False
    if any(ln.size > body - 0.8 for ln in lines):
        return False
    first = lines[0].spans[0]
    marker = first.text.strip()[:1]
    return (marker.isdigit() and first.size < 0.85 * lines[0].size) or marker in "*∗†‡§¶"


def _reading_order(p: PageText, body: float) -> list[Line]:
    """Two-column pages: bands split by full-width blocks, left column before right.

    Footnotes go last on the page, so they do not split a paragraph that runs on into
    the next column.
    """
    blocks = sorted(p.blocks, key=lambda b: (b.bbox[1], b.bbox[0]))
    notes = [b for b in blocks if _footnote(b, p, body)]
    blocks = [b for b in blocks if b not in notes]
    return [ln for b in _ordered_blocks(p, blocks) + notes for ln in b.lines]


def _ordered_blocks(p: PageText, blocks: list[Block]) -> list[Block]:
    if not p.two_column:
        return blocks
    tol = 0.02 * p.width
    full = [b for b in blocks if b.bbox[0] < p.mid - tol and b.bbox[2] > p.mid + tol]
    cols = [b for b in blocks if not (b.bbox[0] < p.mid - tol and b.bbox[2] > p.mid + tol)]
    bands: list[list[Block]] = [[] for _ in range(len(full) + 1)]
    for b in cols:
        k = sum(1 for f in full if f.bbox[1] <= b.bbox[1])
        bands[k].append(b)
    ordered: list[Block] = []
    for k, band in enumerate(bands):
        left = [b for b in band if (b.bbox[0] + b.bbox[2]) / 2 < p.mid]
        right = [b for b in band if (b.bbox[0] + b.bbox[2]) / 2 >= p.mid]
        ordered += left + right
        if k < len(full):
            ordered.append(full[k])
    return ordered


def overlaps(a: Box, b: Box, pad: float = 0.0) -> bool:
    return a[0] - pad < b[2] and b[0] - pad < a[2] and a[1] - pad < b[3] and b[1] - pad < a[3]


def x_overlap(a: Box, b: Box) -> float:
    return min(a[2], b[2]) - max(a[0], b[0])


def contains(outer: Box, inner: Box, pad: float = 1.0) -> bool:
    return (
        outer[0] - pad <= inner[0]
        and outer[1] - pad <= inner[1]
        and inner[2] <= outer[2] + pad
        and inner[3] <= outer[3] + pad
    )
