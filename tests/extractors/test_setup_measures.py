"""A measure nothing the runs run reports by name is said to be written. Each repository is
built with git in tmp_path and mined for real."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import committed_index, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft
from extractors.agent.measures import MeasureSteps, measure_words
from extractors.agent.steps import StepTracer
from extractors.repo import RepoSearch

LOSS = '''"""The contrastive loss: the similarities of positive pairs of two augmented views grow."""
import math


class PairLoss:
    def __init__(self, temperature):
        self.temperature = temperature

    def forward(self, a, b):
        cosine_similarity = sum(x * y for x, y in zip(a, b))
        return -math.log(math.exp(cosine_similarity / self.temperature))
'''

TRAIN = '''"""Train the clustering network with the pair loss and report its clustering."""
import argparse
import time

from loss import PairLoss


def train(epochs):
    loss = PairLoss(0.5)
    total = 0.0
    for epoch in range(epochs):
        total += loss.forward([1.0, epoch], [0.5, 1.0])
    return total


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()
    start = time.time()
    nmi = train(args.epochs)
    print("NMI = {:.4f}".format(nmi))
    print(f"inference time {time.time() - start:.2f}")
'''

README = "# Pair clustering\n\nTrain and cluster:\n\n```\npython train.py --epochs 10\n```\n"


def _task(question: str, measures: list[str]) -> TaskDraft:
    return TaskDraft(
        key="figure-3:trend",
        question=question,
        method="Train the clustering network and report the pair loss over the epochs.",
        expected_outcome="The similarities grow.",
        design_complexity=DesignComplexity(dependent_variables={"measure": measures}),
    )


FILES = {"loss.py": LOSS, "train.py": TRAIN, "README.md": README}


def test_a_measure_no_program_of_the_runs_reports_is_to_write(tmp_path: Path) -> None:
    """The loss computes a cosine similarity, but nothing prints or writes the similarity of
    positive pairs: the train run reports NMI. The usage says the code is to write."""
    task = _task(
        "How do the similarities of positive pairs grow as the clustering network trains?",
        ["similarities"],
    )
    usage = recovered_setup(tmp_path / "s", FILES, task).usage_instructions
    assert "python train.py" in usage, usage
    assert (
        "(similarities: no string or report statement of the programs the runs run, or of the "
        "modules they import, names it: write the code that measures it)"
    ) in usage, usage


def test_a_measure_the_code_computes_unprinted_is_cited_where_it_is(tmp_path: Path) -> None:
    """The loss binds the pairs' similarity to `sim` and the train run prints NMI only: the
    usage says where the value is, to record it there, and a step cites that line. What
    `__init__` makes (`self.sim_fn`) is a tool, and `simple` no short form of it."""
    loss = LOSS.replace(
        "        self.temperature = temperature\n",
        "        self.temperature = temperature\n        self.sim_fn = max\n",
    ).replace(
        "        cosine_similarity = sum(x * y for x, y in zip(a, b))\n",
        "        simple = 1.0\n        sim_a_b = sum(x * y for x, y in zip(a, b)) * simple\n"
        "        cosine_similarity = sim_a_b\n",
    )
    task = _task(
        "How do the similarities of positive pairs grow as the clustering network trains?",
        ["similarities"],
    )
    setup = recovered_setup(tmp_path / "c", {**FILES, "loss.py": loss}, task)
    usage = setup.usage_instructions
    assert (
        "(similarities: no line the runs run prints it, but the code computes it as sim_a_b in "
        "PairLoss.forward (loss.py:12): record it there)"
    ) in usage, usage
    assert "write the code that measures" not in usage, usage
    steps = "\n".join(setup.requirements)
    assert "Compute the similarities (sim_a_b, in PairLoss.forward)" in steps, steps
    assert "(loss.py:12)" in steps, steps


def test_a_measure_a_definition_computes_by_its_initials_is_named(tmp_path: Path) -> None:
    """ "structural hamming distance" is what `class SHD` computes, wherever it is; a
    one-word measure has no initials to look for."""
    files = {
        "graph/shd.py": (
            "class SHD:\n    def __init__(self, truth, est):\n"
            "        self.value = int((truth != est).sum())\n"
        ),
        "run.py": "import json\n\nprint(json.dumps({}))\n",
    }
    root = tmp_path / "g"
    index = committed_index(root, files)
    search = RepoSearch(root, index)
    measures = MeasureSteps(search, StepTracer(index, search))
    (found,) = measures.computed_as("structural_hamming_distance", ["run.py"])
    assert (found.name, found.owner, found.step.path, found.step.start) == (
        "SHD",
        "",
        "graph/shd.py",
        1,
    )
    assert measures.computed_as("distance", ["run.py"]) == []


def test_a_measure_the_run_prints_or_a_header_of_data_is_not_said(tmp_path: Path) -> None:
    """The run prints the inference time and the NMI; "convergence behavior" describes, and
    "Heart Series" is a header in capitals (as often a data set): none is said to be written.
    (A common measure no name of the code holds is: see test_setup_arm_code.)"""
    task = _task(
        "How fast does the pair clustering train at inference, and how does its NMI converge?",
        ["inference time", "NMI", "convergence behavior", "Heart Series"],
    )
    usage = recovered_setup(tmp_path / "t", FILES, task).usage_instructions
    assert "python train.py" in usage, usage
    assert "no string or report statement" not in usage, usage


def test_a_measure_is_named_in_code_by_its_spellings() -> None:
    assert measure_words("F1-Score") == (frozenset({"f1"}), True)
    assert measure_words("Acc@1 (%)") == measure_words("Top-1 accuracy")
    assert measure_words("perplexity") == measure_words("PPL")
    assert measure_words("FPR95") == (frozenset({"fpr"}), False)
    assert measure_words("inference time") == (frozenset({"inference", "time"}), False)


def test_the_data_sets_a_table_is_measured_on_are_no_measure(tmp_path: Path) -> None:
    """A table whose columns are data sets is drafted with them "measured on": the runs
    cover them, and the comparison is of the measured metric, never "of USAir, NS"."""
    task = TaskDraft(
        key="t",
        question="How does the clustering network trained with the pair loss cluster USAir and NS?",
        method="Train the clustering network with the pair loss and report its clustering.",
        expected_outcome="It clusters both well.",
        design_complexity=DesignComplexity(
            independent_variables={"loss": ["pair loss", "w/o pair loss"]},
            dependent_variables={"measured on": ["USAir", "NS"]},
        ),
    )
    files = {**FILES, "README.md": README + "\nIt clusters the USAir and NS networks.\n"}
    setup = recovered_setup(tmp_path / "m", files, task)
    usage = setup.usage_instructions
    assert "Compare the measured metrics of pair loss and w/o pair loss across the runs" in usage
    assert not any("USAir" in r for r in setup.requirements), setup.requirements


def test_one_run_of_one_arm_is_checked_not_compared(tmp_path: Path) -> None:
    """A task asking how to do something, with one run of the one value its design names,
    has nothing to compare that run with: the usage ends by checking the output, and the
    value is no arm to write a command for."""
    task = TaskDraft(
        key="t",
        question="How can you train the clustering network with the pair loss?",
        method="Train the clustering network with the pair loss.",
        expected_outcome="A trained network.",
        design_complexity=DesignComplexity(independent_variables={"loss": ["pair loss"]}),
    )
    usage = recovered_setup(tmp_path / "h", FILES, task).usage_instructions
    last = usage.strip().splitlines()[-1]
    assert "Check that the output answers: How can you train" in last, usage
    assert "across the runs" not in usage, usage
    assert "write the command" not in usage and "Run pair loss" not in usage, usage
    assert "Run the default configuration: `python train.py --epochs 10`" in usage, usage


def _measure_steps(root: Path, files: dict[str, str]) -> MeasureSteps:
    """The measure steps of a repository of these files, committed and mined."""
    index = committed_index(root, files)
    search = RepoSearch(root, index)
    return MeasureSteps(search, StepTracer(index, search))


def test_measures_counted_by_a_table_keyed_by_their_names_are_a_step(tmp_path: Path) -> None:
    analysis = (
        "OUTCOMES = {\n"
        '    "Completed": lambda x: x["COMPLETED"],\n'
        '    "Invalid Format": lambda x: x["FORMAT"],\n'
        '    "Invalid Action": lambda x: x["ACTION"],\n'
        "}\n\n\n"
        "SIZES = {'small': 1, 'large': 2}\n"
    )
    measures = _measure_steps(tmp_path / "r", {"analysis.py": analysis})
    metrics = ["Success Rate (SR)", "Invalid Action (IA) errors", "Invalid Format (IF) errors"]
    step = measures.keyed_metric(metrics, ["analysis.py"])
    assert step is not None
    assert (step.action, step.path, step.start, step.end) == (
        "Count Invalid Format, Invalid Action by name", "analysis.py", 1, 5,
    )  # fmt: skip
    # one measure a table names is no table of the measures
    assert measures.keyed_metric(["Invalid Format (IF) errors"], ["analysis.py"]) is None


def test_a_runs_table_of_measures_is_cited_among_its_steps(tmp_path: Path) -> None:
    analysis = (
        "OUTCOMES = {\n"
        '    "Invalid Format": lambda x: x["FORMAT"],\n'
        '    "Invalid Action": lambda x: x["ACTION"],\n'
        "}\n\n\n"
        "def tally(results):\n"
        "    return {name: sum(f(r) for r in results) for name, f in OUTCOMES.items()}\n"
    )
    run = (
        '"""Run an agent on the shell tasks and tally how its turns ended."""\n'
        "import argparse\n\nfrom analysis import tally\n\n\n"
        "def main(args):\n"
        "    results = [{'FORMAT': 0, 'ACTION': 1} for _ in range(args.episodes)]\n"
        "    print('outcomes', tally(results))\n\n\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--agent', default='small-7b')\n"
        "    parser.add_argument('--episodes', type=int, default=5)\n"
        "    main(parser.parse_args())\n"
    )
    files = {"run.py": run, "analysis.py": analysis}
    task = TaskDraft(
        key="t",
        question="Does the agent small-7b make fewer invalid format and invalid action errors "
        "than large-13b on the shell tasks?",
        method="Run each agent on the shell tasks and tally the invalid actions and formats.",
        expected_outcome="large-13b makes fewer.",
        design_complexity=DesignComplexity(
            independent_variables={"agent": ["small-7b", "large-13b"]},
            dependent_variables={
                "metrics": ["Invalid Action (IA) errors", "Invalid Format (IF) errors"]
            },
        ),
    )
    steps = "\n".join(recovered_setup(tmp_path / "t", files, task).requirements)
    assert "Count Invalid Format, Invalid Action by name (analysis.py:1-4)" in steps, steps


def test_a_task_naming_no_measure_reports_the_one_its_program_prints(tmp_path: Path) -> None:
    main = (
        '"""Link prediction with a graph network on one network."""\n'
        "import argparse\n\n\n"
        "def evaluate(model, graph):\n    return 0.9\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--pattern', default='2wl', choices=['2wl', '2fwl'])\n"
        "    args = p.parse_args()\n"
        "    auc = evaluate(args.pattern, None)\n"
        "    print('Final Test: AUC', auc)\n"
    )
    files = {
        "linktest.py": main,
        "README.md": "# Link prediction\n\n```\npython linktest.py --pattern 2wl\n```\n",
    }
    task = TaskDraft(
        key="table-3:best",
        question="How do 2WL and 2FWL compare on link prediction in Table 3?",
        method="Run each pattern and compare.",
        expected_outcome="2FWL is best.",
        design_complexity=DesignComplexity(independent_variables={"method": ["2WL", "2FWL"]}),
    )
    setup = recovered_setup(tmp_path / "auc", files, task)
    assert setup.requirements[-1].startswith("Final Step: Report AUC of each run"), (
        setup.requirements
    )
    assert "Compare AUC of 2WL and 2FWL across the runs" in setup.usage_instructions, (
        setup.usage_instructions
    )


def test_a_measure_defined_by_a_compound_name_is_its_step_not_a_stage(tmp_path: Path) -> None:
    """`def dice_score` is the definition of "Dice score" (by its name's parts, not the
    compound), wherever the program keeps it; `def train` is no definition of "training
    time", which names the stage the time is taken in."""
    program = (
        "def dice_score(pred, gold):\n"
        "    inter = (pred * gold).sum()\n"
        "    return 2 * inter / (pred.sum() + gold.sum())\n\n\n"
        "def train(model, data):\n"
        "    for batch in data:\n"
        "        model.step(batch)\n"
    )
    measures = _measure_steps(tmp_path / "r", {"demo.py": program})
    step = measures.metric_step(["Dice score"], ["demo.py"])
    assert step is not None
    assert (step.action, step.start, step.end) == ("Compute dice_score as measured", 1, 3)
    assert measures.metric_step(["training time"], ["demo.py"]) is None


