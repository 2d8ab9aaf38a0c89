"""Reading a parsed table as a grid: header rows, label columns, numeric cells.

Real papers print tables every which way (two-level headers, group labels in a merged first
column, two sub-columns run together, methods as columns); these helpers turn a `Table`'s
cell strings into one oriented grid the drafting heuristic can compare rows in.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from expcurate.records import Table
from extractors.numbers import find_numbers, to_float
from extractors.paper.layout import MARKS

LOWER_BETTER = re.compile(
    r"\b(mse|mae|rmse|mape|smape|mase|owa|error|err|loss|perplexity|ppl|fid|wer|cer|fpr\d*|latency|"
    r"time|memory|flops|params|parameters|cost|nll|bpd)\b|↓",
    re.I,
)
# A table about what methods cost: there, cost columns are the results.
EFFICIENCY_CAPTION = re.compile(r"efficien|runtime|speed|memory|flops|throughput|latency", re.I)
COST = re.compile(
    r"\b(params|parameters|[gtm]?flops|macs|time|memory|latency|cost|storage|size)\b", re.I
)
HIGHER_BETTER = re.compile(
    r"\b(acc\d*|accuracy|f1|auc|auroc|aupr|auprc|bleu|rouge|map|iou|miou|recall|precision|"
    r"score|success|win|psnr|ssim|nmi|ari|meteor|cider|spice)\b|↑|"
    # ranking metrics at a cut-off: "NDCG@5", "NDCG5", "Hit@10", "R@1", "Pass@1", "Top-1 Acc"
    r"\b(?:(?:ndcg|hits?|mrr|pass|recall|precision)(?:@?\d+)?|[rph]@\d+|top-?\d+)\b",
    re.I,
)


@dataclass
class Grid:
    """A table as header + body with numeric values, oriented methods-as-rows."""

    header: list[str]
    labels: list[str]
    values: list[list[str]]  # numeric cell text ("" when not numeric)
    bold: list[list[bool]]
    # Each row's label columns, group labels carried down ("Autoformer", "Unified", "MSE").
    parts: list[list[str]] = field(default_factory=list)
    # A label column lists numeric settings ("96 192 336 720" under each dataset).
    settings_rows: bool = False
    # Each column's header cells, top to bottom ("GammaNet", "MSE"); rows' `parts` once
    # the grid is transposed.
    header_parts: list[list[str]] = field(default_factory=list)
    # Each row's block (0, 1, …) as the table sets them apart by rules or group labels:
    # model sizes, backbones, datasets. Empty when the body is one block or not known.
    blocks: list[int] = field(default_factory=list)


NUMERIC_CELL = re.compile(
    r"^[(\[]?[-−+]?(\d[\d,]*(\.\d+)?|\.\d+)([eE][-+]?\d+)?\s*(%|[kKMBGT]|×|x|"
    r"\s(?:hours?|h|min|minutes?|s|ms|days?|[GM]i?B))?[)\]]?"
    r"\s*((±|\+/-|\+-)\s*[\d.]+%?)?\s*(\(?[-−+]\s?\d+(\.\d+)?%?\)?)?\s*[*†‡§]*$"
)


def cell_number(cell: str) -> str:
    """The value of a cell that is a number as printed ('81.2', '12.5%', '0.41±0.01'), else ''."""
    text = cell.strip()
    if not NUMERIC_CELL.match(text):
        return ""
    nums = find_numbers(text)
    if not nums or to_float(nums[0]) is None:
        return ""
    # A magnitude right after the number stays on it ("13G" vs "16.8M" compare as sizes).
    unit = re.match(rf"\s*{re.escape(nums[0])}\s?([KMGBT])\b", text)
    return nums[0] + unit.group(1) if unit else nums[0]


CHECKED = frozenset("✓✔")
# What a table prints where it has no value: not text, so it does not make a row a header.
MISSING = frozenset({"-", "–", "—", "N/A", "n/a", "NA", "OOM", "OOT", "/", "×", "?"})


def _marked(marks: list[str], names: list[str]) -> str:
    """A row of check/cross marks under component names, as words: "w/o B, C" or "full model (A, B, C)"."""
    off = [
        n or f"column {i + 1}"
        for i, (m, n) in enumerate(zip(marks, names, strict=False))
        if m not in CHECKED
    ]
    if not off:
        return "full model (" + ", ".join(n for n in names if n) + ")"
    return "w/o " + ", ".join(off)


def read_grid(table: Table) -> Grid | None:
    """Header rows, label columns and numeric body of a table, or None if it holds no numbers.

    Label columns are the leading columns whose body cells are text ("Target model", "Method");
    a group label left empty under a vertically merged cell takes the value above it.
    """
    kept = [i for i, row in enumerate(table.rows) if any(c.strip() for c in row)]
    rows = [[c.strip() for c in table.rows[i]] for i in kept]
    if len(rows) < 2 or max(len(r) for r in rows) < 2:
        return None
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    bold = table.bold if len(table.bold) == len(table.rows) else []
    if bold:
        bold = [b for row, b in zip(table.rows, bold, strict=False) if any(c.strip() for c in row)]
    # The block each row belongs to, as the table reader found them (rules, group labels).
    block_of = [sum(1 for b in table.blocks if b <= i) for i in kept]
    whole = rows
    rows, bold = _first_panel(rows, bold)
    if rows is not whole and rows:
        start = next(k for k, r in enumerate(whole) if r is rows[0])
        block_of = block_of[start : start + len(rows)]
    rows, bold = _first_side(rows, bold)
    rows, bold = _split_packed_columns(rows, bold)
    width = len(rows[0])
    n_head = 0
    for row in rows:  # header rows: leading rows that are not mostly numbers (marks aside)
        # A row of cited years under the method names ("(2022)") is header too.
        numeric = sum(bool(cell_number(c)) and not CITATION.fullmatch(c) for c in row[1:])
        filled = sum(bool(c) and c not in MARKS and c not in MISSING for c in row[1:])
        if numeric and numeric * 2 >= max(1, filled) and not _settings_under(rows, n_head):
            break
        n_head += 1
    if n_head < len(rows) - 1 and _cycles([cell_number(c) for c in rows[n_head][1:]]):
        n_head += 1  # a row of settings repeated under each group: "12.5% 25% 50% 12.5% ..."
    if n_head >= len(rows):
        return None
    body = rows[n_head:]
    n_label = 1
    settings: set[int] = set()  # label columns of settings ("12.5%", "25%", "Avg", "12.5%", ...)
    while n_label < width - 1:
        column = [r[n_label] for r in body]
        # A group's attribute ("406M" beside "bart-large") on the group's own line is label.
        numbered = [i for i, c in enumerate(column) if cell_number(c) and not CITATION.fullmatch(c)]
        if _cycles(column):
            settings.add(n_label)
        elif any(any(body[i][n_label + 1 :]) for i in numbered) and not _names_next(body, n_label):
            break
        n_label += 1
    if settings:
        body = _align_groups(body, min(settings))
    elif n_label >= 2:
        body = _centre_groups(body, n_label)
    head_rows = [
        _spread_over(rows[:n_head], k, n_label) if k < n_head - 1 else r
        for k, r in enumerate(rows[:n_head])
    ]
    header = [" ".join(plain(r[j]) for r in head_rows if r[j]).strip() for j in range(width)]
    header = _split_slash_pairs([re.sub(r"\s+", " ", h) for h in header])
    header_parts = [[plain(r[j]) for r in head_rows] for j in range(n_label, width)]
    labels: list[str] = []
    values: list[list[str]] = []
    flags: list[list[bool]] = []
    all_parts: list[list[str]] = []
    shared = {
        k
        for k in range(n_label - 1)
        if len(body) > 1 and len(seen := {r[k] for r in body}) == 1 and not seen & MARKS
    }
    above = [""] * n_label
    for i, row in enumerate(body):
        parts = []
        for k in range(n_label):
            cell = plain(row[k])
            if k and k not in settings and NUMERIC_LABEL.fullmatch(cell):
                cell = ""  # a resolution or size column, not part of the row's name
            cell = cell or (above[k] if k < n_label - 1 else "")
            above[k] = cell
            parts.append(cell)
        all_parts.append(parts)
        # A group label every row shares ("Average" over a whole table) tells no row apart.
        named = [p for k, p in enumerate(parts) if p and k not in shared]
        if named and all(p in MARKS for p in named):
            named = [_marked(named, header[: len(named)])]
        label = " / ".join(named) or (labels[-1] if labels else "")
        labels.append(label)
        values.append([cell_number(c) for c in row[n_label:]])
        brow = bold[n_head + i] if bold and n_head + i < len(bold) else []
        flags.append([bool(brow[j]) if j < len(brow) else False for j in range(n_label, width)])
    if sum(bool(v) for row in values for v in row) < 2:
        return None
    return Grid(
        header=header[n_label:],
        labels=labels,
        values=values,
        bold=flags,
        parts=all_parts,
        settings_rows=any(
            sum(bool(NUMERIC_LABEL.fullmatch(r[k]) or cell_number(r[k])) for r in body)
            >= 0.6 * sum(bool(r[k]) for r in body)
            for k in settings
        ),
        header_parts=header_parts,
        blocks=_blocks(block_of[n_head:], len(values)),
    )


def _names_next(body: list[list[str]], k: int) -> bool:
    """Is column k a group's attribute ("406M" beside "bart-large", in the group's first row)
    followed by a column of names? Its cells are sizes, not results."""
    right = [r[k + 1] for r in body if k + 1 < len(r) and r[k + 1]]
    mine = [r[k] for r in body if r[k]]
    return (
        len(right) >= 0.8 * len(body)
        and not any(cell_number(c) for c in right)
        and all(len(c) <= 8 for c in mine)
    )


# A column that sums the others up: asked about first when a question cannot name them all.
SUMMARY_COLUMN = re.compile(
    r"^(?:avg\.?|average|mean|overall|all|total)\b|\b(?:avg\.?|average|mean|overall)\W*$", re.I
)


def question_measures(
    headers: list[str], most: int = 3, *, costs: bool = False
) -> tuple[list[str], bool]:
    """The columns a question names, and whether it leaves some out: scored columns, not
    cost ones (Params and FLOPs are what a method pays) unless the table is about cost
    (`costs`), and a summary column ("Avg.") first when not all fit: findings rest on it."""
    named = [h for h in dict.fromkeys(headers) if h and not h.startswith("column ")]
    scored = named if costs else [h for h in named if not COST.search(h)] or named
    if len(scored) <= most + 1:  # "and the other columns" would stand for one name
        return scored, False
    summary = [h for h in scored if SUMMARY_COLUMN.search(h)]
    return (summary + [h for h in scored if h not in summary])[:most], True


def _blocks(block_of: list[int], rows: int) -> list[int]:
    return block_of if len(block_of) == rows and len(set(block_of)) >= 2 else []


FAMILY = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def family(label: str) -> str:
    """A row name's first word, its size or variant suffix aside: "MSCAN" for "MSCAN-T",
    "MiT" for "MiT-B0 [80]", "Swin" for "Swin-S"."""
    m = FAMILY.match(plain(label.split(" / ")[-1]))
    return m.group(0) if m else ""


def tiers(grid: Grid, fam: str) -> set[int]:
    """The blocks holding a row of family `fam`: several when the table sets model sizes
    (or backbones) apart and repeats the same families in each."""
    if not fam or len(grid.blocks) != len(grid.labels):
        return set()
    return {grid.blocks[i] for i, lab in enumerate(grid.labels) if family(lab) == fam}


SUB_CAPTION = re.compile(r"^\((?:[a-h]|i{1,3}|iv|v)\)\s+\S")


def _first_panel(
    rows: list[list[str]], bold: list[list[bool]]
) -> tuple[list[list[str]], list[list[bool]]]:
    """The first panel of a table set as several under one caption, each with its own
    "(a) …" line: the rows before the first such line (or after it, when the panel captions
    stand above their panels). Another panel's header read as data would mix two tables."""
    marks = [i for i, r in enumerate(rows) if SUB_CAPTION.match(r[0]) and not any(c for c in r[1:])]
    if not marks:
        return rows, bold
    start, end = (0, marks[0]) if marks[0] >= 3 else (marks[0] + 1, (marks[1:] or [len(rows)])[0])
    return rows[start:end], bold[start:end] if bold else []


