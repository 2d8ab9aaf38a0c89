"""Which program and which part of it runs each arm: a launch script read at the run on the
task's data set, a program beside the entry point named after an arm, the value an option
takes as the code tests it, and design values written with an explanation. Each repository is
built with git in tmp_path and mined for real."""

from __future__ import annotations

import re
from pathlib import Path

from repo_fixture import cites, committed_index, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft
from extractors.agent.arms import task_datasets
from extractors.agent.steps import StepTracer
from extractors.repo import RepoSearch

RUN = '''"""Long-term forecasting with a linear backbone."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--data_path", default="ETTh1.csv")
parser.add_argument("--data", default="ETTh1")
parser.add_argument("--model", default="Linear")
parser.add_argument("--seq_len", type=int, default=96)
parser.add_argument("--pred_len", type=int, default=96)
args = parser.parse_args()


def mse(pred, true):
    return ((pred - true) ** 2).mean()


def train(args):
    print("mse", mse(1.0, 0.0))


if __name__ == "__main__":
    train(args)
'''

# one script, one block per data set, a horizon sweep split over two loops per block
STD = """seq_len=336
model_name=LDLinear

data_path_name=ETTh1.csv
data_name=ETTh1
for pred_len in 96 192
do
    python -u run.py \\
      --data_path $data_path_name \\
      --data $data_name \\
      --model $model_name \\
      --seq_len $seq_len \\
      --pred_len $pred_len
done
for pred_len in 336 720
do
    python -u run.py --data_path $data_path_name --data $data_name --model $model_name \\
      --seq_len $seq_len --pred_len $pred_len
done

data_path_name=traffic.csv
data_name=custom
for pred_len in 96 192 336 720
do
    python -u run.py \\
      --data_path $data_path_name \\
      --data $data_name \\
      --model $model_name \\
      --seq_len $seq_len \\
      --pred_len $pred_len
done
"""


def _task(question: str, independent: dict, constant: dict | None = None) -> TaskDraft:
    return TaskDraft(
        key="t",
        question=question,
        method="Run each arm and compare the reported metric.",
        expected_outcome="The proposed arm is better.",
        design_complexity=DesignComplexity(
            independent_variables=independent,
            constant_variables=constant or {},
            dependent_variables={"metric": ["accuracy"]},
        ),
    )


def test_a_launch_script_is_read_at_the_run_on_the_tasks_data(tmp_path: Path) -> None:
    files = {"run.py": RUN, "scripts/STD/LDLinear.sh": STD}
    task = _task(
        "Does LD decomposition help a linear forecaster on ETTh1?",
        {"std technique": ["LD (in LDLinear configuration)"], "horizon": ["96", "720"]},
        {"dataset": "ETTh1"},
    )
    usage = recovered_setup(tmp_path / "fc", files, task).usage_instructions
    # the ETTh1 block's values, not the traffic block's that the script sets last, and the
    # horizons of both its loops; the task is on ETTh1 alone, so the run says which of the
    # script's runs are on it (the first two, at lines 8-18), and that it runs traffic too
    assert "--data_path ETTh1.csv" in usage and "--data_path traffic.csv" not in usage
    assert "--pred_len {96,192,336,720}" in usage
    assert (
        "(the script also runs it on traffic.csv: only its runs at lines 8-18 are on the "
        "task's data)"
    ) in usage, usage

    traffic = _task(
        "Does LD decomposition help a linear forecaster on Traffic?",
        {"std technique": ["LD (in LDLinear configuration)"]},
        {"dataset": "traffic"},
    )
    usage = recovered_setup(tmp_path / "fc2", files, traffic).usage_instructions
    assert "--data_path traffic.csv --model LDLinear" in usage and "ETTh1.csv, " not in usage
    assert "(the script also runs it on ETTh1.csv: only its runs at lines 25-30" in usage, usage
    # a task on both data sets runs the whole script: nothing to say
    both = _task(
        "Does LD decomposition help a linear forecaster on ETTh1 and Traffic?",
        {"std technique": ["LD (in LDLinear configuration)"], "dataset": ["ETTh1", "traffic"]},
    )
    usage = recovered_setup(tmp_path / "fc3", files, both).usage_instructions
    assert "also runs it on" not in usage, usage


DSPY = '''"""Big-Bench Hard with DSPy programs."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--task", default="sports_understanding")
parser.add_argument("--cot", action="store_true")
parser.add_argument("--copro", action="store_true")
args = parser.parse_args()


def accuracy(pred, gold):
    return float(pred == gold)


if args.copro:
    optimizer = "COPRO"
print("accuracy", accuracy(1, 1))
'''

TRACE = '''"""Big-Bench Hard with Trace: prompts and functions optimized together."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--task", default="sports_understanding")
parser.add_argument("--train", action="store_true")
args = parser.parse_args()


def accuracy(pred, gold):
    return float(pred == gold)


print("accuracy", accuracy(1, 1))
'''


def test_an_arm_with_its_own_program_beside_the_entry_point_runs_it(tmp_path: Path) -> None:
    files = {"bbh/run_bbh_dspy.py": DSPY, "bbh/run_bbh_trace.py": TRACE}
    task = _task(
        "Does Trace beat DSPy's COPRO on Big-Bench Hard accuracy?",
        {
            # written with an explanation: the arm is the name before it
            "optimization framework": [
                "DSPy's COPRO (optimizes only the meta-prompt of the program)",
                "Trace (optimizes both prompt and functions of the program)",
            ],
            # a kind of thing named by examples is no arm
            "model family": ["model type (e.g., linear or MLP over features)"],
        },
    )
    setup = recovered_setup(tmp_path / "bbh", files, task)
    usage = setup.usage_instructions
    assert "Run DSPy's COPRO: `python bbh/run_bbh_dspy.py --copro`" in usage
    assert "Run Trace: `python bbh/run_bbh_trace.py`" in usage
    assert "model type" not in usage and "no launch script" not in usage
    # a key only one of the programs run reads (through the module it imports) is set first
    keyed = {
        **files,
        "bbh/run_bbh_trace.py": "from llm import client\n" + TRACE,
        "llm.py": "import os\n\n\ndef client():\n    return os.environ.get('OPENAI_API_KEY')\n",
    }
    usage = recovered_setup(tmp_path / "key", keyed, task).usage_instructions
    assert "Set the keys the code reads from the environment: OPENAI_API_KEY (llm.py:5)" in usage
    # autogen's model list, read from a file or a variable of its name, is to be written
    listed = {
        **keyed,
        "llm.py": keyed["llm.py"]
        + "\n\ndef models():\n    return autogen.config_list_from_json('OAI_CONFIG_LIST')\n",
    }
    usage = recovered_setup(tmp_path / "list", listed, task).usage_instructions
    assert (
        "Set the keys the code reads from the environment: OPENAI_API_KEY (llm.py:5); and write "
        "the model list autogen reads, OAI_CONFIG_LIST (llm.py:9): a JSON list of models and "
        "their keys, in a file of that name in the folder the run starts in or in an "
        "environment variable of that name."
    ) in usage, usage


SOLVE = '''"""Solution optimization with TextGrad or Trace."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--algo", type=str, default="textgrad", help="The algorithm to use.")
parser.add_argument("--task", type=str, default="gpqa")
args = parser.parse_args()


def score(answer):
    return float(bool(answer))


if args.algo == "textgrad":
    optimizer = "tgd"
elif args.algo in ("trace", "opto_multi"):
    optimizer = "optoprime"
print("accuracy", score("x"))
'''


def test_an_option_takes_the_value_its_code_tests_for(tmp_path: Path) -> None:
    files = {"evals/solve.py": SOLVE}
    task = _task(
        "Is Trace as accurate as TextGrad at solution optimization?",
        {"optimization method": ["Trace", "TextGrad"]},
    )
    setup = recovered_setup(tmp_path / "tg", files, task)
    usage = setup.usage_instructions
    # the parser declares no choices; the code compares --algo with "trace" and "textgrad"
    assert "Run Trace: `python evals/solve.py --algo trace`" in usage
    assert "Run TextGrad: `python evals/solve.py --algo textgrad`" in usage
    steps = "\n".join(setup.requirements)
    assert "Take the TextGrad path (optimization method) where args.algo == 'textgrad'" in steps
    # a test of the option for another value is not the TextGrad arm's path
    assert "Take the TextGrad path (optimization method) where args.algo in" not in steps


REGISTRY = '''"""Forecasting models by name."""
import argparse

from models import CycleNet, CycleiTransformer, Linear

parser = argparse.ArgumentParser()
parser.add_argument("--data_path", default="ETTh1.csv")
parser.add_argument("--data", default="ETTh1")
parser.add_argument("--model", default="CycleNet")
parser.add_argument("--model_type", default="linear")
args = parser.parse_args()
MODELS = {"CycleNet": CycleNet, "Linear": Linear, "CycleiTransformer": CycleiTransformer}


def mse(pred, true):
    return ((pred - true) ** 2).mean()


if __name__ == "__main__":
    model = MODELS[args.model].Model(args)
    print("mse", mse(1.0, 0.0))
'''


def _model(name: str, body: str) -> str:
    return f'''"""{name}."""


class Model:
    def __init__(self, args):
        self.args = args
        self.kind = args.model_type

    def forward(self, x):
{body}
'''


def _launch(data: str, model: str) -> str:
    return f"python -u run.py --data_path {data}.csv --data {data} --model {model}\n"


def test_a_baseline_script_that_trains_a_variant_of_it_says_so(tmp_path: Path) -> None:
    files = {
        "run.py": REGISTRY,
        "models/__init__.py": "",
        "models/CycleNet.py": _model("Cycles", "        x = x - x.mean()\n        return x"),
        "models/Linear.py": _model("Linear", "        return x * 2"),
        "models/CycleiTransformer.py": _model("Inverted", "        x = x.T\n        return x.T"),
        "scripts/CycleNet/Linear/etth1.sh": _launch("ETTh1", "CycleNet"),
        "scripts/CycleNet/Linear/etth2.sh": _launch("ETTh2", "CycleNet"),
        "scripts/iTransformer/traffic.sh": _launch("traffic", "CycleiTransformer"),
    }
    task = _task(
        "Does CycleNet/Linear beat iTransformer on ETTh1 and ETTh2?",
        {"model variant": ["CycleNet/Linear"], "baseline": ["iTransformer"]},
        {"dataset": ["ETTh1", "ETTh2"]},
    )
    setup = recovered_setup(tmp_path / "cy", files, task)
    usage = setup.usage_instructions
    assert "Run CycleNet/Linear on ETTh2: `bash scripts/CycleNet/Linear/etth2.sh`" in usage
    # the only iTransformer script runs other data and a variant of it: both are said
    assert (
        "Run iTransformer (its script runs other data: set its data options to ETTh1, then "
        "ETTh2): `bash scripts/iTransformer/traffic.sh`" in usage
    )
    assert (
        "the script trains --model CycleiTransformer, a variant of iTransformer, not "
        "iTransformer; the repository has no iTransformer model of its own" in usage
    )
    # "CycleNet/Linear" is CycleNet's linear variant, not the Linear baseline's module
    steps = "\n".join(setup.requirements)
    assert "(models/CycleNet.py:" in steps and "(models/Linear.py:" not in steps
    # the step citing the variant's script says what it trains, as the usage does
    assert "(traffic.sh; it trains CycleiTransformer)" in steps, steps


GATED = '''"""Train the gated attention classifier on CIFAR-10 and report accuracy."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--gate", action="store_true")
args = parser.parse_args()


def accuracy(pred, gold):
    return float(pred == gold)


if __name__ == "__main__":
    # load the CIFAR-10 training split
    data = list(range(10))
    # fit the gated attention classifier
    model = sum(data)
    print("accuracy", accuracy(model, 45))
'''

# a program that shares the task's words but runs no part of its experiment
MAPS = '''"""Draw gated attention maps of a classifier on CIFAR-10."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--image", default="cat.png")
args = parser.parse_args()

if __name__ == "__main__":
    # load the test images into a data loader
    loader = load_data(args.image)
    # evaluate the model on the test data
    heat = evaluate_model(loader)
    # TODO: to be adapted
    print("accuracy", heat)
'''


WORKERS = '''"""Train the gated attention classifier on CIFAR-10 with several workers."""
import sys


def combine(shards):
    return sum(sum(s) for s in shards)


if __name__ == "__main__":
    # split the CIFAR-10 data across the workers
    shards = [list(range(10))[i::2] for i in range(2)]
    # TODO: to be adapted
    model = combine(shards)
    print("accuracy", model == 45, sys.argv)
'''


def test_another_programs_code_is_a_step_only_when_it_is_part_of_the_run(tmp_path: Path) -> None:
    task = _task(
        "Does the gate improve the attention classifier's accuracy on CIFAR-10?",
        {"attention": ["gated attention", "plain attention"]},
    )
    launch = "python exp/train.py --gate\n"
    files = {"exp/train.py": GATED, "tools/attention_demo.py": MAPS, "scripts/gate.sh": launch}
    setup = recovered_setup(tmp_path / "nb", files, task)
    # a keyword neighbour: among the sources, but neither masked nor cited
    assert "tools/attention_demo.py" in setup.source
    assert "tools/attention_demo.py" not in setup.masked_source
    steps = "\n".join(setup.requirements)
    assert "Fit the gated attention classifier (exp/train.py:17-18)" in steps
    assert "tools/attention_demo.py" not in steps

    # the entry point's twin (the same program in another folder) is part of the experiment;
    # a remark above a line ("TODO: to be adapted") is not what the line does
    twin = {"exp/train.py": GATED, "exp/distributed/train.py": WORKERS, "scripts/gate.sh": launch}
    twin_setup = recovered_setup(tmp_path / "tw", twin, task)
    assert "exp/distributed/train.py" in twin_setup.masked_source
    steps = "\n".join(twin_setup.requirements)
    # up to the line the final step reports from
    assert "Compute model with combine (exp/distributed/train.py:13)" in steps
    assert "Compute accuracy as measured (exp/train.py:9-10)" in steps  # the measure's own
    assert "TODO" not in steps and "adapted" not in steps

    # the whole path under another folder (a fork vendored beside it) is a copy no run runs:
    # neither cited nor masked
    copy = {"exp/train.py": GATED, "fork/exp/train.py": WORKERS, "scripts/gate.sh": launch}
    copy_setup = recovered_setup(tmp_path / "cp", copy, task)
    assert "fork/exp/train.py" not in copy_setup.masked_source, copy_setup.masked_source
    assert "fork/" not in "\n".join(copy_setup.requirements), copy_setup.requirements


def test_two_arms_run_the_entry_point_and_its_twin_by_the_words_they_share(tmp_path: Path) -> None:
    # exp/train.py trains on one process; exp/distributed/train.py is its twin with workers
    files = {"exp/train.py": GATED, "exp/distributed/train.py": WORKERS}
    task = _task(
        "Does training the gated attention classifier with several workers keep its accuracy?",
        {"execution": ["one process", "several workers in parallel"]},
    )
    usage = recovered_setup(tmp_path / "twin", files, task).usage_instructions
    assert "no launch script" not in usage
    # "several workers" shares a word with the script that splits the data across workers;
    # the comparison names every arm a run runs, however long its name
    assert "Compare accuracy of one process and several workers in parallel across" in usage
    workers = usage.index("Run several workers in parallel: ")
    one = usage.index("Run one process: ")
    assert "exp/distributed" in usage[workers : usage.index("\n", workers)]
    assert "exp/distributed" not in usage[one : usage.index("\n", one)]
    assert "train.py" in usage[one : usage.index("\n", one)]


LONG_RUN = '''"""Long-term forecasting: every model of the registry, by name."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--data_path", default="ETTh1.csv")
parser.add_argument("--model", default="CycleNet")
parser.add_argument("--log_wandb", action="store_true", help="log training and mse metrics")
args = parser.parse_args()


def metric(pred, true):
    return ((pred - true) ** 2).mean(), abs(pred - true).mean()


def test(model):
    pred, true = 1.0, 0.0
    mse, mae = metric(pred, true)
    print(
        "mse:{}, mae:{}".format(mse, mae)
    )
    return mse


if __name__ == "__main__":
    print("Models are logged to wandb when installed")
    test(args.model)
'''


def _std(model: str) -> str:
    return f"python -u run.py --data_path ETTh1.csv --model {model}\n"