DISPATCH = '''"""Run one kind of experiment, chosen by --task_name."""
import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--task_name", default="forecast")
    args = parser.parse_args()
    if args.task_name == "anomaly":
        from exp.exp_anomaly import Exp
    elif args.task_name == "classification":
        from exp.exp_classification import Exp
    Exp(args).run()
'''


def test_a_measure_only_a_module_no_run_imports_prints_is_to_write(tmp_path: Path) -> None:
    """The program imports its experiment by `--task_name`: the runs give `classification`,
    whose module prints accuracy; the F1-score the anomaly module prints, under a task name
    no run gives, is no report of these runs."""
    files = {
        "run.py": DISPATCH,
        "exp/__init__.py": "",
        "exp/exp_anomaly.py": (
            "class Exp:\n    def __init__(self, args):\n        self.args = args\n\n"
            "    def run(self):\n        print('F1-score', 0.9)\n"
        ),
        "exp/exp_classification.py": (
            "class Exp:\n    def __init__(self, args):\n        self.args = args\n\n"
            "    def run(self):\n        print('accuracy', 0.8)\n"
        ),
        "scripts/classification/series.sh": "python run.py --task_name classification\n",
        "README.md": (
            "# Series\n\nClassification:\n\n```\nbash scripts/classification/series.sh\n```\n"
        ),
    }
    question = "Which {} does the series classification run reach on the classification data?"
    task = _task(question.format("F1-score"), ["F1-score"])
    usage = recovered_setup(tmp_path / "d", files, task).usage_instructions
    assert "bash scripts/classification/series.sh" in usage, usage
    assert "F1-score: no string or report statement" in usage, usage
    task = _task(question.format("accuracy"), ["accuracy"])
    usage = recovered_setup(tmp_path / "a", files, task).usage_instructions
    assert "no string or report statement" not in usage, usage


