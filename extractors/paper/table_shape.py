"""A table's shape beyond its cells: header rows, the blocks of its body, and doubts.

The reader knows what the cell strings no longer show: where the horizontal rules run.
Booktabs tables put a rule under the header and between the blocks of the body (backbones,
model sizes, datasets); a group-label row (a name alone on its line) or a label centred on
several rows (LaTeX's multirow, joined to the group's first row) opens a block too. Drafting
reads these from the record instead of guessing them from strings.
"""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field

from extractors.paper.graphics import Rule
from extractors.paper.layout import Box

_VALUE = re.compile(
    r"^[(\[]?[-−–+]?(\d[\d,]*(\.\d+)?|\.\d+)\s*(%|[kKMBGT×x]|ms|s|h|min|[KMGT]i?B)?[)\]]?"
    r"(\s*(±|\+/-)\s*[\d.]+%?)?[*†‡§⋆∗]*$"
)
_MARKS = {"✓", "✔", "✗", "✘", "×", "√", "○", "●", "◦", "•"}
# Two or more decimals run together or in one label cell: "0.420.840.56", "GNNExp 0.42 0.84".
_GLUED = re.compile(r"\d\.\d+\.\d|\d\.\d+\s+\d+\.\d+")


@dataclass
class Shape:
    header_rows: int = 0  # 0: not known
    blocks: list[int] = field(default_factory=list)  # first rows of the body's later blocks
    doubts: list[str] = field(default_factory=list)
    # Group labels centred on a ruled block, to move to the block's first row: row -> row.
    moved: dict[int, int] = field(default_factory=dict)


def is_value(cell: str) -> bool:
    return bool(_VALUE.match(cell.strip()))


def _data_row(row: list[str]) -> bool:
    """Most filled cells after the first are numbers (marks and dashes aside)."""
    filled = [c.strip() for c in row[1:] if c.strip() and c.strip() not in {"-", "–", "—"}]
    values = [c for c in filled if is_value(c)]
    if filled and all(set(c.split()) <= _MARKS for c in filled):
        return True  # a row of check marks: which parts a variant has
    return bool(values) and 2 * len(values) >= len(filled)


def _interior_rules(rules: list[Rule], bbox: Box, ys: list[tuple[float, float]]) -> list[float]:
    """y of rules across most of the table's width that lie between its first and last row."""
    width = bbox[2] - bbox[0]
    top, bottom = ys[0][1], ys[-1][0]
    by_y: dict[int, list[Rule]] = {}
    for r in rules:
        if top - 0.5 < r.y < bottom + 0.5 and r.x1 > bbox[0] and r.x0 < bbox[2]:
            k = next((y for y in by_y if abs(y - r.y) <= 1.0), round(r.y))
            by_y.setdefault(k, []).append(r)
    out = []
    for y, segs in by_y.items():
        # One unbroken run: a row of partial rules under spanning headers (booktabs'
        # cmidrule) covers the width too, but with gaps between its pieces.
        # It must also reach the table's left side: a rule that leaves the label columns
        # out (cmidrule{3-8}) runs under a group's rows, not between the groups.
        runs: list[list[float]] = []
        for s in sorted(segs, key=lambda s: s.x0):
            a, b = max(s.x0, bbox[0]), min(s.x1, bbox[2])
            if runs and a <= runs[-1][1] + 1.5:
                runs[-1][1] = max(runs[-1][1], b)
            else:
                runs.append([a, b])
        if any(b - a >= 0.6 * width and a <= bbox[0] + 0.15 * width for a, b in runs):
            out.append(float(y))
    return sorted(out)


def table_shape(
    rows: list[list[str]], ys: list[tuple[float, float]], rules: list[Rule], bbox: Box
) -> Shape:
    """Header rows and body blocks of a grid read from words (`ys`: each row's top, bottom)."""
    shape = Shape()
    if len(rows) < 2 or len(ys) != len(rows):
        return shape
    centres = [(a + b) / 2 for a, b in ys]
    cuts = sorted({sum(1 for c in centres if c < y) for y in _interior_rules(rules, bbox, ys)})
    cuts = [k for k in cuts if 0 < k < len(rows)]
    leading = 0
    while leading < len(rows) and not _data_row(rows[leading]):
        leading += 1
    if (
        cuts
        and cuts[0] <= max(leading, 1) + 3
        and not any(_labelled_data(r) for r in rows[: cuts[0]])
    ):
        head = cuts[0]
        # Title rows below the rule still belong to the header ("Metric | MSE | MAE …"
        # under a rule that closes the method names); a name alone there opens a block.
        while head < len(rows) - 1 and head < leading and _titles(rows[head]):
            head += 1
        shape.header_rows = head
    elif 0 < leading < len(rows):
        shape.header_rows = leading
    else:
        shape.header_rows = 1 if len(rows) > 1 else 0
    head = shape.header_rows
    body = len(rows) - head
    starts = {k for k in cuts if k > head}
    if len(starts) >= 0.6 * max(body - 1, 1) and body > 3:
        starts = set()  # a rule under every row: a grid, not blocks
    ruled = sorted(starts)
    centred = _centred_labels(rows, head)
    if centred:  # labels set beside the middle of their groups go to each group's first row
        rows = apply_moves([list(r) for r in rows], [], centred)[0]
        shape.moved.update(centred)
    starts |= _label_rows(rows, head)
    for k in sorted(_multirow_starts(rows, head)):
        # A label centred on a ruled block names the block the rule opened.
        opened = max((s for s in [head, *ruled] if s <= k), default=head)
        closed = min((s for s in ruled if s > k), default=len(rows))
        labels = [i for i in range(opened, closed) if rows[i][0].strip()]
        if labels != [k]:
            starts.add(k)
        elif k != opened and not rows[opened][0].strip():
            shape.moved[k] = opened
    shape.blocks = _first_of_runs(rows, sorted(k for k in starts if head < k < len(rows)))
    shape.doubts = _doubts(rows, head)
    return shape