def test_the_arm_no_script_names_runs_the_authors_own_model(tmp_path: Path) -> None:
    files = {
        "run.py": LONG_RUN,
        "scripts/CycleNet/Linear/etth1.sh": _std("CycleNet"),
        "scripts/CycleNet/MLP/etth1.sh": _std("CycleNet"),
        "scripts/CycleNet/STD/CycleNet.sh": _std("CycleNet"),
        "scripts/CycleNet/STD/LDLinear.sh": _std("LDLinear"),
        "scripts/CycleNet/STD/DLinear.sh": _std("DLinear"),
    }
    task = _task(
        "Does RCF outperform LD as a decomposition on ETTh1?",
        {"std technique": ["RCF (in CLinear configuration)", "LD (in LDLinear configuration)"]},
        {"dataset": "ETTh1"},
    )
    setup = recovered_setup(tmp_path / "std", files, task)
    usage = setup.usage_instructions
    assert (
        "Run LD (in LDLinear configuration) on ETTh1: `bash scripts/CycleNet/STD/LDLinear.sh`"
        in usage
    )
    # RCF is named by no script; beside LDLinear.sh, the authors' model (the one their
    # launch scripts train most) runs it, and the usage says so
    assert (
        "Run RCF (in CLinear configuration) on ETTh1: `bash scripts/CycleNet/STD/CycleNet.sh`"
        in usage
    )
    assert "the script trains the repository's own model, CycleNet, taken as this arm" in usage
    assert "STD/DLinear.sh" not in usage and "no launch script" not in usage
    # the last step is the line that prints the measured values (the whole statement), not
    # an option's help ("log ... metrics") nor a message without a value
    assert setup.requirements[-1].endswith("(run.py:18-20)")


def _handing_over(core: str, body_lines: int) -> str:
    body = "".join(f"        x = x + {i}\n" for i in range(body_lines))
    return (
        f'"""The {core} model: residual cycle forecasting (RCF) and its kin."""\n'
        "import torch.nn as nn\n\n\nclass Model(nn.Module):\n"
        "    def __init__(self, configs):\n        super().__init__()\n"
        "        self.configs = configs\n\n"
        f"    def {core}(self, x):\n{body}        return x\n\n"
        "    def forward(self, x):\n"
        + ("        return self.forecast(x)\n" if core == "forecast" else "        return x\n")
    )


def test_the_arm_only_its_word_names_runs_that_script_beside_the_authors_model(
    tmp_path: Path,
) -> None:
    files = {
        "run.py": LONG_RUN,
        "models/CycleNet.py": _handing_over("cycle", 40),
        "models/SparseTSF.py": _handing_over("forecast", 40),
        "scripts/CycleNet/Linear/etth1.sh": _std("CycleNet"),
        "scripts/CycleNet/MLP/etth1.sh": _std("CycleNet"),
        "scripts/CycleNet/STD/CycleNet.sh": _std("CycleNet"),
        "scripts/CycleNet/STD/SparseTSF.sh": _std("SparseTSF"),
        "scripts/CycleNet/STD/Linear.sh": _std("Linear"),
        # a flag run.py does not define names nothing: "Mean" is no arm of this script
        "scripts/Other/etth1.sh": "python -u run.py --data_path ETTh1.csv --period_mean\n",
    }
    task = _task(
        "Does RCF outperform Sparse, from SparseTSF, as a decomposition on ETTh1?",
        {"std technique": ["CLinear (RCF+Linear)", "SLinear (Sparse+Linear)"]},
        {"dataset": "ETTh1"},
    )
    setup = recovered_setup(tmp_path / "sparse", files, task)
    usage = setup.usage_instructions
    # "Sparse" is the one word that tells SLinear from CLinear, and it starts SparseTSF.sh's
    # name; "Linear", which both have, picks no Linear.sh
    assert "Run SLinear (Sparse+Linear) on ETTh1: `bash scripts/CycleNet/STD/SparseTSF.sh`" in usage
    assert "Run CLinear (RCF+Linear) on ETTh1: `bash scripts/CycleNet/STD/CycleNet.sh`" in usage
    assert "STD/Linear.sh" not in usage and "no launch script" not in usage
    steps = "\n".join(setup.requirements)
    # the method is the authors' model, though the question names the baseline; the
    # baseline's model is cited too, by the method that does its work (not a forward that
    # only hands over to it)
    assert steps.index("models/CycleNet.py") < steps.index("models/SparseTSF.py")
    assert "Implement SparseTSF's Model.forecast (models/SparseTSF.py:10-51)" in steps

    mean = _task(
        "Does the mean of the branches forecast ETTh1 better than their concatenation?",
        {"aggregation": ["Concat", "Mean"]},
        {"dataset": "ETTh1"},
    )
    usage = recovered_setup(tmp_path / "mean", files, mean).usage_instructions
    assert "Run Mean on ETTh1: `bash scripts/Other/etth1.sh`" not in usage
    assert "Run Mean: no launch script" in usage


INFER = '''"""Segment a CT volume with text or point prompts and score it."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--use_text_prompt", action="store_true")
parser.add_argument("--use_point_prompt", action="store_true")
args = parser.parse_args()


def dice_score(pred, label):
    inter = (pred * label).sum()
    total = pred.sum() + label.sum() + 1
    return 2 * inter / total


def segment(model, volume, label, organ):
    text = organ if args.use_text_prompt else None
    points = None
    if args.use_point_prompt:
        points = [label.argmax()]
    pred = model(volume, text=text, points=points)
    organ_dice = dice_score(pred, label)
    print(f"{organ} done with dice {organ_dice:.4f}")
    return organ_dice


if __name__ == "__main__":
    segment(None, None, None, "liver")
'''


def test_a_switch_named_by_the_arm_and_its_kind_selects_it_and_its_paths_are_steps(
    tmp_path: Path,
) -> None:
    files = {"infer.py": INFER, "scripts/infer.sh": "python infer.py --use_text_prompt\n"}
    task = _task(
        "Does a text prompt segment organs more accurately than a point prompt?",
        {"prompt type": ["text", "point"]},
    )
    setup = recovered_setup(tmp_path / "seg", files, task)
    usage = setup.usage_instructions
    # "point" of "prompt type" is --use_point_prompt; its run turns the text switch the
    # script passes off
    assert "Run point: `python infer.py --use_point_prompt`" in usage
    assert "no launch script" not in usage
    steps = "\n".join(setup.requirements)
    # the text arm's path is a conditional expression, the point arm's an `if`: both, in
    # the order the code runs them
    assert steps.index(
        "Take the text path (prompt type) where args.use_text_prompt (infer.py:17)"
    ) < (
        steps.index(
            "Take the point path (prompt type) where args.use_point_prompt (infer.py:19-20)"
        )
    )
    # no definition is named after "accuracy": the function computing the printed value is
    assert "Compute dice_score as measured (infer.py:10-13)" in steps
    assert setup.requirements[-1].endswith("(infer.py:23)")


def _lookback(model_type: str, data: str, seq: int, note: str = "") -> str:
    return (
        f"{note}python -u run.py --data_path {data}.csv --model CycleNet "
        f"--model_type {model_type.lower()} --seq_len {seq}\n"
    )


def test_the_runs_of_one_task_share_one_setting_and_name_their_data(tmp_path: Path) -> None:
    files = {
        "run.py": LONG_RUN.replace(
            '"--model", default="CycleNet")',
            '"--model")\n'
            'parser.add_argument("--model_type", default="linear")\n'
            'parser.add_argument("--seq_len", type=int, default=96)',
        )
    }
    for model in ("Linear", "MLP"):
        for seq in (96, 336):
            # a remark the task's words match, on Linear's 96 scripts and MLP's 336 ones
            note = "# tuned backbone\n" if (model, seq) in {("Linear", 96), ("MLP", 336)} else ""
            for data in ("ETTh1", "traffic"):
                path = f"scripts/CycleNet/{model}-Input-{seq}/{data.lower()}.sh"
                files[path] = _lookback(model, data, seq, note)
    task = _task(
        "Does the tuned backbone matter for CycleNet on ETTh1 and Traffic?",
        {"backbone": ["Linear", "MLP"], "dataset": ["ETTh1", "Traffic"]},
    )
    usage = recovered_setup(tmp_path / "look", files, task).usage_instructions
    # the MLP runs follow the look-back the Linear runs were chosen with, not their own best
    # match: the arms are compared at one setting
    assert "Run Linear on ETTh1: `bash scripts/CycleNet/Linear-Input-96/etth1.sh`" in usage
    assert "Run MLP on ETTh1: `bash scripts/CycleNet/MLP-Input-96/etth1.sh`" in usage
    assert "Run MLP on Traffic: `bash scripts/CycleNet/MLP-Input-96/traffic.sh`" in usage
    assert "Input-336" not in usage


def test_a_path_naming_the_arm_and_a_text_holding_all_of_it_wins(tmp_path: Path) -> None:
    run = LONG_RUN.replace(
        'parser.add_argument("--model", default="CycleNet")',
        'parser.add_argument("--model", default="CycleNet")\n'
        'parser.add_argument("--seq_len", type=int, default=96)',
    )
    files = {
        "run.py": run,
        "scripts/PatchTST/etth1.sh": "python -u run.py --data_path ETTh1.csv --model PatchTST "
        "--seq_len 336\n",
        "scripts/PatchTST/illness.sh": "python -u run.py --data_path illness.csv --model PatchTST "
        "--seq_len 104\n",
        "scripts/CycleNet/etth1.sh": _std("CycleNet"),
    }
    task = _task(
        "Does CycleNet beat PatchTST(336) on ETTh1?",
        {"model": ["PatchTST(336)", "CycleNet"], "dataset": ["ETTh1"]},
    )
    usage = recovered_setup(tmp_path / "ptst", files, task).usage_instructions
    # both PatchTST scripts are named by the arm's short form; only one runs it at 336
    assert "`bash scripts/PatchTST/etth1.sh`" in usage and "illness" not in usage


CLIENT = '''"""Check an agent: it interacts with you in the terminal, as with an environment."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="configs/agents.yaml")
parser.add_argument("--agent", default="gpt")
args = parser.parse_args()

if __name__ == "__main__":
    while True:
        line = input("> ")
        print("agent:", line)
'''

OS_TASK = '''"""The OS interaction task: an agent thinks, then acts with bash, answer or finish."""

ONE_SHOT = "Think: count the files. Act: bash ls | wc -l"


class OSInteraction:
    """Runs the agent's bash commands in a container and checks its answer."""

    def __init__(self, container):
        self.container = container

    def step(self, action):
        if action.startswith("bash"):
            return self.container.run(action[4:])
        if action.startswith("answer"):
            return action[7:-1]
        return None
'''


def test_a_task_asking_how_to_build_something_ranks_the_module_that_does_it(
    tmp_path: Path,
) -> None:
    readme = (
        "# Agents\n\nCheck that an agent interacts with the environment:\n\n"
        "```bash\npython src/client/agent_test.py --agent gpt\n```\n"
    )
    files = {
        "README.md": readme,
        "src/client/agent_test.py": CLIENT,
        "src/tasks/os_interaction/task.py": OS_TASK,
    }
    build = _task(
        "How can you implement an agent that interacts with the OS environment to count files?",
        {},
    )
    setup = recovered_setup(tmp_path / "ab", files, build)
    # the documented client runs something; the task module is what the question is about
    assert setup.source[0] == "src/tasks/os_interaction/task.py"
    assert "src/client/agent_test.py" in setup.source + setup.candidates
    # and the plan to build it starts from the module's own class, not the client's loop
    assert (
        "1. Implement OSInteraction: runs the agent's bash commands in a container and checks "
        "its answer (as in src/tasks/os_interaction/task.py)." in setup.usage_instructions
    )


LOADERS = '''"""Data sets of the forecasting benchmarks."""


class Dataset_ETT_hour:
    """ETTh1 and ETTh2, split by months."""

    def __init__(self, root_path, data_path="ETTh1.csv"):
        self.root_path = root_path
        self.data_path = data_path
        self.__read_data__()

    def __read_data__(self):
        borders = [0, 12 * 30 * 24, 16 * 30 * 24]
        self.data = list(range(borders[-1]))


class Dataset_Custom:
    """Any other csv: electricity, traffic, weather, split 7:1:2."""

    def __init__(self, root_path, data_path="electricity.csv"):
        self.root_path = root_path
        self.data_path = data_path
        self.__read_data__()

    def __read_data__(self):
        num_train = int(100 * 0.7)
        num_test = int(100 * 0.2)
        self.data = list(range(num_train + num_test))
'''

FACTORY = '''"""Which loader reads which data set."""
from data_provider.data_loader import Dataset_Custom, Dataset_ETT_hour

data_dict = {"ETTh1": Dataset_ETT_hour, "ETTh2": Dataset_ETT_hour, "custom": Dataset_Custom}


def data_provider(args):
    return data_dict[args.data](args.root_path, args.data_path)
'''

FORECAST = '''"""Long-term forecasting."""
import argparse

from data_provider.data_factory import data_provider

parser = argparse.ArgumentParser()
parser.add_argument("--root_path", default="./dataset/")
parser.add_argument("--data_path", default="ETTh1.csv")
parser.add_argument("--data", default="ETTh1")
args = parser.parse_args()

if __name__ == "__main__":
    data = data_provider(args)
    print("mse {}".format(len(data.data)))
'''


def test_the_data_step_is_the_loader_the_runs_data_option_picks(tmp_path: Path) -> None:
    files = {
        "run.py": FORECAST,
        "data_provider/__init__.py": "",
        "data_provider/data_loader.py": LOADERS,
        "data_provider/data_factory.py": FACTORY,
        "scripts/electricity.sh": (
            "python -u run.py --root_path ./dataset/ --data_path electricity.csv --data custom\n"
        ),
    }
    task = _task(
        "How low is the forecasting MSE on the Electricity data set?",
        {},
        {"dataset": "Electricity"},
    )
    steps = "\n".join(recovered_setup(tmp_path / "fc", files, task).requirements)
    # `--data custom` is Dataset_Custom in the registry, whatever the ETT loader's name says
    assert (
        "Load and split the Electricity data (Dataset_Custom) (data_provider/data_loader.py:17-28)"
        in steps
    )
    assert "Dataset_ETT_hour" not in steps


def test_the_data_step_names_the_sets_its_loader_loads_and_where_the_others_do(
    tmp_path: Path,
) -> None:
    """ETTh1 and ETTh2 load through Dataset_ETT_hour, ETTm1 through another loader of the
    registry: the step citing the first names its own sets and says where the other loads."""
    factory = FACTORY.replace(
        '"custom": Dataset_Custom}', '"custom": Dataset_Custom, "ETTm1": Dataset_Custom}'
    )
    one = "python -u run.py --root_path ./dataset/ --data_path {0}.csv --data {0}\n"
    files = {
        "run.py": FORECAST,
        "data_provider/__init__.py": "",
        "data_provider/data_loader.py": LOADERS,
        "data_provider/data_factory.py": factory,
        "scripts/etth1.sh": one.format("ETTh1"),
        "scripts/etth2.sh": one.format("ETTh2"),
        "scripts/ettm1.sh": one.format("ETTm1"),
    }
    task = _task(
        "How low is the forecasting MSE on the ETT data sets?",
        {"dataset": ["ETTh1", "ETTh2", "ETTm1"]},
    )
    steps = "\n".join(recovered_setup(tmp_path / "ett", files, task).requirements)
    assert (
        "Load and split the ETTh1, ETTh2 data (Dataset_ETT_hour; ETTm1 loads through "
        "Dataset_Custom) (data_provider/data_loader.py:"
    ) in steps, steps


def test_a_data_set_no_registry_key_names_loads_as_its_runs_value_says(tmp_path: Path) -> None:
    """Electricity's run passes `--data custom`, which the registry maps to Dataset_Custom;
    Traffic and Weather have no run of their own and no key either, so they load as the
    other sets without a key do: the step citing the ETTh loader names ETTh1 alone."""
    files = {
        "run.py": FORECAST,
        "data_provider/__init__.py": "",
        "data_provider/data_loader.py": LOADERS,
        "data_provider/data_factory.py": FACTORY,
        "scripts/etth1.sh": (
            "python -u run.py --root_path ./dataset/ --data_path ETTh1.csv --data ETTh1\n"
        ),
        "scripts/electricity.sh": (
            "python -u run.py --root_path ./dataset/ --data_path electricity.csv --data custom\n"
        ),
    }
    task = _task(
        "How low is the forecasting MSE on ETTh1, Electricity, Traffic and Weather?",
        {"dataset": ["ETTh1", "Electricity", "Traffic", "Weather"]},
    )
    steps = "\n".join(recovered_setup(tmp_path / "ecl", files, task).requirements)
    assert (
        "Load and split the ETTh1 data (Dataset_ETT_hour; Electricity, Traffic, Weather load "
        "through Dataset_Custom) (data_provider/data_loader.py:"
    ) in steps, steps