def test_a_report_line_names_a_measure_by_its_letters_and_spellings() -> None:
    from extractors.agent.measures import _measure_names, _prints
    from extractors.repo import terms

    line = (
        'print("Accuracy : {:0.4f}, Precision : {:0.4f}, Recall : {:0.4f}, F-score : {:0.4f}"'
        ".format(accuracy, precision, recall, f_score))"
    )
    said = frozenset(terms(line))
    # a table's P, R and F1 are the line's Precision, Recall and F-score
    assert all(_prints(m, said) for m in ("P", "R", "F1", "F1-Score", "top1 accuracy"))
    assert not _prints("AUROC", said) and not _prints("classification performance", said)
    dice = 'print(f"{target} result with Dice score {dice_score:.4f}")'
    # "score" names any value: the Dice line prints no "accuracy score"
    assert _prints("Dice score", frozenset(terms(dice)))
    assert not _prints("accuracy score", frozenset(terms(dice)))
    assert _measure_names(line) == "Accuracy, Precision and Recall"
    assert _measure_names("print('ACC', acc, 'NMI', nmi)") == "ACC"
    # a wall-clock time is the line's `Time`
    timed = "print(f'[Epoch {i:.2f}] Train Loss: {loss:.2f} | Acc: {acc:.2f} | Time: {t:.2f}')"
    assert _prints("wall time", frozenset(terms(timed)))
    assert not _prints("wall time", frozenset(terms(dice)))


