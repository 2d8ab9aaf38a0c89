"""Tables: the region beside a caption, then cells rebuilt from word positions.

The region is found from the horizontal rules next to the caption (booktabs or grid lines,
caption above or below), or, for a table set without rules, from the run of closely stacked
lines against the caption. Cells come from clustering word boxes into rows (by baseline)
and columns (by vertical white-space lanes plus any vertical rules); PyMuPDF's
`find_tables` (~0.4 s a call) is tried only when that reconstruction looks wrong.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

import pymupdf

from extractors.paper.captions import Caption
from extractors.paper.graphics import Graphics, Rule
from extractors.paper.layout import Box, Word, contains, union, x_overlap
from extractors.paper.regions import PageContext, reach, text_run
from extractors.paper.table_shape import apply_moves, table_shape


@dataclass
class TableGrid:
    bbox: Box
    rows: list[list[str]] = field(default_factory=list)
    bold: list[list[bool]] = field(default_factory=list)
    method: str = "words"  # words | find_tables | lines | image | none
    problem: str = ""  # why cells are missing, for the error record
    header_rows: int = 0  # 0: not known
    blocks: list[int] = field(default_factory=list)  # first rows of the body's later blocks
    doubts: list[str] = field(default_factory=list)  # why the reading may be wrong


def table_options(ctx: PageContext, g: Graphics, cap: Caption) -> dict[int, tuple[float, Box]]:
    """Ruled regions below (+1) and above (-1) the caption, each with its distance."""
    xr = ctx.page.column_of(cap.bbox)
    out: dict[int, tuple[float, Box]] = {}
    for direction in (1, -1):
        found = _ruled_region(ctx, g, cap, xr, direction)
        if found is not None:
            out[direction] = found
    return out


def locate_table(ctx: PageContext, g: Graphics, cap: Caption, prefer: int = 0) -> Box | None:
    """The table's box: from the rules beside the caption, else the adjacent text run.

    `prefer` is the side the document puts its tables on (+1 below the caption, -1 above),
    learnt from the captions with rules on one side only; it settles a caption that sits
    between two tables. A region another caption already took is not taken twice.
    """
    opts = {
        d: o
        for d, o in table_options(ctx, g, cap).items()
        if not any(_mostly_inside(o[1], t) for t in ctx.taken)
    }
    if opts:
        if prefer in opts:
            return opts[prefer][1]
        return min(opts.values())[1]
    xr = ctx.page.column_of(cap.bbox)
    runs = [(d, text_run(ctx, cap.bbox, xr, d, ctx.captions)) for d in (1, -1)]
    runs = [(d, r) for d, r in runs if len(r) >= 2]
    if not runs:
        return _adjacent_image(ctx, g, cap, xr)
    _, run = max(runs, key=lambda dr: (len(dr[1]), dr[0] == prefer, dr[0]))
    return union(ln.bbox for ln in run)


def _mostly_inside(a: Box, b: Box) -> bool:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    area = max((a[2] - a[0]) * (a[3] - a[1]), 1e-6)
    return w > 0 and h > 0 and w * h > 0.5 * area


def _ruled_region(
    ctx: PageContext, g: Graphics, cap: Caption, xr: tuple[float, float], direction: int
) -> tuple[float, Box] | None:
    cb = cap.bbox
    span = (xr[0], 0.0, xr[1], 0.0)
    min_width = min(50.0, 0.25 * (xr[1] - xr[0]))
    edge = reach(ctx, cb, xr, direction)
    # Glyphs such as braces make line boxes taller than the ink: allow a rule to touch
    # the caption's outer line box a little, but not to run through its text.
    last, first_line = cap.lines[-1], cap.lines[0]
    low = last.bbox[3] - 0.35 * last.size
    high = first_line.bbox[1] + 0.35 * first_line.size
    cands = [
        r
        for r in g.rules
        if r.width >= min_width
        and x_overlap((r.x0, 0, r.x1, 0), span) >= 0.6 * min(r.width, xr[1] - xr[0])
        and (low <= r.y <= edge + 1 if direction > 0 else edge - 1 <= r.y <= high)
    ]
    if cands:
        lo = min(r.y for r in cands) - 20
        hi = max(r.y for r in cands) + 20
        near = [w for w in ctx.page.words if lo <= w.bbox[1] <= hi]
        cands = [r for r in cands if not _strikes(r, near)]
    if not cands:
        return None
    cands.sort(key=lambda r: r.y, reverse=direction < 0)
    first = cands[0]
    gap = (first.y - cb[3]) if direction > 0 else (cb[1] - first.y)
    size = max(ln.size for ln in cap.lines)
    if gap > 4 * size + 12:
        return None
    # Top, mid and bottom rules share the table's width; partial rules (cmidrule) lie
    # between them and do not extend the region on their own.
    chain: list[Rule] = [first]
    for r in cands[1:]:
        if r.width >= 0.7 * first.width and x_overlap(
            (r.x0, 0, r.x1, 0), (first.x0, 0, first.x1, 0)
        ) >= 0.7 * min(r.width, first.width):
            if _plot_between(g, chain[-1], r):
                break  # the axes of a chart set right after the table
            chain.append(r)
    if len(chain) == 1:
        return None
    x0 = min(c.x0 for c in chain)
    x1 = max(c.x1 for c in chain)
    y0 = min(c.y for c in chain)
    y1 = max(c.y for c in chain)
    if y1 - y0 < 6:
        return None
    return gap, (x0 - 1, y0 - 1, x1 + 1, y1 + 1)


def _plot_between(g: Graphics, a: Rule, b: Rule) -> bool:
    """A curve or slanted line between two rules: a chart, which no table contains."""
    lo, hi = min(a.y, b.y), max(a.y, b.y)

    def between(curves: list[Box]) -> bool:
        return any(
            lo < (c[1] + c[3]) / 2 < hi and c[0] < max(a.x1, b.x1) and min(a.x0, b.x0) < c[2]
            for c in curves
        )

    return between(g.curves) and between(g.visible_curves())


def _strikes(r: Rule, words: list[Word]) -> bool:
    """A line through the middle of text is no table rule (often clipped-away content)."""
    for w in words:
        h = w.bbox[3] - w.bbox[1]
        if (
            w.bbox[1] + 0.3 * h < r.y < w.bbox[3] - 0.3 * h
            and r.x0 < w.bbox[2]
            and w.bbox[0] < r.x1
        ):
            return True
    return False


def _adjacent_image(
    ctx: PageContext, g: Graphics, cap: Caption, xr: tuple[float, float]
) -> Box | None:
    """A table pasted as a picture: the image right above or below the caption."""
    cb = cap.bbox
    for img in g.images:
        if x_overlap(img, (xr[0], 0, xr[1], 0)) <= 0:
            continue
        if 0 <= cb[1] - img[3] <= 30 or 0 <= img[1] - cb[3] <= 30:
            return img
    return None


def read_table(
    page: pymupdf.Page, ctx: PageContext, g: Graphics, cap: Caption, bbox: Box
) -> TableGrid:
    """Cells of the table in `bbox`, from words first, `find_tables` as the fallback."""
    words = [
        w
        for w in ctx.page.words
        if contains(bbox, w.bbox, pad=1.5) and not any(contains(c, w.bbox) for c in ctx.captions)
    ]
    if not words:
        if any(contains(bbox, img, pad=2) or contains(img, bbox, pad=2) for img in g.images):
            return TableGrid(bbox, method="image", problem="the table is a picture (no OCR)")
        return TableGrid(bbox, method="none", problem="no text inside the table region")
    words = [piece for w in words for piece in unglue(w)]
    vlines = _column_rules(g.vrules, bbox, words)
    rotated = [box for box, _ in ctx.page.rotated if contains(bbox, box, pad=2)]
    rows, bold, ys = build_cells(words, vlines, rotated)
    if _looks_right(rows):
        shape = table_shape(rows, ys, g.rules, bbox)
        rows, bold = apply_moves(rows, bold, shape.moved)  # group labels to their first row
        return TableGrid(
            bbox, rows, bold, "words", "", shape.header_rows, shape.blocks, shape.doubts
        )
    fallback = _find_tables(page, bbox, words, bool(vlines))
    if fallback is not None:
        return fallback
    if rows:
        shape = table_shape(rows, ys, g.rules, bbox)
        doubts = ["columns could not be told apart: most rows are one cell", *shape.doubts]
        return TableGrid(bbox, rows, bold, "lines", "", shape.header_rows, shape.blocks, doubts)
    return TableGrid(bbox, method="none", problem="cells could not be separated")


def unglue(word: Word) -> list[Word]:
    """Values the text layer ran together into one word ("0.420.840.56": three cells set
    too tight for a space; "DLinear∗FEDformer": two headers joined at a footnote mark) as
    separate words, each with its share of the box. Only runs of two or more decimals with
    the same number of places split; "1.2.3" stays one word."""
    text = word.text
    if (m := _GLUED_AT_MARK.fullmatch(text)) is not None:
        parts = [m.group(1), m.group(2)]
    elif text.count(".") < 2 or not text[:1].isdigit():
        return [word]
    else:
        parts = _decimals(text)
        if not parts:
            return [word]
    x0, y0, x1, y1 = word.bbox
    per = (x1 - x0) / len(text)
    out, at = [], 0
    for part in parts:
        left = x0 + at * per
        out.append(Word((left, y0, left + len(part) * per, y1), part, word.bold))
        at += len(part)
    return out


# two column headers the text layer ran together after a footnote mark ("DLinear∗FEDformer":
# "DLinear∗" and "FEDformer", each over its own column): a mark is set raised, after a word,
# and a capital never follows it inside one word
_GLUED_AT_MARK = re.compile(r"([A-Za-z][\w.-]*[A-Za-z0-9][\u2217*\u2020\u2021\u00a7])([A-Z][\w-]+)")


def _decimals(text: str) -> list[str]:
    """The decimals of one word, all with the same places ("0.420.840.56"), or none."""
    for places in (1, 2, 3, 4):
        parts = re.findall(rf"\d{{1,3}}\.\d{{{places}}}", text)
        if len(parts) >= 2 and "".join(parts) == text:
            return parts
    return []


def _column_rules(vrules: list[Box], bbox: Box, words: list[Word]) -> list[float]:
    """x of vertical rules that run through a good part of the table (pieces summed).

    A "rule" that crosses a word is not one (often clipped-away figure content).
    """
    pieces: dict[int, list[Box]] = {}
    for v in vrules:
        if bbox[0] + 2 < v[0] < bbox[2] - 2 and v[3] > bbox[1] and v[1] < bbox[3]:
            pieces.setdefault(round(v[0]), []).append(v)
    merged: dict[int, list[Box]] = {}
    for x in sorted(pieces):  # neighbours within a point are one rule
        k = next((m for m in merged if abs(m - x) <= 1), x)
        merged.setdefault(k, []).extend(pieces[x])
    out: list[float] = []
    height = bbox[3] - bbox[1]
    for x, segs in merged.items():
        total = sum(min(v[3], bbox[3]) - max(v[1], bbox[1]) for v in segs)
        if total < 0.3 * height:
            continue
        crosses = any(
            w.bbox[0] + 0.5 < v[0] < w.bbox[2] - 0.5 and w.bbox[1] < v[3] and v[1] < w.bbox[3]
            for w in words
            if w.bbox[0] < x + 1 and x - 1 < w.bbox[2]
            for v in segs
        )
        if not crosses:
            out.append(float(x))
    return out


def _looks_right(rows: list[list[str]]) -> bool:
    if len(rows) < 2 or max((len(r) for r in rows), default=0) < 2:
        return False
    multi = sum(1 for r in rows if sum(1 for c in r if c) >= 2)
    return multi >= 0.5 * len(rows)


def build_cells(
    words: list[Word], vlines: list[float], rotated: list[Box] | None = None
) -> tuple[list[list[str]], list[list[bool]], list[tuple[float, float]]]:
    """Rows by baseline, columns by white-space lanes that (almost) no row crosses.

    A row that is a run of prose (a sub-table caption such as "(a) Results on X", a note)
    splits the table into bands, each with its own columns: stacked sub-tables rarely
    share their column positions. Words set sideways (inside one of the `rotated` line boxes,
    or tall and one line wide) are group names that join their group's first row. Rows are
    padded to one width.
    """
    h = statistics.median(w.bbox[3] - w.bbox[1] for w in words)
    sideways = [
        w
        for w in words
        if _vertical(w, h) or any(contains(box, w.bbox, pad=1) for box in rotated or [])
    ]
    rows = _cluster_rows([w for w in words if w not in sideways])
    if not rows:
        return [], [], []
    rows = _join_sideways(_join_row_spans(rows, h), sideways)
    gap = _gap(h)
    width = max(w.bbox[2] for w in words) - min(w.bbox[0] for w in words)
    texts: list[list[str]] = []
    bolds: list[list[bool]] = []
    ys: list[tuple[float, float]] = []
    band: list[list[Word]] = []
    for row in [*rows, []]:
        if row and not _text_row(row, gap, width):
            band.append(row)
            continue
        if band:
            t, b, y = _grid(band, h, gap, vlines, [w.bbox[2] for w in sideways])
            texts += t
            bolds += b
            ys += y
            band = []
        if row:
            texts.append([" ".join(w.text for w in row)])
            bolds.append([_bold(row)])
            ys.append(_extent(row))
    n = max(len(r) for r in texts)
    texts = [r + [""] * (n - len(r)) for r in texts]
    bolds = [r + [False] * (n - len(r)) for r in bolds]
    return texts, bolds, ys


def _extent(row: list[Word]) -> tuple[float, float]:
    """Top and bottom of a row's ordinary words (sideways group names reach further)."""
    return min(w.bbox[1] for w in row), max(w.bbox[3] for w in row)