def test_a_registered_loader_is_the_data_step_whatever_its_name_says(tmp_path: Path) -> None:
    """`"UEA": ArchiveSeries` in the registry: the class names no data word, yet `--data UEA`
    loads through it, so it is the data step, not the ETT loader that names data."""
    archive = (
        "\n\nclass ArchiveSeries:\n"
        '    """Series of the classification archive, one label each."""\n\n'
        "    def __init__(self, root_path, data_path=None):\n"
        "        self.root_path = root_path\n"
        "        self.data = [root_path] * 3\n"
        "        self.labels = [0, 1, 0]\n"
    )
    factory = FACTORY.replace("Dataset_Custom, Dataset_ETT_hour", "ArchiveSeries, Dataset_ETT_hour")
    factory = factory.replace('"custom": Dataset_Custom', '"UEA": ArchiveSeries')
    files = {
        "run.py": FORECAST.replace("Long-term forecasting.", "Series classification: accuracy."),
        "data_provider/__init__.py": "",
        "data_provider/data_loader.py": LOADERS + archive,
        "data_provider/data_factory.py": factory,
        "scripts/classify.sh": "python -u run.py --root_path ./dataset/Heart/ --data UEA\n",
    }
    task = _task(
        "What accuracy does series classification reach on the Heart data set?",
        {},
        {"dataset": "Heart"},
    )
    steps = "\n".join(recovered_setup(tmp_path / "cl", files, task).requirements)
    assert "Load the Heart data (ArchiveSeries)" in steps, steps
    assert "Dataset_ETT_hour" not in steps, steps


def test_the_data_step_follows_the_runs_on_the_data_the_task_names(tmp_path: Path) -> None:
    """Two runs pass `--data ETTh1` (baselines whose only scripts run other data, re-pointed
    by the usage) and one `--data ETTm1`, the data set the task names: the data step is
    ETTm1's loader. A record of results, whose name says data set but which reads nothing,
    and a writer of data sets are never the data step."""
    from repo_fixture import committed_index

    from extractors.agent.data_steps import DataSteps
    from extractors.agent.run import Run
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    minute = (
        "\n\nclass Dataset_ETT_minute:\n"
        '    """ETTm1 and ETTm2, by the quarter hour."""\n\n'
        "    def __init__(self, root_path, data_path='ETTm1.csv'):\n"
        "        self.root_path = root_path\n"
        "        self.__read_data__()\n\n"
        "    def __read_data__(self):\n"
        "        self.data = list(range(4 * 12 * 30 * 24))\n"
    )
    records = (
        '"""What an evaluation keeps."""\n'
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\n"
        "class DatasetEval:\n"
        "    split_name: str\n"
        "    score: float\n"
        "    correct: int\n"
        "    total: int\n\n\n"
        "def save_dataset_scores(dataset, file_name):\n"
        "    with open(file_name, 'w') as f:\n"
        "        for d in dataset:\n"
        "            f.write(str(d))\n"
    )
    factory = FACTORY.replace(
        "Dataset_Custom, Dataset_ETT_hour", "Dataset_Custom, Dataset_ETT_hour, Dataset_ETT_minute"
    ).replace('"custom": Dataset_Custom', '"ETTm1": Dataset_ETT_minute')
    files = {
        "run.py": FORECAST,
        "data_provider/__init__.py": "",
        "data_provider/data_loader.py": LOADERS + minute,
        "data_provider/data_factory.py": factory,
        "data_provider/records.py": records,
    }
    root = tmp_path / "m"
    index = committed_index(root, files)
    tracer = StepTracer(index, RepoSearch(root, index))
    runs = [
        Run("python run.py --data ETTh1 --model ETSformer"),
        Run("python run.py --data ETTh1 --model LightTS"),
        Run("python run.py --data ETTm1 --model TimesNet"),
    ]
    task = _task("How low is the MSE on ETTm1?", {}, {"dataset": "ETTm1"})
    modules = [
        "data_provider/data_loader.py",
        "data_provider/data_factory.py",
        "data_provider/records.py",
    ]
    step = DataSteps(index, tracer).loader(task, modules, runs)
    assert step is not None and "(Dataset_ETT_minute)" in step.action, step
    # with no run on the task's data set, the runs' own data decide
    step = DataSteps(index, tracer).loader(task, modules, runs[:2])
    assert step is not None and "Dataset_ETT_hour" in step.action, step
    task = _task("How accurate is the evaluation?", {}, {})
    step = DataSteps(index, tracer).loader(task, ["data_provider/records.py"], [])
    assert step is None, step


EXPERIMENT = '''"""One multi-agent experiment: collect, train, evaluate."""


class ExperimentConfig:
    def __init__(self, frames):
        self.frames = frames

    def validate(self):
        if self.frames <= 0:
            raise ValueError("frames must be positive")
        return self


class Experiment:
    def __init__(self, config):
        self.config = config.validate()
        self.returns = []

    def run(self):
        for frame in range(self.config.frames):
            self.returns.append(frame * 0.5)
            if frame % 10 == 0:
                self._evaluation_loop()

    def _evaluation_loop(self):
        mean_return = sum(self.returns) / max(len(self.returns), 1)
        best = max(self.returns, default=0.0)
        self.last = (mean_return, best)
        print(f"mean return {mean_return:.3f}")
        return mean_return

    def evaluate(self):
        """Run just the evaluation loop once."""
        self.returns = [0.0]
        self._evaluation_loop()
        return self.returns
'''

MARL = '''"""Run one experiment."""
import argparse

from experiment import Experiment, ExperimentConfig

parser = argparse.ArgumentParser()
parser.add_argument("--frames", type=int, default=100)
args = parser.parse_args()

if __name__ == "__main__":
    Experiment(ExperimentConfig(args.frames)).run()
'''


def test_the_evaluation_step_is_the_one_the_run_calls(tmp_path: Path) -> None:
    files = {"run.py": MARL, "experiment.py": EXPERIMENT}
    task = TaskDraft(
        key="t",
        question="Is the mean return of the Experiment higher with more frames?",
        method="Run the Experiment for more frames; collect, train and evaluate the mean return.",
        expected_outcome="The mean return is higher with more frames.",
    )
    steps = "\n".join(recovered_setup(tmp_path / "marl", files, task).requirements)
    # `evaluate` is never called by the run, and a config's `validate` evaluates nothing
    assert cites(steps, "Evaluate (Experiment._evaluation_loop)", "experiment.py:25-30"), steps
    assert "Experiment.evaluate" not in steps and "ExperimentConfig.validate" not in steps


CLASSIFY = '''"""Train an image classifier on ImageNet."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="net_tiny", help="net_tiny, net_small or net_base")
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--drop_path", type=float, default=0.0)
args = parser.parse_args()


def accuracy(pred, gold):
    return float(pred == gold)


if __name__ == "__main__":
    print("top-1 accuracy {:.2f}".format(accuracy(1, 1)))
'''

RECIPES = """# Training

Train the tiny model:

```bash
python train.py --model net_tiny --lr 1e-3 --drop_path 0.1
```

Train the small model:

```bash
python train.py --model net_small --lr 2e-3 --drop_path 0.2
```
"""


def test_an_option_arm_runs_the_authors_documented_recipe(tmp_path: Path) -> None:
    files = {"train.py": CLASSIFY, "README.md": RECIPES}
    task = _task(
        "Does a larger model reach a higher top-1 accuracy on ImageNet?",
        {"model size": ["net_tiny", "net_small", "net_base"]},
    )
    usage = recovered_setup(tmp_path / "cls", files, task).usage_instructions
    # each model's own recipe where the README has one, else the first with the model swapped
    assert "Run net_small: `python train.py --model net_small --lr 2e-3 --drop_path 0.2`" in usage
    assert "Run net_tiny: `python train.py --model net_tiny --lr 1e-3 --drop_path 0.1`" in usage
    assert "Run net_base: `python train.py --model net_base --lr 1e-3 --drop_path 0.1`" in usage


SEGMENT = '''"""Segment one CT volume and report its Dice score."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--volume", default="ct.nii")
args = parser.parse_args()


def dice(pred, gold):
    return 2 * pred * gold / (pred + gold)


if __name__ == "__main__":
    for organ in ["liver", "kidney"]:
        print(f"inference |{organ}| target...")
        # print(f"cached dice {organ}")
        score = dice(1.0, 1.0)
        print(f"{organ} result with Dice score {score:.4f}")
'''


def test_the_report_step_prints_the_measured_metric_not_a_word_of_it(tmp_path: Path) -> None:
    task = TaskDraft(
        key="t",
        question="What Dice score does the CT volume segmentation reach, and how long is inference?",
        method="Segment the CT volume and report the Dice score and the inference time.",
        expected_outcome="A Dice score above 0.9.",
        design_complexity=DesignComplexity(
            dependent_variables={"metrics": ["Dice score", "inference time"]}
        ),
    )
    setup = recovered_setup(tmp_path / "seg", {"segment.py": SEGMENT}, task)
    # "inference" alone is not "inference time"; a comment prints nothing
    assert setup.requirements[-1].endswith("(segment.py:18)")


RETURNS = '''"""Train an agent and log the mean return it reaches on the task."""
import json


class Writer:
    def write(self, metrics, step):
        json.dump({"step": step, **metrics}, open("results.json", "a"))


class Experiment:
    def __init__(self, config):
        self.config = config
        self.writer = Writer()

    def evaluate(self, policy):
        returns = [policy(s) for s in range(10)]
        mean_return = sum(returns) / len(returns)
        print(f"mean return logged to {self.config.loggers} in {self.config.folder}")
        self.writer.write(metrics={"return": mean_return}, step=mean_return)
        return mean_return


if __name__ == "__main__":
    Experiment({"loggers": [], "folder": "."}).evaluate(lambda s: s)
'''


def test_the_report_step_is_a_value_measured_not_a_setting_printed(tmp_path: Path) -> None:
    task = _task("What mean return does the agent reach?", {})
    task.design_complexity.dependent_variables = {"return": ["mean return"]}
    setup = recovered_setup(tmp_path / "rl", {"train.py": RETURNS}, task)
    # "mean return logged to {self.config.loggers}" names the metric and interpolates, but only
    # settings; the writer's call passes the measured value by keyword
    assert setup.requirements[-1].endswith("(train.py:19)"), setup.requirements


def test_rival_programs_run_on_the_same_setting(tmp_path: Path) -> None:
    dspy = DSPY.replace('default="sports_understanding"', 'default="date_understanding"')
    files = {"bbh/run_bbh_dspy.py": dspy, "bbh/run_bbh_trace.py": TRACE}
    task = _task(
        "Does Trace beat DSPy's COPRO on Big-Bench Hard accuracy?",
        {
            "optimization framework": [
                "DSPy's COPRO (optimizes only the meta-prompt of the program)",
                "Trace (optimizes both prompt and functions of the program)",
            ]
        },
    )
    usage = recovered_setup(tmp_path / "bbh", files, task).usage_instructions
    # the two scripts default to different BBH tasks: the comparison runs both on one
    assert "Run Trace: `python bbh/run_bbh_trace.py`." in usage
    assert (
        "Run DSPy's COPRO: `python bbh/run_bbh_dspy.py --copro --task sports_understanding`"
        in usage
    )


TOOLS = '''"""Plots and metrics."""


def visual(true, preds, name="./pic/test.pdf"):
    """Draw the prediction against the ground truth."""
    import matplotlib.pyplot as plt

    plt.plot(true)
    plt.plot(preds)
    plt.savefig(name)


def MSE(pred, true):
    return ((pred - true) ** 2).mean()
'''


def test_what_is_looked_at_has_no_metric_step_and_tasks_are_not_the_methods(
    tmp_path: Path,
) -> None:
    run = LONG_RUN.replace(
        "def metric(pred, true):",
        "from utils.tools import MSE, visual\n\n\ndef metric(pred, true):",
    )
    files = {
        "run.py": run,
        "utils/__init__.py": "",
        "utils/tools.py": TOOLS,
        "scripts/CycleNet/etth1.sh": _std("CycleNet"),
        "scripts/DLinear/etth1.sh": _std("DLinear"),
    }
    task = TaskDraft(
        key="t",
        question="Does CycleNet beat DLinear in MSE on the long-term forecasting task ETTh1?",
        method="Run CycleNet and DLinear on ETTh1, report the MSE and plot the predictions.",
        expected_outcome="CycleNet has the lower MSE.",
        design_complexity=DesignComplexity(
            independent_variables={"model": ["CycleNet", "DLinear"], "task": ["ETTh1 forecasting"]},
            dependent_variables={"metrics": ["MSE", "visualizations"]},
        ),
    )
    steps = recovered_setup(tmp_path / "fc", files, task).requirements
    text = "\n".join(steps)
    assert "Compute MSE as measured (utils/tools.py:" in text and "Compute visual" not in text
    # "visualizations" names no measure a report line can be checked for: nothing is said
    assert "compare CycleNet and DLinear across them (" in steps[-1]
    assert "ETTh1 forecasting" not in steps[-1]


BENCH = '''"""Benchmark patch encoders on gene expression prediction."""
import argparse

import yaml

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="bench_config/bench_config.yaml")
args = parser.parse_args()


def pearson(pred, gold):
    return float(pred == gold)


if __name__ == "__main__":
    config = yaml.safe_load(open(args.config))
    for encoder in config["encoders"]:
        print(f"{encoder} pearson {pearson(1, 1):.3f}")
'''

BENCH_CONFIG = """# encoders to benchmark
encoders: [
  "kimianet",
  "resnet50_trunc",
  "ctranspath",
]
batch_size: 128
"""


def test_an_arm_a_config_lists_runs_with_the_list_cut_to_it(tmp_path: Path) -> None:
    files = {
        "bench/run_bench.py": BENCH,
        "bench_config/bench_config.yaml": BENCH_CONFIG,
        "README.md": "```bash\npython bench/run_bench.py --config bench_config/bench_config.yaml\n```\n",
    }
    task = _task(
        "Which patch encoder predicts gene expression best, by Pearson correlation?",
        {"encoder model": ["ResNet50", "CTransPath", "MyEncoder"]},
    )
    usage = recovered_setup(tmp_path / "hest", files, task).usage_instructions
    assert (
        "Run ResNet50: `python bench/run_bench.py --config bench_config/bench_config.yaml` "
        "(set encoders in bench_config/bench_config.yaml to [resnet50_trunc] first)." in usage
    )
    assert "set encoders in bench_config/bench_config.yaml to [ctranspath] first" in usage
    assert "Run MyEncoder: no code of the repository is its own" in usage, usage


SUITE = '''"""Big-Bench Hard, one task or a range of them."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--task", default="sports_understanding")
parser.add_argument("--task_start", type=int, default=-1)
parser.add_argument("--task_end", type=int, default=-1)
parser.add_argument("--copro", action="store_true")
args = parser.parse_args()


def accuracy(pred, gold):
    return float(pred == gold)


tasks = ["sports_understanding", "word_sorting",
         "date_understanding", "navigate"]
run_tasks = tasks[args.task_start:args.task_end] if args.task_start != -1 else [args.task]
for task in run_tasks:
    print("accuracy", accuracy(1, 1))
'''


def test_a_question_over_several_of_a_programs_listed_items_runs_them_all(
    tmp_path: Path,
) -> None:
    files = {"bbh/run_bbh_dspy.py": SUITE, "bbh/run_bbh_trace.py": TRACE}
    arms = {"framework": ["DSPy's COPRO (only the meta-prompt)", "Trace (prompts and code)"]}
    task = _task("Does Trace beat DSPy's COPRO on the 3 algorithmic tasks of BBH?", arms)
    setup = recovered_setup(tmp_path / "several", files, task)
    # the bare command runs one task: the question is about several, so the whole list
    assert (
        "`python bbh/run_bbh_dspy.py --copro --task_start 0 --task_end 4`"
        in setup.usage_instructions
    ), setup.usage_instructions
    assert any(
        r.startswith("Step ") and "all 4 items of `tasks`" in r and "run_bbh_dspy.py:16-17" in r
        for r in setup.requirements
    ), setup.requirements
    # a question about one task leaves the program's own default alone
    one = _task("Does Trace beat DSPy's COPRO on the word sorting task of BBH?", arms)
    usage = recovered_setup(tmp_path / "one", files, one).usage_instructions
    assert "--task_start" not in usage and "--copro" in usage, usage
    # the benchmark the program is named after, whole: the Big-Bench Hard dataset is `bbh`
    whole = _task("Does Trace beat DSPy's COPRO on the Big-Bench Hard dataset?", arms)
    usage = recovered_setup(tmp_path / "whole", files, whole).usage_instructions
    assert "--copro --task_start 0 --task_end 4" in usage, usage
    other = _task("Does Trace beat DSPy's COPRO on the GSM Eight dataset?", arms)
    usage = recovered_setup(tmp_path / "other", files, other).usage_instructions
    assert "--task_start" not in usage, usage