MAML = """import argparse
import time


def train(epochs):
    start = time.time()
    for epoch in range(epochs):
        loss, acc = 0.1 * epoch, 0.5
        print(f'[Epoch {epoch}] Train Loss: {loss:.2f} | Acc: {acc:.2f} | Time: {time.time() - start:.2f}')


def test(epochs):
    loss, acc = 0.1, 0.6
    print(f'[Epoch {epochs}] Test Loss: {loss:.2f} | Acc: {acc:.2f}')


if __name__ == '__main__':
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=10)
    args = parser.parse_args()
    train(args.epochs)
    test(args.epochs)
"""


def test_a_measure_of_one_stage_is_reported_where_that_stage_prints_it(tmp_path: Path) -> None:
    """ "training accuracy" is the train loop's `Train Loss ... | Acc` line, not the test's
    `Test Loss ... | Acc` the evaluation prints; "test accuracy" is the test's."""
    files = {"maml.py": MAML, "README.md": "# MAML\n\n```\npython maml.py --epochs 10\n```\n"}
    steps = {}
    for stage in ("training", "test"):
        task = _task(f"What {stage} accuracy and wall time does the MAML train reach?",
                     [f"{stage} accuracy", "wall time"])  # fmt: skip
        steps[stage] = recovered_setup(tmp_path / stage, files, task).requirements[-1]
    assert steps["training"].endswith("(maml.py:9)"), steps
    assert "Report training accuracy, wall time of each run" in steps["training"], steps
    assert steps["test"].endswith("(maml.py:14)"), steps


