"""Papers in parallel: `expcurate batch --workers N` on N copies of the bundled sample.

Writes a paper list of PAPERS copies of the sample paper (each its own id, the same PDF and
repository), or with --corpus DIR of the corpus's PDFs in turn (with the sample's repository),
then runs `expcurate batch --auto-approve` on it with each worker count in a
fresh data dir, as a user would from the shell (the temporary Prefect server included), and
prints papers per minute and the speed-up against one worker, measured in the same run. It
also checks that every run ends with the same tasks.

    python benchmarks/batch_scale.py [--papers 20] [--workers 1 2 4] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SAMPLE = REPO / "data" / "sample"


def private_repo(folder: Path) -> Path:
    """The sample repository as a git repository of its own in `folder`: `data/sample/repo`
    sits inside this checkout, whose HEAD moves when someone commits during a run, and every
    paper must be curated at one commit for the runs to be compared."""
    dest = folder / "repo"
    shutil.copytree(SAMPLE / "repo", dest)
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}  # fmt: skip
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "s"]):
        subprocess.run(cmd, cwd=dest, check=True, env=env, capture_output=True)
    return dest


def paper_list(folder: Path, papers: int, corpus: Path | None = None) -> Path:
    """PAPERS entries: copies of the sample, or the corpus's PDFs in turn (each with the
    sample's repository, so only the papers differ)."""
    path = folder / "papers.jsonl"
    repo = private_repo(folder)
    pdfs = sorted(corpus.glob("*/paper.pdf")) if corpus else [SAMPLE / "paper.pdf"]
    if not pdfs:
        raise SystemExit(f"no */paper.pdf under {corpus}")
    lines = [
        json.dumps(
            {
                "id": f"9{n:04d}",
                "conference": "neurips2099",
                "title": f"Paper {n}",
                "pdf_url": str(pdfs[n % len(pdfs)]),
                "code_url": str(repo),
            }
        )
        for n in range(papers)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def fingerprint(data: Path) -> tuple[int, str, int]:
    """(tasks, a hash of every task's fields by paper and key, papers ready)."""
    from expcurate.store import Store

    store = Store(f"sqlite:///{data / 'expcurate.db'}")
    rows = sorted((t.paper_id, t.key, store.fields(t).model_dump_json()) for t in store.tasks())
    digest = hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]
    return len(rows), digest, sum(p.status == "ready" for p in store.papers())


def run(papers_file: Path, data: Path, workers: int) -> float:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "WARNING"}  # fmt: skip
    env = {k: v for k, v in env.items() if not k.startswith("EXPCURATE_")}
    cmd = [sys.executable, "-m", "expcurate", "batch", str(papers_file), "--auto-approve",
           "--workers", str(workers), "--data-dir", str(data)]  # fmt: skip
    started = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=REPO, capture_output=True, text=True)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=20)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument(
        "--corpus", type=Path, help="draw the papers from this folder's */paper.pdf in turn"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="expcurate-batch-") as tmp:
        folder = Path(tmp)
        papers_file = paper_list(folder, args.papers, args.corpus)
        what = f"corpus PDFs from {args.corpus}" if args.corpus else "copies of the sample paper"
        print(f"{args.papers} papers ({what}), {os.cpu_count()} cores")
        print(f"{'workers':>7} {'seconds':>8} {'papers/min':>10} {'speed-up':>8}  tasks")
        base = 0.0
        seen: set[tuple[int, str, int]] = set()
        for workers in args.workers:
            data = folder / f"data-{workers}"
            seconds = run(papers_file, data, workers)
            base = base or seconds
            found = fingerprint(data)
            seen.add(found)
            print(
                f"{workers:>7} {seconds:>8.1f} {60 * args.papers / seconds:>10.1f} "
                f"{base / seconds:>7.2f}x  {found[0]} ({found[2]}/{args.papers} ready, {found[1]})"
            )
        if len(seen) != 1:
            print("error: the runs ended with different tasks", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