def _first_side(
    rows: list[list[str]], bold: list[list[bool]]
) -> tuple[list[list[str]], list[list[bool]]]:
    """The left table of two set side by side under one caption ("0-shot" | "0-shot + CoT"):
    a column of names after a column of values starts the second one, whose rows are other
    rows (the same method under another setting), never more columns of the first."""
    body = [r for r in rows[1:] if any(cell_number(c) for c in r)]
    if len(body) < 2:
        return rows, bold

    def names(j: int) -> bool:
        cells = [r[j] for r in body]
        return sum(bool(c) and not cell_number(c) for c in cells) >= 0.8 * len(cells)

    def values(j: int) -> bool:
        return sum(bool(cell_number(r[j])) for r in body) >= 0.8 * len(body)

    if not names(0):
        return rows, bold
    for j in range(2, len(rows[0]) - 1):
        if names(j) and values(j - 1) and values(j + 1):
            return [r[:j] for r in rows], [b[:j] for b in bold] if bold else []
    return rows, bold


def _spread_over(head: list[list[str]], k: int, n_label: int) -> list[str]:
    """Header row k with each label extended over the columns it spans.

    A column the bottom header row leaves empty is named from above, by a header cell that
    spans rows (LaTeX multirow: "AUROC" beside "0.98 0.95 0.90" under "FPR@TPR"): it is
    neither extended nor shared out, so the labels above share the other columns."""
    row, last = head[k], head[-1]
    fixed = {
        j
        for j in range(n_label, len(row))
        if not last[j] and any(head[i][j] for i in range(k, len(head) - 1))
    }
    free = [j for j in range(n_label, len(row)) if j not in fixed]
    named = [row[j] for j in free if row[j]]
    if fixed and len(named) == 1:  # the one label over what the multirow headers leave
        return [named[0] if j in free else c for j, c in enumerate(row)]
    sub = row[:n_label] + [row[j] for j in free]
    period = _period([last[j] for j in free])
    spread = _spread_blocks(sub, n_label, period) or _spread(sub, n_label)
    out = list(row)
    for i, j in enumerate(free):
        out[j] = spread[n_label + i]
    return out


