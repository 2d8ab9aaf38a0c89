"""Measure heuristic setup recovery against EXP-Bench's gold source files.

For every gold task of the development split: mine the paper's repository (checked out at the
gold commit), run `SetupAgent.recover`, and write `{"paper", "index", "ranked"}` with the
agent's ranking (`source` then `candidates`); then score it, and `source` alone, with the
split's own `score_setup.py`. A task
whose repository is missing gets no prediction, and so counts as a miss (the denominator
never shrinks). Also reports invalid file:line references, masked-name leaks, wrong
`no_answer`s, and how often a task of *another* paper is correctly answered with `no_answer`.

    python benchmarks/setup_recovery.py --repos DIR [--out PRED.jsonl] [--bench DIR]

`--repos` holds one checkout per repository, named after the repository (`owner/name` ->
`DIR/name`), each at the commit listed in papers.jsonl. `--bench` defaults to
../shared/expbench next to the repository, or EXPCURATE_EXPBENCH_DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from expcurate.records import TaskDraft  # noqa: E402
from extractors.agent import SetupAgent, leaked_names, validate_references  # noqa: E402
from extractors.repo import mine_repo  # noqa: E402


def _default_bench() -> Path:
    env = os.environ.get("EXPCURATE_EXPBENCH_DIR")
    return Path(env) if env else REPO / ".." / "shared" / "expbench"


def _task(gold: dict) -> TaskDraft:
    return TaskDraft(
        key=f"{gold['paper']}-{gold['index']}",
        question=gold.get("question") or "",
        method=gold.get("method") or "",
        expected_outcome=gold.get("expected_outcome") or "",
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", type=Path, required=True, help="folder of repository checkouts")
    ap.add_argument("--bench", type=Path, default=_default_bench(), help="EXP-Bench dev data")
    ap.add_argument("--out", type=Path, default=Path("setup_predictions.jsonl"))
    ap.add_argument("--no-cross", action="store_true", help="skip the other-paper no_answer check")
    args = ap.parse_args()

    gold = [json.loads(x) for x in (args.bench / "dev" / "setup_gold.jsonl").open()]
    agents: dict[str, SetupAgent | None] = {}
    bad_refs = leaks = wrong_no_answer = missing = 0
    timings: dict[str, float] = {}
    source_only = args.out.with_name(args.out.stem + ".source" + args.out.suffix)
    with args.out.open("w") as out, source_only.open("w") as out_source:
        for g in gold:
            name = g["repo"].split("/")[1]
            if name not in agents:
                root = args.repos / name
                if not root.is_dir():
                    print(f"missing checkout {root}; its tasks count as misses", file=sys.stderr)
                    agents[name] = None
                else:
                    t0 = time.perf_counter()
                    index = mine_repo(root, g["commit"])
                    agents[name] = SetupAgent(index, root)
                    timings[name] = time.perf_counter() - t0
            agent = agents[name]
            if agent is None:
                missing += 1
                continue
            setup = agent.recover(_task(g))
            problems = validate_references(setup, agent.root)
            bad_refs += bool(problems)
            leaks += bool(leaked_names(setup.agent_instructions, setup.masked_source))
            wrong_no_answer += bool(setup.no_answer)
            for p in problems:
                print(f"{g['paper']}/{g['index']}: {p}", file=sys.stderr)
            row = {"paper": g["paper"], "index": g["index"]}
            out.write(json.dumps({**row, "ranked": setup.source + setup.candidates}) + "\n")
            out_source.write(json.dumps({**row, "ranked": setup.source}) + "\n")
    n = len(gold)
    print(
        f"tasks={n} missing_repos={missing} invalid_refs={bad_refs} leaks={leaks} "
        f"no_answer_on_gold={wrong_no_answer}"
    )
    print("mine+index seconds: " + ", ".join(f"{k}={v:.1f}" for k, v in sorted(timings.items())))
    if not args.no_cross:
        _cross_check(gold, agents)
    score = args.bench / "score_setup.py"
    gold_file = args.bench / "dev" / "setup_gold.jsonl"
    for label, path in (("ranking (source + candidates)", args.out), ("source only", source_only)):
        print(f"{label}:", flush=True)
        subprocess.run([sys.executable, str(score), str(gold_file), str(path)], check=False)
    return 0


def _cross_check(gold: list[dict], agents: dict[str, SetupAgent | None]) -> None:
    """Each task against the next paper's repository: the right answer is `no_answer`."""
    names = [k for k, v in agents.items() if v is not None]
    if len(names) < 2:
        return
    right = total = 0
    for g in gold:
        own = g["repo"].split("/")[1]
        if own not in names:
            continue
        other = names[(names.index(own) + 1) % len(names)]
        agent = agents[other]
        assert agent is not None
        total += 1
        right += bool(agent.recover(_task(g)).no_answer)
    print(f"cross-paper no_answer: {right}/{total} = {right / max(total, 1):.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
