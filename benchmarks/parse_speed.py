"""Parse speed against references measured in the same run, on the same PDFs.

Each contender runs in its own subprocess over every corpus PDF, so its peak memory (max RSS)
is its own. Printed: pages per second, peak RSS, and the ratio of our full parse (sections,
tables with cells, figures rendered to PNG) to each reference.

    python benchmarks/parse_speed.py [CORPUS_DIR] [--only ours,get_text,...]

References: plain `page.get_text()` (the floor), `pymupdf4llm.to_markdown` (a full-document
converter), and pdfplumber's table finding on every page (skipped with a note when pdfplumber
is not installed: `pip install pdfplumber`).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONTENDERS = ("ours", "get_text", "pymupdf4llm", "pdfplumber")


def _run_one(kind: str, pdfs: list[Path]) -> dict[str, float]:
    """Runs inside the child process."""
    pages = 0
    start = time.perf_counter()
    if kind == "ours":
        sys.path.insert(0, str(ROOT))
        from extractors.paper import parse_pdf

        with tempfile.TemporaryDirectory() as tmp:
            for i, pdf in enumerate(pdfs):
                pages += parse_pdf(pdf, Path(tmp) / f"p{i}" / "images").pages
    elif kind == "get_text":
        import pymupdf

        for pdf in pdfs:
            with pymupdf.open(pdf) as doc:
                for page in doc:
                    page.get_text()
                    pages += 1
    elif kind == "pymupdf4llm":
        import pymupdf
        import pymupdf4llm

        for pdf in pdfs:
            with pymupdf.open(pdf) as doc:
                pages += doc.page_count
            pymupdf4llm.to_markdown(str(pdf), show_progress=False)
    elif kind == "pdfplumber":
        import pdfplumber

        for pdf in pdfs:
            with pdfplumber.open(pdf) as doc:
                for page in doc.pages:
                    page.find_tables()
                    pages += 1
    seconds = time.perf_counter() - start
    return {"pages": pages, "seconds": seconds}


def _child(kind: str, corpus: Path) -> None:
    pdfs = sorted(corpus.glob("*/paper.pdf"))
    result = _run_one(kind, pdfs)
    result["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    only = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")), "")
    corpus = Path(
        args[0]
        if args
        else os.environ.get("EXPCURATE_CORPUS_DIR", ROOT.parent / "shared" / "corpus")
    )
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}; pass its path")
    kinds = [k for k in CONTENDERS if not only or k in only.split(",")]
    results: dict[str, dict[str, float]] = {}
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    for kind in kinds:
        proc = subprocess.run(
            [sys.executable, __file__, "--child", kind, str(corpus)],
            capture_output=True,
            text=True,
            env=env,
        )
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
            print(f"{kind:12s} skipped: {last}")
            continue
        results[kind] = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"\n{'contender':12s} {'pages':>6s} {'seconds':>8s} {'pages/s':>8s} {'peak MB':>8s}")
    for kind, r in results.items():
        rate = r["pages"] / r["seconds"]
        print(
            f"{kind:12s} {r['pages']:6.0f} {r['seconds']:8.1f} {rate:8.1f} {r['max_rss_mb']:8.0f}"
        )
    if "ours" in results:
        ours = results["ours"]["pages"] / results["ours"]["seconds"]
        for kind, r in results.items():
            if kind == "ours":
                continue
            rate = r["pages"] / r["seconds"]
            word = "faster" if ours >= rate else "slower"
            factor = ours / rate if ours >= rate else rate / ours
            print(f"ours vs {kind}: {factor:.1f}x {word}")


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--child":
        _child(sys.argv[2], Path(sys.argv[3]))
    else:
        main()