def apply_moves(
    rows: list[list[str]], bold: list[list[bool]], moved: dict[int, int]
) -> tuple[list[list[str]], list[list[bool]]]:
    """First-column labels moved to the row they belong to (`moved`: row -> row); the
    lines of a label broken over several rows are joined in order."""
    targets: dict[int, list[int]] = {}
    for src, dst in sorted(moved.items()):
        targets.setdefault(dst, []).append(src)
    for dst, srcs in targets.items():
        text = " ".join(rows[i][0] for i in srcs if rows[i][0].strip())
        strong = any(bold[i][0] for i in srcs) if bold else False
        for i in srcs:
            rows[i][0] = ""
            if bold:
                bold[i][0] = False
        rows[dst][0] = text
        if bold:
            bold[dst][0] = strong
    return rows, bold


def _centred_labels(rows: list[list[str]], head: int) -> dict[int, int]:
    """Group labels set beside the middle of equal groups of rows (LaTeX multirow without
    rules), possibly broken over two lines or on a line of their own between two rows of
    the group: each label's lines -> its group's first row.

    The groups are the named rows taken g at a time (up to the first row that is neither
    named nor a label alone, such as a stacked sub-table's caption), g being rows / labels;
    each label must sit in the middle of its own group."""
    if not rows or len(rows[0]) < 3:
        return {}
    named: list[int] = []  # rows naming a method or setting beside the label column
    at: list[tuple[float, int]] = []  # (position among the named rows, row) of label lines
    for i in range(head, len(rows)):
        row = rows[i]
        # a label on a line of its own: a short name, not a stacked sub-table's caption
        alone = (
            bool(row[0].strip())
            and not any(c.strip() for c in row[1:])
            and len(row[0].split()) <= 4
            and not re.match(r"\(\w{1,3}\)", row[0].strip())
        )
        if any(c.strip() and not is_value(c) for c in row[1:3]):
            named.append(i)
            position = len(named) - 1.0
        elif alone and named:
            position = len(named) - 0.5  # between the rows above and below it
        else:
            break
        cell = row[0].strip()
        if cell:
            if is_value(cell):
                return {}
            at.append((position, i))
    runs: list[list[tuple[float, int]]] = []
    for pos, i in at:
        if runs and pos - runs[-1][-1][0] <= 1.0:
            runs[-1].append((pos, i))
        else:
            runs.append([(pos, i)])
    if len(runs) < 2 or len(named) % len(runs):
        return {}
    g = len(named) // len(runs)
    if g < 2:
        return {}
    moved: dict[int, int] = {}
    for n, run in enumerate(runs):
        first = n * g
        centre = sum(p for p, _ in run) / len(run)
        inside = first - 0.5 <= run[0][0] and run[-1][0] < first + g
        if not inside or abs(centre - (first + (g - 1) / 2)) > 0.51:
            return {}
        moved.update({i: named[first] for _, i in run})
    if all(src == dst for src, dst in moved.items()):
        return {}
    return moved


def _first_of_runs(rows: list[list[str]], starts: list[int]) -> list[int]:
    """Starts that open a block: not the title rows (a sub-table's own header, under its
    rule) that follow another start before any data row."""
    out: list[int] = []
    for k in starts:
        if out and not any(_data_row(rows[i]) for i in range(out[-1], k)):
            continue
        out.append(k)
    return out


def _titles(row: list[str]) -> bool:
    return sum(1 for c in row if c.strip()) >= 2


def _labelled_data(row: list[str]) -> bool:
    """A body row: a name, then mostly numbers (a header's row of thresholds has no name)."""
    return bool(row[0].strip()) and not is_value(row[0]) and _data_row(row)


def _label_rows(rows: list[list[str]], head: int) -> set[int]:
    """Rows holding a name alone (a group label) with data rows under them."""
    out = set()
    for i in range(head, len(rows) - 1):
        filled = [c for c in rows[i] if c.strip()]
        if len(filled) == 1 and not is_value(filled[0]) and _data_row(rows[i + 1]):
            out.add(i)
    return out


def _multirow_starts(rows: list[list[str]], head: int) -> set[int]:
    """Rows where a first-column group label starts, when a second label column names rows
    under it ("Autoformer | 96", "" | 192, …)."""
    body = rows[head:]
    if len(body) < 3 or len(body[0]) < 3:
        return set()
    first = [r[0].strip() for r in body]
    # rows left empty (a label's own line, once the label moved up) are no one's
    named = [any(c.strip() and not is_value(c) for c in r[1:3]) or not any(r) for r in body]
    if all(first) or not all(n for c, n in zip(first, named, strict=True) if not c):
        return set()
    if sum(bool(c) for c in first) < 2 or any(is_value(c) for c in first if c):
        return set()
    return {head + i for i, c in enumerate(first) if c}


def _doubts(rows: list[list[str]], head: int) -> list[str]:
    out = []
    glued = [r[0] for r in rows[head:] if r and _GLUED.search(r[0])]
    if glued:
        out.append(f"numbers inside row labels ({glued[0]!r})")
    filled = [sum(1 for c in r if c.strip()) for r in rows[head:]]
    if len(filled) >= 3:
        typical = statistics.median(filled)
        short = sum(1 for n in filled if 1 < n < typical / 2)
        if short:
            out.append(f"{short} body rows hold fewer than half the usual cells")
    return out
