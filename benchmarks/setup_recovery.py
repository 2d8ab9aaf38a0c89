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

from expcurate.records import DesignComplexity, Setup, TaskDraft  # noqa: E402
from extractors.agent import SetupAgent, leaked_names, validate_references  # noqa: E402
from extractors.agent.figures import (  # noqa: E402
    SetupRow,
    agreement,
    order_agreement,
    setup_figures,
)
from extractors.repo import mine_repo  # noqa: E402


def _default_bench() -> Path:
    env = os.environ.get("EXPCURATE_EXPBENCH_DIR")
    return Path(env) if env else REPO / ".." / "shared" / "expbench"


def _curated(bench: Path, paper: str, index: int) -> dict:
    """The task as EXP-Bench published it (design variables, gold masked files), or {}."""
    path = bench / "dev" / f"{paper}_complete_final.json"
    try:
        questions = json.loads(path.read_text())["questions"]
        return questions[index] if 0 <= index < len(questions) else {}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _task(gold: dict, curated: dict | None = None) -> TaskDraft:
    """The task as drafting would hand it to setup: its text and its design variables."""
    design = (curated or {}).get("design_complexity") or {}
    design = design.get("design_complexity", design) if isinstance(design, dict) else {}
    try:
        variables = DesignComplexity.model_validate(design)
    except ValueError:
        variables = DesignComplexity()
    return TaskDraft(
        key=f"{gold['paper']}-{gold['index']}",
        question=gold.get("question") or "",
        method=gold.get("method") or "",
        expected_outcome=gold.get("expected_outcome") or "",
        design_complexity=variables,
    )


def _gold_setup(curated: dict) -> Setup:
    """EXP-Bench's setup with its `/workspace/` prefix dropped from paths and citations."""
    requirements = curated.get("requirements") or []
    return Setup(
        source=_repo_paths(curated.get("source")),
        masked_source=_repo_paths(curated.get("masked_source")),
        usage_instructions=str(curated.get("usage_instructions") or ""),
        requirements=[str(r).replace("/workspace/", "") for r in requirements],
    )