CLUSTER = '''"""Cluster the test images with the trained network and report its clustering accuracy."""
import argparse

import torch


def cluster(checkpoint):
    model = torch.load(checkpoint)
    labels = [model(x) for x in range(10)]
    return sum(labels) / len(labels)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--start_epoch", type=int, default=10)
    args = parser.parse_args()
    acc = cluster(f"checkpoint_{args.start_epoch}.tar")
    print("ACC = {:.4f}".format(acc))
'''


def test_a_measure_only_the_training_computes_is_recorded_as_it_trains(tmp_path: Path) -> None:
    """The runs cluster with `cluster.py`, trained first by `train.py`; the similarity is
    bound in the loss only the training imports: it is recorded while train.py trains."""
    loss = LOSS.replace(
        "        cosine_similarity = sum(x * y for x, y in zip(a, b))\n",
        "        sim_a_b = sum(x * y for x, y in zip(a, b))\n        cosine_similarity = sim_a_b\n",
    )
    readme = (
        "# Pair clustering\n\nTrain:\n\n```\npython train.py --epochs 10\n```\n\n"
        "Then cluster the test images with the trained network:\n\n```\n"
        "python cluster.py --start_epoch 10\n```\n"
    )
    files = {**FILES, "loss.py": loss, "cluster.py": CLUSTER, "README.md": readme}
    task = _task(
        "How do the similarities of positive pairs change as the network that clusters the "
        "test images trains (clustering accuracy of the trained network)?",
        ["similarities"],
    )
    setup = recovered_setup(tmp_path / "t", files, task)
    usage = setup.usage_instructions
    assert "`python cluster.py --start_epoch 10` (train first as documented" in usage, usage
    assert (
        "the code computes it as sim_a_b in PairLoss.forward (loss.py:10): record it there "
        "while train.py trains (the evaluation does not reach it))"
    ) in usage, usage
    # the comparison ends where the similarity is computed, not at the line printing the
    # clustering's accuracy (the 35th held-out reader: "cluster.py:149 prints NMI/ACC, not
    # similarities")
    final = setup.requirements[-1]
    assert final.startswith("Final Step: Record similarities of each run"), final
    assert final.endswith("; the code computes it: sim_a_b in PairLoss.forward (loss.py:10)"), final