def _text_row(row: list[Word], gap: float, width: float) -> bool:
    """A run of prose across the table ("(a) Results on ImageNet"), not a row of names set
    close together ("TimesNet N-HiTS N-BEATS ETSformer"): prose has lower-case words or
    punctuation ("Canada: Alberta, Manitoba, ...")."""
    segs = _segments(row, [], gap)
    lower = sum(1 for w in row if w.text[:1].islower())
    punctuated = any(w.text.endswith((",", ".", ":", ";")) for w in row)
    return (
        len(segs) == 1
        and len(row) >= 4
        and row[-1].bbox[2] - row[0].bbox[0] >= 0.4 * width
        and (lower >= 0.2 * len(row) or punctuated)
    )


def _grid(
    rows: list[list[Word]], h: float, gap: float, vlines: list[float], sideways: list[float]
) -> tuple[list[list[str]], list[list[bool]], list[tuple[float, float]]]:
    bounds = _column_bounds(rows, h, vlines, sideways)
    grid: list[list[list[Word]]] = [[[] for _ in range(len(bounds) + 1)] for _ in rows]
    for i, row in enumerate(rows):
        for seg in _segments(row, bounds, gap):
            # A cell spanning columns (a group header) goes to the first column it covers,
            # as in HTML's colspan; others go where their centre is.
            left, right = seg[0].bbox[0], seg[-1].bbox[2]
            inside = [b for b in bounds if left + 1 < b < right - 1]
            if inside:
                j = sum(1 for b in bounds if b <= left + 1)
            else:
                cx = (left + right) / 2
                j = sum(1 for b in bounds if cx > b)
            grid[i][j].extend(seg)
    keep = [j for j in range(len(bounds) + 1) if any(grid[i][j] for i in range(len(rows)))]
    texts: list[list[str]] = []
    bolds: list[list[bool]] = []
    ys: list[tuple[float, float]] = []
    for i in range(len(rows)):
        cells = [sorted(grid[i][j], key=lambda w: w.bbox[0]) for j in keep]
        row_text = [" ".join(w.text for w in c) for c in cells]
        row_bold = [_bold(c) for c in cells]
        top, bottom = _extent([w for w in rows[i] if not _vertical(w, h)] or rows[i])
        if texts and _continues_row(texts[-1], row_text):
            texts[-1] = [f"{a} {b}".strip() for a, b in zip(texts[-1], row_text, strict=True)]
            bolds[-1] = [a or b for a, b in zip(bolds[-1], row_bold, strict=True)]
            ys[-1] = (min(ys[-1][0], top), max(ys[-1][1], bottom))
            continue
        texts.append(row_text)
        bolds.append(row_bold)
        ys.append((top, bottom))
    return texts, bolds, ys


