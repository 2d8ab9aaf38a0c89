"""Reading a parsed table as a grid: header rows, label columns, numeric cells.

Real papers print tables every which way (two-level headers, group labels in a merged first
column, two sub-columns run together, methods as columns); these helpers turn a `Table`'s
cell strings into one oriented grid the drafting heuristic can compare rows in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from expcurate.records import Table
from extractors.numbers import find_numbers, to_float
from extractors.paper.layout import MARKS

LOWER_BETTER = re.compile(
    r"\b(mse|mae|rmse|mape|smape|mase|owa|error|err|loss|perplexity|ppl|fid|wer|cer|latency|"
    r"time|memory|flops|params|parameters|cost|nll|bpd)\b|↓",
    re.I,
)
HIGHER_BETTER = re.compile(
    r"\b(acc|accuracy|f1|auc|bleu|rouge|map|iou|miou|recall|precision|"
    r"score|success|win|hit|ndcg|psnr|ssim|pass@\d+)\b|↑",
    re.I,
)


@dataclass
class Grid:
    """A table as header + body with numeric values, oriented methods-as-rows."""

    header: list[str]
    labels: list[str]
    values: list[list[str]]  # numeric cell text ("" when not numeric)
    bold: list[list[bool]]


NUMERIC_CELL = re.compile(
    r"^[(\[]?[-−+]?(\d[\d,]*(\.\d+)?|\.\d+)([eE][-+]?\d+)?\s*(%|[kKMBG]|×|x)?[)\]]?"
    r"\s*((±|\+/-|\+-)\s*[\d.]+%?)?\s*(\(?[-−+]\s?\d+(\.\d+)?%?\)?)?\s*[*†‡§]*$"
)


def cell_number(cell: str) -> str:
    """The value of a cell that is a number as printed ('81.2', '12.5%', '0.41±0.01'), else ''."""
    text = cell.strip()
    if not NUMERIC_CELL.match(text):
        return ""
    nums = find_numbers(text)
    return nums[0] if nums and to_float(nums[0]) is not None else ""


CHECKED = frozenset("✓✔")


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
    rows = [[c.strip() for c in row] for row in table.rows if any(c.strip() for c in row)]
    if len(rows) < 2 or max(len(r) for r in rows) < 2:
        return None
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    bold = table.bold if len(table.bold) == len(table.rows) else []
    rows, bold = _split_packed_columns(rows, bold)
    width = len(rows[0])
    n_head = 0
    for row in rows:  # header rows: leading rows that are not mostly numbers (marks aside)
        numeric = sum(bool(cell_number(c)) for c in row[1:])
        if numeric and numeric * 2 >= max(1, sum(bool(c) and c not in MARKS for c in row[1:])):
            break
        n_head += 1
    if n_head >= len(rows):
        return None
    body = rows[n_head:]
    n_label = 1
    while n_label < width - 1 and not any(cell_number(r[n_label]) for r in body):
        n_label += 1
    head_rows = [_spread(r) if k < n_head - 1 else r for k, r in enumerate(rows[:n_head])]
    header = [" ".join(r[j] for r in head_rows if r[j]).strip() for j in range(width)]
    labels: list[str] = []
    values: list[list[str]] = []
    flags: list[list[bool]] = []
    above = [""] * n_label
    for i, row in enumerate(body):
        parts = []
        for k in range(n_label):
            cell = plain(row[k])
            if k and NUMERIC_LABEL.fullmatch(cell):
                cell = ""  # a resolution or size column, not part of the row's name
            cell = cell or (above[k] if k < n_label - 1 else "")
            above[k] = cell
            if cell:
                parts.append(cell)
        if parts and all(p in MARKS for p in parts):
            parts = [_marked(parts, header[: len(parts)])]
        label = " / ".join(parts) or (labels[-1] if labels else "")
        labels.append(label)
        values.append([cell_number(c) for c in row[n_label:]])
        brow = bold[n_head + i] if bold and n_head + i < len(bold) else []
        flags.append([bool(brow[j]) if j < len(brow) else False for j in range(n_label, width)])
    if sum(bool(v) for row in values for v in row) < 2:
        return None
    return Grid(header=header[n_label:], labels=labels, values=values, bold=flags)


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
            if k > 1 and len(words) == k and all(cell_number(w) for w in words):
                new_row += words
            else:
                new_row += [cell] + [""] * (k - 1)
            new_bold += [flag] * k
        out_rows.append(new_row)
        out_bold.append(new_bold)
    return out_rows, out_bold if bold else []


def _spread(row: list[str]) -> list[str]:
    """Extend spanning labels of an upper header row ("ETTh1" over MSE and MAE) to their span.

    A centred label lands in the left or the right cell of its span depending on the layout;
    when the first data column is empty the labels sit right, so they cover the empties
    before them, else the empties after them.
    """
    cells = list(row)
    labels = [j for j in range(1, len(cells)) if cells[j]]
    if not labels or len(labels) == len(cells) - 1:
        return cells
    right_aligned = labels[0] > 1
    out = list(cells)
    if right_aligned:
        for j in range(len(cells) - 1, 0, -1):
            if not out[j] and j + 1 < len(out) and cells[j + 1] and j + 1 in labels:
                out[j] = cells[j + 1]
    else:
        for j in range(2, len(cells)):
            if not out[j] and out[j - 1] and j - 1 in labels:
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
    r"overview of (the )?dataset|dataset (summary|description)|properties|t-test|p-value)",
    re.I,
)


def plain(label: str) -> str:
    """A row or column label without citation marks ("VAN-Tiny [24]" -> "VAN-Tiny")."""
    return CITATION.sub("", label).strip()


def is_results_table(table: Table, grid: Grid | None) -> bool:
    """Tables that report measured results (not settings, statistics or prompts)."""
    return grid is not None and not SETTINGS_CAPTION.search(table.caption.split(".")[0])


def lower_is_better(text: str) -> bool:
    return bool(LOWER_BETTER.search(text)) and not HIGHER_BETTER.search(text)


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
    )


def is_sweep(grid: Grid) -> bool:
    """Rows indexed by a hyperparameter's values (1, 2, 4 or "K=3") rather than by methods."""
    numeric = sum(
        bool(re.fullmatch(r"[\w\s]*=?\s*[\d.]+[kKM%]?", lab.strip())) for lab in grid.labels
    )
    return len(grid.labels) >= 2 and numeric >= len(grid.labels) - 1
