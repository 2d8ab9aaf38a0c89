"""The program that computes a task's aggregate measures from the runs' results is named in
the usage, after the runs. Each repository is built with git in tmp_path and mined for real."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import recovered_setup

from expcurate.records import DesignComplexity, TaskDraft

TRAIN = '''"""Train every multi-agent algorithm on a task and write its returns as JSON."""
import argparse
import json


def train(algorithm, seed):
    returns = [seed * 0.1 + i for i in range(3)]
    with open(f"runs/{algorithm}_{seed}.json", "w") as f:
        json.dump({"algorithm": algorithm, "return": returns}, f)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--algorithm", default="mappo", choices=["mappo", "qmix"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    train(args.algorithm, args.seed)
'''

EVAL_RESULTS = '''"""Aggregate the returns the runs wrote into performance profiles and aggregate scores."""
import json
import os


def load_runs(folder):
    out = []
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name)) as f:
            out.append(json.load(f))
    return out


def performance_profile_figure(runs):
    return sorted(max(r["return"]) for r in runs)


def aggregate_scores(runs):
    return sum(max(r["return"]) for r in runs) / len(runs)


if __name__ == "__main__":
    runs = load_runs(folder="/home/someone/project/runs")
    print(performance_profile_figure(runs), aggregate_scores(runs))
'''

README = "# Multi-agent benchmark\n\nTrain an algorithm:\n\n```\npython train.py --algorithm mappo\n```\n"


def _task() -> TaskDraft:
    return TaskDraft(
        key="figure-2:compare",
        question=(
            "Does MAPPO reach a better performance profile and higher aggregate scores of the "
            "return than QMIX?"
        ),
        method="Train MAPPO and QMIX with three seeds and aggregate their returns.",
        expected_outcome="MAPPO's performance profile dominates QMIX's.",
        design_complexity=DesignComplexity(
            independent_variables={"algorithm": ["MAPPO", "QMIX"]},
            dependent_variables={"metric": ["performance profile", "aggregate scores"]},
        ),
    )


def test_the_program_computing_the_measures_from_the_runs_results_comes_after_them(
    tmp_path: Path,
) -> None:
    files = {"train.py": TRAIN, "eval_results.py": EVAL_RESULTS, "README.md": README}
    usage = recovered_setup(tmp_path / "a", files, _task()).usage_instructions
    lines = usage.splitlines()
    computed = next((i for i, x in enumerate(lines) if "`python eval_results.py`" in x), -1)
    assert computed > 0, usage
    assert "Compute performance profile, aggregate scores from the runs' results" in usage
    # the literal folder it reads is named, not copied: it is the author's machine's
    assert "set folder (eval_results.py:23) to the folder the runs wrote" in usage, usage
    assert "/home/someone" not in usage
    last_run = max(i for i, x in enumerate(lines) if "`python train.py" in x)
    assert last_run < computed < len(lines) - 1, usage  # after the runs, before the comparison


def test_measures_named_together_and_in_the_plural_are_found_one_by_one(tmp_path: Path) -> None:
    """A measure named as "normalized_return_and_performance_profiles" (with a description
    for its value) is two quantities; "performance profiles" is what
    `performance_profile_figure` computes. A long description with an "and" stays whole."""
    from extractors.agent.arms import task_metrics
    from extractors.agent.query import build_query

    task = _task()
    task.design_complexity.dependent_variables = {
        "normalized_return_and_performance_profiles": (
            "Measured as normalized return curves and the inter-quartile mean with 95% "
            "stratified bootstrap confidence intervals"
        ),
    }
    assert task_metrics(task, build_query(task)) == ["normalized return", "performance profiles"]
    files = {"train.py": TRAIN, "eval_results.py": EVAL_RESULTS, "README.md": README}
    usage = recovered_setup(tmp_path / "pl", files, task).usage_instructions
    assert "Compute performance profiles from the runs' results" in usage, usage
    long = "Counted over every seed of every task the runs train on"
    task.design_complexity.dependent_variables = {"success_and_time_taken_per_gpu_device": long}
    assert task_metrics(task, build_query(task)) == ["success and time taken per gpu device"]


def test_a_program_that_only_calls_the_measure_or_names_it_by_its_path_is_not_it(
    tmp_path: Path,
) -> None:
    """What computes the measure is the program defining it: a private helper does not count,
    nor a program in a folder named by the measure (a benchmark's own code)."""
    private = EVAL_RESULTS.replace("def performance_profile_figure", "def _performance_profile")
    private = private.replace("print(performance_profile_figure", "print(_performance_profile")
    private = private.replace("def aggregate_scores", "def _aggregate_scores")
    private = private.replace(", aggregate_scores(runs)", ", _aggregate_scores(runs)")
    files = {"train.py": TRAIN, "eval_results.py": private, "README.md": README}
    usage = recovered_setup(tmp_path / "p", files, _task()).usage_instructions
    assert "Compute performance profile" not in usage, usage
    files = {
        "train.py": TRAIN,
        "performance_profile/aggregate_scores.py": EVAL_RESULTS,
        "README.md": README.replace("eval_results.py", "performance_profile/aggregate_scores.py"),
    }
    usage = recovered_setup(tmp_path / "n", files, _task()).usage_instructions
    assert "Compute performance profile" not in usage, usage


def test_an_ablation_left_to_write_points_at_where_the_steps_cite_what_it_removes() -> None:
    """ "w/o MSCA", which nothing selects: the steps cite MSCA's classes, so the line says to
    remove or bypass them there; a step only naming the arm (the comparison) is no place."""
    from extractors.agent.arms import Arm
    from extractors.agent.steps import Step
    from extractors.agent.taken import taken_away

    steps = [
        Step("Implement MSCA (AttentionModule)", "models/mscan.py", 59, 91),
        Step("Train (train)", "tools/train.py", 10, 40),
        Step(
            "Report mIoU of each run, then compare w/ MSCA and w/o MSCA across them",
            "tools/test.py",
            160,
            160,
        ),
    ]
    arm = Arm("compared setting", "w/o MSCA", frozenset({"msca"}))
    assert taken_away(arm, [arm], steps) == (
        "; what it takes away is implemented at models/mscan.py:59-91 (the steps cite it): "
        "remove or bypass it there"
    )
    assert taken_away(Arm("setting", "w/o Gate", frozenset({"gate"})), [], steps) == ""
    assert taken_away(Arm("setting", "MSCA", frozenset({"msca"})), [], steps) == ""  # no ablation
    two = [*steps, Step("Implement MSCA (Spatial)", "models/mscan.py", 94, 110)]
    assert "at models/mscan.py:59-91 and models/mscan.py:94-110 (" in taken_away(
        arm, [arm], two * 2
    )
    three = [*two, Step("Implement MSCA (Pool)", "models/mscan.py", 120, 130)]
    assert taken_away(arm, [arm], three) == ""  # too many places to say which


def test_the_comparison_ends_where_the_analysis_computes_the_measures(tmp_path: Path) -> None:
    """BenchMARL's final step cited where the training logs each iteration's mean return
    (the 38th to 40th development readers: "logs the training mean return, not normalised
    return or performance profiles"); its `eval_results.py` computes the profiles from what
    the runs wrote. When such a program computes measures the report line does not print,
    the comparison ends at its main block's calls of them."""
    files = {"train.py": TRAIN, "eval_results.py": EVAL_RESULTS, "README.md": README}
    setup = recovered_setup(tmp_path / "a", files, _task())
    final = setup.requirements[-1]
    assert final.startswith("Final Step: Report performance profile, aggregate scores of each"), (
        final
    )
    assert final.endswith(
        ", performance profile and aggregate scores computed from the runs' results by "
        "performance_profile_figure (eval_results.py:24)"
    ), final