def _optimizer_program(kind: str) -> str:
    return f'''"""{kind} optimization with an LLM optimizer."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--algo", default="textgrad")
args = parser.parse_args()


def score(answer):
    return float(answer == "ok")


if args.algo == "trace":
    optimizer = "OptoPrime"
elif args.algo == "textgrad":
    optimizer = "TextGrad"
print("score", score("ok"))
'''


def test_programs_of_one_variable_run_every_option_value_of_another(tmp_path: Path) -> None:
    files = {
        "evals/prompt_optimization.py": _optimizer_program("Prompt"),
        "evals/solution_optimization.py": _optimizer_program("Solution"),
    }
    task = _task(
        "Does Trace optimize faster than TextGrad on solution and prompt optimization?",
        {
            "optimization task": ["Solution Optimization", "Prompt Optimization"],
            "optimizer": ["Trace", "TextGrad"],
        },
    )
    usage = recovered_setup(tmp_path / "opt", files, task).usage_instructions
    # each program runs each optimizer: four runs, not each arm once on the other's default
    for program in ("prompt", "solution"):
        for algo in ("trace", "textgrad"):
            assert f"`python evals/{program}_optimization.py --algo {algo}`." in usage, usage
    assert "`python evals/solution_optimization.py`." not in usage


def _dispatching_program(kind: str, guard: str) -> str:
    return f'''"""{kind} optimization with an LLM optimizer."""
import argparse

from optimizers import OptoPrime, TextGrad

parser = argparse.ArgumentParser()
parser.add_argument("--algo", default="textgrad")
args = parser.parse_args()
{guard}

def score(answer):
    return float(answer == "ok")


if args.algo == "textgrad":
    optimizer = TextGrad()
else:
    optimizer = OptoPrime()
print("score", score(optimizer.step()))
'''


def test_an_arm_made_in_an_options_else_runs_with_a_value_no_test_takes(tmp_path: Path) -> None:
    """`else: OptoPrime()` after `if args.algo == "textgrad"`: OptoPrime runs with any other
    value, said as such; a program holding --algo to a list by an `assert` does not take it,
    so OptoPrime is not run there with a value it refuses."""
    optimizers = (
        "class TextGrad:\n    def step(self):\n        return 'ok'\n\n\n"
        "class OptoPrime:\n    def step(self):\n        return 'ok'\n"
    )
    files = {
        "optimizers.py": optimizers,
        "evals/prompt_optimization.py": _dispatching_program("Prompt", ""),
        "evals/solution_optimization.py": _dispatching_program(
            "Solution", 'assert args.algo in ["textgrad", "trace"]\n'
        ),
    }
    task = _task(
        "Does OptoPrime optimize faster than TextGrad on solution and prompt optimization?",
        {
            "optimization task": ["Solution Optimization", "Prompt Optimization"],
            "optimizer": ["OptoPrime", "TextGrad"],
        },
    )
    usage = recovered_setup(tmp_path / "else", files, task).usage_instructions
    assert (
        "Run Prompt Optimization, OptoPrime: `python evals/prompt_optimization.py --algo "
        "optoprime` (any --algo but textgrad takes the `else` that makes OptoPrime, at "
        "evals/prompt_optimization.py:18)"
    ) in usage, usage
    assert "solution_optimization.py --algo optoprime" not in usage, usage
    assert "`python evals/solution_optimization.py --algo textgrad`" in usage, usage


TEST_PC = '''"""Tests of the Peter-Clark (PC) search: it recovers the causal graph."""
import unittest


class TestPC(unittest.TestCase):
    def test_pc_on_bundled_data(self):
        graph = pc_search([[0.1, 0.2], [0.3, 0.4]], alpha=0.05)
        self.assertTrue(graph)
'''


def test_arms_named_by_test_modules_run_them_through_pytest(tmp_path: Path) -> None:
    files = {
        "tests/TestPC.py": TEST_PC,
        "tests/TestFCI.py": TEST_PC.replace("PC", "FCI").replace("pc_search", "fci_search"),
        "tests/TestGraphUtils.py": TEST_PC.replace("PC", "GraphUtils"),
    }
    task = _task(
        "Does FCI recover the causal graph as well as the PC algorithm on the bundled data?",
        {"causal discovery algorithm": ["FCI", "Peter-Clark (PC) algorithm"]},
    )
    usage = recovered_setup(tmp_path / "causal", files, task).usage_instructions
    assert "Run FCI: `python -m pytest tests/TestFCI.py`." in usage, usage
    assert "Run Peter-Clark (PC) algorithm: `python -m pytest tests/TestPC.py`." in usage
    assert "TestGraphUtils" not in usage


def test_a_component_switched_off_runs_each_backbone_by_itself(tmp_path: Path) -> None:
    run = LONG_RUN.replace(
        'parser.add_argument("--model", default="CycleNet")',
        'parser.add_argument("--model", default="CycleNet")\n'
        'parser.add_argument("--model_type", default="linear")',
    )
    backbone = (
        "python -u run.py --data_path ETTh1.csv --model CycleNet --model_type {kind} "
        "--pred_len $pred_len\n"
    )
    sweep = "for pred_len in 96 336\ndo\n    {line}done\n"
    files = {
        "run.py": run,
        "models/CycleNet.py": _handing_over("cycle", 10),
        "models/Linear.py": _handing_over("forecast", 5),
        "models/RMLP.py": _handing_over("forecast", 5),
        "scripts/CycleNet/Linear/etth1.sh": sweep.format(line=backbone.format(kind="linear")),
        "scripts/CycleNet/MLP/etth1.sh": sweep.format(line=backbone.format(kind="mlp")),
        "scripts/CycleNet/STD/CycleNet.sh": _std("CycleNet"),
    }
    task = _task(
        "Does RCF improve the Linear and MLP backbones on ETTh1 over the same backbones alone?",
        {"backbone": ["Linear", "MLP"], "RCF module": ["with_RCF", "without_RCF"]},
        {"dataset": "ETTh1"},
    )
    setup = recovered_setup(tmp_path / "rcf", files, task)
    usage = setup.usage_instructions
    # the authors' scripts train CycleNet with each backbone: those runs are "with"
    assert "Run Linear, with_RCF on ETTh1: `bash scripts/CycleNet/Linear/etth1.sh`" in usage
    # "without" is each backbone's own model, with the same settings, over the same sweep
    assert (
        "Run Linear, without_RCF on ETTh1: `python -u run.py --data_path ETTh1.csv --model "
        "Linear --model_type linear --pred_len 96` (Linear without CycleNet's addition: its "
        "own model, Linear, with scripts/CycleNet/Linear/etth1.sh's settings, once per value "
        "its script sweeps (--pred_len {96,336}))" in usage
    ), usage
    assert "--model RMLP --model_type mlp" in usage
    assert "no launch script" not in usage
    assert any("(models/RMLP.py:" in r for r in setup.requirements), setup.requirements