def _settings_under(rows: list[list[str]], k: int) -> bool:
    """Is row k, though numeric, a header row of settings ("0.98 0.95 0.90" under "FPR@TPR")?
    It has no label, the row after it has one, and it fills only columns the header row above
    leaves empty, leaving empty the ones that row names (AUROC, AUPR)."""
    if k == 0 or k + 1 >= len(rows) or rows[k][0] or not rows[k + 1][0]:
        return False
    row, above = rows[k], rows[k - 1]
    if any(above[j] and row[j] for j in range(1, len(row))):
        return False  # values under named columns: a body row
    gaps = any(above[j] and not row[j] for j in range(1, len(row)))
    fills = any(row[j] and not above[j] for j in range(1, len(row)))
    return gaps and fills


SLASH_PAIR = re.compile(r"^\((\w[\w.-]*)/(\w[\w.-]*)\)$")
SLASH_TAIL = re.compile(r"^(.*\S)\s*\((\w[\w.-]*)/(\w[\w.-]*)\)$")


def _split_slash_pairs(header: list[str]) -> list[str]:
    """One metric in two settings over two columns: "mIoU" then "(SS/MS)", or "mIoU (SS/MS)"
    then a column named only by its group. Each column gets its own name, "mIoU (SS)" and
    "mIoU (MS)"."""
    out = list(header)
    for j in range(1, len(out)):
        m = SLASH_PAIR.match(out[j])
        if m and out[j - 1] and not SLASH_PAIR.match(out[j - 1]):
            name = out[j - 1]
            out[j - 1], out[j] = f"{name} ({m.group(1)})", f"{name} ({m.group(2)})"
            continue
        m = SLASH_TAIL.match(out[j - 1])
        if m and (not out[j] or m.group(1).startswith(out[j] + " ")):
            out[j - 1], out[j] = f"{m.group(1)} ({m.group(2)})", f"{m.group(1)} ({m.group(3)})"
    return out


