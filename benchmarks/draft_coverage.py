"""Drafting on real papers: headline and discussed tables drafted, grounding, leaks, speed.

Usage: python benchmarks/draft_coverage.py [CORPUS_DIR] [EXPBENCH_DIR]
Defaults: ../shared/corpus and ../shared/expbench beside the repository (or the
EXPCURATE_CORPUS_DIR / EXPCURATE_EXPBENCH_DIR environment variables).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from expcurate.records import TaskFields
from extractors.numbers import NumberBag, find_numbers
from extractors.paper import parse_pdf
from extractors.tasks import draft_tasks
from extractors.tasks.claims import find_claims, headline_labels
from extractors.tasks.grids import is_results_table, read_grid
from extractors.validate import validate_drafts

ROOT = Path(__file__).resolve().parents[1]
LABEL = re.compile(r"\b(Table|Figure|Fig\.)\s*(\d+)")


def _labels(text: str) -> set[str]:
    return {
        ("Figure" if kind.startswith("Fig") else kind) + " " + num
        for kind, num in LABEL.findall(text)
    }


def _section_key(title: str) -> str:
    """'4.2 MAIN RESULTS' and '4.2 Main Results' match; so do two titles with the same number."""
    m = re.match(r"\s*([A-Z]?\d+(?:\.\d+)*)\b", title)
    return m.group(1) if m else re.sub(r"[^a-z0-9]", "", title.lower())


def expbench_tasks(expbench: Path, paper_id: str) -> list[dict[str, object]]:
    path = expbench / "dev" / f"{paper_id}_complete_final.json"
    if not path.is_file():
        return []
    return list(json.loads(path.read_text()).get("questions", []))


def main() -> None:
    corpus = Path(
        sys.argv[1]
        if len(sys.argv) > 1
        else os.environ.get("EXPCURATE_CORPUS_DIR", ROOT.parent / "shared" / "corpus")
    )
    expbench = Path(
        sys.argv[2]
        if len(sys.argv) > 2
        else os.environ.get("EXPCURATE_EXPBENCH_DIR", ROOT.parent / "shared" / "expbench")
    )
    if not corpus.is_dir():
        sys.exit(f"no corpus at {corpus}; pass its path")
    totals = dict(
        results=0, covered=0, discussed=0, discussed_covered=0, headline=0, headline_covered=0,
        tasks=0, numbers=0, grounded=0, leaks=0, flagged=0,
    )  # fmt: skip
    cpu: list[float] = []
    print(
        f"{'paper':32s} {'results':>7s} {'covered':>7s} {'discussed':>9s} {'headline':>14s} "
        f"{'tasks':>5s} {'grounded':>9s} {'leaks':>5s} {'flagged':>7s} {'draft ms':>8s}"
    )
    overlap_lines = []
    for folder in sorted(p for p in corpus.iterdir() if (p / "paper.pdf").is_file()):
        paper = parse_pdf(folder / "paper.pdf", None)
        t0 = time.process_time()
        drafts = draft_tasks(paper)
        cpu.append(time.process_time() - t0)
        cited = {e.label for t in drafts.tasks for e in t.evidence}
        results = [t.label for t in paper.tables if is_results_table(t, read_grid(t))]
        covered = [label for label in results if label in cited]
        said = {lab for c in find_claims(paper) for lab in c.labels}
        discussed = [label for label in results if label in said]
        # The headline results: the first headline label that is a results table or a figure.
        top = next(
            (lab for lab in headline_labels(paper) if lab in results or lab.startswith("Figure")),
            "",
        )
        # No question may hold a number of its outcome (decimals: integers name settings).
        leaks = sum(
            bool(
                {n for n in find_numbers(t.question) if "." in n}
                & set(find_numbers(t.expected_outcome))
            )
            for t in drafts.tasks
        )
        bag = NumberBag([paper.full_text()])
        numbers = [n for t in drafts.tasks for n in find_numbers(t.expected_outcome)]
        grounded = sum(bag.contains(n) for n in numbers)
        flagged = sum(
            any(f.severity == "error" for f in flags)
            for flags in validate_drafts([TaskFields.from_draft(t) for t in drafts.tasks], paper)
        )
        for key, value in dict(
            results=len(results),
            covered=len(covered),
            discussed=len(discussed),
            discussed_covered=sum(label in cited for label in discussed),
            headline=bool(top),
            headline_covered=top in cited,
            leaks=leaks,
            tasks=len(drafts.tasks),
            numbers=len(numbers),
            grounded=grounded,
            flagged=flagged,
        ).items():
            totals[key] += value
        mark = f"{top or '-'} {'yes' if top in cited else 'NO'}" if top else "-"
        seen = sum(label in cited for label in discussed)
        print(
            f"{folder.name:32s} {len(results):7d} {len(covered):7d} {seen:4d}/{len(discussed):<4d} "
            f"{mark:>14s} {len(drafts.tasks):5d} {grounded:4d}/{len(numbers):<4d} {leaks:5d} "
            f"{flagged:7d} {cpu[-1] * 1000:8.0f}"
        )
        meta = (
            json.loads((folder / "meta.json").read_text())
            if (folder / "meta.json").is_file()
            else {}
        )
        eb_id = str(meta.get("expbench_id") or "").split("/")[-1]
        theirs = expbench_tasks(expbench, eb_id) if eb_id else []
        if theirs:
            hit = sum(
                bool(
                    _labels(
                        " ".join(
                            str(q.get(k, "")) for k in ("question", "method", "expected_outcome")
                        )
                    )
                    & cited
                )
                for q in theirs
            )
            ours = {_section_key(t.subsection_source) for t in drafts.tasks}
            same_section = sum(
                _section_key(str(q.get("subsection_source", ""))) in ours for q in theirs
            )
            overlap_lines.append(
                f"{folder.name} (EXP-Bench {eb_id}): {hit}/{len(theirs)} of its tasks cite a "
                f"table or figure our drafts cover; {same_section}/{len(theirs)} come from a "
                f"section our drafts also draw on"
            )
    share = totals["covered"] / max(1, totals["results"])
    grounded = totals["grounded"] / max(1, totals["numbers"])
    print(
        f"\nheadline table or figure with a task: {totals['headline_covered']}/{totals['headline']}; "
        f"results tables the text discusses with a task: {totals['discussed_covered']}/"
        f"{totals['discussed']}; all results tables with a task: {totals['covered']}/"
        f"{totals['results']} ({share:.1%}; undiscussed appendix tables are left out)\n"
        f"tasks: {totals['tasks']}; outcome numbers grounded: {totals['grounded']}/"
        f"{totals['numbers']} ({grounded:.1%}); questions holding an outcome number: "
        f"{totals['leaks']}; tasks with an error flag: {totals['flagged']}\n"
        f"drafting CPU per paper: mean {1000 * sum(cpu) / max(1, len(cpu)):.0f} ms, "
        f"max {1000 * max(cpu, default=0):.0f} ms (parsing excluded)"
    )
    for line in overlap_lines or ["no corpus paper has EXP-Bench tasks in the dev split"]:
        print(line)


if __name__ == "__main__":
    main()
