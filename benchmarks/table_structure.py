"""Score table readers against the hand-made cell grids in `benchmarks/tables/truth/`.

Three readers read every table with truth, in the same run:
- `expcurate`: the paper parser end to end (it finds the table's region itself);
- `find_tables`: PyMuPDF's `Page.find_tables`, clipped to the truth's own bbox;
- `pdfplumber`: `Page.crop(bbox).extract_tables()`, same clip (when pdfplumber is installed).
The two others get the table's exact region for free, so they are compared at their best.

Per table and in total:
- exact cells: the truth's non-empty cells found verbatim (spaces and dash forms aside) in
  the same place, after aligning rows and columns in order;
- header rows: the reader's first body row is the truth's first body row;
- label purity: body rows whose label holds no number that the printed label does not;
- blocks: the truth's block boundaries the reader reports (only ExpCurate reports blocks);
- empty: tables that came back with no rows.

    python benchmarks/table_structure.py [--corpus DIR] [--json FILE] [--crops DIR]

`--crops DIR` renders each table's crop beside a readable copy of its truth, for checking
the truth by eye.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path

import pymupdf

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks" / "tables"))

from truth import Truth, load_all  # noqa: E402

from benchmarks.parse_coverage import corpus_dir  # noqa: E402
from extractors.paper import parse_pdf  # noqa: E402


@dataclass
class Read:
    """One reader's grid for one table."""

    rows: list[list[str]]
    header_rows: int | None = None  # None: the reader has no notion of a header
    blocks: list[int] | None = None  # first rows of the body's blocks after the first
    reader: str = ""  # which of its ways the reader used (ExpCurate: words, find_tables, …)


@dataclass
class Score:
    paper: str
    label: str
    reader: str
    cells: int  # truth's non-empty body cells
    exact: int
    header_ok: bool
    labels: int
    pure: int
    boundaries: int
    found: int
    empty: bool
    how: str = ""


def norm(cell: str) -> str:
    cell = re.sub(r"[\u2212\u2012\u2013\u2014\u2010]", "-", cell or "")
    return re.sub(r"\s+", "", cell)


NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _row_similarity(a: list[str], b: list[str]) -> float:
    ca = [norm(c) for c in a if norm(c)]
    cb = [norm(c) for c in b if norm(c)]
    if not ca or not cb:
        return 0.0
    rest = list(cb)
    hit = 0
    for c in ca:
        if c in rest:
            rest.remove(c)
            hit += 1
    return hit / max(len(ca), len(cb))


def _monotone(gain: list[list[float]]) -> dict[int, int]:
    """The order-keeping matching of rows i to columns j with the largest total gain (only
    pairs with a positive gain match): the alignment of two sequences, by dynamic program."""
    n, m = len(gain), len(gain[0]) if gain else 0
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            take = gain[i][j] + best[i + 1][j + 1] if gain[i][j] > 0 else 0.0
            best[i][j] = max(take, best[i + 1][j], best[i][j + 1])
    out: dict[int, int] = {}
    i = j = 0
    while i < n and j < m:
        if gain[i][j] > 0 and abs(best[i][j] - (gain[i][j] + best[i + 1][j + 1])) < 1e-9:
            out[i] = j
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def align_rows(truth: list[list[str]], pred: list[list[str]]) -> dict[int, int]:
    """Truth row -> predicted row, in order, maximising cell overlap (rows with none stay apart)."""
    return _monotone([[_row_similarity(t, p) for p in pred] for t in truth])


def align_columns(
    truth: list[list[str]], pred: list[list[str]], pairs: dict[int, int]
) -> dict[int, int]:
    """Truth column -> predicted column, in order, maximising equal cells over matched rows."""
    n = max((len(r) for r in truth), default=0)
    m = max((len(r) for r in pred), default=0)
    agree = [[0.0] * m for _ in range(n)]
    for ti, pi in pairs.items():
        for a, tc in enumerate(truth[ti]):
            if norm(tc):
                for b, pc in enumerate(pred[pi]):
                    agree[a][b] += norm(tc) == norm(pc)
    return _monotone(agree)