def test_a_rank_written_apart_is_the_measure_code_joins() -> None:
    """ "Top-1" is a measure a report line is checked for, as `top1` or `Top-1 Acc`; a line
    printing only a per-class header prints none of it."""
    from extractors.agent.measures import _measure, _prints
    from extractors.repo import terms

    assert _measure("Top-1") and _measure("top 5 accuracy")
    assert _prints("Top-1", frozenset(terms("print('top1', acc1)")))
    assert not _prints("Top-1", frozenset(terms("print_log('per class results:', logger)")))


def test_the_report_is_the_line_printing_most_of_the_measures(tmp_path: Path) -> None:
    """EAT's Table 6 measures "ACC (↑)" first, then AUROC, AUPR and FPR95. The first line
    printing accuracy (`test acc`) prints nothing else; the block after it prints the three
    others, line by line. The report is that block, and says where accuracy is printed,
    not that the line prints no AUROC or AUPR (the 32nd held-out reader)."""
    program = (
        "import argparse\n\n\n"  # 1-3
        "def measures(scores):\n"  # 4
        "    return max(scores), min(scores), sum(scores)\n\n\n"  # 5-7
        "def evaluate(model, scores):\n"  # 8
        "    acc = sum(scores) / len(scores)\n"  # 9
        "    print('test acc: %.4f' % acc)\n"  # 10
        + "".join(f"    scores = [s * {k} for s in scores]\n" for k in range(11, 21))
        + "    auroc, aupr, fpr95 = measures(scores)\n"  # 21
        "    print('auroc: %.4f' % auroc)\n"  # 22
        "    print('aupr: %.4f' % aupr)\n"  # 23
        "    print('fpr95: %.4f' % fpr95)\n\n\n"  # 24-26
        "if __name__ == '__main__':\n"  # 17
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--method', default='ours')\n"
        "    args = parser.parse_args()\n"
        "    evaluate(args.method, [0.1, 0.9])\n"
    )
    task = TaskDraft(
        paper_id="p",
        question="How does Ours compare with Base on ACC (↑), AUROC (↑), AUPR (↑) and FPR95 (↓)?",
        method="Evaluate Ours and Base and compare the OOD measures.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["Ours", "Base"]},
            dependent_variables={"metrics": ["ACC (↑)", "AUROC (↑)", "AUPR (↑)", "FPR95 (↓)"]},
        ),
    )
    setup = recovered_setup(tmp_path, {"test.py": program}, task)
    final = setup.requirements[-1]
    assert final.startswith(
        "Final Step: Report ACC (↑), AUROC (↑), AUPR (↑), FPR95 (↓) of each run"
    ), final
    assert final.endswith("; ACC (↑) at :10 (test.py:22-24)"), final