def _centre_groups(body: list[list[str]], n_label: int) -> list[list[str]]:
    """Group labels set at the middle of their rows (LaTeX multirow), told by a label on a
    line of its own or by a first row without one: each row takes the label whose centre is
    nearest. Labels set on their group's first row are left to be carried down."""
    lone = [i for i, r in enumerate(body) if not any(r[n_label:]) and any(r[:n_label])]
    data = [i for i in range(len(body)) if i not in lone]
    outer = n_label - 1  # the innermost label column names the row itself
    if not data or not (lone or (not body[data[0]][0] and any(body[i][0] for i in data))):
        return body
    out = {i: list(body[i]) for i in data}
    for k in range(outer):
        # a label on its own line sits between two rows; one on a row, on that row
        centres = [(i - 0.5 if i in lone else float(i), body[i][k]) for i in range(len(body))]
        centres = [(c, name) for c, name in centres if name]
        if not centres:
            continue
        for i in data:
            out[i][k] = min(centres, key=lambda c: (abs(c[0] - i), c[0]))[1]
    return [out[i] for i in data]


def _align_groups(body: list[list[str]], inner: int) -> list[list[str]]:
    """Give every row of a group its group's label, where the `inner` label column repeats one
    run of settings or variants under each group ("OE, PASCL, Ours" under each test set).

    A group label set beside the middle of its rows (LaTeX multirow), or broken over two lines
    ("Tiny" / "ImageNet"), fills the rows its run spans: a run starts where the inner column's
    first value comes back. A row that holds nothing but a group label is folded into its run.
    """
    first = next((r[inner] for r in body if r[inner]), "")
    starts = [i for i, r in enumerate(body) if r[inner] == first]
    if len(starts) < 2:
        return body
    bounds = [0, *starts[1:], len(body)]
    out: list[list[str]] = []
    for a, b in itertools.pairwise(bounds):
        block = body[a:b]
        names = [" ".join(dict.fromkeys(r[k] for r in block if r[k])) for k in range(inner)]
        for r in block:
            if not r[inner] and not any(c for c in r[inner + 1 :]):
                continue  # the group's label alone on its line
            out.append([*names, *r[inner:]])
    return out