def score(truth: Truth, read: Read, reader: str) -> Score:
    pred = [[c or "" for c in row] for row in read.rows]
    pairs = align_rows(truth.rows, pred)
    cols = align_columns(truth.rows, pred, pairs)
    cells = exact = labels = pure = 0
    for i in range(truth.header_rows, len(truth.rows)):
        row = truth.rows[i]
        p = pred[pairs[i]] if i in pairs else None
        for j, cell in enumerate(row):
            if not norm(cell):
                continue
            cells += 1
            if p is not None and j in cols and cols[j] < len(p) and norm(p[cols[j]]) == norm(cell):
                exact += 1
        if p is None:
            continue
        printed = " ".join(row[: truth.stub_columns])
        mine = [cols[j] for j in range(truth.stub_columns) if j in cols]
        got = " ".join(p[k] for k in mine if k < len(p)) if mine else (p[0] if p else "")
        labels += 1
        extra = set(NUMBER.findall(got)) - set(NUMBER.findall(printed))
        pure += not extra
    first_body = pairs.get(truth.header_rows)
    header_ok = read.header_rows is not None and first_body == read.header_rows
    if read.header_rows is None and first_body is not None:
        header_ok = first_body == 1  # no notion of a header: the first row is taken as one
    bounds = {b[0] for b in truth.blocks if b[0] > truth.header_rows}
    found = 0
    if read.blocks is not None:
        got_bounds = set(read.blocks)
        found = sum(1 for b in bounds if pairs.get(b) in got_bounds)
    return Score(
        paper=truth.paper,
        label=truth.label,
        reader=reader,
        cells=cells,
        exact=exact,
        header_ok=header_ok,
        labels=labels,
        pure=pure,
        boundaries=len(bounds),
        found=found,
        empty=not any(any(norm(c) for c in r) for r in pred),
        how=read.reader,
    )


# -- readers ---------------------------------------------------------------------------------


def read_expcurate(pdf: Path, truths: list[Truth]) -> dict[str, Read]:
    parsed = parse_pdf(pdf, None)
    out: dict[str, Read] = {}
    for t in truths:
        same = [x for x in parsed.tables if x.label == t.label]
        same.sort(key=lambda x: x.page != t.page)
        if not same:
            out[t.label] = Read(rows=[], reader="not found")
            continue
        x = same[0]
        out[t.label] = Read(
            rows=x.rows,
            header_rows=x.header_rows,
            blocks=list(x.blocks),
            reader=x.reader,
        )
    return out


def _usable(rows: list[list[str]]) -> bool:
    return len(rows) >= 2 and max((len(r) for r in rows), default=0) >= 2


def read_find_tables(doc: pymupdf.Document, t: Truth) -> Read:
    """Ruling lines first (the default), then text alignment, as a user would retry."""
    page = doc[t.page - 1]
    x0, y0, x1, y1 = t.bbox
    clip = pymupdf.Rect(x0 - 6, y0 - 6, x1 + 6, y1 + 6)
    for strategy in ("lines", "text"):
        kwargs = {"clip": clip, "vertical_strategy": strategy, "horizontal_strategy": strategy}
        try:
            found = page.find_tables(use_layout=False, **kwargs)
        except TypeError:  # PyMuPDF before 1.26 has no layout switch
            found = page.find_tables(**kwargs)
        if not found.tables:
            continue
        tab = max(found.tables, key=lambda x: x.row_count * x.col_count)
        rows = [[" ".join((c or "").split()) for c in r] for r in tab.extract()]
        if _usable(rows):
            return Read(rows=rows, header_rows=0 if tab.header.external else 1, reader=strategy)
    return Read(rows=[], header_rows=0)


def read_pdfplumber(pdf: Path, t: Truth) -> Read | None:
    """pdfplumber's defaults (ruling lines), then its text strategy, as a user would retry."""
    try:
        import pdfplumber
    except ImportError:
        return None
    with pdfplumber.open(str(pdf)) as doc:
        page = doc.pages[t.page - 1]
        x0, y0, x1, y1 = t.bbox
        box = (
            max(0, x0 - 6),
            max(0, y0 - 6),
            min(float(page.width), x1 + 6),
            min(float(page.height), y1 + 6),
        )
        region = page.crop(box)
        for settings in ({}, {"vertical_strategy": "text", "horizontal_strategy": "text"}):
            tables = region.extract_tables(settings)
            tables = [tb for tb in tables if tb and _usable(tb)]
            if tables:
                rows = max(tables, key=lambda x: len(x) * max(len(r) for r in x))
                cells = [[" ".join((c or "").split()) for c in r] for r in rows]
                return Read(rows=cells, reader=settings.get("vertical_strategy", "lines"))
    return Read(rows=[])


# -- report ----------------------------------------------------------------------------------


def totals(scores: list[Score]) -> dict[str, float]:
    n = len(scores)
    cells = sum(s.cells for s in scores)
    labels = sum(s.labels for s in scores)
    bounds = sum(s.boundaries for s in scores)
    return {
        "tables": n,
        "exact_cells": sum(s.exact for s in scores) / max(cells, 1),
        "header_rows": sum(s.header_ok for s in scores) / max(n, 1),
        "label_purity": sum(s.pure for s in scores) / max(labels, 1),
        "blocks_found": sum(s.found for s in scores) / max(bounds, 1),
        "empty": sum(s.empty for s in scores),
    }