def _continues_row(above: list[str], row: list[str]) -> bool:
    """A line of wrapped text cells (lower-case run-on under a long cell), not a new row.

    Cells under an empty cell may hold a label centred on the wrapped row; numbers and
    capitalised starts under filled cells mean a new row.
    """
    runs_on = False
    for top, cell in zip(above, row, strict=True):
        if not cell or not top:
            continue
        open_end = not top.endswith((".", "!", "?", ":"))
        if len(top) >= 12 and open_end and (cell[0].islower() or top.endswith(("-", ","))):
            runs_on = True
        else:
            return False
    return runs_on


def _segments(row: list[Word], bounds: list[float], gap: float) -> list[list[Word]]:
    """Runs of words set close together with no column boundary between them."""
    out: list[list[Word]] = []
    for w in row:
        if out:
            prev = out[-1][-1]
            split = any(prev.bbox[2] - 0.5 <= b <= w.bbox[0] + 0.5 for b in bounds)
            space = w.bbox[0] - prev.bbox[2]
            if space >= 0.8 and _PLAIN.match(prev.text) and _PLAIN.match(w.text):
                split = True  # two numbers side by side are two values
            if not split and space < gap:
                out[-1].append(w)
                continue
        out.append([w])
    return out


def _bold(cell: list[Word]) -> bool:
    total = sum(len(w.text) for w in cell)
    return total > 0 and sum(len(w.text) for w in cell if w.bold) >= 0.5 * total