def test_the_summary_past_a_loop_over_trials_is_the_report(tmp_path: Path) -> None:
    """2-WL prints each trial's AUC inside its loop over trials, then "Final Test: AUC" of
    their mean just past the loop: the summary is the report. A listing in a loop of its
    own past the first loop (RMN's scores by category) is no summary."""

    def program(summary: str) -> str:
        return (
            "import argparse\n\nimport numpy as np\n\n\n"  # 1-5
            "def trial(seed):\n    return seed / 10\n\n\n"  # 6-9
            "if __name__ == '__main__':\n"  # 10
            "    parser = argparse.ArgumentParser()\n"  # 11
            "    parser.add_argument('--pattern', default='2fwl')\n"  # 12
            "    parser.add_argument('--run', type=int, default=10)\n"  # 13
            "    args = parser.parse_args()\n"  # 14
            "    auc_list = []\n"  # 15
            "    for i in range(args.run):\n"  # 16
            "        auc = trial(i)\n"  # 17
            "        auc_list.append(auc)\n"  # 18
            "        print(f'Trial {i}: AUC {auc * 100:.2f}')\n"  # 19
            f"{summary}"  # 20-
        )

    task = TaskDraft(
        paper_id="p",
        question="How does the 2fwl pattern compare with 2wl on AUC?",
        method="Run the 2fwl and 2wl patterns and compare AUC.",
        design_complexity=DesignComplexity(
            independent_variables={"pattern": ["2fwl", "2wl"]},
            dependent_variables={"metrics": ["AUC"]},
        ),
    )
    mean = "    print(f'Final Test: AUC {np.mean(auc_list) * 100:.2f}')\n"
    steps = recovered_setup(tmp_path / "mean", {"test.py": program(mean)}, task).requirements
    assert steps[-1].endswith("(test.py:20)"), steps
    listing = "    for k, auc in enumerate(auc_list):\n        print(f'{k}: AUC {auc:.2f}')\n"
    steps = recovered_setup(tmp_path / "list", {"test.py": program(listing)}, task).requirements
    assert steps[-1].endswith("(test.py:19)"), steps
    # a line past the loop printing something else is no summary, measures named or not
    saved = "    total = len(auc_list) * 2\n    print(f'saved {total} trials')\n"
    steps = recovered_setup(tmp_path / "saved", {"test.py": program(saved)}, task).requirements
    assert steps[-1].endswith("(test.py:19)"), steps
    # ... nor when the table's columns are data sets (2-WL's "Cora", "Citeseer"), whose
    # words no line prints, or when the task names no measure
    task.design_complexity.dependent_variables = {"metrics": ["Cora", "Citeseer"]}
    steps = recovered_setup(tmp_path / "sets", {"test.py": program(saved)}, task).requirements
    assert steps[-1].endswith("(test.py:19)"), steps
    task.design_complexity.dependent_variables = {}
    steps = recovered_setup(tmp_path / "none", {"test.py": program(saved)}, task).requirements
    assert steps[-1].startswith("Final Step: Report AUC of each run"), steps
    assert steps[-1].endswith("(test.py:19)"), steps


def _two_configs(program: str, path: str = "test.py", extra: str = "") -> dict[str, str]:
    """A program testing a large and a small model's config, as its README runs it."""
    readme = (
        "# Segmenter\n\nTest a model:\n\n```\n"
        f"python {path} configs/large.py{extra.format('large')}\n"
        f"python {path} configs/small.py{extra.format('small')}\n```\n"
    )
    return {
        path: program,
        "configs/large.py": "model = dict(depth=24)\n",
        "configs/small.py": "model = dict(depth=12)\n",
        "README.md": readme,
    }


def _sizes_task(measures: list[str], measure: str = "mIoU", on: str = "ADE20K") -> TaskDraft:
    """Does the large model beat the small one on `measure`, measured by `measures`?"""
    return TaskDraft(
        paper_id="p",
        question=f"Does the large model reach a higher {measure} than the small one on {on}?",
        method=f"Test the large and the small model and compare their {measure}.",
        design_complexity=DesignComplexity(
            independent_variables={"model": ["large", "small"]},
            dependent_variables={"metrics": measures},
        ),
    )


def test_a_program_writing_its_measures_to_a_file_reports_there(tmp_path: Path) -> None:
    """SegNeXt's `tools/test.py` writes what the evaluation returns to a file
    (`mmcv.dump(metric_dict, json_file)`) and prints none of it; the setups ended on the
    evaluation with no report. A line writing a file reports too, and says it writes the
    measure by no name (a key of the dict may hold it). Of the values a program calls by
    vague words, "results" comes last: it is what programs call their raw outputs
    (`mmcv.dump(results, args.out)` just before). A warning of a failure ("failed with
    error {result.error}") reports nothing."""
    program = (
        "import argparse\n\nimport mmcv\n\n\n"  # 1-5
        "def main(args):\n"  # 6
        "    results = [args.config] * 3\n"  # 7
        "    for r in results:\n"  # 8
        "        if r is None:\n"  # 9
        "            print(f'Warning: {r} failed with error {r.error}')\n"  # 10
        "    if args.out:\n"  # 11
        "        mmcv.dump(results, args.out)\n"  # 12
        "    metric = evaluate(results)\n"  # 13
        "    metric_dict = dict(config=args.config, metric=metric)\n"  # 14
        "    mmcv.dump(metric_dict, args.json_file)\n\n\n"  # 15-17
        "def evaluate(results):\n"  # 18
        "    return {'mIoU': len(results)}\n\n\n"  # 19-21
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('config')\n"
        "    parser.add_argument('--out', default='')\n"
        "    parser.add_argument('--json_file', default='eval.json')\n"
        "    main(parser.parse_args())\n"
    )
    task = _sizes_task(["mIoU"])
    files = _two_configs(program, "tools/test.py", " --json_file {}.json")
    setup = recovered_setup(tmp_path / "plain", files, task)
    final = setup.requirements[-1]
    assert final.startswith("Final Step: Report mIoU of each run"), final
    assert final.endswith("; the line writes no mIoU by name (tools/test.py:15)"), final
    # a measure no measure word names ("GFLOPs") is no more written than the one named: the
    # line names neither (the 35th held-out reader: "'Report GFLOPs' cites the evaluation")
    costly = _sizes_task(["GFLOPs", "mIoU"])
    counted = files | {"README.md": files["README.md"] + "\nThe paper also reports GFLOPs.\n"}
    final = recovered_setup(tmp_path / "costly", counted, costly).requirements[-1]
    assert final.startswith("Final Step: Report GFLOPs, mIoU of each run"), final
    assert "; the line writes no GFLOPs or mIoU by name (tools/test.py:15)" in final, final