def test_an_arms_own_parameters_are_set_on_its_scripts_command(tmp_path: Path) -> None:
    run = LONG_RUN.replace(
        'parser.add_argument("--model", default="CycleNet")',
        'parser.add_argument("--model", default="PatchTST")\n'
        'parser.add_argument("--patch_len", type=int, nargs="+", default=[16])\n'
        'parser.add_argument("--stride", type=int, nargs="+", default=None)\n'
        'parser.add_argument("--pred_len", type=int, default=96)',
    )
    script = (
        "for pred_len in 96 336\ndo\n"
        "  python -u run.py --data_path ETTh1.csv --model PatchTST --persevere 96 "
        "--patch_len 1 24 --stride 1 --pred_len $pred_len\n"
        "done\n"
    )
    files = {"run.py": run, "scripts/PatchTST/etth1.sh": script}
    task = _task(
        "Do longer patches help PatchTST on ETTh1?",
        {
            "model configuration": [
                "PatchTST(336) with standard patching (parameters: patch_len=16, stride=8)",
                "PatchTST(336)* with longer patches (parameters: patch_len=64, stride=14)",
            ]
        },
        {"dataset": "ETTh1"},
    )
    usage = recovered_setup(tmp_path / "patch", files, task).usage_instructions
    # two runs, not one script run for both: each arm's parameters replace the script's own
    # (list values too), and the flag run.py does not define is dropped
    for name, patch, stride in (("PatchTST(336)", 64 // 4, 8), ("PatchTST(336)*", 64, 14)):
        assert (
            f"Run {name} on ETTh1: `python -u run.py --data_path ETTh1.csv --model PatchTST "
            f"--pred_len 96 --patch_len {patch} --stride {stride}` (the arm's own "
            f"patch_len={patch}, stride={stride}, set on the script's command, once per value "
            "its script sweeps (--pred_len {96,336}))" in usage
        ), usage
    assert "--persevere" not in usage
    # a script passing the arm's own parameters already, and no flag its program rejects,
    # runs as it is (each of its blocks with its own settings)
    files["scripts/PatchTST/etth1.sh"] = script.replace(" --persevere 96", "").replace(
        "--patch_len 1 24 --stride 1", "--patch_len 16 --stride 8"
    )
    usage = recovered_setup(tmp_path / "same", files, task).usage_instructions
    assert "Run PatchTST(336) on ETTh1: `bash scripts/PatchTST/etth1.sh`" in usage, usage
    assert "--patch_len 64 --stride 14` (the arm's own patch_len=64, stride=14" in usage, usage


KINDS_RUN = """import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--task_name", default="forecast")
    parser.add_argument("--model", choices=["Gate", "Mixer"], default="Gate")
    parser.add_argument("--mask_rate", type=float, default=0.0)
    args = parser.parse_args()
    print("mse", args.model, args.task_name)
"""


def _imputation_task(arms: list[str]) -> TaskDraft:
    rivals = " and ".join(arms[1:])
    return TaskDraft(
        key="table-4:compare",
        question=f"How does {arms[0]} compare with {rivals} on MSE in Table 4 (Imputation task)?",
        method=f"Train {', '.join(arms)}.",
        expected_outcome=f"{arms[0]} wins.",
        design_complexity=DesignComplexity(
            independent_variables={"method": arms},
            dependent_variables={"metrics": ["MSE"]},
        ),
    )


def test_the_kind_of_experiment_the_question_names_chooses_the_scripts_folder(
    tmp_path: Path,
) -> None:
    """The scripts are foldered by kind of experiment; the question asks about imputation:
    Gate runs its imputation script, and Mixer, which has a forecasting script only, runs
    the imputation script's command with its own model."""
    files = {
        "run.py": KINDS_RUN,
        "scripts/imputation/Gate.sh": "python run.py --task_name imputation --mask_rate 0.125 --model Gate\n",
        "scripts/forecast/Gate.sh": (
            "# Gate compared with Mixer: reports the MSE of Table 4\n"
            "python run.py --task_name forecast --model Gate\n"
        ),
        "scripts/forecast/Mixer.sh": "python run.py --task_name forecast --model Mixer\n",
    }
    task = _imputation_task(["Gate", "Mixer"])
    usage = recovered_setup(tmp_path / "k", files, task).usage_instructions
    assert "Run Gate: `bash scripts/imputation/Gate.sh`" in usage, usage
    assert "scripts/forecast" not in usage, usage
    mixer = next(line for line in usage.splitlines() if "Run Mixer" in line)
    assert "--task_name imputation --mask_rate 0.125 --model Mixer" in mixer, mixer


def test_an_arm_only_another_kinds_script_names_is_left_to_write_with_that_script_said(
    tmp_path: Path,
) -> None:
    """Only a forecasting script names "Recurrent" (it passes `--cell recurrent` to run.py,
    whose model option has no such value): run for an imputation table it would run another
    experiment, so the arm is left to write, and the usage says which script named it."""
    program = KINDS_RUN.replace(
        'parser.add_argument("--mask_rate"',
        'parser.add_argument("--cell")\n    parser.add_argument("--mask_rate"',
    )
    files = {
        "run.py": program,
        "scripts/imputation/Gate.sh": "python run.py --task_name imputation --model Gate\n",
        "scripts/forecast/Mixer.sh": (
            "python run.py --task_name forecast --model Mixer --cell recurrent\n"
        ),
    }
    task = _imputation_task(["Gate", "Recurrent"])
    usage = recovered_setup(tmp_path / "o", files, task).usage_instructions
    assert "scripts/forecast/Mixer.sh`" not in usage, usage
    line = next(x for x in usage.splitlines() if "Run Recurrent" in x)
    assert "no launch script, option or in-code switch" in line, line
    assert "scripts/forecast/Mixer.sh names it but runs no imputation experiment" in line, line
    assert "Run Gate: `bash scripts/imputation/Gate.sh`" in usage, usage


def test_a_method_the_repository_names_nowhere_is_said_to_be_another_works(
    tmp_path: Path,
) -> None:
    """Zephyr is named nowhere in the repository: another work's method, whose numbers the
    paper takes from the work it cites. "Mix", the start of a script's name (Mixer.sh), and
    an ablation of the authors' method are not."""
    files = {
        "run.py": KINDS_RUN,
        "scripts/imputation/Gate.sh": "python run.py --task_name imputation --model Gate\n",
        "scripts/forecast/Mixer.sh": "python run.py --task_name forecast --model Mixer\n",
    }
    task = _imputation_task(["Gate", "Zephyr", "Mix", "w/o Warp"])
    usage = recovered_setup(tmp_path / "z", files, task).usage_instructions
    zephyr = next(x for x in usage.splitlines() if "Run Zephyr" in x)
    assert "no code of the repository is its own, so it is another work's method" in zephyr, zephyr
    for other in ("Run Mix", "Run w/o Warp"):
        line = next(x for x in usage.splitlines() if other in x)
        assert "another work's" not in line, line


def test_a_method_named_only_in_prose_is_another_works_one_a_string_of_code_holds_is_not(
    tmp_path: Path,
) -> None:
    """Zephyr is in the README's results table and a comment ("as Zephyr does"), Breeze in a
    string the code uses (a table of names): Zephyr is another work's, whose code the
    release lacks; Breeze is the repository's to run."""
    run = KINDS_RUN + (
        "\n\ndef split(samples):\n    return samples[:10]  # as Zephyr does\n\n\n"
        'NAMES = {"breeze": "Breeze"}\n'
    )
    files = {
        "run.py": run,
        "scripts/imputation/Gate.sh": "python run.py --task_name imputation --model Gate\n",
        "README.md": "# Gate\n\n| method | MSE |\n|---|---|\n| Gate | 0.1 |\n| Zephyr | 0.2 |\n",
    }
    task = _imputation_task(["Gate", "Zephyr", "Breeze"])
    lines = recovered_setup(tmp_path / "p", files, task).usage_instructions.splitlines()
    zephyr = next(x for x in lines if "Run Zephyr" in x)
    assert "no code of the repository is its own, so it is another work's method" in zephyr, zephyr
    breeze = next(x for x in lines if "Breeze" in x and x[:1].isdigit() and "Run" in x)
    assert "another work's" not in breeze, breeze


def test_code_is_names_and_strings_never_documentation_or_comments() -> None:
    from extractors.repo.search import code_text

    source = (
        '"""Module docstring: Gate."""\nimport os\n\n\ndef f(x):\n'
        "    y = {'ace': 1}  # GEPA's table\n    return y\n"
    )
    code = code_text("utils/helpers.py", source)
    assert "ace" in code and "def" in code and "Gate" in code
    assert "GEPA" not in code
    assert code_text("README.md", "GEPA beats ACE") == ""
    assert code_text("run.sh", "python run.py --method ace  # not gepa\n").split() == [
        "python",
        "run.py",
        "--method",
        "ace",
    ]


def test_a_model_the_repository_has_a_module_of_runs_through_the_model_option(
    tmp_path: Path,
) -> None:
    """ "Tiny" has no script, but models/Tiny.py is a model `--model` can load; "Huge" has
    neither, and a parser declaring its choices refuses what it does not list."""
    program = KINDS_RUN.replace('choices=["Gate", "Mixer"], ', "")
    files = {
        "run.py": program,
        "models/__init__.py": "",
        "models/Tiny.py": "class Model:\n    def forward(self, x):\n        return x\n",
        "scripts/imputation/Gate.sh": "python run.py --task_name imputation --model Gate\n",
    }
    task = _imputation_task(["Gate", "Tiny", "Huge"])
    usage = recovered_setup(tmp_path / "m", files, task).usage_instructions
    tiny = next(line for line in usage.splitlines() if "Run Tiny" in line)
    assert "--task_name imputation --model Tiny" in tiny, usage
    assert "Run Huge: no code of the repository is its own" in usage, usage
    refused = recovered_setup(tmp_path / "r", {**files, "run.py": KINDS_RUN}, task)
    assert "Run Tiny: no launch script" in refused.usage_instructions, refused.usage_instructions


def test_a_launch_script_reading_its_arguments_runs_as_the_readme_writes_it(
    tmp_path: Path,
) -> None:
    """`tools/dist_train.sh` reads CONFIG=$1 and GPUS=$2: run bare it trains nothing, so the
    default run is the README's `./tools/dist_train.sh /path/to/config 8`."""
    train = (
        "import argparse\n\n\ndef segment(cfg):\n    print('segformer miou', cfg)\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('config')\n    segment(p.parse_args().config)\n"
    )
    files = {
        "tools/train.py": train,
        "tools/dist_train.sh": "CONFIG=$1\nGPUS=$2\npython tools/train.py $CONFIG --gpus $GPUS\n",
        "configs/segformer_ade20k.py": "model = dict(type='segformer')\n",
        "README.md": (
            "# SegFormer\n\nTrain the segformer and report its mIoU:\n\n```\n"
            "./tools/dist_train.sh /path/to/config 8\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:segformer",
        question="Does the SegFormer segmentation model reach a higher mIoU?",
        method="Train SegFormer and report mIoU.",
        expected_outcome="It does.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["mIoU"]}),
    )
    usage = recovered_setup(tmp_path / "s", files, task).usage_instructions
    assert "Run the default configuration: `./tools/dist_train.sh /path/to/config 8`" in usage
    assert "`bash tools/dist_train.sh`" not in usage, usage


def test_a_folder_named_after_one_arm_whose_script_trains_another_runs_the_other(
    tmp_path: Path,
) -> None:
    """`alpaca_finetuning/finetuning.sh` fine-tunes `--model Llama7B_adapter` on Alpaca's
    data: it is LLaMA-Adapter's run, not Alpaca's, though Alpaca names its folder."""
    program = (
        '"""Fine-tune LLaMA with an adapter on instruction data."""\nimport argparse\n\n'
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--model", default="Llama7B_adapter")\n'
        'parser.add_argument("--data_path", default="alpaca_data.json")\n'
        "args = parser.parse_args()\nprint('training time', args.model)\n"
    )
    launch = "python finetuning.py --model Llama7B_adapter --data_path alpaca_data.json\n"
    files = {
        "alpaca_finetuning/finetuning.py": program,
        "alpaca_finetuning/finetuning.sh": launch,
    }
    task = _task(
        "How does LLaMA-Adapter compare with Alpaca and Alpaca-LoRA on training time?",
        {"method": ["LLaMA-Adapter", "Alpaca", "Alpaca-LoRA"]},
        {},
    )
    usage = recovered_setup(tmp_path / "la", files, task).usage_instructions
    assert "Run LLaMA-Adapter: `cd alpaca_finetuning && bash finetuning.sh`" in usage, usage
    assert "Run Alpaca: no launch script" in usage, usage


def test_a_tables_short_name_inside_one_model_modules_name_selects_it(tmp_path: Path) -> None:
    """ "Stationary" of a table is models/Nonstationary_Transformer.py, the one model module
    whose name holds it; "Linear", which several module names hold, selects none by it."""
    files = {
        "run.py": REGISTRY,
        "models/__init__.py": "",
        "models/CycleNet.py": _model("Cycles", "        x = x - x.mean()\n        return x"),
        "models/Nonstationary_Transformer.py": _model("De-stationary", "        return x"),
        "models/DLinear.py": _model("Decomposed linear", "        return x * 2"),
        "models/NLinear.py": _model("Normalised linear", "        return x * 3"),
    }
    task = _task(
        "Does CycleNet beat Stationary and Linear on ETTh1 mse?",
        {"method": ["CycleNet", "Stationary", "Linear"]},
    )
    usage = recovered_setup(tmp_path / "ns", files, task).usage_instructions
    assert "--model Nonstationary_Transformer" in usage, usage
    assert "--model DLinear" not in usage and "--model NLinear" not in usage, usage


def test_a_bare_run_beside_arms_all_left_to_write_is_where_to_start_not_an_arm(
    tmp_path: Path,
) -> None:
    """The table compares methods no script, option or switch of the repository names: its
    own run is shown as where to start from, not as "the default configuration" of the
    experiment."""
    files = {
        "run.py": REGISTRY,
        "models/__init__.py": "",
        "models/CycleNet.py": _model("Cycles", "        x = x - x.mean()\n        return x"),
        "README.md": "# Combined forecasting models\n\nEach forecasts best by mse:\n\n    python run.py --model CycleNet --data ETTh1\n",
    }
    task = _task(
        "Which combined CycleNet model forecasts ETTh1 best by mse?",
        {"method": ["RIDE+Cycles", "GLMC+Cycles"]},
    )
    usage = recovered_setup(tmp_path / "no", files, task).usage_instructions
    assert "Start from the repository's own run (it names none of the compared arms): `" in (
        usage
    ), usage
    assert "Run the default configuration" not in usage, usage
    assert "Run RIDE+Cycles: no launch script" in usage, usage


def test_a_script_naming_its_model_through_a_variable_is_the_run_of_the_arm_it_selects(
    tmp_path: Path,
) -> None:
    """`model_name=Nonstationary_Transformer` then `--model $model_name`: the script trains
    the module "Stationary" selects, so it is that arm's run, with no word of a variant; the
    arm no script trains runs the command of the script training the authors' marked arm
    (TimesNet's), not of whichever script matched as well."""
    registry = REGISTRY.replace(
        "from models import CycleNet, CycleiTransformer, Linear",
        "from models import Nonstationary_Transformer, TimesNet, DLinear",
    ).replace(
        'MODELS = {"CycleNet": CycleNet, "Linear": Linear, "CycleiTransformer": CycleiTransformer}',
        "MODELS = {m.__name__: m for m in (Nonstationary_Transformer, TimesNet, DLinear)}",
    )

    def script(model: str, width: int) -> str:
        return (
            f"model_name={model}\n\n"
            f"python -u run.py --data_path ETTh1.csv --data ETTh1 --model $model_name "
            f"--d_model {width}\n"
        )

    files = {
        "run.py": registry.replace(
            'parser.add_argument("--model_type", default="linear")',
            'parser.add_argument("--model_type", default="linear")\n'
            'parser.add_argument("--d_model", type=int, default=64)',
        ),
        "models/__init__.py": "",
        "models/Nonstationary_Transformer.py": _model(
            "De-stationary attention", "        return x"
        ),
        "models/TimesNet.py": _model("Periods in 2D", "        return x + 1"),
        "models/DLinear.py": _model("Decomposed linear", "        return x * 2"),
        "scripts/imputation/Nonstationary_Transformer_ETTh1.sh": script(
            "Nonstationary_Transformer", 128
        ),
        "scripts/imputation/TimesNet_ETTh1.sh": script("TimesNet", 16),
    }
    task = _task(
        "How does TimesNet (Ours) compare with Stationary and DLinear on ETTh1 imputation?",
        {"method": ["TimesNet (Ours)", "Stationary", "DLinear"]},
        {"dataset": "ETTh1"},
    )
    usage = recovered_setup(tmp_path / "ts", files, task).usage_instructions
    stationary = (
        "Run Stationary on ETTh1: `bash scripts/imputation/Nonstationary_Transformer_ETTh1.sh`"
    )
    assert stationary in usage, usage
    assert "a variant of Stationary" not in usage, usage
    line = next(x for x in usage.splitlines() if "Run DLinear" in x)
    assert "--model DLinear --d_model 16" in line and "TimesNet_ETTh1.sh's command" in line, line


def test_the_dependencies_are_installed_as_the_readme_nearest_the_program_installs_them(
    tmp_path: Path,
) -> None:
    """The detection folder's README installs what its program needs (`pip install mmdet`,
    its requirements, from that folder; not apex, cloned elsewhere) and the root one the
    package; a README writing no install leaves the requirements file,
    and the requirements beside a README are added when its commands install neither them
    nor the package."""
    program = (
        '"""Train the gate detector and report its box AP."""\nimport argparse\n\n'
        "parser = argparse.ArgumentParser()\nparser.add_argument('--epochs', type=int)\n"
        "args = parser.parse_args()\nprint('box AP', args.epochs)\n"
    )
    root_readme = (
        "# Gate\n\n## Install\n\n```\n$ pip install --upgrade pip\nconda create -n gate "
        "python=3.9\npip install \\\n    timm fvcore\n```\n"
    )
    files = {
        "detection/train.py": program,
        "detection/README.md": "# Detection\n\n```\npip install mmdet\n"
        "pip install -r requirements.txt\n```\n\nApex:\n```\ngit clone https://host/apex\n"
        "cd apex\npython setup.py install --user\n```\n\n```\npython train.py --epochs 12\n```\n",
        "detection/requirements.txt": "mmdet\n",
        "README.md": root_readme,
        "requirements.txt": "timm\n",
    }
    task = _task("What box AP does the gate detector reach after training?", {}, {})
    usage = recovered_setup(tmp_path / "d", files, task).usage_instructions
    # its requirements installed from its folder; apex's setup.py is another repository's
    assert usage.splitlines()[0] == (
        "1. Install the dependencies as detection/README.md does: `pip install mmdet`, then "
        "`cd detection && pip install -r requirements.txt`."
    ), usage
    files["detection/README.md"] = "# Detection\n\n```\npython train.py --epochs 12\n```\n"
    usage = recovered_setup(tmp_path / "r", files, task).usage_instructions
    assert usage.splitlines()[0] == (
        "1. Install the dependencies as README.md does: `conda create -n gate python=3.9`, "
        "then `pip install timm fvcore`, then `pip install -r requirements.txt`."
    ), usage
    files["README.md"] = "# Gate\n\nTrain the detector.\n"
    usage = recovered_setup(tmp_path / "n", files, task).usage_instructions
    assert usage.splitlines()[0] == (
        "1. Install the dependencies: `pip install -r requirements.txt`."
    ), usage


def test_a_test_split_the_benchmark_scores_is_written_for_its_server(tmp_path: Path) -> None:
    """The task reports the Cityscapes test set; tools/test.py scores `--eval mIoU` on the
    validation split but writes predictions with `--format-only`: the usage says to."""
    test = (
        '"""Test a segmentor: mIoU on the validation split, or predictions for a server."""\n'
        "import argparse\n\n"
        "parser = argparse.ArgumentParser()\nparser.add_argument('config')\n"
        "parser.add_argument('checkpoint')\nparser.add_argument('--eval', nargs='+')\n"
        "parser.add_argument('--format-only', action='store_true')\n"
        "args = parser.parse_args()\nprint('mIoU segmentor', args.config, args.eval)\n"
    )
    files = {
        "tools/test.py": test,
        "configs/segmentor_city.py": "model = dict(type='Segmentor')\n",
        "README.md": (
            "# Segmentor\n\nTest the segmentor:\n\n```\n"
            "python tools/test.py configs/segmentor_city.py ckpt.pth --eval mIoU\n```\n"
        ),
    }

    def task(where: str) -> TaskDraft:
        return _task(f"What mIoU does the segmentor reach on the Cityscapes {where}?", {}, {})

    usage = recovered_setup(tmp_path / "t", files, task("test set")).usage_instructions
    assert (
        "The task reports the test set, whose labels the benchmark keeps: `--eval` scores the "
        "validation split; run tools/test.py with `--format-only` instead"
    ) in usage, usage
    usage = recovered_setup(tmp_path / "v", files, task("validation set")).usage_instructions
    assert "--format-only" not in usage, usage


def test_every_compared_arm_has_a_line_however_many_the_table_has(tmp_path: Path) -> None:
    """A table of Gate beside ten rivals the repository neither names nor runs: every rival
    is in the usage (they were cut at four), and past three of one kind they share a line
    rather than bury the runs. Three such rivals keep a line each."""
    files = {
        "run.py": KINDS_RUN,
        "scripts/imputation/Gate.sh": "python run.py --task_name imputation --model Gate\n",
    }
    rivals = ["Zephyr", "Quokka", "Ibex", "Okapi", "Tapir", "Dugong", "Kudu", "Bongo", "Gaur"]
    usage = recovered_setup(
        tmp_path / "many", files, _imputation_task(["Gate", *rivals])
    ).usage_instructions
    shared = [x for x in usage.splitlines() if "another work" in x or "other works'" in x]
    assert len(shared) == 1, usage
    assert all(r in shared[0] for r in rivals), shared
    assert "no code of the repository is theirs, so they are other works' methods" in shared[0]
    few = recovered_setup(
        tmp_path / "few", files, _imputation_task(["Gate", *rivals[:3]])
    ).usage_instructions
    for rival in rivals[:3]:
        assert f"Run {rival}: no code of the repository is its own" in few, few


DISPATCHING = """class Model:
    def __init__(self, configs):
        self.task_name = configs.task_name
        self.scale = 2

    def forecast(self, x):
        y = x * self.scale
        z = y + 1
        return z

    def imputation(self, x, mask):
        y = x * mask
        z = y * self.scale
        return z

    def forward(self, x, mask=None):
        if self.task_name == 'forecast':
            out = self.forecast(x)
            return out
        if self.task_name == 'imputation':
            out = self.imputation(x, mask)
            return out
        return None
""" + "".join(
    f"\n    def helper_{i}(self, x):\n        y = x + {i}\n        return y * self.scale\n"
    for i in range(8)
)


def test_a_forward_handing_over_by_the_task_is_cited_at_the_runs_branch(tmp_path: Path) -> None:
    """`forward` only hands over by `self.task_name`, and every run passes `--task_name
    imputation`: the step cites `Model.imputation`, what the runs compute, not the
    dispatcher every kind of task shares."""
    program = KINDS_RUN.replace(
        '    print("mse", args.model, args.task_name)\n',
        "    from models.Gate import Model\n"
        '    print("mse", Model(args).forward([1.0], 1.0), args.task_name)\n',
    )
    files = {
        "run.py": program,
        "models/__init__.py": "",
        "models/Gate.py": DISPATCHING,
        "scripts/imputation/Gate.sh": "python run.py --task_name imputation --model Gate\n",
        "scripts/imputation/Mixer.sh": "python run.py --task_name imputation --model Mixer\n",
    }
    setup = recovered_setup(tmp_path / "d", files, _imputation_task(["Gate", "Mixer"]))
    steps = "\n".join(setup.requirements)
    assert "(models/Gate.py:11-14)" in steps, steps
    assert "(models/Gate.py:16-" not in steps, steps


OOD_EVAL = '''import argparse

from models import ResNet18, ResNet34


def only_id(model):
    """only evaluate in-distribution accuracy"""
    acc = model.score("id")
    print("ACC: %.4f" % acc)


def full(model):
    """evaluate ID accuracy and OOD detection AUROC"""
    acc, auroc = model.score("id"), model.score("ood")
    print("ACC: %.4f AUROC: %.4f" % (acc, auroc))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="ResNet18", choices=["ResNet18", "ResNet34"])
    p.add_argument("--only_id", action="store_true", help="only test ID accuracy")
    args = p.parse_args()
    if args.model == "ResNet18":
        model = ResNet18()
    elif args.model == "ResNet34":
        model = ResNet34()
    if args.only_id:
        only_id(model)
    else:
        full(model)
'''

OOD_MODELS = '''class Net:
    def __init__(self, depth):
        self.depth = depth
        self.layers = [depth] * depth

    def score(self, split):
        return len(self.layers) / (10.0 if split == "id" else 20.0)


def ResNet18():
    """GFLOPS: 0.56"""
    return Net(18)


def ResNet34():
    """GFLOPS: 1.16"""
    return Net(34)
'''


def test_code_only_a_switch_or_value_no_run_gives_reaches_is_no_step(tmp_path: Path) -> None:
    """`only_id` runs only under `if args.only_id:`, a switch no run passes, and `ResNet34`
    only under `elif args.model == "ResNet34":`, where every run keeps the parser's default
    ResNet18: neither is a step, and the ACC the task reports is `full`'s line. The factory
    `ResNet18()`, which only returns `Net(18)`, is no step either."""
    files = {
        "test.py": OOD_EVAL,
        "models.py": OOD_MODELS,
        "README.md": "# OOD\n\nEvaluate:\n\n```\npython test.py\n```\n",
    }
    task = _task("How does the OOD detector score on ACC and AUROC?", {"method": ["Ours", "OE"]})
    task.design_complexity.dependent_variables = {"metrics": ["ACC", "AUROC"]}
    steps = recovered_setup(tmp_path / "o", files, task).requirements
    text = "\n".join(steps)
    assert "only_id" not in text and "only evaluate" not in text, text
    assert "ResNet34" not in text, text
    # `ResNet18()` only returns `Net(18)`: its call site is the step, not the factory
    assert "(models.py:10-12)" not in text, text
    assert "Evaluate ID accuracy and OOD detection AUROC (test.py:12-15)" in text, text
    assert steps[-1].endswith("(test.py:15)"), text  # not only_id's print of ACC


FORECAST_RUN = """import argparse

from exp import Exp

if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="TimesNet", help="model name")
    p.add_argument("--data", default="ETTh1")
    p.add_argument("--seq_len", type=int, default=96)
    args = p.parse_args()
    exp = Exp(args)
    exp.train()
    exp.test()
"""

FORECAST_EXP = '''import importlib


def mse(pred, true):
    return sum((p - t) ** 2 for p, t in zip(pred, true)) / len(true)


class Exp:
    def __init__(self, args):
        self.args = args
        self.model = importlib.import_module("models." + args.model).Model(args)

    def train(self):
        """Train with early stopping on the validation loss"""
        for epoch in range(10):
            loss = self.model.step([1.0, 2.0])
            print("epoch", epoch, "train loss", loss)

    def test(self):
        """Evaluate the trained model on the test split"""
        pred = self.model.predict([1.0, 2.0])
        print("mse", mse(pred, [1.0, 2.0]))
'''

FORECAST_MODEL = '''class Model:
    """the {name} forecaster"""

    def __init__(self, args):
        self.seq_len = args.seq_len
        self.weights = [0.5] * args.seq_len

    def step(self, batch):
        return sum(self.weights) * len(batch)

    def predict(self, batch):
        return [w * x for w, x in zip(self.weights, batch)]
'''


def test_many_arms_launch_scripts_never_crowd_out_the_training_and_evaluation(
    tmp_path: Path,
) -> None:
    """Twelve compared models, each with its own launch script: the first launch leads the
    steps, the others are cut before the training and the evaluation they all run."""
    names = ["TimesNet", "DLinear", "Autoformer", "Informer", "Reformer", "FEDformer", "LightTS"]
    names += ["ETSformer", "Pyraformer", "Crossformer", "PatchTST", "MICN"]
    files = {"run.py": FORECAST_RUN, "exp.py": FORECAST_EXP}
    for name in names:
        files[f"models/{name}.py"] = FORECAST_MODEL.replace("{name}", name)
        files[f"scripts/{name}_ETTh1.sh"] = (
            f"python -u run.py \\\\\n  --model {name} \\\\\n  --data ETTh1 \\\\\n  --seq_len 96\n"
        )
    task = _task(
        "How does TimesNet compare with DLinear, Autoformer, Informer and the others on MSE?",
        {"model": names},
        {"dataset": "ETTh1"},
    )
    steps = recovered_setup(tmp_path / "f", files, task).requirements
    text = "\n".join(steps)
    assert steps[0].startswith("Step 1: Run TimesNet on ETTh1"), text
    assert sum("Run " in s and ".sh" in s for s in steps) >= 2, text
    assert "Train with early stopping on the validation loss (exp.py:" in text, text
    assert "Evaluate the trained model on the test split (exp.py:" in text, text
    # the report names five of the twelve and counts the rest: no arm seems left out
    assert "compare TimesNet, DLinear, Autoformer, Informer, Reformer and the 7 others" in text


PLOTTED = '''import argparse

import matplotlib.pyplot as plt


def load_data(path):
    with open(path) as f:
        return [float(x) for x in f]


def train(data, lr):
    """Train the meta-learner with Adam"""
    losses = []
    for epoch in range(10):
        loss = sum(data) * lr / (epoch + 1)
        losses.append(loss)
    return losses


def plot(losses):
    """Plot the training curve"""
    plt.plot(losses)
    plt.savefig("curve.png")


def test(losses):
    """Evaluate the meta-learner on the test tasks"""
    accuracy = 1.0 - losses[-1]
    print("test accuracy", accuracy)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--data", default="omniglot.txt")
    args = p.parse_args()
    losses = train(load_data(args.data), args.lr)
    plot(losses)
    test(losses)
'''


def test_a_launch_that_only_starts_the_program_and_a_plot_come_after_the_training(
    tmp_path: Path,
) -> None:
    """A wrapper script passing no option only starts the program: it runs after the code it
    runs is written, as does plotting what the training computed; the training leads."""
    files = {
        "maml.py": PLOTTED,
        "run.sh": "#!/bin/bash\npython maml.py\n",
        "README.md": "# MAML\n\nTrain the meta-learner:\n\n```\nbash run.sh\n```\n",
    }
    task = _task(
        "Does the MAML meta-learner trained with Adam reach a high test accuracy on the "
        "Omniglot data?",
        {"learning rate": ["0.1"]},
    )
    steps = recovered_setup(tmp_path / "m", files, task).requirements
    at = {s.split(": ", 1)[1]: k for k, s in enumerate(steps)}
    trained = next(k for s, k in at.items() if "Train the meta-learner with Adam" in s)
    plotted = next(k for s, k in at.items() if "Plot the training curve" in s)
    launched = next(k for s, k in at.items() if "(run.sh:" in s)
    assert trained < plotted and trained < launched, steps


def test_a_baselines_script_of_other_data_is_re_pointed_as_the_methods_script_for_the_data(
    tmp_path: Path,
) -> None:
    """The baseline has a script for ETTh1 only; the task runs ETTm1. The method's scripts for
    both say which options are the data's (`--data_path`, `--data`, `--enc_in`: one way on
    ETTh1, another on ETTm1, and the baseline's script sets them as the method's ETTh1 one
    does); a setting the method tunes per data set but the baseline sets otherwise
    (`--d_model`) is the baseline's own and stays."""

    def script(model: str, data: str, channels: int, width: int) -> str:
        return (
            f"python -u run.py \\\\\n  --model {model} \\\\\n  --data_path {data}.csv \\\\\n"
            f"  --data {data} \\\\\n  --enc_in {channels} \\\\\n  --d_model {width}\n"
        )

    run = RUN.replace(
        'parser.add_argument("--seq_len", type=int, default=96)',
        'parser.add_argument("--seq_len", type=int, default=96)\n'
        'parser.add_argument("--enc_in", type=int, default=7)\n'
        'parser.add_argument("--d_model", type=int, default=512)',
    )
    files = {
        "run.py": run,
        "scripts/CycleNet_ETTh1.sh": script("CycleNet", "ETTh1", 7, 512),
        "scripts/CycleNet_ETTm1.sh": script("CycleNet", "ETTm1", 21, 256),
        "scripts/DLinear_ETTh1.sh": script("DLinear", "ETTh1", 7, 128),
    }
    task = _task(
        "Does CycleNet beat DLinear on ETTm1?",
        {"model": ["CycleNet", "DLinear"]},
        {"dataset": "ETTm1"},
    )
    usage = recovered_setup(tmp_path / "r", files, task).usage_instructions
    assert (
        "Run DLinear (its script runs other data: for ETTm1, set --data_path ETTm1.csv "
        "--data ETTm1 --enc_in 21 in it, as CycleNet_ETTm1.sh does)"
    ) in usage, usage


def test_an_option_a_loop_or_placeholder_gives_tells_no_branch_apart() -> None:
    """`--dout $dout` inside a loop over the OOD sets, or `--ckpt <PATH>`, is no value a test
    can be read with: `args.dout == "svhn"` is unknown, never false, so no branch drops."""
    import ast

    from expcurate.records import CliFlag, EntryPoint
    from extractors.agent.run import Run
    from extractors.agent.step_filters import _UNKNOWN, _options, _truth

    entry = EntryPoint(
        path="test.py",
        flags=[CliFlag(name="--dout", default="svhn"), CliFlag(name="--ckpt", default="")],
    )
    looped = Run("for dout in svhn texture; do python test.py --dout $dout --ckpt <PATH>; done")
    env = _options(entry, looped)
    for test in ('args.dout == "svhn"', 'args.ckpt == "best"'):
        assert _truth(ast.parse(test, mode="eval").body, env, {}) is _UNKNOWN, test
    # a value the run does give is read
    plain = _options(entry, Run("python test.py --dout texture"))
    assert _truth(ast.parse('args.dout == "svhn"', mode="eval").body, plain, {}) is False


def _agent_program(doc: str, body: str) -> str:
    return (
        f'"""{doc}"""\nimport argparse\n\n\ndef main(config, agent):\n{body}\n\n\n'
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--config', default='configs/agents.yaml')\n"
        "    p.add_argument('--agent', default='gpt-4')\n"
        "    a = p.parse_args()\n    main(a.config, a.agent)\n"
    )


def _agent_bench_files(offer: str) -> dict[str, str]:
    return {
        "src/agent_test.py": _agent_program(
            "Chat with an agent to try it.", "    print('agent', agent, 'replies', config)"
        ),
        "src/assigner.py": _agent_program(
            "Assign the benchmark tasks to the agents and record their success rates.",
            "    for task in ('os', 'db'):\n        print(task, 'success rate', agent)",
        ),
        "configs/agents.yaml": "gpt-4:\n  model: gpt-4\nllama-2:\n  model: llama-2\n",
        "README.md": (
            "# Agent benchmark\n\n## Quick start\n\n"
            f"You can try using `python -m src.agent_test` {offer}.\n\n"
            "```bash\npython -m src.agent_test --config configs/agents.yaml --agent gpt-4\n```\n\n"
            "Then start the assigner, which runs every task:\n\n"
            "```bash\npython -m src.assigner\n```\n"
        ),
    }


def test_a_program_the_readme_offers_as_a_check_of_the_set_up_does_not_lead(
    tmp_path: Path,
) -> None:
    """`agent_test` is offered "to check if your agent is configured correctly": it shares
    the task's words (agent, its options) but tries the set-up; the assigner runs the
    benchmark. Offered as the way to run the agents, it would lead."""
    task = _task(
        "Do API-based agents outperform open-source agents on the benchmark's success rate?",
        {"agent": ["API-based agents", "open-source agents"]},
        {},
    )
    checked = _agent_bench_files("to check if your agent is configured correctly")
    usage = recovered_setup(tmp_path / "check", checked, task).usage_instructions
    assert "`python -m src.assigner`" in usage, usage
    assert "src.agent_test" not in usage, usage
    offered = _agent_bench_files("to run the agents on every task")
    usage = recovered_setup(tmp_path / "run", offered, task).usage_instructions
    assert "src.agent_test" in usage, usage


def _project_script(data: str, seq_len: int) -> str:
    return (
        "# cd FEDformer\nfor preLen in 96 192\ndo\n"
        f"python -u run.py --data_path {data}.csv --data {data} --model FEDformer "
        f"--seq_len {seq_len} --pred_len $preLen\ndone\n"
    )


def test_a_baseline_with_its_own_project_folder_runs_its_launch_script_from_there(
    tmp_path: Path,
) -> None:
    """FEDformer is no model the authors' program knows; `Formers/FEDformer/`, another
    work's code with its own license, runs it with `scripts/LongForecasting.sh`, whose
    `python -u run.py` is the project's own `run.py`: run from the project's folder, the
    script that fits a long-term forecasting table. The project's files rank below the
    authors' program, which still runs the authors' method."""
    project_run = (
        '"""FEDformer: long-term forecasting on ETTh1, its mse."""\nimport argparse\n\n'
        "parser = argparse.ArgumentParser()\n"
        'parser.add_argument("--data_path", default="ETTh1.csv")\n'
        'parser.add_argument("--data", default="ETTh1")\n'
        'parser.add_argument("--model", default="FEDformer")\n'
        'parser.add_argument("--seq_len", type=int, default=96)\n'
        'parser.add_argument("--pred_len", type=int, default=96)\n'
        "args = parser.parse_args()\nprint('mse', args.model)\n"
    )
    files = {
        "run.py": REGISTRY,
        "models/__init__.py": "",
        "models/CycleNet.py": _model("Cycles", "        return x - x.mean()"),
        "models/Linear.py": _model("Linear", "        return x * 2"),
        "models/CycleiTransformer.py": _model("Cycles on iTransformer", "        return x"),
        "scripts/CycleNet/etth1.sh": (
            "python -u run.py --data_path ETTh1.csv --data ETTh1 --model CycleNet\n"
        ),
        "Formers/FEDformer/LICENSE": "MIT License\n",
        "Formers/FEDformer/run.py": project_run,
        "Formers/FEDformer/scripts/LongForecasting.sh": _project_script("ETTh1", 96),
        "Formers/FEDformer/scripts/LookBackWindow.sh": _project_script("ETTh1", 336),
    }
    task = _task(
        "Does CycleNet beat FEDformer on long-term forecasting on ETTh1 in mse?",
        {"method": ["CycleNet", "FEDformer"]},
        {"dataset": "ETTh1", "look-back window": "96"},
    )
    setup = recovered_setup(tmp_path / "fed", files, task)
    usage = setup.usage_instructions
    assert "Run CycleNet on ETTh1: `bash scripts/CycleNet/etth1.sh`" in usage, usage
    assert (
        "Run FEDformer on ETTh1: `cd Formers/FEDformer && bash scripts/LongForecasting.sh` "
        "(it runs Formers/FEDformer/run.py with" in usage
    ), usage
    # another work's code is the baseline's run, nothing the task's agent rebuilds
    assert setup.source[0] == "run.py", setup.source
    assert "Formers/FEDformer/scripts/LookBackWindow.sh" not in setup.source, setup.source
    assert "Formers/FEDformer/run.py" not in setup.masked_source, setup.masked_source


def test_a_check_of_the_set_up_is_a_purpose_the_readme_gives_a_command() -> None:
    from extractors.agent.rank import checks_setup

    assert checks_setup(
        "Try `python -m agent_test` to check if your agent is configured correctly."
    )
    assert checks_setup("Run `python demo.py` to verify the installation.")
    assert checks_setup("To test your environment, run `python env_check.py`.")
    assert not checks_setup(
        "Run `python eval.py` to evaluate it; make sure the checkpoint is ready."
    )
    assert not checks_setup("`python train.py` trains the model and checks the loss works.")


SINGLE = '''"""Train the attention classifier on CIFAR-10 on a single GPU and report accuracy."""
import argparse


def fit(data, lr):
    return sum(data) * lr


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    data = list(range(10))  # the CIFAR-10 batches, on the single GPU
    print("accuracy", fit(data, args.lr))
'''

INDEX = '''"""Build the retrieval index of the documents."""
import json


def embed(doc):
    return [len(word) for word in doc.split()]


if __name__ == "__main__":
    corpus = json.load(open("corpus.json"))
    print(json.dumps({name: embed(doc) for name, doc in corpus.items()}))
'''


def test_twin_programs_run_the_arms_their_words_name_and_namesakes_do_not(
    tmp_path: Path,
) -> None:
    task = _task(
        "Does training the attention classifier on CIFAR-10 on a single GPU or on several "
        "workers change its accuracy?",
        {"hardware": ["single GPU", "several workers"]},
    )
    # the same program written twice, once for several workers: each arm runs its own
    twins = {
        "exp/train.py": SINGLE,
        "exp/distributed/train.py": SINGLE.replace("a single GPU", "several workers").replace(
            "on the single GPU", "split across the workers"
        ),
    }
    usage = recovered_setup(tmp_path / "tw", twins, task).usage_instructions
    assert "Run single GPU: `python exp/train.py`" in usage, usage
    assert "Run several workers: `python exp/distributed/train.py`" in usage, usage
    # a program that only shares the file name (an index builder) runs no arm
    namesakes = {"exp/train.py": SINGLE, "retrieval/train.py": INDEX}
    usage = recovered_setup(tmp_path / "ns", namesakes, task).usage_instructions
    assert "retrieval/train.py" not in usage, usage


SERVER = '''"""The shell task an agent is run on."""


class ShellTask:
    def __init__(self, root):
        self.root = root
        self.turns = 8

    def get_indices(self):
        return list(range(10))

    async def start_sample(self, index, session):
        """Run one sample: set the shell up, prompt the agent, judge its answer."""
        shell = self._setup(index)
        self._prompt(session)
        answer = self._loop(session, shell)
        return self._judge(answer, index)

    def _setup(self, index):
        return {"index": index}

    def _prompt(self, session):
        session.inject("Answer with act: bash or act: answer")

    def _loop(self, session, shell):
        for _ in range(self.turns):
            action = self._parse(session.reply())
            if action[0] == "answer":
                return action[1]
            shell[action[1]] = True
        return None

    def _parse(self, text):
        kind, _, body = text.partition(":")
        return kind.strip(), body.strip()

    def _judge(self, answer, index):
        return answer == str(index)
'''


def test_a_task_asking_how_to_build_walks_the_modules_main_class_in_run_order(
    tmp_path: Path,
) -> None:
    files = {
        "tasks/shell/task.py": SERVER,
        "client/chat.py": "import sys\nif __name__ == '__main__':\n    print(sys.stdin.read())\n",
        "README.md": "# Shell agents\n\nImplement an agent: it acts in the shell task with "
        "bash commands and answers it, following the task's prompt; the answer is judged "
        "right or wrong.\n",
    }
    task = TaskDraft(
        key="t",
        question="How can you implement an agent that acts in the shell task with bash "
        "commands and answers it?",
        method="Implement an agent following the shell task's prompt, acting with bash.",
        expected_outcome="The agent's answer is judged right.",
    )
    steps = recovered_setup(tmp_path / "walk", files, task).requirements
    starts = [int(m) for s in steps for m in re.findall(r"tasks/shell/task\.py:(\d+)", s)]
    # from the method the framework calls (start_sample, line 12), through what it calls on
    # `self` in that order: _setup, _prompt, _loop, the _parse _loop calls, _judge
    assert starts == [12, 19, 22, 25, 33, 37], steps


def test_a_class_doing_its_work_in_one_long_method_is_walked_by_that_methods_blocks(
    tmp_path: Path,
) -> None:
    body = "".join(
        f"        reply{k} = session.ask('turn {k}: answer with a SQL query')\n"
        f"        if reply{k}.startswith('answer'):\n"
        f"            return reply{k} == str(index)\n"
        f"        session.inject(self._run(reply{k}))\n\n"
        for k in range(16)
    )
    server = (
        '"""The SQL task an agent is run on."""\n\n\nclass SqlTask:\n'
        "    def __init__(self, db):\n        self.db = db\n\n"
        "    def get_indices(self):\n        return list(range(10))\n\n"
        "    def start_sample(self, index, session):\n"
        "        session.inject('You answer questions with SQL queries on the table.')\n\n"
        + body
        + "        return None\n\n"
        "    def _run(self, sql):\n        return self.db.execute(sql)\n"
    )
    files = {
        "tasks/sql/task.py": server,
        "README.md": "# SQL agents\n\nImplement an agent: it answers the SQL task's questions "
        "with SQL queries on the table, and its answer is checked.\n",
    }
    task = TaskDraft(
        key="t",
        question="How can you implement an agent that answers the SQL task's questions with "
        "SQL queries?",
        method="Implement an agent answering with SQL queries.",
        expected_outcome="The agent's answer is checked right.",
    )
    steps = recovered_setup(tmp_path / "long", files, task).requirements
    inside = [s for s in steps if "(in start_sample)" in s and "(tasks/sql/task.py:" in s]
    assert len(inside) >= 2, steps
    # the walk itself gives the blocks, whatever else the plan finds to cite
    index = committed_index(tmp_path / "walk", files)
    tracer = StepTracer(index, RepoSearch(tmp_path / "walk", index))
    walk = tracer.class_walk("tasks/sql/task.py")
    assert sum("(in start_sample)" in s.action for s in walk) >= 2, walk


def test_programs_of_one_file_name_are_twins_only_when_their_code_is_alike(tmp_path: Path) -> None:
    from extractors.agent import SetupAgent

    index_builder = (
        '"""Build the retrieval index of the documents."""\nimport json\n\n\n'
        "def embed(doc):\n    return [len(word) for word in doc.split()]\n\n\n"
        "if __name__ == '__main__':\n"
        "    corpus = json.load(open('corpus.json'))\n"
        "    print(json.dumps({name: embed(doc) for name, doc in corpus.items()}))\n"
    )
    files = {
        "exp/train.py": GATED,
        "exp/distributed/train.py": WORKERS,
        "retrieval/train.py": index_builder,
    }
    root = tmp_path / "tw"
    planner = SetupAgent(committed_index(root, files), root).run_planner
    # the distributed version shares most of its words; the index builder only the name
    assert planner.twins("exp/train.py", "exp/distributed/train.py")
    assert not planner.twins("exp/train.py", "retrieval/train.py")
    assert not planner.twins("exp/train.py", "exp/train.py")


def test_a_long_constructor_leads_the_class_walk(tmp_path: Path) -> None:
    # the task's prompt and its one-shot example are set up in `__init__`: the methods use
    # them, so the walk starts there; a short constructor only keeps its arguments
    prompt = "".join(f"            'example turn {k}: act with bash',\n" for k in range(14))
    server = SERVER.replace(
        "    def __init__(self, root):\n        self.root = root\n        self.turns = 8\n",
        "    def __init__(self, root):\n        self.root = root\n        self.turns = 8\n"
        "        self.one_shot = [\n" + prompt + "        ]\n",
    )
    index = committed_index(tmp_path / "init", {"tasks/shell/task.py": server})
    tracer = StepTracer(index, RepoSearch(tmp_path / "init", index))
    walk = tracer.class_walk("tasks/shell/task.py")
    assert "ShellTask.__init__" in walk[0].action and walk[0].start == 5, walk
    assert "start_sample" in walk[1].action or walk[1].start > walk[0].end, walk
    index = committed_index(tmp_path / "short", {"tasks/shell/task.py": SERVER})
    tracer = StepTracer(index, RepoSearch(tmp_path / "short", index))
    assert all("__init__" not in s.action for s in tracer.class_walk("tasks/shell/task.py"))


RANKED = '''"""Stage 2: fine-tune on ranked responses."""
import argparse

import torch
from transformers import Trainer


class RankTrainer(Trainer):
    def score(self, logits):
        return logits.mean(-1)

    def rank_loss(self, scores, rewards):
        diff = scores.unsqueeze(1) - scores.unsqueeze(-1)
        better = rewards.unsqueeze(1) - rewards.unsqueeze(-1)
        return -diff[(better > 0) & (diff < 0)].sum()

    def compute_loss(self, model, inputs, return_outputs=False):
        logits = model(input_ids=inputs["input_ids"])[0]
        scores = self.score(logits)
        loss = self.rank_loss(scores, inputs["scores"])
        return (loss, scores) if return_outputs else loss


def train():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data_path", default="data/ranked.json")
    args = parser.parse_args()
    trainer = RankTrainer(model=torch.nn.Linear(2, 2), args=None)
    trainer.train()


if __name__ == "__main__":
    train()
'''


def test_a_trainers_own_loss_hook_is_the_methods_objective(tmp_path: Path) -> None:
    """A Trainer subclass of the program's own overriding `compute_loss` (as Hugging Face
    research code does): the hook and the loss method it calls are the training's loss."""
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.agent.training_steps import TrainingSteps
    from extractors.repo import RepoSearch

    root = tmp_path / "rank"
    index = committed_index(root, {"train_stage2.py": RANKED})
    tracer = StepTracer(index, RepoSearch(root, index))
    stages = TrainingSteps(tracer, MethodModules(index, tracer), {})
    losses = stages.losses(["train_stage2.py"], ["train_stage2.py"])
    assert [(s.action, s.start, s.end) for s in losses] == [
        ("Compute the loss (RankTrainer.rank_loss)", 12, 15),
        ("Compute the training loss (RankTrainer.compute_loss)", 17, 21),
    ]


def test_a_long_training_loop_is_cited_through_the_step_on_its_loss(tmp_path: Path) -> None:
    """A loop too long to cite whole is cited from the loss to the step on it: through the
    `if use_amp:` ... `else: loss.backward(); model_optim.step()` holding its first
    `backward()` (the plain path's backward and step), not to that first backward alone."""
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.agent.training_steps import TrainingSteps
    from extractors.repo import RepoSearch

    logging = "".join(f"            print('batch', i, {k})\n" for k in range(40))
    program = (
        "def train(model, loader, criterion, model_optim, scaler, use_amp, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for i, (x, y) in enumerate(loader):\n"
        "            model_optim.zero_grad()\n"
        "            loss = criterion(model(x), y)\n"
        f"{logging}"
        "            if use_amp:\n"
        "                scaler.scale(loss).backward()\n"
        "                scaler.step(model_optim)\n"
        "                scaler.update()\n"
        "            else:\n"
        "                loss.backward()\n"
        "                model_optim.step()\n"
        "        print('epoch', epoch)\n"
    )
    root = tmp_path / "loop"
    index = committed_index(root, {"exp.py": program})
    tracer = StepTracer(index, RepoSearch(root, index))
    stages = TrainingSteps(tracer, MethodModules(index, tracer), {})
    item = next(i for i in tracer.outline("exp.py") if i.name == "train")
    # from the loss (:5), at most 40 lines before the first backward (:47), to the `else`
    # branch's step (:52)
    assert stages.loop("exp.py", item) == (7, 52)


def test_a_program_making_an_options_folder_and_opening_it_as_a_file_is_flagged(
    tmp_path: Path,
) -> None:
    """`os.mkdir(args.target_path)` then `open(target_path, "w")` through
    `target_path = os.path.join(args.target_path)`: as written the run stops there; a
    folder made for the file's parent (`os.path.dirname(args.out)`) is fine."""
    program = (
        '"""Score the responses and write the result."""\n'
        "import argparse\nimport os\n\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--target_path', default='result.json')\n"
        "parser.add_argument('--out', default='logs/out.txt')\n"
        "args = parser.parse_args()\n"
        "os.makedirs(os.path.dirname(args.out), exist_ok=True)\n"
        "with open(args.out, 'w') as f:\n    f.write('scored')\n"
        "if not os.path.exists(args.target_path):\n    os.mkdir(args.target_path)\n"
        "target_path = os.path.join(args.target_path)\n"
        "with open(target_path, 'w') as f:\n    f.write('accuracy 0.5')\n"
    )
    readme = "# Scoring\n\nScore the responses:\n\n    python evaluate.py --target_path r.json\n"
    task = _task(
        "What accuracy does scoring the responses give on the math task?",
        {"scored responses": ["math responses"]},
    )
    files = {"evaluate.py": program, "README.md": readme}
    setup = recovered_setup(tmp_path / "s", files, task)
    usage = setup.usage_instructions
    assert (
        "evaluate.py makes args.target_path a folder (line 13) and then opens it as a file "
        "(line 15): mend one of the two first"
    ) in usage, (usage, setup.no_answer)
    assert "args.out" not in usage, usage


def test_a_run_of_a_check_of_the_set_up_is_said_to_be_one_with_the_runs_after_it(
    tmp_path: Path,
) -> None:
    """A task asking how to build an agent leads with the program that chats with one, which
    the README offers only as a check: its run says so, and what the document runs next."""
    task = _task(
        "How can you implement an agent that chats with a user through agent_test?",
        {},
        {},
    )
    files = _agent_bench_files("to check if your agent is configured correctly")
    usage = recovered_setup(tmp_path / "a", files, task).usage_instructions
    assert "`python -m src.agent_test` (README.md:" in usage, usage
    assert (
        "offers it only as a check of the set-up; the experiment runs as the document goes on: "
        "`python -m src.assigner`)"
    ) in usage, usage


def test_a_step_after_a_check_whose_program_the_repository_lacks_is_said_to_be_missing(
    tmp_path: Path,
) -> None:
    """The README's next step after the check starts a task server with `python -m
    src.start_task -a`, and the repository has no src/start_task.py at its commit: the run
    says the document's step names a program the repository does not have; `python -m
    pytest`, an installed package's, would be no such step."""
    task = _task(
        "How can you implement an agent that chats with a user through agent_test?",
        {},
        {},
    )
    files = _agent_bench_files("to check if your agent is configured correctly")
    files["README.md"] = files["README.md"].replace(
        "Then start the assigner",
        "Start the task server:\n\n```bash\npython -m src.start_task -a\n```\n\n"
        "Check the tasks:\n\n```bash\npython -m pytest tests\n```\n\n"
        "Then start the assigner",
    )
    usage = recovered_setup(tmp_path / "a", files, task).usage_instructions
    assert (
        "the experiment runs as the document goes on: `python -m src.start_task -a` (it names "
        "src/start_task.py, which the repository does not have), then `python -m src.assigner`)"
    ) in usage, usage


GRAPHS = '''"""Draw the backward graph of one optimiser step, two ways."""
import torch


def step_graph():
    x = torch.ones(3, requires_grad=True)
    return (x * 2).sum()


def draw_plainviz():
    """The autograd graph, node by node."""
    loss = step_graph()
    print("nodes", len(loss.grad_fn.next_functions))


def draw_fusedviz():
    """The same graph with the optimiser's operations fused into one node."""
    loss = step_graph()
    print("fused nodes", 1)


if __name__ == "__main__":
    draw_plainviz()
    draw_fusedviz()
'''

META_TRAIN = '''"""Meta-train a learner on few-shot tasks with a fused optimiser."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=10)
args = parser.parse_args()


def train():
    for step in range(args.steps):
        print("meta loss", step)


if __name__ == "__main__":
    train()
'''


def test_one_program_calling_each_arms_function_runs_them_all(tmp_path: Path) -> None:
    """No option or script selects PlainViz or FusedViz, but one program's main block calls
    `draw_plainviz()` and `draw_fusedviz()`: that program is their one run, and the steps
    walk it, not the meta-training the question's words rank first. An arm only one
    program's call names stays a run to write."""
    root = tmp_path / "graphs"
    files = {
        "README.md": "# Fused\n\n```bash\npython examples/meta_train.py --steps 10\n```\n",
        "examples/meta_train.py": META_TRAIN,
        "examples/graphs.py": GRAPHS,
    }
    task = _task(
        "Does the fused optimiser (FusedViz) give a smaller meta-training backward graph "
        "than PlainViz and a hand-written Adam optimizer?",
        {"visualization": ["PlainViz", "FusedViz", "hand-written Adam optimizer"]},
    )
    setup = recovered_setup(root, files, task)
    usage = setup.usage_instructions
    assert (
        "Run PlainViz, FusedViz: `python examples/graphs.py` (one run runs them all: its main "
        "block calls draw_plainviz (examples/graphs.py:23) for PlainViz and draw_fusedviz "
        "(:24) for FusedViz)."
    ) in usage, usage
    assert "Run hand-written Adam optimizer: no launch script" in usage, usage
    assert "meta_train.py" not in usage, usage
    assert cites(setup.requirements, "The autograd graph, node by node", "examples/graphs.py:10-13")
    assert setup.source[0] == "examples/graphs.py"


def test_a_data_set_is_its_name_before_what_describes_it(tmp_path: Path) -> None:
    """ "Electricity dataset as described in Table 1" holds the data set Electricity: the
    run is the Electricity script, said to be on it. Words before "dataset" that are no
    name ("Each dataset has 1100 pairs", "volumetric CT dataset ...") hold none."""
    one = "python -u run.py --data_path {0}.csv --data {0} --model Linear --pred_len 96\n"
    files = {
        "run.py": RUN,
        "scripts/Linear/solar.sh": one.format("solar"),
        "scripts/Linear/electricity.sh": one.format("electricity"),
    }
    task = _task(
        "Does the Linear backbone forecast long-term series with a low MSE?",
        {"model": ["Linear"]},
        {"dataset": "Electricity dataset as described in Table 1"},
    )
    assert task_datasets(task) == ["Electricity"]
    usage = recovered_setup(tmp_path / "el", files, task).usage_instructions
    assert "Run Linear on Electricity: `bash scripts/Linear/electricity.sh`" in usage, usage
    for said in ("Each dataset has 1100 question-answer pairs", "volumetric CT dataset of 8"):
        assert task_datasets(_task("Q?", {"model": ["Linear"]}, {"dataset": said})) == []


def test_every_data_set_the_task_names_runs_and_each_arm_keeps_its_share(
    tmp_path: Path,
) -> None:
    """A table over seven data sets runs the arm's script on each of the seven. With three
    arms on seven data sets (21 runs, past the cap of twelve), every arm keeps four runs: the
    cap takes each arm's first data sets before any arm's later ones, so no arm is cut."""
    one = "python -u run.py --data_path {1}.csv --data {1} --model {0} --pred_len 96\n"
    sets = ["ETTh1", "ETTh2", "ETTm1", "ETTm2", "Weather", "Traffic", "Electricity"]
    models = ["Linear", "MLP", "RNN"]
    files = {
        "run.py": RUN.replace(
            'default="Linear")', 'default="Linear", choices=["Linear", "MLP", "RNN"])'
        )
    }
    for m in models:
        for d in sets:
            files[f"scripts/{m}/{d.lower()}.sh"] = one.format(m, d)
    single = _task(
        "Does the Linear backbone forecast long-term series with a low MSE?",
        {"model": ["Linear"]},
        {"datasets": sets},
    )
    usage = recovered_setup(tmp_path / "one", files, single).usage_instructions
    for d in sets:
        assert f"`bash scripts/Linear/{d.lower()}.sh`" in usage, (d, usage)
    three = _task(
        "Which backbone forecasts best: Linear, MLP or RNN?", {"model": models}, {"datasets": sets}
    )
    usage = recovered_setup(tmp_path / "three", files, three).usage_instructions
    for m in models:
        assert usage.count(f"`bash scripts/{m}/") == 4, (m, usage)


def test_arms_sharing_a_name_run_the_scripts_their_own_words_name(tmp_path: Path) -> None:
    """ "CycleNet (with Linear backbone)" and "CycleNet (with MLP backbone)" share CycleNet:
    each runs the script its own word names (Linear-Input-96/, MLP-Input-96/), not both the
    first one found."""
    one = "python -u run.py --data_path ETTh1.csv --data ETTh1 --model {0} --pred_len 96\n"
    files = {
        "run.py": RUN,
        "scripts/CycleNet/Linear-Input-96/etth1.sh": one.format("CycleNet"),
        "scripts/CycleNet/MLP-Input-96/etth1.sh": one.format("CycleNet"),
    }
    task = _task(
        "Does the CycleNet forecaster reach a lower long-term MSE with an MLP backbone?",
        {"model": ["CycleNet (with Linear backbone)", "CycleNet (with MLP backbone)"]},
        {"dataset": "ETTh1"},
    )
    usage = recovered_setup(tmp_path / "cy", files, task).usage_instructions
    assert (
        "Run CycleNet (with Linear backbone) on ETTh1: "
        "`bash scripts/CycleNet/Linear-Input-96/etth1.sh`"
    ) in usage, usage
    assert (
        "Run CycleNet (with MLP backbone) on ETTh1: `bash scripts/CycleNet/MLP-Input-96/etth1.sh`"
    ) in usage, usage


def test_a_script_naming_a_siblings_own_word_is_the_siblings(tmp_path: Path) -> None:
    """ "Gate" and "LoRA": `gate_lora_eval.sh` names both, so it is LoRA's script, and Gate
    runs `gate_eval.sh`, the one naming it alone."""
    one = "python -u run.py --data_path ETTh1.csv --data ETTh1 --model Gate{0} --pred_len 96\n"
    files = {
        "run.py": RUN,
        "scripts/gate_lora_eval.sh": one.format(" --lora"),
        "scripts/gate_eval.sh": one.format(""),
    }
    task = _task(
        "Does the Gate forecaster reach a lower long-term MSE when tuned with LoRA?",
        {"method": ["Gate", "LoRA"]},
        {"dataset": "ETTh1"},
    )
    usage = recovered_setup(tmp_path / "ga", files, task).usage_instructions
    assert "Run Gate on ETTh1: `bash scripts/gate_eval.sh`" in usage, usage


def test_a_short_programs_helpers_its_cited_functions_call_are_steps(tmp_path: Path) -> None:
    """`compare.py` is run whole: its main block calls `run_comparison`, which makes its
    data with `make_chain_data`, runs both tests and scores them with `match_edges`. With
    few steps, those helpers of the program's own file are steps, before the function
    calling them; a helper making an output path is not."""
    program = (
        '"""Compare the built-in and the custom independence test on a known chain."""\n'
        "import random\n\n\n"
        "def make_chain_data(n):\n"
        '    """Generate samples of a known chain x -> y -> z."""\n'
        "    xs = [random.random() for _ in range(n)]\n"
        "    ys = [x + random.random() for x in xs]\n"
        "    zs = [y + random.random() for y in ys]\n"
        "    return xs, ys, zs\n\n\n"
        "def match_edges(found, truth):\n"
        '    """Score the edges found against the true ones."""\n'
        "    hits = len(set(found) & set(truth))\n"
        "    share = hits / max(len(truth), 1)\n"
        "    return {'match': share}\n\n\n"
        "def out_path(name):\n"
        "    base = 'results'\n"
        "    full = base + '/' + name\n"
        "    return full\n\n\n"
        "def run_comparison():\n"
        '    """Run the search with the built-in and the custom test and compare them."""\n'
        "    xs, ys, zs = make_chain_data(500)\n"
        "    built_in = [('x', 'y'), ('y', 'z')] if xs else []\n"
        "    custom = [('x', 'y')] if ys and zs else []\n"
        "    score = match_edges(custom, built_in)\n"
        "    print('match:', score['match'], out_path('edges.txt'))\n\n\n"
        'if __name__ == "__main__":\n'
        "    run_comparison()\n"
    )
    files = {
        "compare.py": program,
        "README.md": (
            "# Custom tests\n\nCompare the custom independence test with the built-in one:\n\n"
            "```\npython compare.py\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:custom",
        question="Does the custom independence test recover the chain as the built-in one does?",
        method="Run the search with both tests on a known chain and compare the edges.",
        expected_outcome="They match.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["match"]}),
    )
    steps = recovered_setup(tmp_path / "c", files, task).requirements
    joined = "\n".join(steps)
    at = [
        next(i for i, s in enumerate(steps) if ref in s)
        for ref in ("compare.py:5-10", "compare.py:13-17", "compare.py:26-32")
    ]
    assert at == sorted(at), steps
    assert "Generate samples of a known chain x -> y -> z (compare.py:5-10)" in joined, steps
    assert "Score the edges found against the true ones (compare.py:13-17)" in joined, steps
    assert "compare.py:20-23" not in joined, steps
    assert steps[-1].startswith("Final Step: Run the search with the built-in"), steps


def test_the_script_whose_run_reaches_the_tasks_measure_leads_the_best_word_match(
    tmp_path: Path,
) -> None:
    """run.py hands each `--task_name` to its own experiment module, imported only on that
    branch; only the anomaly module prints the F-score the task reports. The classification
    script matches the task's words best, but its run reaches no line printing the measure:
    the anomaly script, which runs the same program and reaches it, is the run."""
    program = (
        '"""Run one task of the series library."""\n'
        "import argparse\n\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--task_name', required=True)\n"
        "parser.add_argument('--model', default='SeriesNet')\n"
        "args = parser.parse_args()\n"
        "if args.task_name == 'classification':\n"
        "    from exp.exp_classification import Exp\n"
        "else:\n"
        "    from exp.exp_anomaly import Exp\n"
        "Exp(args).test()\n"
    )
    classify = (
        '"""Classify series and score the predicted classes."""\n\n\n'
        "class Exp:\n"
        "    def __init__(self, args):\n        self.args = args\n\n"
        "    def test(self):\n"
        "        predicted, labels = [1, 0], [1, 1]\n"
        "        accuracy = sum(p == y for p, y in zip(predicted, labels)) / len(labels)\n"
        "        print('accuracy:{}'.format(accuracy))\n"
    )
    anomaly = (
        '"""Detect anomalies by reconstruction error."""\n\n\n'
        "class Exp:\n"
        "    def __init__(self, args):\n        self.args = args\n\n"
        "    def test(self):\n"
        "        precision, recall = 0.9, 0.8\n"
        "        f_score = 2 * precision * recall / (precision + recall)\n"
        "        print('Precision : {:0.4f}, F-score : {:0.4f}'.format(precision, f_score))\n"
    )
    files = {
        "run.py": program,
        "exp/__init__.py": "",
        "exp/exp_classification.py": classify,
        "exp/exp_anomaly.py": anomaly,
        "scripts/classification/SeriesNet.sh": (
            "python -u run.py --task_name classification --model SeriesNet\n"
        ),
        "scripts/anomaly_detection/SeriesNet.sh": (
            "python -u run.py --task_name anomaly_detection --model SeriesNet\n"
        ),
        "README.md": (
            "# SeriesNet\n\nA library of series models: SeriesNet for classification and "
            "anomaly detection, with the measurements behind each figure of the paper and "
            "the model performance comparison against the alternatives.\n"
        ),
    }
    task = TaskDraft(
        key="figure-4:trend",
        question="In Figure 4 (model performance comparison), how does SeriesNet compare with "
        "the alternatives?",
        method="Reproduce the measurements behind Figure 4.",
        expected_outcome="SeriesNet is best.",
        design_complexity=DesignComplexity(
            dependent_variables={"F1-Score": "as plotted in Figure 4"}
        ),
    )
    setup = recovered_setup(tmp_path / "m", files, task)
    usage = setup.usage_instructions
    assert "`bash scripts/anomaly_detection/SeriesNet.sh`" in usage, (usage, setup.trace)
    assert "scripts/classification/SeriesNet.sh`" not in usage, usage
    assert setup.requirements[-1].endswith("(exp/exp_anomaly.py:11)"), setup.requirements


def test_the_program_of_the_arm_the_question_asks_about_leads_the_steps(tmp_path: Path) -> None:
    """ "Can Tracer optimize prompts better than Rival's COPRO?": the rival's program shares
    more of the task's words and ranks first, but the question asks about Tracer, whose run
    is run_tracer.py: its model and its learning loop are the steps, and the rival's
    program follows as another program of the experiment."""
    body = "".join(f"        self.part_{k} = prompt * {k}\n" for k in range(4))
    tracer = (
        '"""Optimize the prompt of an agent with Tracer."""\n'
        "import argparse\n\n\n"
        "class PromptAgent:\n"
        "    def __init__(self, prompt):\n"
        f"{body}"
        "        self.prompt = prompt\n\n"
        "    def forward(self, question):\n"
        "        answer = self.prompt + question\n"
        "        scored = len(answer) % 7\n"
        "        return answer, scored\n\n\n"
        "def learn_prompt(agent, examples, epochs):\n"
        "    reward = 0\n"
        "    for epoch in range(epochs):\n"
        "        for question in examples:\n"
        "            answer, scored = agent.forward(question)\n"
        "            reward += scored\n"
        "    return reward\n\n\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--task_start', type=int, default=0)\n"
        "    args = parser.parse_args()\n"
        "    agent = PromptAgent('Answer:')\n"
        "    print('accuracy', learn_prompt(agent, ['q1', 'q2'], 3))\n"
    )
    rival = (
        '"""Optimize prompts with the COPRO optimizer of the rival library: prompts, '
        'optimizer, benchmark, accuracy."""\n'
        "import argparse\n\n\n"
        "def copro_optimize(prompts, benchmark):\n"
        "    best = max(prompts, key=len)\n"
        "    accuracy = len(best) / (len(benchmark) + 1)\n"
        "    return best, accuracy\n\n\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--copro', action='store_true')\n"
        "    parser.add_argument('--task_start', type=int, default=0)\n"
        "    args = parser.parse_args()\n"
        "    best, accuracy = copro_optimize(['optimize prompts', 'a'], ['benchmark'])\n"
        "    print('accuracy', accuracy)\n"
    )
    files = {
        "run_tracer.py": tracer,
        "run_rival.py": rival,
        "README.md": (
            "# Prompt optimization benchmark\n\nOptimize prompts with Tracer:\n\n"
            "```\npython run_tracer.py --task_start 0\n```\n\n"
            "The rival library's COPRO optimizer on the same benchmark:\n\n"
            "```\npython run_rival.py --copro --task_start 0\n```\n"
        ),
    }
    task = _task(
        "Can Tracer optimize prompts better than Rival's COPRO optimizer on the benchmark's "
        "accuracy?",
        {"optimizer": ["Tracer", "Rival's COPRO"]},
    )
    setup = recovered_setup(tmp_path / "t", files, task)
    steps = "\n".join(setup.requirements)
    assert "Run Tracer: `python run_tracer.py --task_start 0`" in setup.usage_instructions, (
        setup.usage_instructions
    )
    assert "PromptAgent" in steps and "learn_prompt" in steps.lower().replace(" ", "_"), steps
    assert setup.source[0] == "run_tracer.py", setup.source


def test_a_loader_is_cited_where_it_reads_and_said_to_split_only_where_it_splits(
    tmp_path: Path,
) -> None:
    """A data set class reading its file in `__init__` (`json.load(open(path))`) and serving
    one item per index in `__getitem__` is cited at its `__init__`, where the data is read,
    and loads the data; it splits nothing, and so does not "split" it (numeracy's
    `ReadDataset`, the 37th development and 32nd held-out readers). One choosing rows by `self.flag` into `self.val` and
    `self.test` splits them; a string's `.split()` is no split."""
    reading = "".join(f"        self.opt_{k} = {k}\n" for k in range(36))
    plain = (
        "import json\n\n\nclass NumberDataset:\n"
        "    def __init__(self, path='data/numbers.json'):\n"
        f"{reading}"
        "        self.raw = json.load(open(path))\n"
        "        self.rows = [line.split(' ') for line in self.raw]\n\n"
        "    def __getitem__(self, idx):\n"
        "        row = self.rows[idx]\n        return row[0], row[1]\n\n"
        "    def __len__(self):\n        return len(self.rows)\n"
    )
    splitting = plain.replace(
        "        self.rows = [line.split(' ') for line in self.raw]\n",
        "        self.rows = [line.split(' ') for line in self.raw]\n"
        "        self.val = self.rows[: len(self.rows) // 5]\n"
        "        self.test = self.rows[len(self.rows) // 5 :]\n",
    )
    task = _task("How accurate is the number model on Numeracy?", {}, {"dataset": "Numeracy"})
    from extractors.agent.data_steps import DataSteps

    for name, text, verb in (("plain", plain, "Load"), ("split", splitting, "Load and split")):
        root = tmp_path / name
        index = committed_index(root, {"dataset.py": text, "train.py": "import dataset\n"})
        tracer = StepTracer(index, RepoSearch(root, index))
        step = DataSteps(index, tracer).loader(task, ["dataset.py"], [])
        assert step is not None, name
        assert step.action == f"{verb} the Numeracy data (NumberDataset.__init__)", step
        assert (step.path, step.start) == ("dataset.py", 5), step


def test_a_training_function_branching_on_its_method_is_cited_where_its_default_trains(
    tmp_path: Path,
) -> None:
    """HEST's `train_test_reg(..., method='ridge')` fits a ridge regression when `method` is
    'ridge' and loops over the genes fitting a random forest otherwise. The training step
    cited that loop (the 39th development reader: "the random-forest per-gene loop, while
    the default is ridge"). A loop in a branch the parameter's default leaves is no loop of
    the run; with none left, the step is the branch the default takes, and says so."""
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.agent.training_steps import TrainingSteps
    from extractors.repo import RepoSearch

    padding = "".join(f"    score_{i} = preds_all * {i}\n" for i in range(30))
    program = (
        "import argparse\n"
        "\n"
        "\n"
        "def train_reg(X, y, genes=None, method='ridge'):\n"
        "    if method == 'ridge':\n"
        "        alpha = 100 / X.shape[1]\n"
        "        reg = Ridge(alpha=alpha)\n"
        "        reg.fit(X, y)\n"
        "        preds_all = reg.predict(X)\n"
        "    elif method == 'random-forest':\n"
        "        results = []\n"
        "        for i in range(y.shape[1]):\n"
        "            results.append(train_regressor(X, y[:, i]))\n"
        "        preds_all = results\n"
        f"{padding}"
        "    return preds_all\n"
        "\n"
        "\n"
        "def train_regressor(X, y):\n"
        "    return Forest().fit(X, y)\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--genes', type=int, default=50)\n"
        "    args = p.parse_args()\n"
        "    preds = train_reg(None, None, args.genes)\n"
        "    print('pearson correlation', preds)\n"
    )
    root = tmp_path / "hest"
    index = committed_index(root, {"predict.py": program})
    tracer = StepTracer(index, RepoSearch(root, index))
    stages = TrainingSteps(tracer, MethodModules(index, tracer), {})
    step = stages.training(["predict.py"])
    assert step is not None
    assert (step.action, step.start, step.end) == (
        "Train (train_reg), where method is 'ridge' (its default)",
        6,
        9,
    ), step