def _repo_paths(paths: object) -> list[str]:
    if not isinstance(paths, list):
        return []
    return [str(p).removeprefix("/workspace/").lstrip("/") for p in paths]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repos", type=Path, required=True, help="folder of repository checkouts")
    ap.add_argument("--bench", type=Path, default=_default_bench(), help="EXP-Bench dev data")
    ap.add_argument("--out", type=Path, default=Path("setup_predictions.jsonl"))
    ap.add_argument("--no-cross", action="store_true", help="skip the other-paper no_answer check")
    ap.add_argument("--dump", type=Path, help="write every setup (with the gold's) as JSON lines")
    args = ap.parse_args()

    gold = [json.loads(x) for x in (args.bench / "dev" / "setup_gold.jsonl").open()]
    agents: dict[str, SetupAgent | None] = {}
    bad_refs = leaks = wrong_no_answer = missing = 0
    timings: dict[str, float] = {}
    rows: list[SetupRow] = []
    gold_rows: list[SetupRow] = []  # EXP-Bench's own setups, the reference for the figures
    ordered = [0, 0]  # pairs of our steps matched to curated ones: in their order, against
    agreements: list[tuple[float, float]] = []  # per task: the curated ranges ours cite, ...
    dump = args.dump.open("w") if args.dump else None
    source_only = args.out.with_name(args.out.stem + ".source" + args.out.suffix)
    with_design = args.out.with_name(args.out.stem + ".design" + args.out.suffix)
    with (
        args.out.open("w") as out,
        source_only.open("w") as out_source,
        with_design.open("w") as out_design,
    ):
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
            # Retrieval is scored on the task's text alone, as it always was, so the scores
            # stay comparable; the setup a reviewer reads is the one made with the task's
            # design variables (the arms to run), as a drafted task always has them.
            plain = agent.recover(_task(g))
            curated = _curated(args.bench, g["paper"], g["index"])
            t0 = time.perf_counter()
            setup = agent.recover(_task(g, curated))
            rows.append(
                SetupRow(
                    paper=g["paper"],
                    task=f"{g['paper']}/{g['index']}",
                    setup=setup,
                    question=g["question"],
                    index=agent.index,
                    gold_masked=_repo_paths(curated.get("masked_source")),
                    seconds=time.perf_counter() - t0,
                )
            )
            if curated.get("requirements"):
                gold_rows.append(
                    SetupRow(
                        paper=g["paper"],
                        task=f"{g['paper']}/{g['index']}",
                        setup=_gold_setup(curated),
                        question=g["question"],
                        index=agent.index,
                    )
                )
            if dump is not None:
                mine = setup.model_dump(exclude={"trace"})
                gold_setup = {
                    k: curated.get(k)
                    for k in ("source", "usage_instructions", "requirements", "masked_source")
                }
                dump.write(
                    json.dumps(
                        {
                            "task": f"{g['paper']}/{g['index']}",
                            "repo": g["repo"],
                            "question": g.get("question"),
                            "ours": mine,
                            "gold": gold_setup,
                        }
                    )
                    + "\n"
                )
            gold_steps = curated.get("requirements")
            if isinstance(gold_steps, list) and (
                agreed := agreement(setup.requirements, [str(x) for x in gold_steps])
            ):
                agreements.append(agreed)
                in_order, against = order_agreement(
                    setup.requirements, [str(x) for x in gold_steps]
                )
                ordered[0] += in_order
                ordered[1] += against
            problems = validate_references(setup, agent.root)
            bad_refs += bool(problems)
            leaks += bool(leaked_names(setup.agent_instructions, setup.masked_source))
            wrong_no_answer += bool(plain.no_answer)
            for p in problems:
                print(f"{g['paper']}/{g['index']}: {p}", file=sys.stderr)
            row = {"paper": g["paper"], "index": g["index"]}
            out.write(json.dumps({**row, "ranked": plain.source + plain.candidates}) + "\n")
            out_source.write(json.dumps({**row, "ranked": plain.source}) + "\n")
            out_design.write(json.dumps({**row, "ranked": setup.source + setup.candidates}) + "\n")
    n = len(gold)
    print(
        f"tasks={n} missing_repos={missing} invalid_refs={bad_refs} leaks={leaks} "
        f"no_answer_on_gold={wrong_no_answer}"
    )
    if dump is not None:
        dump.close()
    figures = setup_figures(rows)
    print("setups as a reviewer sees them (ours, with the curated design variables):")
    for line in figures.lines():
        print(f"  {line}")
    for problem in figures.problems[:15]:
        print(f"    command problem: {problem}")
    print("the same figures for EXP-Bench's curated setups of these tasks (reference):")
    for line in setup_figures(gold_rows).lines()[:-1]:  # no seconds: they were curated by hand
        print(f"  {line}")
    if agreements:
        found = sum(a for a, _ in agreements) / len(agreements)
        kept = sum(b for _, b in agreements) / len(agreements)
        print(
            f"steps against the curated setup's: {found:.3f} of its cited ranges are half inside "
            f"one of ours, {kept:.3f} of ours half inside one of its (mean over "
            f"{len(agreements)} tasks)"
        )
        pairs = sum(ordered)
        print(
            f"order against the curated steps: {ordered[0]} of {pairs} pairs of our steps "
            f"matched to theirs come in their order ({ordered[0] / max(1, pairs):.3f})"
        )
    print("mine+index seconds: " + ", ".join(f"{k}={v:.1f}" for k, v in sorted(timings.items())))
    if not args.no_cross:
        _cross_check(gold, agents)
    score = args.bench / "score_setup.py"
    gold_file = args.bench / "dev" / "setup_gold.jsonl"
    for label, path in (
        ("ranking (source + candidates)", args.out),
        ("source only", source_only),
        ("ranking with the curated design variables", with_design),
    ):
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
        right += bool(agent.recover(_task(g)).no_answer)  # as scored before: the text alone
    print(f"cross-paper no_answer: {right}/{total} = {right / max(total, 1):.3f}")


if __name__ == "__main__":
    raise SystemExit(main())