def _cycles(cells: list[str]) -> bool:
    """Do the (non-empty) cells repeat one run of distinct values, as settings under groups do?

    "12.5% 25% 50% 12.5% 25% 50%" does; measurements hardly ever do. A tail past the repeats
    (a closing "Count" row) is allowed.
    """
    return _period(cells) > 0


def _period(cells: list[str]) -> int:
    """The length of the run the non-empty cells repeat (see `_cycles`), or 0."""
    vals = [c for c in cells if c]
    n = len(vals)
    for period in range(2, n // 2 + 1):
        if len(set(vals[:period])) < period:
            break
        same = next((i for i in range(period, n) if vals[i] != vals[i - period]), n)
        if same >= 2 * period and same >= 0.8 * n:
            return period
    return 0


def _spread_blocks(row: list[str], n_label: int, period: int) -> list[str] | None:
    """An upper header row over a lower one that repeats `period` columns ("NDCG1 NDCG3
    NDCG5" under each method): each block of columns takes the words set over it, even when
    a long label broke into two cells ("API" "Retriever (ours)"). None when some block has
    no label over it."""
    width = len(row) - n_label
    if period < 2 or width % period or not any(row[n_label:]):
        return None
    out = list(row[:n_label])
    for start in range(n_label, len(row), period):
        words = [c for c in row[start : start + period] if c]
        if not words:
            return None  # a label spanning several blocks: `_spread` extends it
        out += [" ".join(words)] * period
    return out


def _split_packed_columns(
    rows: list[list[str]], bold: list[list[bool]]
) -> tuple[list[list[str]], list[list[bool]]]:
    """Split columns whose cells each hold k numbers ("0.019 0.092": MSE and MAE run together
    when a PDF sets two sub-columns tight) into k columns; header cells stay in the first."""
    width = len(rows[0])
    counts: list[int] = []
    for j in range(width):
        packed = [
            len(c.split()) for r in rows if (c := r[j]) and all(cell_number(w) for w in c.split())
        ]
        k = max(set(packed), key=packed.count) if packed else 1
        share = packed.count(k) / max(1, sum(bool(r[j]) for r in rows))
        counts.append(k if k > 1 and share >= 0.6 else 1)
    if all(k == 1 for k in counts):
        return rows, bold
    out_rows, out_bold = [], []
    for i, row in enumerate(rows):
        new_row: list[str] = []
        new_bold: list[bool] = []
        brow = bold[i] if i < len(bold) else []
        for j, cell in enumerate(row):
            k = counts[j]
            words = cell.split()
            flag = bool(brow[j]) if j < len(brow) else False
            if k > 1 and len(words) == k and all(cell_number(w) or is_metric(w) for w in words):
                new_row += words  # "0.41 0.52" in the body, "MSE MAE" in the header
            else:
                new_row += [cell] + [""] * (k - 1)
            new_bold += [flag] * k
        out_rows.append(new_row)
        out_bold.append(new_bold)
    return out_rows, out_bold if bold else []


def _spread(row: list[str], n_label: int = 1) -> list[str]:
    """Extend spanning labels of an upper header row ("ETTh1" over MSE and MAE) to their span.

    Labels that share the data columns evenly, each inside its share, cover their share.
    Labels over wider spans (three columns or more apart) cover the columns nearest to them
    when the first data column is empty (centred labels), else the columns up to the next
    label (labels set at the left of their span). Otherwise a label covers one more column:
    the one before it when the first data column is empty (the labels sit right), else the
    one after it.
    """
    cells = list(row)
    placed = [j for j in range(n_label, len(cells)) if cells[j]]
    width = len(cells) - n_label
    if not placed or len(placed) == width:
        return cells
    if len(placed) == 1 and width >= 3 and abs(placed[0] - (n_label + len(cells) - 1) / 2) <= 1:
        return cells[:n_label] + [cells[placed[0]]] * width  # one title centred over them all
    if 1 < len(placed) < width and width % len(placed) == 0:
        share = width // len(placed)
        if all(n_label + k * share <= j < n_label + (k + 1) * share for k, j in enumerate(placed)):
            return cells[:n_label] + [cells[placed[k // share]] for k in range(width)]
    centred = placed[0] > n_label
    if len(placed) >= 2 and max(b - a for a, b in itertools.pairwise(placed)) > 2:
        if centred:  # the nearest label; the left one on a tie
            near = [min(placed, key=lambda p: (abs(p - j), p)) for j in range(n_label, len(cells))]
        else:  # the last label at or before the column
            near = [max(p for p in placed if p <= j) for j in range(n_label, len(cells))]
        return cells[:n_label] + [cells[p] for p in near]
    out = list(cells)
    if centred:
        for j in range(len(cells) - 2, n_label - 1, -1):
            if not out[j] and cells[j + 1] and j + 1 in placed:
                out[j] = cells[j + 1]
    else:
        for j in range(n_label + 1, len(cells)):
            if not out[j] and out[j - 1] and j - 1 in placed:
                out[j] = out[j - 1]
    return out


CITATION = re.compile(
    r"\s*\[[\d,;\s?–-]*\]|\s*\(\s*\d{4}[a-z]?\s*\)|"
    r"\s*[\[(][^\[\]()]{0,80}?\bet al\.?,?\s*\d{4}[a-z]?[^\[\]()]{0,40}[\])]|"
    r"\s*\[[^\[\]]{0,80}\d{4}[a-z]?\]"
)
NUMERIC_LABEL = re.compile(r"[\d\s×x*,.:/()±%-]+")
SETTINGS_CAPTION = re.compile(
    r"\b(statistic|hyper-?parameter|detail|setting|configuration|notation|prompt|example|"
    r"overview of (the )?dataset|dataset (summary|description)|properties|t-test|p-value|"
    r"summary of (the )?(datasets?|benchmarks?)|datasets? used|comparison of (\w+ )?benchmarks?)",
    re.I,
)


def plain(label: str) -> str:
    """A row or column label without citation marks ("VAN-Tiny [24]" -> "VAN-Tiny")."""
    return CITATION.sub("", label).strip()


def is_results_table(table: Table, grid: Grid | None) -> bool:
    """Tables that report measured results (not settings, statistics or prompts)."""
    if grid is None or SETTINGS_CAPTION.search(table.caption.split(".")[0]):
        return False
    # Rows of check marks glued to their names list features (a benchmark comparison), not
    # measured results.
    names = [*grid.labels, *grid.header]
    marked = sum(sum(name.count(m) for m in MARKS) >= 2 for name in names)
    return marked * 4 < len(names)


def lower_is_better(text: str) -> bool:
    return bool(LOWER_BETTER.search(text)) and not HIGHER_BETTER.search(text)


def column_lower(head: str, table_lower: bool) -> bool:
    """Is lower better in this column: its header says so, or the table does and the header
    does not say otherwise."""
    return lower_is_better(head) or (table_lower and not HIGHER_BETTER.search(head))


def only_lower_metrics(table: Table) -> bool:
    """Every metric the table's cells name is lower-is-better ("MSE MAE" under each model), so
    a column headed by a dataset or horizon alone is lower-is-better too. Cost columns
    (parameters, time, memory) sit beside any metric and do not count."""
    cells = [c for row in table.rows for c in row if c and len(c) <= 20 and not COST.search(c)]
    return any(LOWER_BETTER.search(c) for c in cells) and not any(
        HIGHER_BETTER.search(c) for c in cells
    )


def column_name(head: str, col: int) -> str:
    """A column's header, or where it sits when it has none ("column 3": the label column is
    column 1)."""
    return head or f"column {col + 2}"


def best_row(grid: Grid, col: int, lower: bool) -> int | None:
    scored = [(to_float(v[col]), i) for i, v in enumerate(grid.values) if v[col]]
    scored = [(x, i) for x, i in scored if x is not None]
    if not scored:
        return None
    return (min(scored) if lower else max(scored))[1]


# ------------------------------------------------------------------ context


def transpose(grid: Grid) -> Grid:
    """Methods as columns become methods as rows."""
    n = len(grid.header)
    return Grid(
        header=list(grid.labels),
        labels=list(grid.header),
        values=[[row[j] if j < len(row) else "" for row in grid.values] for j in range(n)],
        bold=[[row[j] if j < len(row) else False for row in grid.bold] for j in range(n)],
        parts=[list(p) for p in grid.header_parts],
        header_parts=[list(p) for p in grid.parts],
    )


# Rows that sum the others up or stand for a reference, never a rival method.
NOT_A_METHOD = re.compile(
    r"^\W*(avg|average|mean|median|gain|improvement|imp\.?|Δ|delta|diff\w*|relative|"
    r"upper[- ]bound|oracle|real data|ground[- ]truth|models?|methods?|datasets?|count|total|"
    r"human|random(?: choice| guess)?|chance|column \d+)\b|"
    r"\b(upper[- ]bound|oracle|\(real\)|real data|ground[- ]truth)\b|^[+−-]?\s*Δ",
    re.I,
)


def not_a_method(label: str) -> bool:
    """A summary, reference or header row ("Average", "Gain", "Human", "Oracle", "column 3"):
    never a method to compare with, nor the paper's own."""
    return bool(NOT_A_METHOD.search(label))


# What a caption says a table measures ("F1-score", "precision", "BLEU"): words too general to
# name a measure alone ("score", "win", "success") and cost words left out.
CAPTION_METRIC = re.compile(
    r"\b(?:acc(?:uracy)?|f1|auc|auroc|aupr|bleu(?:-\d)?|rouge(?:-\w)?|meteor|cider|spice|"
    r"m?iou|map|psnr|ssim|nmi|ari|precision|recall|ndcg(?:@\d+)?|mrr|hits?@\d+|"
    r"mse|mae|rmse|mape|smape|perplexity|ppl|fid|wer|cer|error rate)\b",
    re.I,
)


SAME_METRIC = {"perplexity": "ppl", "accuracy": "acc"}


def caption_metrics(caption: str, most: int = 4) -> list[str]:
    """The metrics a caption names, in its order and spelling, once each; none when it names
    more than `most` (a legend of every abbreviation is no answer to "measured by")."""
    out: dict[str, str] = {}
    for m in CAPTION_METRIC.finditer(caption):
        word = m.group(0).lower()
        out.setdefault(SAME_METRIC.get(word, word), m.group(0))
    return list(out.values()) if len(out) <= most else []


def is_metric(text: str) -> bool:
    """A short cell naming a metric ("MSE", "Acc. (%)"), as a label column of metric rows has."""
    return len(text) <= 20 and bool(LOWER_BETTER.search(text) or HIGHER_BETTER.search(text))


def fold_metrics(grid: Grid) -> Grid:
    """Metric rows become metric columns: rows "Model / MSE" and "Model / MAE" under "ETTh1"
    become one row "Model" under "ETTh1 MSE" and "ETTh1 MAE", so that a comparison down a
    column never sets an MSE against an MAE. Grids without metric rows come back unchanged.
    """
    if not grid.parts or len(grid.parts[0]) < 2 or len(grid.parts) != len(grid.values):
        return grid
    metrics = [p[-1] for p in grid.parts]
    if not all(metrics) or not all(is_metric(m) for m in metrics):
        return grid
    names = list(dict.fromkeys(metrics))
    if len(names) < 2:
        return grid
    rows: dict[tuple[str, ...], dict[str, int]] = {}
    for i, p in enumerate(grid.parts):
        group = rows.setdefault(tuple(p[:-1]), {})
        if p[-1] in group:
            return grid  # one metric twice in a group: not metric rows
        group[p[-1]] = i
    columns = [(j, m) for j in range(len(grid.header)) for m in names]
    values, bold, parts = [], [], []
    for key, at in rows.items():
        values.append([grid.values[at[m]][j] if m in at else "" for j, m in columns])
        bold.append([grid.bold[at[m]][j] if m in at else False for j, m in columns])
        parts.append(list(key))
    return Grid(
        header=[f"{grid.header[j]} {m}".strip() for j, m in columns],
        labels=[" / ".join(p for p in key if p) for key in rows],
        values=values,
        bold=bold,
        parts=parts,
        settings_rows=grid.settings_rows,
    )


def is_sweep(grid: Grid) -> bool:
    """Rows indexed by a hyperparameter's values (1, 2, 4 or "K=3") rather than by methods."""
    numeric = sum(
        bool(re.fullmatch(r"[\w\s]*=?\s*[\d.]+[kKM%]?", lab.strip())) for lab in grid.labels
    )
    return len(grid.labels) >= 2 and numeric >= len(grid.labels) - 1