def test_a_line_printing_a_value_alone_reports_it(tmp_path: Path) -> None:
    """A report line was one formatting its value or passing it after another argument, so
    `print(acc)` was none and the setups ended on the evaluation. A value printed or logged
    alone reports when a measure names it; one a vague word names (`print(metric)`,
    LexSubPrompt's `wandb.log(self.metrics_dict)`) may hold any measure and names none of
    the task's (the 36th held-out reader: "reports F10 at src/eval.py:33, which computes
    only p1/p3/r10")."""
    program = (
        "import argparse\n\n\n"  # 1-3
        "def evaluate(outputs):\n"  # 4
        "    return len(outputs) / 3\n\n\n"  # 5-7
        "def main(args):\n"  # 8
        "    outputs = [args.config] * 3\n"  # 9
        "    acc = evaluate(outputs)\n"  # 10
        "    print(acc)\n\n\n"  # 11-13
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('config')\n"
        "    main(parser.parse_args())\n"
    )
    files = _two_configs(program)
    task = _sizes_task(["accuracy"], "accuracy", "the test images")
    final = recovered_setup(tmp_path / "named", files, task).requirements[-1]
    assert final.startswith("Final Step: Report accuracy of each run"), final
    assert final.endswith("(test.py:11)"), final
    vague = program.replace("    acc = evaluate", "    metric = evaluate").replace(
        "print(acc)", "print(metric)"
    )
    final = recovered_setup(tmp_path / "vague", _two_configs(vague), task).requirements[-1]
    assert not final.startswith("Final Step: Report"), final


def test_a_message_announcing_a_plot_is_no_report(tmp_path: Path) -> None:
    """SegNeXt's `tools/analyze_logs.py` prints `plot curve of {log}, metric is {metric}`
    before it draws each curve; that message was taken for the report of Table 6's Top-1
    and mIoU (the 35th held-out reader: "a plot-curve print"). A message announcing a plot
    reports nothing; the evaluation's results line does."""
    program = (
        "import argparse\n\n\n"  # 1-3
        "def plot(logs, metric):\n"  # 4
        "    for name in logs:\n"  # 5
        "        print(f'plot curve of {name}, metric is {metric}')\n\n\n"  # 6-8
        "def evaluate(outputs):\n"  # 9
        "    table = [len(outputs)] * 3\n"  # 10
        "    print('per class results:', table)\n"  # 11
        "    return table\n\n\n"  # 12-14
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('config')\n"
        "    args = parser.parse_args()\n"
        "    plot([args.config], 'mIoU')\n"
        "    evaluate([args.config])\n"
    )
    files = _two_configs(program)
    task = _sizes_task(["mIoU"])
    final = recovered_setup(tmp_path, files, task).requirements[-1]
    assert final.startswith("Final Step: Report mIoU of each run"), final
    assert final.endswith("(test.py:11)"), final
