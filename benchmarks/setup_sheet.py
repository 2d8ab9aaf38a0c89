"""Draw the rubric's setup sample and tally a reader's grades.

`benchmarks/setup_recovery.py --dump SETUPS.jsonl` writes every development-split setup beside
EXP-Bench's curated one. This script draws 30 of them the rubric's way (sorted by task, then
`random.seed(7); random.sample(tasks, 30)`), writes a rating sheet a reader fills in with the
repository checkout open, and tallies the grades file the reader returns:

    python benchmarks/setup_sheet.py SETUPS.jsonl --sheet SHEET.md
    python benchmarks/setup_sheet.py SETUPS.jsonl --grades GRADES.jsonl

A grades file has one line per task: {"task": "94391/0", "requirements": "A|B|C",
"usage": "A|B|C", "setup": "A|B|C", "why": "..."}. The tally prints A, B, C and A+B for each
part, with the sample's size; a task missing from the grades file counts as ungraded. Any other
key graded A, B or C (a second reading, "requirements_identical") is tallied the same way.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

SAMPLE = 30
SEED = 7
PARTS = ("requirements", "usage", "setup")


def sample(rows: list[dict]) -> list[dict]:
    def key(row: dict) -> tuple[str, int]:
        paper, index = row["task"].split("/")
        return paper, int(index)

    ordered = sorted(rows, key=key)
    random.seed(SEED)
    return random.sample(ordered, min(SAMPLE, len(ordered)))


def sheet(rows: list[dict]) -> str:
    out = [
        "# Setup rating sheet (review-rubric.md, setup part)",
        "",
        "Grade each task's requirements, usage and whole setup A, B or C with the repository",
        "checkout open (and EXP-Bench's curated setup beside it). Return one JSON line per task:",
        '`{"task": ..., "requirements": ..., "usage": ..., "setup": ..., "why": ...}`.',
        "",
    ]
    for row in rows:
        ours = row["ours"]
        gold = row.get("gold") or {}
        out += [
            f"## {row['task']} ({row['repo']})",
            "",
            f"**Question:** {row['question']}",
            "",
            "### Ours",
            f"- source: {', '.join(ours.get('source') or []) or '(none)'}",
            f"- masked: {', '.join(ours.get('masked_source') or []) or '(none)'}",
        ]
        if ours.get("no_answer"):
            out.append(f"- no_answer: {ours['no_answer']}")
        out += ["- usage:", "", "```", ours.get("usage_instructions") or "", "```", ""]
        out += ["- requirements:", ""] + [f"  - {r}" for r in ours.get("requirements") or []]
        out += ["", "### EXP-Bench's curated setup", ""]
        out.append(f"- source: {', '.join(gold.get('source') or []) or '(none)'}")
        out.append(f"- masked: {', '.join(gold.get('masked_source') or []) or '(none)'}")
        out += ["- usage:", "", "```", str(gold.get("usage_instructions") or ""), "```", ""]
        out += ["- requirements:", ""] + [f"  - {r}" for r in gold.get("requirements") or []]
        out.append("")
    return "\n".join(out)


def tally(rows: list[dict], grades_path: Path) -> list[str]:
    grades = {}
    for line in grades_path.read_text().splitlines():
        if line.strip():
            g = json.loads(line)
            grades[g["task"]] = g
    lines = []
    # a second reading a reader was asked for ("requirements_identical") is tallied too
    extra = [
        k
        for g in grades.values()
        for k, v in g.items()
        if k not in PARTS and str(v).upper() in ("A", "B", "C")
    ]
    for part in [*PARTS, *dict.fromkeys(extra)]:
        counts = Counter(str(grades.get(r["task"], {}).get(part, "-")).upper() for r in rows)
        n = len(rows)
        ab = counts["A"] + counts["B"]
        lines.append(
            f"{part}: A {counts['A']}, B {counts['B']}, C {counts['C']}, "
            f"ungraded {n - counts['A'] - counts['B'] - counts['C']}; A+B {ab}/{n} ({ab / n:.0%})"
        )
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("setups", type=Path, help="setup_recovery.py --dump output")
    ap.add_argument("--sheet", type=Path, help="write the rating sheet here")
    ap.add_argument("--grades", type=Path, help="tally this grades file")
    args = ap.parse_args()
    rows = [json.loads(x) for x in args.setups.read_text().splitlines() if x.strip()]
    drawn = sample(rows)
    if args.sheet:
        args.sheet.write_text(sheet(drawn))
        print(f"wrote {len(drawn)} tasks to {args.sheet}: " + ", ".join(r["task"] for r in drawn))
    if args.grades:
        for line in tally(drawn, args.grades):
            print(line)
    if not args.sheet and not args.grades:
        print("\n".join(r["task"] for r in drawn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
