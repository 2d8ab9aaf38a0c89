"""Audit EXP-Bench's development split with the package-stage validators.

Imports every `*_complete_final.json` into a throw-away store (as `expcurate import-expbench`
does), prints how many tasks each validator flags, and, with `--repos`, how many requirement
references hold at the pinned commit versus the default branch's tip (what a harness that
clones without pinning would see).

    python benchmarks/expbench_audit.py [--repos DIR] [--bench DIR]

`--repos` holds one checkout per repository, named after it (`owner/name` -> `DIR/name`),
with the pinned commits and the default branch (`origin/HEAD`) fetched.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from expcurate.curation.importer import find_checkout, import_expbench  # noqa: E402
from expcurate.records import Severity  # noqa: E402
from expcurate.settings import Settings  # noqa: E402
from expcurate.store import Store  # noqa: E402
from extractors.package.tasks_file import read_expbench  # noqa: E402
from extractors.validate import CHECKS, GitTree, references  # noqa: E402


def _default_bench() -> Path:
    env = os.environ.get("EXPCURATE_EXPBENCH_DIR")
    return Path(env) if env else REPO / ".." / "shared" / "expbench"


def _valid(tree: GitTree, rel: str, start: int, end: int) -> bool:
    n = tree.line_count(rel) if tree.is_file(rel) else 0
    return n is not None and 1 <= start <= end <= n


def drift(bench: Path, repos: Path) -> None:
    print("\n| paper | references | valid at pinned commit | valid at default branch tip |")
    print("|---|---|---|---|")
    totals = [0, 0, 0]
    for paper in read_expbench(bench).papers:
        root = find_checkout(repos, paper)
        if root is None or not paper.commit:
            print(f"| {paper.id} | (no checkout) | | |")
            continue
        pinned, tip = GitTree(root, paper.commit), GitTree(root, "origin/HEAD")
        refs = [r for t in paper.tasks for s in t.fields.requirements for r in references(s)]
        row = [len(refs), sum(_valid(pinned, *r) for r in refs), sum(_valid(tip, *r) for r in refs)]
        totals = [a + b for a, b in zip(totals, row, strict=True)]
        same = " (same commit)" if pinned.commit == tip.commit else ""
        print(f"| {paper.id} | {row[0]} | {row[1]} | {row[2]}{same} |")
    print(f"| all | {totals[0]} | {totals[1]} | {totals[2]} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", type=Path, default=None, help="folder of repository checkouts")
    ap.add_argument("--bench", type=Path, default=_default_bench(), help="EXP-Bench data")
    args = ap.parse_args()
    dev = args.bench / "dev"
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp))
        summary = import_expbench(Store(settings.database_url()), settings, dev, repos=args.repos)
    print(
        f"{summary.papers} papers, {summary.tasks} tasks, {summary.tasks_with_errors} with errors"
    )
    print("\n| check | tasks with error | with warning | not checked (info) |")
    print("|---|---|---|---|")
    for name in CHECKS:
        counts = [summary.flagged[s.value][name] for s in Severity]
        print(f"| `{name}` | " + " | ".join(str(c) for c in counts) + " |")
    if args.repos:
        drift(dev, args.repos)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
