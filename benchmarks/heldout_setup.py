"""Score the heuristic setup policy on repositories it was not tuned on (held-out check).

The rules in `heldout_setup.jsonl` were written before any output was seen: for each corpus
paper, an ordered list of `{rule, when, hit_any}`; a task takes the first rule whose `when`
regex matches its question + method ("" matches all), and is a hit@3 when one of its first
three `source` files matches a `hit_any` glob (`*` crosses folders). A `no_answer` is a miss,
except under a rule that says `"expect": "no_answer"` (the repository does not hold that
experiment's code), where it is the only hit.
For each paper: draft tasks from the corpus PDF with the heuristic, mine the checkout, recover
each setup, score.

    python benchmarks/heldout_setup.py --repos DIR [--corpus DIR] [--gold RULES.jsonl]

Two rule files: `heldout_setup.jsonl` (set A: four repositories, used once to find a bug) and
`heldout_setup_b.jsonl` (set B: eight more, written and committed before the policy was run on
them).

`--repos` holds one checkout per repository, named after it (`owner/name` -> `DIR/name`), at
the rule file's commit. `--corpus` defaults to ../shared/corpus next to the repository, or
EXPCURATE_CORPUS_DIR.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from extractors.agent import SetupAgent  # noqa: E402
from extractors.agent.figures import SetupRow, setup_figures  # noqa: E402
from extractors.paper import parse_pdf  # noqa: E402
from extractors.repo import mine_repo  # noqa: E402
from extractors.tasks import draft_tasks  # noqa: E402


def _default_corpus() -> Path:
    env = os.environ.get("EXPCURATE_CORPUS_DIR")
    return Path(env) if env else REPO / ".." / "shared" / "corpus"


def hit(source: list[str], globs: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(p, g) for p in source[:3] for g in globs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", type=Path, required=True, help="folder of repository checkouts")
    ap.add_argument("--corpus", type=Path, default=_default_corpus(), help="corpus folder")
    ap.add_argument("--gold", type=Path, default=REPO / "benchmarks" / "heldout_setup.jsonl")
    ap.add_argument("--verbose", action="store_true", help="print each task's rule and top 3")
    ap.add_argument("--dump", type=Path, help="write every task and its setup as JSON lines")
    ap.add_argument(
        "--cross",
        action="store_true",
        help="also run each paper's tasks against every other repository (right: no_answer)",
    )
    args = ap.parse_args()

    rules: dict[str, list[dict]] = {}
    for line in args.gold.open():
        if line.strip():
            r = json.loads(line)
            rules.setdefault(r["corpus"], []).append(r)
    total = hits = no_answers = 0
    drafted: dict[str, list] = {}
    agents: dict[str, SetupAgent] = {}
    rows: list[SetupRow] = []
    dump = args.dump.open("w") if args.dump else None
    print("| paper | repository | tasks | hit@3 | no_answer | seconds (mine + setup) |")
    print("|---|---|---|---|---|---|")
    for corpus, paper_rules in rules.items():
        repo = paper_rules[0]["repo"]
        root = args.repos / repo.split("/")[1]
        paper = parse_pdf(args.corpus / corpus / "paper.pdf", None)
        tasks = draft_tasks(paper, "heuristic").tasks
        drafted[corpus] = tasks
        if not root.is_dir():  # never shrink the denominator: every task is a miss
            print(f"missing checkout {root}; its tasks count as misses", file=sys.stderr)
            total += len(tasks)
            print(f"| {corpus} | {repo} | {len(tasks)} | 0 | (no checkout) | |")
            continue
        t0 = time.perf_counter()
        agent = SetupAgent(mine_repo(root, paper_rules[0]["commit"]), root)
        agents[corpus] = agent
        n_hit = n_none = 0
        for task in tasks:
            started = time.perf_counter()
            setup = agent.recover(task)
            rows.append(
                SetupRow(
                    corpus,
                    f"{corpus}/{task.key}",
                    setup,
                    agent.index,
                    seconds=time.perf_counter() - started,
                    question=task.question,
                )
            )
            text = f"{task.question}\n{task.method}"
            rule = next(r for r in paper_rules if not r["when"] or re.search(r["when"], text))
            if rule.get("expect") == "no_answer":
                ok = bool(setup.no_answer)
            else:
                ok = not setup.no_answer and hit(setup.source, rule["hit_any"])
            n_hit += ok
            n_none += bool(setup.no_answer)
            if dump is not None:
                task_part = task.model_dump(
                    include={"key", "question", "method", "design_complexity"}
                )
                row = {"corpus": corpus, "rule": rule["rule"], "hit": ok, **task_part}
                dump.write(json.dumps({**row, "setup": setup.model_dump(exclude={"trace"})}))
                dump.write("\n")
            if args.verbose:
                mark = "HIT " if ok else "miss"
                print(f"  {mark} [{rule['rule']}] {task.key}: {setup.source[:3]}", file=sys.stderr)
        seconds = time.perf_counter() - t0
        total += len(tasks)
        hits += n_hit
        no_answers += n_none
        rate = n_hit / max(len(tasks), 1)
        print(
            f"| {corpus} | {repo} | {len(tasks)} | {n_hit} ({rate:.2f}) | {n_none} | "
            f"{seconds:.1f} |"
        )
    print(f"| all | | {total} | {hits} ({hits / max(total, 1):.2f}) | {no_answers} | |")
    if dump is not None:
        dump.close()
    print("\nsetups as a reviewer sees them:")
    figures = setup_figures(rows)
    for line in figures.lines():
        print(f"  {line}")
    for problem in figures.problems[:10]:
        print(f"    command problem: {problem}")
    if args.cross and len(agents) >= 2:
        right = pairs = 0
        for corpus, tasks in drafted.items():
            for other, agent in agents.items():
                if other != corpus:
                    pairs += len(tasks)
                    right += sum(bool(agent.recover(t).no_answer) for t in tasks)
        print(
            f"\ncross-paper no_answer (each task against every other repository): "
            f"{right}/{pairs} = {right / max(pairs, 1):.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