def _cluster_rows(words: list[Word]) -> list[list[Word]]:
    heights = sorted(w.bbox[3] - w.bbox[1] for w in words)
    h = heights[len(heights) // 2]
    normal = [w for w in words if w.bbox[3] - w.bbox[1] >= 0.7 * h]
    small = [w for w in words if w.bbox[3] - w.bbox[1] < 0.7 * h]
    normal.sort(key=lambda w: (w.bbox[1] + w.bbox[3]) / 2)
    rows: list[list[Word]] = []
    centers: list[float] = []
    for w in normal:
        cy = (w.bbox[1] + w.bbox[3]) / 2
        if rows and abs(cy - centers[-1]) <= 0.45 * h:
            rows[-1].append(w)
            centers[-1] = statistics.median((x.bbox[1] + x.bbox[3]) / 2 for x in rows[-1])
        else:
            rows.append([w])
            centers.append(cy)
    for w in small:  # sub- and superscripts join the row they overlap most
        cy = (w.bbox[1] + w.bbox[3]) / 2
        if centers:
            k = min(range(len(centers)), key=lambda i: abs(centers[i] - cy))
            if abs(centers[k] - cy) <= 0.9 * h:
                rows[k].append(w)
                continue
        rows.append([w])
        centers.append(cy)
    order = sorted(range(len(rows)), key=lambda i: centers[i])
    return [sorted(rows[i], key=lambda w: w.bbox[0]) for i in order]


def _vertical(w: Word, h: float) -> bool:
    """Text set sideways (a group name rotated along its rows): tall and one line wide."""
    return w.bbox[3] - w.bbox[1] > 1.8 * h and w.bbox[2] - w.bbox[0] < 1.5 * h


def _centre(row: list[Word]) -> float:
    return statistics.median((w.bbox[1] + w.bbox[3]) / 2 for w in row)


def _join_row_spans(rows: list[list[Word]], h: float) -> list[list[Word]]:
    """Labels centred on a group of body rows (LaTeX's multirow) join the group's first row,
    as HTML's rowspan has it; read_grid carries them down the group.
    Header rows are left as they are: their lines decide the columns.

    Such a label has no line of its own: it overlaps the rows above and below it, which sit
    one row pitch apart. A group heading on its own line overlaps neither.
    """
    out = [list(r) for r in rows]
    centres = [_centre(r) for r in out]
    k = 1
    while k < len(out) - 1:
        row = out[k]
        top = min(w.bbox[1] for w in row)
        bottom = max(w.bbox[3] for w in row)
        above = centres[k - 1] + 0.5 * h - top  # overlap with the row above
        below = bottom - (centres[k + 1] - 0.5 * h)  # and with the row below
        # Overlapping both, or one with the other just a hair away (a rule between the
        # group's rows pushes them apart): a group heading on its own line does neither.
        spans = not any(_PLAIN.match(w.text) for w in row) and (
            (above >= 0.25 * h and below >= 0.25 * h)
            or (max(above, below) >= 0.25 * h and min(above, below) >= -0.5 * h)
        )
        if spans:
            first = k - 1
            while first > 0 and centres[first - 1] >= top - 0.3 * h:
                first -= 1
            target = out[first]
            holds_data = any(_NUMBER.match(w.text) for w in target)
            if holds_data and not any(_x_overlaps(w, v) for w in row for v in target):
                out[first] = sorted(out[first] + row, key=lambda w: w.bbox[0])
                del out[k], centres[k]
                continue
        k += 1
    return out


def _join_sideways(rows: list[list[Word]], sideways: list[Word]) -> list[list[Word]]:
    """Rotated group names join the first row of their group.

    A rotated name is centred on its group, which reaches halfway to the next name (or the
    previous one, mirrored) or, alone, as far as the name itself. Rows of the group are the
    data rows whose centre lies in that reach (any rows there when none holds a number). A
    name with no row in reach stays a row of its own.
    """
    if not sideways:
        return rows
    out = [list(r) for r in rows]
    centres = [_centre(r) for r in out]
    marks = sorted(sideways, key=lambda w: w.bbox[1] + w.bbox[3])
    mids = [(w.bbox[1] + w.bbox[3]) / 2 for w in marks]
    loose: list[Word] = []
    for i, word in enumerate(marks):
        gaps = [mids[j] - mids[j - 1] for j in (i, i + 1) if 0 < j < len(marks)]
        reach = min(gaps) / 2 if gaps else (word.bbox[3] - word.bbox[1]) / 2
        near = [
            k
            for k, row in enumerate(out)
            if abs(centres[k] - mids[i]) <= reach + 0.5
            and not any(_x_overlaps(word, w) for w in row)
        ]
        group = [k for k in near if any(_NUMBER.match(w.text) for w in out[k])] or near
        if group:
            out[group[0]] = sorted(out[group[0]] + [word], key=lambda w: w.bbox[0])
        else:
            loose.append(word)
    for word in loose:
        at = sum(1 for c in centres if c < (word.bbox[1] + word.bbox[3]) / 2)
        out.insert(at, [word])
        centres.insert(at, (word.bbox[1] + word.bbox[3]) / 2)
    return out


def _x_overlaps(a: Word, b: Word) -> bool:
    return a.bbox[0] < b.bbox[2] and b.bbox[0] < a.bbox[2]


def _column_bounds(
    rows: list[list[Word]], h: float, vlines: list[float], sideways: list[float]
) -> list[float]:
    """x positions between columns: lanes of white space that the dense rows leave open.

    A lane just right of a rotated group name (`sideways`: their right edges) is a column
    gap however narrow: nothing else is set sideways in that column."""
    x0 = min(w.bbox[0] for r in rows for w in r)
    x1 = max(w.bbox[2] for r in rows for w in r)
    # Lanes come from the body: spanning group headers ("ETTm1" over MSE | MAE) sit in
    # the header rows above the first full row and would otherwise bridge the gaps
    # between the columns below them. In the body, sparse rows count too (a column
    # may be filled in only some rows), but one stray long cell may cross a lane.
    min_gap = _gap(h)
    counts = [len(_segments(r, [], min_gap)) for r in rows]
    most = max(counts)
    first_full = next(k for k, c in enumerate(counts) if c >= max(2, 0.7 * most) or c == most)
    body = rows[first_full:]
    if len(body) >= 2:
        lane_rows, tol = body, 0
    else:
        lane_rows, tol = rows, (1 if len(rows) >= 5 else 0)
    lanes = _lanes(lane_rows, tol)
    numbers = [w.bbox[0] for r in body for w in r if _PLAIN.match(w.text)]
    start = min(numbers, default=x0)
    stub = [s for s in _segments(body[0], [], min_gap) if s[0].bbox[0] < start]
    if len(body) >= 3 and len(stub) == 1:
        # The first full row may be a header whose stub ("Mask Ratio", "Method") spans
        # the label columns: lanes between label columns are judged on the rows below it.
        lanes += [(a, b) for a, b in _lanes(body[1:], 0) if b < start and (a, b) not in lanes]
    bounds: list[float] = []
    for a, b in sorted(lanes):
        if a <= x0 or b >= x1 or any(a < m < b for m in bounds):
            continue
        beside_sideways = any(abs(a - s) <= 1 for s in sideways)
        if b - a >= min_gap or beside_sideways or _numeric_lane(lane_rows, a, b, h):
            bounds.append((a + b) / 2)
    for v in vlines:
        if x0 < v < x1 and all(abs(v - b) > min_gap for b in bounds):
            bounds.append(v)
    return sorted(bounds)


def _lanes(rows: list[list[Word]], tol: int) -> list[tuple[float, float]]:
    """Maximal x-intervals covered by at most `tol` rows (a sweep over word extents)."""
    events: list[tuple[float, int]] = []
    for r in rows:
        spans: list[list[float]] = []
        for w in sorted(r, key=lambda w: w.bbox[0]):  # a row covers each x at most once
            if spans and w.bbox[0] <= spans[-1][1]:
                spans[-1][1] = max(spans[-1][1], w.bbox[2])
            else:
                spans.append([w.bbox[0], w.bbox[2]])
        for a, b in spans:
            events += [(a, 1), (b, -1)]
    events.sort(key=lambda e: (e[0], e[1]))
    lanes: list[tuple[float, float]] = []
    depth = 0
    open_at: float | None = None
    for x, d in events:
        before = depth
        depth += d
        if before > tol >= depth:
            open_at = x
        elif before <= tol < depth and open_at is not None:
            lanes.append((open_at, x))
            open_at = None
    return lanes


_NUM = r"[-+−–]?(?:\d[\d,]*\.?\d*|\.\d+)%?"
_NUMBER = re.compile(rf"^[(\[]?(?:{_NUM}(?:\s*±\s*{_NUM})?|-|–|—)[)\]]?[*†‡§⋆∗]*$")


_PLAIN = re.compile(rf"^{_NUM}[*†‡§⋆∗]*$")


def _gap(h: float) -> float:
    """Narrowest gap that separates cells: wider than a word space (~0.22-0.3 of a line)."""
    return max(2.0, 0.3 * h)


def _numeric_lane(rows: list[list[Word]], a: float, b: float, h: float) -> bool:
    """A narrow lane between numbers is a column gap: numbers are not multi-word cells."""
    if b - a < 0.8:
        return False
    pairs = numeric = 0
    for r in rows:
        left = [w for w in r if w.bbox[2] <= a + 0.6 and a - w.bbox[2] < 2 * h]
        right = [w for w in r if w.bbox[0] >= b - 0.6 and w.bbox[0] - b < 2 * h]
        if not left or not right:
            continue
        lw = max(left, key=lambda w: w.bbox[2])
        rw = min(right, key=lambda w: w.bbox[0])
        pairs += 1
        numeric += bool(_NUMBER.match(lw.text) and _NUMBER.match(rw.text))
    return pairs >= 2 and numeric >= 0.7 * pairs


def _find_tables(page: pymupdf.Page, bbox: Box, words: list[Word], ruled: bool) -> TableGrid | None:
    kwargs: dict[str, object] = {
        "clip": pymupdf.Rect(bbox),
        "horizontal_strategy": "lines" if ruled else "text",
        "vertical_strategy": "lines" if ruled else "text",
    }
    try:
        try:  # PyMuPDF >= 2 gates tables by a layout model costing ~1.5 s a call: skip it
            found = page.find_tables(use_layout=False, **kwargs)
        except TypeError:
            found = page.find_tables(**kwargs)
    except Exception:  # PyMuPDF's table finder fails on odd vector content
        return None
    best = max(found.tables, key=lambda t: t.row_count * t.col_count, default=None)
    if best is None or best.row_count < 2 or best.col_count < 2:
        return None
    rows = [[" ".join((c or "").split()) for c in row] for row in best.extract()]
    bold: list[list[bool]] = []
    for r in best.rows:
        flags = []
        for cell in r.cells:
            inside = [w for w in words if cell is not None and contains(cell, w.bbox, pad=1)]
            flags.append(_bold(inside))
        bold.append(flags)
    if not _looks_right(rows):
        return None
    return TableGrid(
        tuple(best.bbox),  # type: ignore[arg-type]
        rows,
        bold,
        method="find_tables",
        header_rows=0 if best.header.external else 1,
        doubts=["read by PyMuPDF's find_tables: the word-based reading looked wrong"],
    )
