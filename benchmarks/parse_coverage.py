"""Measure the paper parser on the real papers of the shared corpus.

For each paper: pages, sections found, captioned tables in the text vs. found with cells,
captioned figures in the text vs. found with an image, repository links, errors, seconds.
"In the text" is counted by an independent regex over plain page-text lines (a line that
starts with "Table N"/"Figure N" followed by ":" or "."), not by the parser's own caption
finder, so the coverage figure cannot flatter the parser.

    python benchmarks/parse_coverage.py [--corpus DIR] [--images DIR] [--paper SLUG] [--json]

The corpus defaults to ../shared/corpus next to the repository, or EXPCURATE_CORPUS_DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pymupdf

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from extractors.paper import parse_pdf  # noqa: E402

CAPTION_LINE = re.compile(
    r"^\s*(?P<kind>Table|Tab\.|Figure|Fig\.)\s*(?P<num>(?:[A-Z]\.?)?\d+(?:\.\d+)?)\s*[:.]"
)


@dataclass
class PaperStats:
    slug: str
    pages: int = 0
    sections: int = 0
    tables_text: int = 0
    tables_cells: int = 0
    figures_text: int = 0
    figures_image: int = 0
    links: int = 0
    repo_printed: bool = False
    repo_found: bool = False
    errors: int = 0
    status: str = ""
    seconds: float = 0.0  # wall clock
    cpu: float = 0.0  # this process's CPU time: steadier on a shared machine
    missing: list[str] = field(default_factory=list)


def corpus_dir(arg: str | None = None) -> Path:
    if arg:
        return Path(arg)
    env = os.environ.get("EXPCURATE_CORPUS_DIR")
    return Path(env) if env else REPO.parent / "shared" / "corpus"


def captions_in_text(pdf: Path) -> set[tuple[str, str, int]]:
    """(kind, number, page) for every line that starts like a caption."""
    found: set[tuple[str, str, int]] = set()
    with pymupdf.open(pdf) as doc:
        for page in doc:
            for line in page.get_text().splitlines():
                m = CAPTION_LINE.match(line)
                if m:
                    kind = "table" if m.group("kind").startswith("Tab") else "figure"
                    found.add((kind, m.group("num").rstrip("."), page.number + 1))
    return found


def printed_repo(pdf: Path, repo: str) -> bool:
    """Does the PDF show the repository (text or link annotation) at all?"""
    needle = re.sub(r"\s+", "", repo.lower())
    with pymupdf.open(pdf) as doc:
        for page in doc:
            if needle in re.sub(r"\s+", "", page.get_text().lower()):
                return True
            if any(needle in (link.get("uri") or "").lower() for link in page.get_links()):
                return True
    return False


def measure(folder: Path, images: Path) -> PaperStats:
    pdf = folder / "paper.pdf"
    meta = json.loads((folder / "meta.json").read_text()) if (folder / "meta.json").exists() else {}
    stats = PaperStats(slug=folder.name)
    t0, c0 = time.perf_counter(), time.process_time()
    paper = parse_pdf(pdf, images / folder.name / "images")
    stats.seconds = round(time.perf_counter() - t0, 2)
    stats.cpu = round(time.process_time() - c0, 2)
    stats.pages = paper.pages
    stats.sections = len(paper.sections)
    expected = captions_in_text(pdf)
    with_cells = {("table", t.number, t.page) for t in paper.tables if t.rows}
    with_image = {
        ("figure", f.number if hasattr(f, "number") else f.label.split()[-1], f.page)
        for f in paper.figures
        if f.image and (images / folder.name / f.image).exists()
    }
    for key in sorted(expected):
        kind, _num, _page = key
        ok = key in (with_cells if kind == "table" else with_image)
        if kind == "table":
            stats.tables_text += 1
            stats.tables_cells += ok
        else:
            stats.figures_text += 1
            stats.figures_image += ok
        if not ok:
            stats.missing.append(f"{kind} {key[1]} p{key[2]}")
    stats.links = len(paper.code_links())
    repo = meta.get("repo", "")
    if repo:
        stats.repo_printed = printed_repo(pdf, repo)
        stats.repo_found = any(repo.lower() in link.lower() for link in paper.links)
    stats.errors = len(paper.errors)
    stats.status = str(paper.status)
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", help="folder of <slug>/paper.pdf (+ meta.json)")
    ap.add_argument("--images", help="where crops go (default: a temporary folder)")
    ap.add_argument("--paper", action="append", help="only this slug (repeatable)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    root = corpus_dir(args.corpus)
    folders = (
        sorted(p for p in root.iterdir() if (p / "paper.pdf").exists()) if root.exists() else []
    )
    if args.paper:
        folders = [f for f in folders if f.name in args.paper]
    if not folders:
        print(f"no papers under {root}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        images = Path(args.images) if args.images else Path(tmp)
        rows = [measure(f, images) for f in folders]
    if args.json:
        print(json.dumps([asdict(r) for r in rows], indent=1))
        return 0
    head = (
        f"{'paper':32} {'pages':>5} {'sects':>5} {'tables':>7} {'figures':>8} {'code':>4}"
        f" {'repo':>5} {'err':>3} {'secs':>6}"
    )
    print(head)
    for r in rows:
        repo = ("yes" if r.repo_found else "NO") if r.repo_printed else "-"
        print(
            f"{r.slug[:32]:32} {r.pages:5d} {r.sections:5d} {r.tables_cells:3d}/{r.tables_text:<3d}"
            f" {r.figures_image:3d}/{r.figures_text:<4d} {r.links:4d} {repo:>5} {r.errors:3d}"
            f" {r.seconds:6.2f}"
        )
        if r.missing:
            print(f"{'':34}missing: {', '.join(r.missing)}")
    pages = sum(r.pages for r in rows)
    secs = sum(r.seconds for r in rows)
    cpu = sum(r.cpu for r in rows)
    tt, tc = sum(r.tables_text for r in rows), sum(r.tables_cells for r in rows)
    ft, fi = sum(r.figures_text for r in rows), sum(r.figures_image for r in rows)
    printed = [r for r in rows if r.repo_printed]
    print(
        f"TOTAL {len(rows)} papers, {pages} pages in {secs:.1f} s wall "
        f"({pages / max(secs, 1e-9):.0f} pages/s; {pages / max(cpu, 1e-9):.0f} pages/s of CPU); "
        f"tables with cells {tc}/{tt} ({100 * tc / max(tt, 1):.1f}%); "
        f"figures with image {fi}/{ft} ({100 * fi / max(ft, 1):.1f}%); "
        f"repo link {sum(r.repo_found for r in printed)}/{len(printed)}; "
        f"papers with errors {sum(1 for r in rows if r.errors)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