def render_crops(doc: pymupdf.Document, t: Truth, out: Path) -> None:
    folder = out / t.paper
    folder.mkdir(parents=True, exist_ok=True)
    slug = t.label.replace(" ", "-").replace(".", "_")
    x0, y0, x1, y1 = t.bbox
    rect = pymupdf.Rect(x0 - 6, y0 - 6, x1 + 6, y1 + 6)
    doc[t.page - 1].get_pixmap(clip=rect, matrix=pymupdf.Matrix(3, 3)).save(folder / f"{slug}.png")
    lines = [f"# {t.paper} {t.label} (page {t.page})", "", f"![crop]({slug}.png)", ""]
    width = len(t.rows[0])
    lines.append("| " + " | ".join(f"c{j}" for j in range(width)) + " |")
    lines.append("|" + "---|" * width)
    for i, row in enumerate(t.rows):
        mark = "**" if i < t.header_rows else ""
        lines.append("| " + " | ".join(f"{mark}{c}{mark}" if c else "" for c in row) + " |")
    lines += ["", f"header rows {t.header_rows}, stub columns {t.stub_columns}, blocks {t.blocks}"]
    if t.notes:
        lines += ["", f"Notes: {t.notes}"]
    (folder / f"{slug}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus")
    ap.add_argument("--json", help="write per-table scores here")
    ap.add_argument("--crops", help="render crops and readable truth into this folder")
    args = ap.parse_args(argv)
    corpus = corpus_dir(args.corpus)
    truths = load_all()
    if not truths:
        print("no truth files under benchmarks/tables/truth/")
        return 1
    by_paper: dict[str, list[Truth]] = defaultdict(list)
    for t in truths:
        by_paper[t.paper].append(t)
    scores: list[Score] = []
    seconds: dict[str, float] = defaultdict(float)
    plumber = True
    for paper, group in sorted(by_paper.items()):
        pdf = corpus / paper / "paper.pdf"
        if not pdf.is_file():
            print(f"skip {paper}: no {pdf}")
            continue
        started = time.process_time()
        ours = read_expcurate(pdf, group)
        seconds["expcurate"] += time.process_time() - started
        doc = pymupdf.open(pdf)
        for t in group:
            scores.append(score(t, ours[t.label], "expcurate"))
            started = time.process_time()
            scores.append(score(t, read_find_tables(doc, t), "find_tables"))
            seconds["find_tables"] += time.process_time() - started
            started = time.process_time()
            pl = read_pdfplumber(pdf, t)
            seconds["pdfplumber"] += time.process_time() - started
            if pl is None:
                plumber = False
            else:
                scores.append(score(t, pl, "pdfplumber"))
            if args.crops:
                render_crops(doc, t, Path(args.crops))
        doc.close()
    readers = ["expcurate", "find_tables"] + (["pdfplumber"] if plumber else [])
    print("| table | " + " | ".join(f"{r} cells" for r in readers) + " | expcurate header | how |")
    print("|---|" + "---|" * (len(readers) + 2))
    by_key: dict[tuple[str, str, str], Score] = {(s.paper, s.label, s.reader): s for s in scores}
    for t in truths:
        row = []
        for r in readers:
            s = by_key.get((t.paper, t.label, r))
            row.append("-" if s is None else f"{s.exact}/{s.cells}" + (" EMPTY" if s.empty else ""))
        ours_s = by_key.get((t.paper, t.label, "expcurate"))
        head = "ok" if ours_s and ours_s.header_ok else "wrong"
        print(
            f"| {t.paper} {t.label} | "
            + " | ".join(row)
            + f" | {head} | {ours_s.how if ours_s else ''} |"
        )
    print()
    print(
        "| reader | tables | exact cells | header rows | label purity | blocks found | empty | CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in readers:
        tot = totals([s for s in scores if s.reader == r])
        blocks = f"{tot['blocks_found']:.0%}" if r == "expcurate" else "n/a"
        print(
            f"| {r} | {tot['tables']} | {tot['exact_cells']:.1%} | {tot['header_rows']:.0%} | "
            f"{tot['label_purity']:.1%} | {blocks} | {tot['empty']} | {seconds[r]:.1f} |"
        )
    if not plumber:
        print("\npdfplumber is not installed: `pip install pdfplumber` to score it too")
    if args.json:
        Path(args.json).write_text(
            json.dumps([asdict(s) for s in scores], indent=1), encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
