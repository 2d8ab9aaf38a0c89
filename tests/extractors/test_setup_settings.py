"""What selects an arm besides a launch script or a parser option, and what a command needs to
run: switches an entry point hard-codes in its main block, options its code refuses to run
without, notebooks read as steps of code, documented commands run from their own folder.
Each repository is built with git in tmp_path and mined for real."""

from __future__ import annotations

import ast
import itertools
import json
from pathlib import Path

import pytest
from repo_fixture import cites, committed_index, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft

DEMO = '''"""Segment a CT volume with text, box or point prompts."""
import argparse


def set_parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", type=str, default="")
    parser.add_argument("--test_mode", default=True, type=bool)
    return parser.parse_args()


def dice_score(pred, gt):
    return 2 * (pred & gt).sum() / (pred.sum() + gt.sum())


def inference(args, model, volume):
    text = "liver" if args.use_text_prompt else None
    box = None
    if args.use_box_prompt:
        box = model.box(volume)
    logits = model(volume, text=text, box=box)
    print("zoom out dice", dice_score(logits, volume))
    if not args.use_zoom_in:
        return logits
    logits = model.zoom_in(volume, logits)
    print("zoom in dice", dice_score(logits, volume))
    return logits


def main(args):
    model = object()
    volume = object()
    # prompts and zoom-in, set here rather than on the command line
    args.use_zoom_in = True
    args.use_text_prompt = True
    args.use_box_prompt = False
    args.visualize = True
    inference(args, model, volume)


if __name__ == "__main__":
    main(set_parse())
'''

LAUNCH = "python demo.py --resume path/to/ckpt.pth\n"


def _task(question: str, independent: dict, metric: str = "Dice score") -> TaskDraft:
    return TaskDraft(
        key="t",
        question=question,
        method="Run the demo with each setting and report the Dice score.",
        expected_outcome="The combined setting has the higher Dice score.",
        design_complexity=DesignComplexity(
            independent_variables=independent, dependent_variables={"metric": [metric]}
        ),
    )


def test_arms_a_script_hard_codes_are_run_by_editing_its_switches(tmp_path: Path) -> None:
    files = {"demo.py": DEMO, "script/demo.sh": LAUNCH}
    task = _task(
        "Does combining text and box prompts beat either prompt alone?",
        {"prompt type": ["text", "box", "box+text"]},
    )
    setup = recovered_setup(tmp_path / "seg", files, task)
    usage = setup.usage_instructions
    # each arm sets every switch of its variable, then runs the repository's launch script
    assert (
        "Run text: set `args.use_text_prompt = True` (demo.py:35) and "
        "`args.use_box_prompt = False` (demo.py:36), then run `bash script/demo.sh`." in usage
    )
    assert "Run box: set `args.use_text_prompt = False` (demo.py:35) and " in usage
    assert "Run box+text: set `args.use_text_prompt = True` (demo.py:35) and " in usage
    assert "`args.use_box_prompt = True` (demo.py:36), then run" in usage
    assert "no launch script" not in usage and "Run the default configuration" not in usage
    # --test_mode's default is True, but nothing says it selects a prompt
    assert "--test_mode" not in usage
    steps = "\n".join(setup.requirements)
    # each arm's switches, all at the same lines: one step says each arm's, citing them once
    each = "; ".join(
        f"{arm}: set args.use_text_prompt = {text}, args.use_box_prompt = {box}"
        for arm, text, box in (
            ("text", True, False),
            ("box", False, True),
            ("box+text", True, True),
        )
    )
    assert f"Select each arm at these lines: {each} (demo.py:35-36)" in steps
    assert steps.count("(demo.py:35-36)") == 1
    assert "Take the box path (prompt type) where args.use_box_prompt (demo.py:19-20)" in steps

    # "bbox" is the box switch's word with a letter before it: text+bbox sets both
    short = _task(
        "Does adding a bbox to a text prompt help?", {"prompt type": ["text", "text+bbox"]}
    )
    usage = recovered_setup(tmp_path / "bbox", files, short).usage_instructions
    assert "Run text+bbox: set `args.use_text_prompt = True` (demo.py:35) and " in usage
    assert "Run text, text+bbox" not in usage


def test_a_boolean_arm_sets_the_switch_its_variable_names(tmp_path: Path) -> None:
    files = {"demo.py": DEMO, "script/demo.sh": LAUNCH}
    task = _task(
        "Does zoom-in after zoom-out improve the Dice score over zoom-out alone?",
        {"use zoom in": ["True (zoom-out then zoom-in)", "False (zoom-out only)", "sliding"]},
    )
    usage = recovered_setup(tmp_path / "seg", files, task).usage_instructions
    assert "Run False (zoom-out only): set `args.use_zoom_in = False` (demo.py:34)" in usage
    assert "Run True (zoom-out then zoom-in): set `args.use_zoom_in = True` (demo.py:34)" in usage
    # an arm no switch names is the reviewer's, with the switches that select its siblings
    assert (
        "Run sliding: no launch script, option or in-code switch of the repository selects it; "
        "the in-code switches `args.use_zoom_in = True` (demo.py:34) select the other arms" in usage
    )
    steps = "\n".join(recovered_setup(tmp_path / "seg2", files, task).requirements)
    # `if not args.use_zoom_in: return` is where the True arm is left, not taken
    assert "Leave the True (zoom-out then zoom-in) path (use zoom in) where not args" in steps
    # and what that path runs after the guard, at its own lines
    assert "On the True (zoom-out then zoom-in) path: " in steps, steps
    assert "path: Compute logits with model.zoom_in (demo.py:25-27)" in steps, steps


def test_switches_of_state_or_other_files_are_not_settings(tmp_path: Path) -> None:
    from extractors.agent.entry_args import EntryArgs
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    model = "class M:\n    def __init__(self):\n        self.use_text = True\n"
    root = tmp_path / "seg"
    index = committed_index(root, {"demo.py": DEMO, "model.py": model})
    search = RepoSearch(root, index)
    entry_args = EntryArgs(index, search, StepTracer(index, search))
    found = [(c.target, c.value, c.line) for c in entry_args.code_settings("demo.py")]
    assert found == [
        ("args.use_zoom_in", True, 34),
        ("args.use_text_prompt", True, 35),
        ("args.use_box_prompt", False, 36),
        ("args.visualize", True, 37),
    ]
    assert entry_args.code_settings("model.py") == []  # an object's own state
    assert entry_args.code_settings("script/demo.sh") == []


BENCH = """import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--config", type=str, default=None, help="benchmark config")
parser.add_argument("--source_dataroot", type=str)
parser.add_argument("--weights_root", type=str)
parser.add_argument("--encoder", type=str, default="resnet50", help="resnet50 or conch")
parser.add_argument("--seed", type=int, default=1)
parser.add_argument("--out", type=str, required=True)


def benchmark(args):
    print("pearson", args.encoder)


if __name__ == "__main__":
    args = parser.parse_args()
    if args.config is None and args.source_dataroot is None:
        parser.error("give --config or --source_dataroot")
    benchmark(args)
"""


def test_commands_carry_the_options_the_entry_point_refuses_to_run_without(
    tmp_path: Path,
) -> None:
    files = {
        "src/bench/training/predict.py": BENCH,
        "bench_config/bench_config.yaml": "encoders: [resnet50]\n",
        "configs/other.yaml": "x: 1\n",
        "README.md": "# Bench\n",
    }
    task = _task(
        "Does the conch encoder predict expression better than resnet50?",
        {"encoder": ["resnet50", "conch"]},
        metric="Pearson correlation",
    )
    usage = recovered_setup(tmp_path / "bench", files, task).usage_instructions
    assert (
        "`python src/bench/training/predict.py --encoder conch "
        "--config bench_config/bench_config.yaml --out <OUT>`" in usage
    )
    assert (
        "`python src/bench/training/predict.py --encoder resnet50 "
        "--config bench_config/bench_config.yaml --out <OUT>`" in usage
    )
    # a root of model weights is not where the data goes
    assert "--weights_root" not in usage


def _notebook(cells: list[tuple[str, str]]) -> str:
    return json.dumps(
        {
            "cells": [
                {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True)}
                for kind, text in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def test_notebook_steps_say_what_the_code_does_under_the_cells_title(tmp_path: Path) -> None:
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    notebook = _notebook(
        [
            ("code", "import os\nos.environ['OPENAI_API_KEY'] = ''\n"),
            ("code", "def on_button_click(b):\n    pass\n\ndef save_api_key(k):\n    pass\n"),
            ("markdown", "## Data generation\n"),
            (
                "code",
                "def make_noise(n):\n    return [0.0] * n\n\ndef make_data(n):\n"
                "    return make_noise(n)\n",
            ),
            ("markdown", "Please note that the sample size is large. Reduce it if slow.\n"),
            ("code", "X = make_data(2000)\nX = X[:10]\n"),
            ("markdown", "# Execute the program\n"),
            ("code", "P, U = camuv.execute(X, 0.01, 3)\n"),
            ("markdown", "### Direct causal relationships\n"),
            ("code", "for i, parents in enumerate(P):\n    print(i, parents)\n"),
        ]
    )
    root = tmp_path / "nb"
    index = committed_index(root, {"tests/example.ipynb": notebook})
    search = RepoSearch(root, index)
    actions = [s.action for s in StepTracer(index, search).notebook_steps("tests/example.ipynb")]
    assert actions == [
        "Data generation: define make_noise, make_data",
        "Compute X with make_data",  # the sentence above it is no title
        "Execute the program: compute (P, U) with camuv.execute",
        "Direct causal relationships: print each item of enumerate(P)",
    ]


def test_a_notebook_that_is_the_experiment_gives_its_cells_past_seven(tmp_path: Path) -> None:
    cells = [("markdown", "# Causal discovery with unobserved variables\n")]
    for k in range(10):
        cells += [("markdown", f"## Stage {k}\n"), ("code", f"def stage_{k}(x):\n    return x\n")]
    cells += [("code", "result = stage_9(stage_0(1))\nprint('causal result', result)\n")]
    files = {"examples/causal_discovery.ipynb": _notebook(cells)}
    task = TaskDraft(
        key="t",
        question="How can you run causal discovery with unobserved variables in the notebook?",
        method="Run each stage of the causal discovery notebook and print the result.",
        expected_outcome="The causal result is printed.",
    )
    setup = recovered_setup(tmp_path / "nb10", files, task)
    cited = [r for r in setup.requirements if "causal_discovery.ipynb" in r]
    # every stage is a cell of the experiment: more than the seven a traced script gets
    assert len(cited) >= 10, setup.requirements


def test_a_notebooks_command_runs_from_its_folder_when_it_is_written_from_there() -> None:
    from expcurate.records import DocCommand
    from extractors.repo.commands import run_from

    known = {"src/bench/predict.py", "tutorials/run.ipynb", "examples/train.py"}
    up = DocCommand(doc="tutorials/run.ipynb", text="python ../src/bench/predict.py", line=1)
    assert run_from(up, known) == "cd tutorials && python ../src/bench/predict.py"
    root = DocCommand(doc="tutorials/run.ipynb", text="python examples/train.py", line=1)
    assert run_from(root, known) == "python examples/train.py"


def test_a_switch_named_by_an_abbreviation_of_the_arm_selects_it() -> None:
    from expcurate.records import CliFlag
    from extractors.agent.arm_options import arm_flag
    from extractors.agent.arms import Arm

    options = [
        CliFlag(name="--wo_conv", switch=True),
        CliFlag(name="--serial_conv", switch=True),
        CliFlag(name="--pad_mode", default="zeros"),
    ]

    def arm(value: str) -> Arm:
        return Arm("convolution module", value, frozenset(value.lower().replace("/", " ").split()))

    found = {v: arm_flag(arm(v), options) for v in ("Seq Conv", "Par Conv", "w/o Conv")}
    assert {v: f.name if f else None for v, f in found.items()} == {
        "Seq Conv": "--serial_conv",
        "Par Conv": None,  # the default: no switch turns it on
        "w/o Conv": "--wo_conv",
    }


FORECAST_RUN = """import argparse

from exp import Exp

parser = argparse.ArgumentParser()
parser.add_argument("--model", default="Linear", help="model name")
parser.add_argument("--is_training", type=int, default=1)
args = parser.parse_args()

if args.is_training:
    exp = Exp(args)
    exp.train()
    exp.test()
"""

FORECAST_EXP = """from models import CycleNet, Linear


class Exp:
    def __init__(self, args):
        self.model = {"CycleNet": CycleNet, "Linear": Linear}[args.model].Model()

    def train(self):
        for epoch in range(10):
            self.model.step(epoch)

    def test(self):
        print("mse", self.model.error())
"""

CYCLE_MODEL = '''class RecurrentCycle:
    """Learnable cycles removed from the input and added back to the output."""

    def __init__(self, length):
        self.length = length
        self.data = [0.0] * length

    def __call__(self, index):
        return self.data[index % self.length]


class Model:
    def __init__(self):
        self.cycle = RecurrentCycle(24)
        self.weights = [0.0]

    def step(self, epoch):
        return self.cycle(epoch)

    def error(self):
        return 0.0
'''


def test_the_model_a_run_names_is_the_method_and_a_bare_test_call_is_no_step(
    tmp_path: Path,
) -> None:
    files = {
        "run.py": FORECAST_RUN,
        "exp.py": FORECAST_EXP,
        "models/__init__.py": "",
        "models/CycleNet.py": CYCLE_MODEL,
        "models/Linear.py": "class Model:\n    def __init__(self):\n        self.w = [0.0]\n",
        "scripts/CycleNet/etth1.sh": "python run.py --model CycleNet\n",
    }
    # nothing in the question names the module's code: the run's --model names it
    task = _task(
        "Does removing the periodic component help a linear backbone forecast ETTh1?",
        {"method": ["CycleNet"]},
        metric="MSE",
    )
    setup = recovered_setup(tmp_path / "fc", files, task)
    steps = "\n".join(setup.requirements)
    assert "models/CycleNet.py" in setup.masked_source
    assert "(models/CycleNet.py:1-9)" in steps  # RecurrentCycle, by its docstring
    assert "Train (Exp.train)" in steps
    # `exp.test()` in run.py only calls what the Evaluate step cites
    assert "(run.py:13)" not in steps


CONV_RUN = """import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="ETTh1", help="dataset name")
parser.add_argument("--seed", type=int, default=2021, help="random seed, default 2021")
parser.add_argument("--wo_conv", action="store_true", help="without convolution")
parser.add_argument("--serial_conv", action="store_true", help="serial convolution")
args = parser.parse_args()


def forecast(args):
    if args.wo_conv:
        return 0.0
    return 1.0


if __name__ == "__main__":
    score = forecast(args)
    print("dice", score)
"""

CONV_SCRIPT = "python run.py --data ETTh1 --persevere 3\npython run.py --data ETTh2 --ratio 2\n"


def test_the_arm_no_switch_turns_on_runs_bare_and_a_rejected_flag_is_said(
    tmp_path: Path,
) -> None:
    files = {
        "run.py": CONV_RUN,
        "scripts/etth1.sh": CONV_SCRIPT,
        "tests/test_run.py": "def test_forecast():\n    assert True\n",
    }
    task = _task(
        "Does the parallel convolution beat the serial one and none at all on ETTh1?",
        {"convolution": ["Par Conv", "Seq Conv", "w/o Conv"], "seed": ["default"]},
        metric="segmentation accuracy",
    )
    setup = recovered_setup(tmp_path / "conv", files, task)
    usage = setup.usage_instructions
    # --wo_conv and --serial_conv turn the others on: Par Conv is what runs bare
    assert "Run Par Conv: `bash scripts/etth1.sh`" in usage
    assert "Run Seq Conv: `python run.py --data ETTh1 --persevere 3 --serial_conv`" in usage
    # the launch script passes a flag the parser rejects: the reader is told
    # in any of its runs, not only the first
    assert "the script passes --persevere, --ratio, which its program does not define" in usage
    assert "--seed default" not in usage and "no launch script" not in usage
    # the metric the task names is printed nowhere: the line printing a common one is the end,
    # and the step says what it prints instead
    assert setup.requirements[-1] == (
        "Final Step: Report segmentation accuracy of each run, then compare Par Conv, Seq Conv "
        "and w/o Conv across them; the line prints dice, not segmentation accuracy (run.py:19)"
    )


def test_a_test_module_without_a_main_block_runs_through_pytest() -> None:
    from extractors.agent.steps import bare_run

    assert bare_run("tests/TestFCI.py", None) == "python -m pytest tests/TestFCI.py"
    assert bare_run("tools/plot.py", None) == "python tools/plot.py"


WINDOW_RUN = '''"""Forecast ETTh2 with a look-back window and a prediction horizon; print the MSE."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="ETTh1", help="dataset name")
parser.add_argument("--seq_len", type=int, default=336, help="look-back window")
parser.add_argument("--pred_len", type=int, default=96, help="prediction horizon")
args = parser.parse_args()
look_back_window, prediction_horizon = args.seq_len, args.pred_len
print("mse", 0.0)
'''


def test_numbers_the_launch_scripts_are_filed_under_are_run_by_them(tmp_path: Path) -> None:
    files = {"run.py": WINDOW_RUN}
    for window in ("336", "720"):
        files[f"scripts/PDF/{window}/etth2.sh"] = (
            f"for pred_len in 96 192\ndo\n  python run.py --data ETTh2 --seq_len {window} "
            "--pred_len $pred_len\ndone\n"
        )
    windows = _task(
        "Does a longer look-back window help on ETTh2?",
        {"look_back_window": ["336", "720"], "prediction_horizon": ["96", "192"]},
        metric="MSE",
    )
    usage = recovered_setup(tmp_path / "pdf", files, windows).usage_instructions
    assert "Run look back window 336: `bash scripts/PDF/336/etth2.sh`" in usage
    assert "Run look back window 720: `bash scripts/PDF/720/etth2.sh`" in usage
    # the horizons are no folder: they are swept inside each run
    assert "Run prediction horizon 96" not in usage, usage
    assert "of look back window 336 and look back window 720 across the runs" in usage, usage
    assert "(for each prediction horizon 96, 192)" in usage, usage


def test_a_long_design_value_is_run_by_the_name_it_starts_with(tmp_path: Path) -> None:
    from extractors.agent.arms import task_arms

    task = _task(
        "Does period patching beat plain patching?",
        {
            "model_configuration": [
                "PDF(336) with period-based patching (period=24, patch_len=1)",
                "PatchTST(336)* with enhanced patching for richer semantic content",
                "a model trained with the standard recipe of the original paper",
            ]
        },
    )
    # a long value is its leading name; a long phrase with no name is no arm
    assert [a.value for a in task_arms(task)] == ["PDF(336)", "PatchTST(336)*"]


def test_a_row_labelled_by_several_columns_is_the_arm_the_question_names() -> None:
    """A row joined from its backbone, size and method columns ("bart-large / 406M /
    GeneSis") is run as the part the question names; a row whose parts it names none of
    is no arm."""
    from extractors.agent.arms import task_arms

    rows = [
        "bart-large / 406M / GeneSis",
        "gpt2-medium / 345M / PromptSub (ours)",
        "gpt2-medium / 345M / PromptSub+ (ours)",
    ]
    task = _task("How does PromptSub compare with GeneSis across all metrics?", {"method": rows})
    assert [a.value for a in task_arms(task)] == ["GeneSis", "PromptSub (ours)"]


def test_settings_written_as_notation_are_arms_to_run_not_numbers(tmp_path: Path) -> None:
    """ "T a(x) + T b(x)" (two augmented views) and "x + x" name no code and no number, but
    they are what the table compares: each is a run the reviewer sees, and all are compared."""
    from extractors.agent.arms import numeric, task_arms

    views = ["T a(x) + T b(x)", "T a(x) + x", "x + x"]
    task = _task(
        "Can data augmentations improve forecasting with the convolution on ETTh1?",
        {"compared setting": views},
    )
    assert [a.value for a in task_arms(task)] == views
    assert not numeric("x + x") and numeric("2x") and numeric("1×10⁻²")
    files = {"run.py": CONV_RUN, "scripts/etth1.sh": "python run.py --wo_conv\n"}
    usage = recovered_setup(tmp_path / "conv", files, task).usage_instructions
    for view in views:
        assert f"Run {view}: no launch script, option or in-code switch" in usage, usage
    assert "of T a(x) + T b(x), T a(x) + x and x + x across the runs" in usage, usage
    assert "for each compared setting" not in usage, usage


def test_a_long_value_named_as_another_value_is_kept_whole() -> None:
    """ "SegNeXt-T (c) w/ stage 1" would be named "SegNeXt-T (c)", another value of the same
    variable: it is kept whole, not merged into it; names that differ stay short. A one-letter
    label is never a value an option takes (`--cfg-options` help text says "(c,d)")."""
    from expcurate.records import CliFlag
    from extractors.agent.arm_options import arm_option
    from extractors.agent.arms import task_arms, value_forms

    panels = ["SegNeXt-T (a)", "SegNeXt-T (c)", "SegNeXt-T (c) w/ stage 1"]
    task = _task("Which decoder structure is best?", {"setting": panels})
    assert [a.value for a in task_arms(task)] == panels
    methods = [
        "Trace (OptoPrime with memory, memory_size=5)",
        "Trace NoMem (OptoPrime without memory, memory_size=0)",
        "PatchTST(336) with standard patching (patch_len=16, stride=8)",
        "PatchTST(336)* with enhanced patching for richer semantic content",
    ]
    task = _task("Which optimizer is best?", {"method": methods})
    assert [a.value for a in task_arms(task)] == [
        "Trace",
        "Trace NoMem",
        "PatchTST(336)",
        "PatchTST(336)*",
    ]
    assert "c" not in value_forms("SegNeXt-T (c) w/ stage 1")
    assert "ours" in value_forms("TimesNet (ours)")
    cfg = CliFlag(name="--cfg-options", help='nested values, e.g. key="[(a,b),(c,d)]"')
    stage = next(a for a in task_arms(_task("q", {"setting": panels})) if "stage" in a.value)
    assert arm_option(stage, [cfg]) is None


def test_the_data_placeholder_says_what_the_runs_pass(tmp_path: Path) -> None:
    run = CONV_RUN.replace(
        'parser.add_argument("--seed"',
        'parser.add_argument("--root_path", default="./data/ETT/", help="data root")\n'
        'parser.add_argument("--seed"',
    ).replace("    if args.wo_conv:", "    print(args.root_path)\n    if args.wo_conv:")
    files = {"run.py": run, "scripts/etth1.sh": "python run.py --root_path ./dataset/ --wo_conv\n"}
    task = _task(
        "Does removing the convolution (w/o Conv) hurt forecasting on ETTh1?",
        {"convolution": ["Par Conv", "w/o Conv"]},
    )
    usage = recovered_setup(tmp_path / "conv", files, task).usage_instructions
    assert "--root_path <DATA_PATH> (the runs pass ./dataset/)." in usage
    assert "./data/ETT/" not in usage


ALGO = '''class {name}:
    """{name} for cooperative multi-agent training."""

    def __init__(self, lr):
        self.lr = lr

    def _get_loss(self, batch):
        loss = 0.0
        for sample in batch:
            loss += sample
        return loss / len(batch)
'''

MARL_RUN = """import argparse

from algorithms import mappo, qmix
from experiment_loader import load_experiment_config

parser = argparse.ArgumentParser()
parser.add_argument("--algo", default="mappo", help="mappo or qmix")
args = parser.parse_args()

if __name__ == "__main__":
    config = load_experiment_config(args.algo)
    algo = {"mappo": mappo.Mappo, "qmix": qmix.Qmix}[args.algo](config["lr"])
    print("return", algo._get_loss([1.0]))
"""

LOADER = '''def load_experiment_config(algorithm):
    """Load the experiment config of an algorithm for multi-agent training."""
    config = {"lr": 0.1}
    config["algorithm"] = algorithm
    config["agents"] = 4
    return config
'''


def test_compared_methods_with_their_own_modules_are_the_method_steps(tmp_path: Path) -> None:
    files = {
        "run.py": MARL_RUN,
        "experiment_loader.py": LOADER,
        "algorithms/__init__.py": "",
        "algorithms/mappo.py": ALGO.format(name="Mappo"),
        "algorithms/qmix.py": ALGO.format(name="Qmix"),
    }
    task = _task(
        "Does MAPPO reach a higher return than QMIX in multi-agent training?",
        {"algorithm": ["MAPPO", "QMIX"]},
        metric="return",
    )
    setup = recovered_setup(tmp_path / "marl", files, task)
    steps = "\n".join(setup.requirements)
    assert cites(steps, "Implement MAPPO (Mappo)", "algorithms/mappo.py:1-11"), steps
    assert cites(steps, "Implement QMIX (Qmix)", "algorithms/qmix.py:1-11"), steps
    # the config loader shares the task's words, but it is no part of either method
    assert not any(
        "experiment_loader.py" in s and s.split(": ", 1)[1].startswith("Implement")
        for s in setup.requirements
    ), steps


def test_a_launch_scripts_placeholder_paths_are_named_for_the_user(tmp_path: Path) -> None:
    launch = (
        'export ckpt="path/to/SegVol_v1.pth"\nwork_dir=./work_dir\n'
        "python demo.py --resume $ckpt --demo_config ./config/demo.json\n"
    )
    config = '{"name": "CT-1k", "case": {"ct_path": "path/to/ct", "gt_path": "path/to/gt"}}\n'
    demo = DEMO.replace(
        'parser.add_argument("--resume", type=str, default="")',
        'parser.add_argument("--resume", type=str, default="")\n'
        '    parser.add_argument("--demo_config", type=str, default="")',
    )
    files = {"demo.py": demo, "script/demo.sh": launch, "config/demo.json": config}
    task = _task(
        "Does combining text and box prompts beat either prompt alone?",
        {"prompt type": ["text", "box"]},
    )
    usage = recovered_setup(tmp_path / "seg", files, task).usage_instructions
    # the demo skips a missing checkpoint and runs untrained, and reads its CT volume from a
    # config file's placeholder paths: every run needs them, so the user is told once, first
    assert (
        "1. For every run: set the script's ckpt to your own paths; set case.ct_path, "
        "case.gt_path in config/demo.json to your own paths." in usage
    )
    assert "then run `bash script/demo.sh`." in usage
    assert "work_dir to your own" not in usage and "name in config" not in usage


def test_a_list_written_as_text_with_its_explanation_gives_one_arm_per_value(
    tmp_path: Path,
) -> None:
    files = {"demo.py": DEMO, "script/demo.sh": LAUNCH}
    task = _task(
        "Does zoom-in improve the Dice score?",
        {"use_zoom_in": "[True, False] (toggle to evaluate zoom-in inference)"},
    )
    usage = recovered_setup(tmp_path / "seg", files, task).usage_instructions
    # a bare boolean is named with its variable
    assert "Run use zoom in = True: set `args.use_zoom_in = True` (demo.py:34)" in usage
    assert "Run use zoom in = False: set `args.use_zoom_in = False` (demo.py:34)" in usage
    assert "[True, False]" not in usage


def test_values_one_config_list_holds_are_gone_through_by_every_run(tmp_path: Path) -> None:
    demo = DEMO.replace(
        '    parser.add_argument("--resume", type=str, default="")',
        '    parser.add_argument("--resume", type=str, default="")\n'
        '    parser.add_argument("--demo_config", type=str, default="")',
    )
    files = {
        "demo.py": demo,
        "config/demo.json": json.dumps({"categories": ["liver", "kidney", "spleen", "pancreas"]}),
        # the config reaches the program through a variable of the script
        "script/demo.sh": 'config="./config/demo.json"\n'
        "python demo.py --resume path/to/ckpt.pth --demo_config $config\n",
    }
    task = _task(
        "Does zoom-in inference raise the Dice score of each organ?",
        {"use_zoom_in": ["False", "True"], "organ": ["liver", "kidney", "spleen", "pancreas"]},
    )
    setup = recovered_setup(tmp_path / "organs", files, task)
    usage = setup.usage_instructions
    # one run segments every organ the config lists: the organs are not arms to run one by one
    assert "Run liver" not in usage and "Run pancreas" not in usage
    assert (
        "(for each organ liver, kidney, spleen, pancreas; one run goes through them all, as "
        "listed by categories in config/demo.json)" in usage
    )
    assert "liver" not in setup.requirements[-1]  # the comparison is of the zoom settings


RESIZE = '''"""Segment a CT volume: resize it whole, then refine the organ with a sliding window."""


def segment(args, model, volume):
    small = model.resize(volume)
    logits = model(small)
    print("resize dice", logits)
    if not args.use_refine:
        return logits
    logits = model.sliding_window(volume, logits)
    print("refined dice", logits)
    return logits


def main(args):
    args.use_refine = True
    segment(args, object(), object())


if __name__ == "__main__":
    main(object())
'''


def test_the_arm_that_runs_with_a_hard_coded_switch_off_sets_it_off(tmp_path: Path) -> None:
    files = {"demo.py": RESIZE, "script/demo.sh": "python demo.py\n"}
    task = _task(
        "Does refinement beat a simple resize and a sliding window on its own?",
        {"strategy": ["refine", "simple resize", "plain sliding window"]},
    )
    usage = recovered_setup(tmp_path / "off", files, task).usage_instructions
    assert "Run refine: set `args.use_refine = True` (demo.py:16)" in usage
    # resizing is what runs before the branch that leaves refinement: the switch off
    assert "Run simple resize: set `args.use_refine = False` (demo.py:16)" in usage
    # the sliding window is the switch's own code: nothing turns it on alone
    assert "Run plain sliding window: no launch script" in usage


def test_a_notebooks_long_cell_is_cut_into_its_parts_when_cells_are_few(tmp_path: Path) -> None:
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    long_cell = (
        "class MetaNet(nn.Module):\n"
        "    def forward(self, x, meta_param):\n"
        "        return self.fc(x) + meta_param\n"
        "\n"
        "\n"
        "net = MetaNet(5)\n"
        "xs = torch.ones((2, 5))\n"
        "\n"
        "optimizer = torchopt.MetaSGD(net, lr=1e-3)\n"
        "\n"
        "# Keep the parameters for the graph\n"
        "state_0 = torchopt.extract_state_dict(net, enable_visual=True)\n"
        "\n"
        "pred = net(xs, meta_param)\n"
        "loss = F.mse_loss(pred, ys)\n"
        "optimizer.step(loss)\n"
        "\n"
        "if loss.item() > 0:\n"
        "    render(loss)\n"
        "\n"
        "# Draw the computation graph\n"
        "display(torchopt.visual.make_dot(loss, [state_0]))\n"
    )
    notebook = _notebook(
        [
            ("markdown", "## Visualization\n"),
            ("code", "import torch\nx = torch.tensor(1.0)\ny = torch.exp(x)\n"),
            ("markdown", "## Meta-learning graph\n"),
            ("code", long_cell),
        ]
    )
    root = tmp_path / "nb"
    index = committed_index(root, {"tutorials/visual.ipynb": notebook})
    search = RepoSearch(root, index)
    tracer = StepTracer(index, search)
    # seven steps at most: the long cell stays one step, as cut it would not fit
    assert len(tracer.notebook_steps("tutorials/visual.ipynb", limit=7)) == 2
    steps = tracer.notebook_steps("tutorials/visual.ipynb", limit=12)
    assert [s.action for s in steps] == [
        "Visualization: compute x with torch.tensor",
        "Meta-learning graph: define MetaNet",
        "Create the MetaNet as net",
        "Create the MetaSGD as optimizer",
        "Keep the parameters for the graph",
        "Compute pred with net",
        "If loss.item() > 0: Call render",
        "Draw the computation graph",
    ]
    # each part cites its own lines of the .ipynb file, in order, none overlapping
    spans = [(s.start, s.end) for s in steps]
    assert all(a[1] < b[0] for a, b in itertools.pairwise(spans)), spans
    raw = notebook.splitlines()
    assert "class MetaNet" in raw[steps[1].start - 1] and "make_dot" in raw[steps[-1].end - 1]


def test_blocks_after_a_guard_prefer_those_calling_a_function_by_name() -> None:
    import ast

    from extractors.agent.inline import statement_blocks

    code = (
        "def refine(x, y):\n"  # 1
        "    # crop the region\n"
        "    crop = x[1:3].unsqueeze(0)\n"
        "\n"
        "    # pad the crop\n"  # 5
        "    crop = crop.pad(2)\n"
        "\n"
        "    # refine inside the region\n"
        "    with torch.no_grad():\n"
        "        out = sliding_window(crop, y)\n"  # 10
        "\n"
        "    # score the refined output\n"
        "    dice = dice_score(out, y)\n"
        "    return dice\n"
    )
    fn = ast.parse(code).body[0]
    assert isinstance(fn, ast.FunctionDef)
    blocks = statement_blocks(fn.body, code.splitlines(), 3)
    # the two blocks that call functions, then the first that only calls methods; file order
    assert blocks == [
        ("Crop the region", 3, 3),
        ("Refine inside the region", 9, 10),
        ("Score the refined output", 13, 14),
    ]
    # `no_grad` says nothing: a block without a comment is worded by what it runs
    bare = "with torch.no_grad():\n    out = sliding_window(crop, y)\n"
    assert statement_blocks(ast.parse(bare).body, bare.splitlines(), 1) == [
        ("Call sliding_window", 1, 2)
    ]
    # what a call returns into a name its phrase already says is not said twice
    said = "config = update_config(config, args)\n\nresult = load_dataset(path)\n"
    assert [a for a, _, _ in statement_blocks(ast.parse(said).body, said.splitlines(), 2)] == [
        "Update config",
        "Load dataset into result",
    ]


ENCODER_RUN = """import argparse


def reader(enc):
    if enc == 'exp':
        return 'exponent embedding'
    return 'default embedding'


if __name__ == '__main__':
    p = argparse.ArgumentParser()
    p.add_argument('--enc', help='number encoder [val/exp/def*]', default='def', type=str)
    p.add_argument('--embed', help='time features, options:[timeF, fixed, learned]', default='timeF')
    p.add_argument('--window', type=int, default=96)
    args = p.parse_args()
    print(reader(args.enc), 'perplexity')
"""


def test_the_values_an_options_help_lists_are_its_choices(tmp_path: Path) -> None:
    task = _task(
        "Do exponent number embeddings lower perplexity over the default encoder?",
        {"encoder": ["Exp", "Default"]},
        metric="perplexity",
    )
    task.design_complexity.constant_variables = {"window": "Fixed at 336"}
    files = {
        "train.py": ENCODER_RUN,
        "README.md": "# Numbers\n\nTrain the reader with an exponent number embedding:\n\n"
        "    python train.py\n",
    }
    usage = recovered_setup(tmp_path / "n", files, task).usage_instructions
    assert "Run Exp: `python train.py --enc exp`" in usage, usage  # as the help spells it
    assert "Run the default configuration: `python train.py`" in usage, usage  # "Default"
    # a phrase's first word is no value a help's list names: "Fixed at 336" sets no --embed
    assert "--embed" not in usage, usage


def test_the_authors_own_method_no_option_names_is_the_programs_own_run(tmp_path: Path) -> None:
    task = _task(
        "Do exponent number embeddings (ExpEmb, ours) lower perplexity over digit and value "
        "encoders?",
        {"encoder": ["ExpEmb (Ours)", "digit", "value"]},
        metric="perplexity",
    )
    files = {
        # no option lists `exp`, and no code compares one with it
        "train.py": ENCODER_RUN.replace("[val/exp/def*]", "[value/digit/def*]").replace(
            "enc == 'exp'", "enc == 'value'"
        ),
        "README.md": "# Numbers\n\nTrain the reader with number embeddings:\n\n"
        "    python train.py\n",
    }
    usage = recovered_setup(tmp_path / "o", files, task).usage_instructions
    assert "Run digit: `python train.py --enc digit`" in usage, usage
    assert (
        "Run ExpEmb (Ours): `python train.py` (the run as the repository sets it up, taken as "
        "ExpEmb (Ours), the authors' method: no option or script of the repository names it)"
    ) in usage, usage


def test_of_two_own_methods_the_one_the_other_extends_is_the_programs_own_run(
    tmp_path: Path,
) -> None:
    """ "ExpEmb (Ours)" and "ExpEmb+ (Ours)" are both the authors': the first, whose name the
    second extends, is what the program runs as it stands; the variant stays to write.
    Two own methods neither of which extends the other leave both to write."""
    files = {
        "train.py": ENCODER_RUN.replace("[val/exp/def*]", "[value/digit/def*]").replace(
            "enc == 'exp'", "enc == 'value'"
        ),
        "README.md": "# Numbers\n\nTrain the reader with number embeddings:\n\n"
        "    python train.py\n",
    }
    task = _task(
        "Do exponent number embeddings (ExpEmb+, ours) lower perplexity over digit encoders?",
        {"encoder": ["ExpEmb (Ours)", "ExpEmb+ (Ours)", "digit"]},
        metric="perplexity",
    )
    usage = recovered_setup(tmp_path / "o", files, task).usage_instructions
    assert (
        "Run ExpEmb (Ours): `python train.py` (the run as the repository sets it up, taken as "
        "ExpEmb (Ours), the authors' method: no option or script of the repository names it)"
    ) in usage, usage
    assert "Run ExpEmb+ (Ours): no launch script, option or in-code switch" in usage, usage
    task = _task(
        "Do exponent number embeddings (ExpEmb, ours) lower perplexity over digit encoders?",
        {"encoder": ["ExpEmb (Ours)", "LogEmb (Ours)", "digit"]},
        metric="perplexity",
    )
    usage = recovered_setup(tmp_path / "p", files, task).usage_instructions
    assert "taken as" not in usage, usage


OOD_TEST = """import argparse

if __name__ == '__main__':
    p = argparse.ArgumentParser()
    p.add_argument('--ds', default='cifar10', choices=['cifar10', 'cifar100'])
    p.add_argument('--odc', type=int, default=3)
    p.add_argument('--dout', default='svhn', choices=['texture', 'svhn', 'lsun'])
    p.add_argument('--ckpt', default='')
    args = p.parse_args()
    print('AUROC of the OOD detector on', args.ds, args.dout)
"""

OOD_README = """# Long-tailed OOD detection

Test the OOD detector, CIFAR10-LT:

```
for dout in texture svhn lsun
do
python test.py --ds cifar10 --odc 3 --dout $dout \\
    --ckpt <where_you_saved_it>
done
```

CIFAR100-LT:

```
for dout in texture svhn lsun
do
python test.py --ds cifar100 --odc 30 --dout $dout --ckpt <where_you_saved_it>
done
```
"""


def _ood_task() -> TaskDraft:
    task = _task(
        "How does the OOD detector's AUROC on CIFAR100-LT vary over the Texture and LSUN "
        "out-of-distribution sets?",
        {"out-of-distribution set": ["Texture", "LSUN"]},
        metric="AUROC",
    )
    task.design_complexity.constant_variables = {"dataset": "CIFAR100"}
    return task


def test_a_documented_loop_runs_whole_on_the_recipe_for_the_tasks_setting(tmp_path: Path) -> None:
    task = _ood_task()
    files = {"test.py": OOD_TEST, "README.md": OOD_README}
    usage = recovered_setup(tmp_path / "ood", files, task).usage_instructions
    # each set's run is the CIFAR100-LT recipe (`--odc 30`) with its value, the loop gone
    assert "Run Texture: `python test.py --ds cifar100 --odc 30 --dout texture --ckpt" in usage
    assert "Run LSUN: `python test.py --ds cifar100 --odc 30 --dout lsun --ckpt" in usage
    assert "$dout" not in usage, usage

    from extractors.agent.launch import appended, with_setting

    looped = "for d in a b; do python x.py --d $d; done"
    assert appended(looped, "--seed 1") == "for d in a b; do python x.py --d $d --seed 1; done"
    assert with_setting(looped, ["--d", "a"]) == "python x.py --d a"


def test_an_evaluation_is_preceded_by_the_documented_training(tmp_path: Path) -> None:
    stage = OOD_TEST.replace("print('AUROC", "train(args.odc)\n    print('loss").replace(
        "    p.add_argument('--dout', default='svhn', choices=['texture', 'svhn', 'lsun'])\n", ""
    )
    stage = stage.replace(
        "import argparse\n",
        "import argparse\n\n\ndef train(odc):\n    for epoch in range(10):\n"
        "        loss = odc * 0.1\n        print(epoch, loss)\n",
    )
    readme = (
        "# Long-tailed OOD detection\n\nTrain, CIFAR10-LT:\n\n"
        "    python stage1.py --ds cifar10 --odc 3\n\nCIFAR100-LT:\n\n"
        "    python stage1.py --ds cifar100 -odc 30\n\nThen fine-tune:\n\n"
        "    python stage2.py --ds cifar10 --odc 3\n\n" + OOD_README.split("\n", 2)[2]
    )
    task = _ood_task()
    files = {"test.py": OOD_TEST, "stage1.py": stage, "stage2.py": stage, "README.md": readme}
    setup = recovered_setup(tmp_path / "t", files, task)
    usage = setup.usage_instructions
    # once for all the runs, which evaluate what it trained, in the document's order, on the
    # task's data set
    assert (
        "Before the runs: train once as documented: `python stage1.py --ds cifar100 --odc 30`, "
        "then `python stage2.py --ds cifar100 --odc 3`."
    ) in usage, usage
    # the training is the experiment's too: its loop is a step, and it is masked
    assert any(
        r.endswith("Train first with stage1.py: Train (train) (stage1.py:4-7)")
        for r in setup.requirements
    ), setup.requirements
    assert {"test.py", "stage1.py", "stage2.py"} <= set(setup.masked_source), setup.masked_source


def test_a_later_stage_is_given_the_place_an_earlier_one_saved_under(tmp_path: Path) -> None:
    """stage1.py saves under `--srp <where_to_save_the_ckpt>`; stage2.py reads stage 1's
    checkpoint under its own `--save_root_path` (also `--srp`), which the README's command
    leaves at the authors' disk, and stage2.py does not even compile: its command is given
    the same place. A place the later program does not take is not carried."""
    stage = OOD_TEST.replace("print('AUROC", "train(args.odc)\n    print('loss").replace(
        "    p.add_argument('--dout', default='svhn', choices=['texture', 'svhn', 'lsun'])\n",
        "    p.add_argument('--save_root_path', '--srp', default='/ssd1/authors/')\n",
    )
    stage = stage.replace(
        "import argparse\n",
        "import argparse\n\n\ndef train(odc):\n    for epoch in range(10):\n"
        "        loss = odc * 0.1\n        print(epoch, loss)\n",
    )
    first = stage.replace(
        "    p.add_argument('--ckpt', default='')\n",
        "    p.add_argument('--log_to', default='')\n",
    )
    broken = stage.replace("        print(epoch, loss)\n", "        print(epoch, loss)\n   x = 1\n")
    readme = (
        "# Long-tailed OOD detection\n\nTrain, CIFAR10-LT:\n\n"
        "    python stage1.py --ds cifar10 --odc 3 --srp <where_to_save_the_ckpt> "
        "--log_to <your_log>\n\nThen fine-tune:\n\n"
        "    python stage2.py --ds cifar10 --odc 3\n\n" + OOD_README.split("\n", 2)[2]
    )
    files = {"test.py": OOD_TEST, "stage1.py": first, "stage2.py": broken, "README.md": readme}
    usage = recovered_setup(tmp_path / "s", files, _ood_task()).usage_instructions
    assert "then `python stage2.py --ds cifar100 --odc 3 --srp <where_to_save_the_ckpt>`" in (
        usage
    ), usage
    assert "stage2.py --ds cifar100 --odc 3 --srp <where_to_save_the_ckpt> --log_to" not in usage


def test_a_training_that_does_not_compile_still_takes_the_options_its_readme_gives(
    tmp_path: Path,
) -> None:
    readme = (
        "# Long-tailed OOD detection\n\nTrain:\n\n    python stage2.py --ds cifar10 --odc 3\n\n"
        + OOD_README.split("\n", 2)[2]
    )
    broken = OOD_TEST.replace("    args = p.parse_args()\n", "      args = p.parse_args()\n")
    files = {"test.py": OOD_TEST, "stage2.py": broken, "README.md": readme}
    usage = recovered_setup(tmp_path / "b", files, _ood_task()).usage_instructions
    # its parser cannot be read, but the README gives it `--ds`: the task's data set is set
    assert "`python stage2.py --ds cifar100 --odc 3`" in usage, usage


def test_the_losses_of_the_chained_training_are_steps_of_its_evaluation(tmp_path: Path) -> None:
    """The evaluation imports no loss: the objective is in what its training imports."""
    losses = (
        "import math\n\n\nclass MarginLoss:\n    def __init__(self, m):\n        self.m = m\n\n"
        "    def forward(self, a, b):\n        gap = a - b + self.m\n"
        "        return max(gap, 0.0) + math.log1p(abs(b))\n"
    )
    stage = (
        "import argparse\nfrom losses import MarginLoss\n\n\ndef train(odc):\n"
        "    loss = MarginLoss(odc)\n    for epoch in range(10):\n"
        "        print(epoch, loss.forward(epoch, odc))\n\n\nif __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n    p.add_argument('--ds', default='cifar10')\n"
        "    p.add_argument('--odc', type=int, default=3)\n    args = p.parse_args()\n"
        "    train(args.odc)\n"
    )
    readme = (
        "# Long-tailed OOD detection\n\nTrain first:\n\n    python stage1.py --ds cifar100 "
        "--odc 30\n\n" + OOD_README.split("\n", 2)[2]
    )
    files = {"test.py": OOD_TEST, "stage1.py": stage, "losses.py": losses, "README.md": readme}
    setup = recovered_setup(tmp_path / "t", files, _ood_task())
    assert "Train first with stage1.py" in "\n".join(setup.requirements), setup.requirements
    assert cites(setup.requirements, "Compute the loss (MarginLoss.forward)", "losses.py:8-10"), (
        setup.requirements
    )


def test_the_arm_the_readme_is_titled_after_is_the_authors_own_run(tmp_path: Path) -> None:
    task = _task(
        "Does NumEmb lower perplexity over the LoRA baseline?",
        {"method": ["NumEmb", "LoRA"]},
        metric="perplexity",
    )
    files = {
        "train.py": ENCODER_RUN,
        "README.md": "# NumEmb: number embeddings for perplexity\n\nTrain the reader:\n\n"
        "    python train.py\n",
    }
    usage = recovered_setup(tmp_path / "t", files, task).usage_instructions
    assert (
        "Run NumEmb: `python train.py` (the run as the repository sets it up, taken as NumEmb"
        in (usage)
    ), usage
    assert "Run LoRA: no code of the repository is its own" in usage, usage


def test_a_long_option_the_readme_writes_with_one_dash_gets_two(tmp_path: Path) -> None:
    """argparse reads the README's `-momentum 0.9` as `-m omentum`: the command the setup
    gives writes the option its parser defines, `--momentum`."""
    program = (
        "import argparse\n\nif __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('-m', '--model', default='ResNet18', choices=['ResNet18', 'ResNet34'])\n"
        "    p.add_argument('--momentum', type=float, default=0.0)\n"
        "    args = p.parse_args()\n    print('accuracy of', args.model)\n"
    )
    readme = "# Train\n\n    python train.py -momentum 0.9 --model ResNet18\n"
    task = _task(
        "Does ResNet34 beat ResNet18 on accuracy?",
        {"backbone": ["ResNet34", "ResNet18"]},
        metric="accuracy",
    )
    usage = recovered_setup(tmp_path / "d", {"train.py": program, "README.md": readme}, task)
    assert "Run ResNet34: `python train.py --momentum 0.9 --model ResNet34`" in (
        usage.usage_instructions
    ), usage.usage_instructions
    assert "-momentum" not in usage.usage_instructions.replace("--momentum", ""), usage


def test_an_option_naming_only_an_arms_note_does_not_select_it(tmp_path: Path) -> None:
    """ "ST (MSP)" is standard training scored by MSP: `--metric msp` scores the repository's
    own model by MSP, which trains no ST. A note shared by name with a sibling arm ("Tuned
    (greedy)" beside "Tuned (beam)") still selects by its note."""
    program = OOD_TEST.replace(
        "    p.add_argument('--ckpt', default='')\n",
        "    p.add_argument('--ckpt', default='')\n"
        "    p.add_argument('--metric', default='energy', choices=['msp', 'energy'])\n"
        "    p.add_argument('--decode', default='beam', choices=['greedy', 'beam'])\n",
    )
    readme = "# Tailguard: OOD detection\n\n    python test.py --ds cifar10 --ckpt <ckpt>\n"
    files = {"test.py": program, "README.md": readme}
    task = _task(
        "How does Tailguard compare with ST (MSP) and OE on AUROC?",
        {"method": ["Tailguard", "ST (MSP)", "OE"]},
        metric="AUROC",
    )
    usage = recovered_setup(tmp_path / "a", files, task).usage_instructions
    assert "--metric msp" not in usage, usage
    assert "Run ST (MSP): no launch script" in usage, usage
    assert "Run Tailguard: `python test.py --ds cifar10 --ckpt <ckpt>`" in usage, usage

    task = _task(
        "Does Tuned (greedy) beat Tuned (beam) on AUROC?",
        {"decoding": ["Tuned (greedy)", "Tuned (beam)"]},
        metric="AUROC",
    )
    usage = recovered_setup(tmp_path / "b", files, task).usage_instructions
    assert "--decode greedy" in usage, usage


def test_a_pages_command_runs_from_the_folder_its_script_path_is_written_from() -> None:
    """`docs/eval.md` of a sub-project says `python util/evaluate_mme.py`: the script is the
    sub-project's `util/evaluate_mme.py`, so the command runs from the sub-project, not from
    `docs/` (where it would not be found)."""
    from expcurate.records import DocCommand
    from extractors.repo.commands import run_from

    known = {"v2/util/evaluate_mme.py", "v2/docs/eval.md", "v2/util/misc.py"}
    page = DocCommand(
        doc="v2/docs/eval.md",
        text="python util/evaluate_mme.py --output_path out.json",
        line=29,
        runs=["v2/util/evaluate_mme.py"],
    )
    assert run_from(page, known) == "cd v2 && python util/evaluate_mme.py --output_path out.json"


EVOLVER = (
    "import sys\n\nimport yaml\n\n\n"
    "def evolve(config):\n"
    '    """Evolve the prompts with the generator model on the benchmark tasks."""\n'
    '    return config["models"]["generator"]\n\n\n'
    'if __name__ == "__main__":\n'
    "    print(evolve(yaml.safe_load(open(sys.argv[1]))))\n"
)


def test_model_names_a_config_leaves_in_capitals_are_named_for_the_user(tmp_path: Path) -> None:
    """A config whose model names are left as `openrouter:MODEL_NAME`: the run fails until
    they are set, so every run says which keys to set, and to what kind of value; a value
    merely written in capitals (`mode: TRAIN_VAL`) is no placeholder."""
    from extractors.agent.launch import placeholder_name, placeholder_value

    assert placeholder_value("openrouter:MODEL_NAME") and placeholder_name("openrouter:MODEL_NAME")
    assert placeholder_value("YOUR_API_KEY") and placeholder_name("YOUR_API_KEY")
    assert not placeholder_value("TRAIN_VAL") and not placeholder_value("max_name")
    assert placeholder_value("path/to/ct") and not placeholder_name("path/to/ct")
    config = (
        "models:\n"
        '  generator: "openrouter:MODEL_NAME"\n'
        '  judge: "openrouter:MODEL_NAME"\n'
        "mode: TRAIN_VAL\n"
        "tasks: [gpqa, humaneval]\n"
    )
    readme = "# Evolver\n\nEvolve prompts:\n\n```\npython main.py configs/demo.yaml\n```\n"
    files = {"main.py": EVOLVER, "configs/demo.yaml": config, "README.md": readme}
    task = _task(
        "Does evolving the prompts with the generator model raise accuracy on the tasks?",
        {"method": ["evolved prompts"]},
    )
    usage = recovered_setup(tmp_path / "ev", files, task).usage_instructions
    assert (
        "set models.generator, models.judge in configs/demo.yaml to your own values "
        "(it leaves openrouter:MODEL_NAME)" in usage
    ), usage
    assert "mode in configs" not in usage and "mode," not in usage, usage


def test_language_models_a_config_leaves_to_fill_are_run_once_each(tmp_path: Path) -> None:
    """A table "within each of" two language models, on a program whose config leaves its
    model names to fill: each model is a run of that config with its keys set to it, and
    the base run names no one model as the task's."""
    config = (
        "models:\n"
        '  generator: "openrouter:MODEL_NAME"\n'
        '  judge: "openrouter:MODEL_NAME"\n'
        "tasks: [gpqa, humaneval]\n"
    )
    readme = (
        "# Evolver\n\nSet the models (Qwen3-4B, DeepSeek-V3.2, ...) in the config, then evolve "
        "prompts:\n\n```\npython main.py configs/demo.yaml\n```\n"
    )
    files = {"main.py": EVOLVER, "configs/demo.yaml": config, "README.md": readme}
    task = _task(
        "How do the prompts evolved with the generator model compare with the benchmark "
        "tasks' own prompts within each of Qwen3-4B Instruct and DeepSeek-V3.2?",
        {"prompts": ["evolved prompts", "own prompts"], "group": ["Qwen3-4B Instruct",
                                                                "DeepSeek-V3.2"]},
    )  # fmt: skip
    usage = recovered_setup(tmp_path / "lm", files, task).usage_instructions
    for model in ("Qwen3-4B Instruct", "DeepSeek-V3.2"):
        assert (
            f"Run {model}: `python main.py configs/demo.yaml` (set models.generator, "
            f"models.judge in configs/demo.yaml to {model}, as your provider names it, first)"
        ) in usage, usage
    assert "the task's model is" not in usage, usage


@pytest.mark.parametrize(
    ("value", "model"),
    [
        ("DeepSeek-V3.2", True),
        ("Qwen3-4B Instruct", True),
        ("Llama-7b", True),
        ("gpt-3.5-turbo", True),
        ("GPT-4o-2024-08-06", True),
        ("CodeLlama", True),
        ("Falcon-40B", True),
        ("LSTM", False),
        ("phi = 0.5", False),
        ("Optimizer", False),
        ("non-code-tuned models (e.g., Llama-2 series)", False),
        ("Alpaca-LoRA", False),
        ("LLaMA-Adapter", False),
    ],
)
def test_a_language_model_is_named_by_its_family(value: str, model: bool) -> None:
    from extractors.agent.run_notes import names_llm

    assert names_llm(value) is model


def test_an_option_taking_a_model_name_runs_each_language_model(tmp_path: Path) -> None:
    """`--model` defaults to a model's name and declares no choices: a language model the
    task compares is run with it, spelled as the default is (lower case, as the code's
    `startswith('llama')` wants it), though the repository names no such model."""
    program = (
        "import argparse\n\n\n"
        "def ask(model_name):\n"
        '    """Ask the model for each parent and each child."""\n'
        "    if model_name.startswith('llama'):\n"
        "        return load_llama(model_name)\n"
        "    return model_name\n\n\n"
        "def load_llama(path):\n"
        "    return path\n\n\n"
        'if __name__ == "__main__":\n'
        "    parser = argparse.ArgumentParser()\n"
        '    parser.add_argument("--model", type=str, default="gpt-3.5-turbo")\n'
        "    print(ask(parser.parse_args().model))\n"
    )
    readme = "# Ask\n\n```\npython ask.py --model gpt-3.5-turbo\n```\n"
    task = _task(
        "Does each model asked for each parent and each child find the parent more often?",
        {"llm model": ["gpt-3.5-turbo", "Llama-7b", "Llama-13b"]},
    )
    files = {"ask.py": program, "README.md": readme}
    usage = recovered_setup(tmp_path / "ask", files, task).usage_instructions
    assert "Run Llama-7b: `python ask.py --model llama-7b`" in usage, usage
    assert "Run Llama-13b: `python ask.py --model llama-13b`" in usage, usage


def test_a_model_name_left_to_fill_is_the_model_the_task_names() -> None:
    """A config leaving `openrouter:MODEL_NAME` for the user: the task's table is on
    Qwen3-4B-Instruct, which the instruction names; a task naming two sized models, or
    none, names none."""
    from expcurate.records import ConfigFile
    from extractors.agent.run_notes import config_placeholders, sized_model

    config = ConfigFile(
        path="configs/demo.yaml", values={"models.generator": "openrouter:MODEL_NAME"}
    )
    model = sized_model("Ablation results of Eevee on Qwen3-4B-Instruct (Table 2)")
    assert model == "Qwen3-4B-Instruct"
    assert config_placeholders([config], model) == (
        "set models.generator in configs/demo.yaml to your own values (it leaves "
        "openrouter:MODEL_NAME; the task's model is Qwen3-4B-Instruct)"
    )
    assert sized_model("Llama-2-7b beside Llama-2-13b") == ""
    assert sized_model("ResNet-50 on ImageNet") == ""


def test_an_ablation_naming_kernel_sizes_is_an_arm_of_its_own() -> None:
    """ "w/o 7 × 7 Br, 21 × 21 Br" counts "7 × 7" as one word: an ablation of that length is
    named whole, so each of Table 6's variants is an arm, not only "w/o Attention"."""
    from extractors.agent.arms import task_arms

    variants = [
        "w/o 11 × 11 Br, 21 × 21 Br",
        "w/o 7 × 7 Br, 21 × 21 Br",
        "w/o 1 × 1 Conv",
        "w/o Attention",
    ]
    task = TaskDraft(
        key="table-6:ablation",
        question="How does each variant compare with the full model on mIoU in Table 6?",
        method="Train each variant.",
        expected_outcome="The full model wins.",
        design_complexity=DesignComplexity(
            independent_variables={"component": ["full model", *variants]},
            dependent_variables={"metrics": ["mIoU"]},
        ),
    )
    assert [a.value for a in task_arms(task)] == ["full model", *variants]


ACF_RUN = """import argparse
from models.cyclenet import Model

if __name__ == '__main__':
    p = argparse.ArgumentParser()
    p.add_argument('--model', default='CycleNet')
    p.add_argument('--cycle', type=int, default=24)
    p.add_argument('--data_path', default='ETTh1.csv')
    args = p.parse_args()
    model = Model(args.cycle)
    print('mse', model.fit(args.data_path))
"""

ACF_MODEL = """class RecurrentCycle:
    \"\"\"learnable cycle of length cycle_len\"\"\"
    def __init__(self, cycle_len):
        self.cycle_len = cycle_len
        self.data = [0.0] * cycle_len

    def forward(self, index, length):
        return [self.data[(index + i) % self.cycle_len] for i in range(length)]


class Model:
    def __init__(self, cycle):
        self.cycle = RecurrentCycle(cycle)
        self.weights = [1.0] * cycle

    def fit(self, path):
        pred = self.cycle.forward(0, 24)
        return sum(pred) / len(pred)
"""


def test_a_notebooks_cells_come_first_and_the_launch_scripts_steps_last(tmp_path: Path) -> None:
    """A notebook is the experiment, run by itself: its cells lead, the method's code the
    plan found follows, and a launch script of the program (the plan's first run) comes
    last, not between the cells and the code."""
    notebook = _notebook(
        [
            ("markdown", "# Autocorrelation of the cycle\n"),
            ("code", "import pandas as pd\ndf = pd.read_csv('dataset/ETTh1.csv')\n"),
            ("markdown", "## Autocorrelation function\n"),
            ("code", "from statsmodels.tsa.stattools import acf\nvalues = acf(df['OT'])\n"),
            ("markdown", "## Plot the cycle length\n"),
            ("code", "import matplotlib.pyplot as plt\nplt.plot(values)\n"),
        ]
    )
    files = {
        "acf_plot.ipynb": notebook,
        "run.py": ACF_RUN,
        "models/cyclenet.py": ACF_MODEL,
        "scripts/etth1.sh": "python run.py --model CycleNet --cycle 24 --data_path ETTh1.csv\n",
        "README.md": "# CycleNet\n\n```\nbash scripts/etth1.sh\n```\n",
    }
    task = TaskDraft(
        key="t",
        question="How can autocorrelation analysis identify the cycle length for CycleNet?",
        method="Compute the autocorrelation function of the series and plot it.",
        expected_outcome="The cycle is 24 hours.",
    )
    steps = recovered_setup(tmp_path / "acf", files, task).requirements
    assert "acf_plot.ipynb" in steps[0], steps
    assert any("models/cyclenet.py" in s for s in steps), steps
    assert steps[-1].endswith("(scripts/etth1.sh:1)"), steps


def test_the_bare_arm_runs_every_data_sets_script_as_it_stands(tmp_path: Path) -> None:
    """Four data sets, one script each: Par Conv, the arm no switch turns on, is what each
    script runs as it stands, on all four, not only on the first two (the others were
    "the default configuration on Traffic" beside "Par Conv on ETTh2")."""
    sets = ["ETTh2", "Weather", "Electricity", "Traffic"]
    files = {"run.py": CONV_RUN}
    for d in sets:
        files[f"scripts/{d.lower()}.sh"] = f"python run.py --data {d}\n"
    task = _task(
        "Does the parallel convolution beat the serial one and none at all?",
        {"convolution": ["Par Conv", "Seq Conv", "w/o Conv"], "datasets": sets},
        metric="MSE",
    )
    usage = recovered_setup(tmp_path / "conv", files, task).usage_instructions
    for d in sets:
        assert f"Run Par Conv on {d}: `bash scripts/{d.lower()}.sh`" in usage, (d, usage)
    assert "the default configuration" not in usage, usage


def test_the_comparison_names_every_short_arm_whatever_its_word_count(
    tmp_path: Path,
) -> None:
    """An ablation's variants written as short lists ("w/o 7 × 7 Br, 21 × 21 Br") are
    compared as much as "w/o Conv": the comparison names them all, apart by semicolons since
    they hold commas, not only the two-word one; a long description is still no name."""
    files = {"run.py": CONV_RUN, "scripts/etth1.sh": "python run.py --data ETTh1\n"}
    long_ = "the full model with every branch and the attention kept as in the paper"
    task = _task(
        "How does each variant compare with the full model on ETTh1?",
        {"convolution": [long_, "w/o 7 × 7 Br, 21 × 21 Br", "w/o 11 × 11 Br", "w/o Conv"]},
    )
    setup = recovered_setup(tmp_path / "conv", files, task)
    usage = setup.usage_instructions
    compare = next(x for x in usage.splitlines() if "Compare" in x)
    assert (
        "compare w/o 7 × 7 Br, 21 × 21 Br; w/o 11 × 11 Br and w/o Conv across them"
        in (setup.requirements[-1])
    ), setup.requirements
    assert "of w/o 7 × 7 Br, 21 × 21 Br; w/o 11 × 11 Br and w/o Conv across the runs" in compare, (
        compare
    )
    assert long_ not in compare.split(" to answer:")[0], compare


def test_the_arm_no_switch_turns_on_takes_the_else_of_the_others_tests(
    tmp_path: Path,
) -> None:
    """`if args.wo_conv:` ... `elif args.serial_conv:` ... `else:`: the else is Par Conv's
    path, the arm the script runs as it stands; it is a step beside the others' paths, and
    the three kept are the three arms' paths, not a second of one arm's."""
    program = CONV_RUN.replace(
        "def forecast(args):\n    if args.wo_conv:\n        return 0.0\n    return 1.0\n",
        "def forecast(args):\n"
        "    if not args.wo_conv:\n        scale = 2.0\n    else:\n        scale = 1.0\n"
        "    if args.wo_conv:\n        out = scale * 0.0\n"
        "    elif args.serial_conv:\n        out = scale * 0.5\n"
        "    else:\n        local = scale * 0.25\n        out = local + 0.75\n"
        "    return out\n",
    )
    assert program != CONV_RUN
    files = {"run.py": program, "scripts/etth1.sh": "python run.py --data ETTh1\n"}
    task = _task(
        "Does the parallel convolution beat the serial one and none at all on ETTh1?",
        {"convolution": ["Par Conv", "Seq Conv", "w/o Conv"]},
    )
    steps = recovered_setup(tmp_path / "conv", files, task).requirements
    text = "\n".join(steps)
    assert (
        "Take the Par Conv path (convolution) where neither args.wo_conv nor args.serial_conv "
        "holds (run.py:21-22)"
    ) in text, text
    assert "Take the w/o Conv path (convolution) where args.wo_conv (run.py:16-17)" in text, text
    assert "Take the Seq Conv path (convolution) where args.serial_conv (run.py:18-19)" in text
    assert "Leave the w/o Conv path" not in text, text


def test_the_options_step_names_only_the_options_its_lines_define(tmp_path: Path) -> None:
    """The options selecting the arms are `--model` and `--wo_gate` (lines 4-5); a third
    whose help names an arm (`--individual`, "Gamma: ...") is forty lines on: the step
    cites lines 4-5, so it names the two they define, not the one it cannot cite."""
    filler = "".join(
        f'parser.add_argument("--opt{k}", type=int, default={k}, help="setting {k}")\n'
        for k in range(40)
    )
    program = (
        "import argparse\n\nparser = argparse.ArgumentParser()\n"
        'parser.add_argument("--model", default="Alpha", help="model name, options: [Alpha]")\n'
        'parser.add_argument("--wo_gate", action="store_true", help="without the gate")\n'
        + filler
        + 'parser.add_argument("--individual", action="store_true", help="Gamma: a layer per channel")\n'
        "args = parser.parse_args()\n\n\ndef forecast(args):\n"
        "    if args.wo_gate:\n        return 0.0\n    return 1.0\n\n\n"
        'if __name__ == "__main__":\n    print("dice", forecast(args))\n'
    )
    files = {"run.py": program, "scripts/Alpha_ETTh1.sh": "python run.py --model Alpha --opt1 3\n"}
    task = _task(
        "How does Alpha compare with Gamma, with and w/o gate?",
        {"model": ["Alpha", "Gamma"], "gate": ["with gate", "w/o gate"]},
    )
    steps = recovered_setup(tmp_path / "opts", files, task).requirements
    step = next(s for s in steps if "Add the options" in s)
    assert step.endswith(": --model, --wo_gate (run.py:4-5)"), step


def test_the_other_programs_a_task_runs_take_their_arms_paths_too(tmp_path: Path) -> None:
    """Trace runs `trace_bbh.py` as it stands; COPRO runs `dspy_bbh.py --copro`. The
    COPRO branch of the second program is a step, though the first program leads; its
    `else` is no path of Trace's, whose run is another program. A test that the value is
    not there (`'copro' not in args.mode`) leaves that path, it does not take it."""
    trace = (
        "import argparse\n\np = argparse.ArgumentParser()\n"
        "p.add_argument('--task_end', type=int, default=27)\nargs = p.parse_args()\n\n\n"
        "def learn(prompt):\n    return prompt + ' step by step'\n\n\n"
        "if __name__ == '__main__':\n    print('accuracy', len(learn('Trace')))\n"
    )
    dspy = (
        "import argparse\n\np = argparse.ArgumentParser()\n"
        "p.add_argument('--copro', action='store_true')\n"
        "p.add_argument('--task_end', type=int, default=27)\nargs = p.parse_args()\n\n\n"
        "def optimize(program):\n"
        "    if args.copro:\n        tuned = program * 2\n        return tuned\n"
        "    else:\n        return program\n\n\n"
        "if __name__ == '__main__':\n    print('accuracy', optimize(1))\n"
    )
    readme = (
        "# Prompt optimization\n\nTrace:\n\n```\npython trace_bbh.py --task_end 27\n```\n\n"
        "COPRO:\n\n```\npython dspy_bbh.py --copro --task_end 27\n```\n"
    )
    files = {"trace_bbh.py": trace, "dspy_bbh.py": dspy, "README.md": readme}
    task = _task(
        "Can Trace optimize prompts more effectively than COPRO on the bbh tasks?",
        {"optimizer": ["Trace", "COPRO"]},
        metric="accuracy",
    )
    steps = "\n".join(recovered_setup(tmp_path / "two", files, task).requirements)
    assert "Take the COPRO path (optimizer) where args.copro (dspy_bbh.py:" in steps, steps
    assert "Take the Trace path" not in steps, steps
    # of another program, only the arms' paths: not a branch on what the task holds fixed
    from expcurate.records import CliFlag
    from extractors.agent.arm_code import ArmCode
    from extractors.agent.arms import Arm
    from extractors.agent.branches import ArmBranches
    from extractors.agent.methods import MethodModules
    from extractors.agent.run import Run
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    held = dspy.replace(
        "    if args.copro:",
        "    if args.split == 'bbh':\n        program += 1\n    if args.copro:",
    )
    root = tmp_path / "held"
    index = committed_index(root, {"trace_bbh.py": trace, "dspy_bbh.py": held})
    tracer = StepTracer(index, RepoSearch(root, index))
    branches = ArmBranches(
        tracer,
        RepoSearch(root, index),
        {},
        ArmCode(tracer, MethodModules(index, tracer)),
        lambda _: [],
    )
    copro = Arm("optimizer", "COPRO", frozenset({"copro"}))
    runs = [Run("python dspy_bbh.py --copro", arms=[copro], switch="--copro", settings="--copro")]
    fixed = [(CliFlag(name="--split", default="bbh"), "bbh")]
    for only, kept in (([], True), (["dspy_bbh.py"], False)):
        found, _, _ = branches.steps([copro], ["dspy_bbh.py"], runs, fixed, arms_only=only)
        text = "\n".join(s.action for s in found)
        assert "where args.copro" in text, text
        assert ("args.split == 'bbh'" in text) is kept, (only, text)

    from extractors.agent.branches import _negated

    for text, negated in (
        ("not args.copro", True),
        ("'copro' not in args.mode", True),
        ("args.mode != 'copro'", True),
        ("args.mode == 'copro'", False),
        ("'copro' in args.mode", False),
    ):
        assert _negated(ast.parse(text, mode="eval").body) is negated, text


def test_a_flag_the_program_reads_but_its_parser_lacks_is_to_add_not_to_drop(
    tmp_path: Path,
) -> None:
    """The script passes --ratio and --persevere, neither in the parser; the program reads
    `args.ratio` all the same, so dropping it would stop the run there: it is to be added
    to the parser, and --persevere dropped."""
    program = CONV_RUN.replace(
        "    score = forecast(args)\n", "    score = forecast(args) * args.ratio\n"
    )
    assert program != CONV_RUN
    files = {"run.py": program, "scripts/etth1.sh": CONV_SCRIPT}
    task = _task(
        "Does the parallel convolution beat the serial one and none at all on ETTh1?",
        {"convolution": ["Par Conv", "Seq Conv", "w/o Conv"]},
        metric="segmentation accuracy",
    )
    usage = recovered_setup(tmp_path / "reads", files, task).usage_instructions
    assert "the script passes --persevere, which its program does not define: drop it" in usage
    assert (
        "the script passes --ratio, which its program reads but its parser does not define: "
        "add it to the parser"
    ) in usage, usage


EXPERIMENT = '''"""Run the planner against each co-player, for every number of simulations."""
import argparse

NUM_SIMS = [10, 50, 100]


def main(args):
    for sims in NUM_SIMS:
        print("return", sims, args.seed)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    main(parser.parse_args())
'''


def _returns_task() -> TaskDraft:
    return TaskDraft(
        key="figure-2:sweep",
        question="In Figure 2 (mean planner return in pursuit evasion), how does the return "
        "change with the number of simulations?",
        method="Plot the planner's mean return for each number of simulations.",
        expected_outcome="The return grows with the number of simulations.",
        design_complexity=DesignComplexity(
            independent_variables={"number of simulations": "the values plotted in Figure 2"},
            dependent_variables={"return": "as plotted in Figure 2"},
        ),
    )


def test_an_analysis_notebook_runs_after_the_experiment_beside_it(tmp_path: Path) -> None:
    # the notebook plots the results its folder holds; the program beside it writes them:
    # to reproduce the figure, not redraw it, the experiment runs first, as part of one run
    cells = [
        ("markdown", "# Pursuit evasion: planner return by number of simulations\n"),
        ("code", "import pandas as pd\nresults = pd.read_csv('results/planner_results.csv')\n"),
        ("code", "mean_return = results.groupby('num_sims')['return'].mean()\nmean_return.plot()\n"),
    ]  # fmt: skip
    files = {
        "experiments/pursuit/planner_analysis.ipynb": _notebook(cells),
        "experiments/pursuit/planner_experiment.py": EXPERIMENT,
        "experiments/pursuit/results/planner_results.csv": "num_sims,return\n10,0.1\n",
        "experiments/pursuit/test_env.py": EXPERIMENT.replace("Run the planner", "Check"),
        "README.md": "# Planner\n\nThe planner's mean return in pursuit evasion, plotted for "
        "each number of simulations: the change as the simulations grow.\n",
    }
    task = _returns_task()
    setup = recovered_setup(tmp_path / "an", files, task)
    usage = setup.usage_instructions
    assert setup.source[:2] == [
        "experiments/pursuit/planner_analysis.ipynb",
        "experiments/pursuit/planner_experiment.py",
    ], setup.source
    assert (
        "1. Run the experiment (experiments/pursuit/planner_experiment.py): "
        "`python experiments/pursuit/planner_experiment.py`.\n"
        "2. Then run the analysis that reads its results "
        "(experiments/pursuit/planner_analysis.ipynb): `jupyter nbconvert --to notebook "
        "--execute experiments/pursuit/planner_analysis.ipynb`.\n"
        "3. Report return of the run"
    ) in usage, usage


def test_an_analysis_program_is_preceded_by_the_experiment_beside_it(tmp_path: Path) -> None:
    plot = (
        '"""Plot the planner return by number of simulations, from the results."""\n'
        "import argparse\n\nimport pandas as pd\n\n\n"
        "def main(args):\n"
        "    results = pd.read_csv(args.results)\n"
        "    print('mean return', results.groupby('num_sims')['return'].mean())\n\n\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--results', default='results/planner_results.csv')\n"
        "    main(parser.parse_args())\n"
    )
    files = {
        "experiments/pursuit/plot_results.py": plot,
        "experiments/pursuit/planner_experiment.py": EXPERIMENT,
        "README.md": "# Planner\n\nThe planner's mean return in pursuit evasion, plotted for "
        "each number of simulations: the change as the simulations grow.\n\n"
        "    python experiments/pursuit/plot_results.py\n",
    }
    task = _returns_task()
    setup = recovered_setup(tmp_path / "ap", files, task)
    assert (
        "it reads what experiments/pursuit/planner_experiment.py writes: to reproduce the "
        "results rather than redraw the stored ones, run "
        "`python experiments/pursuit/planner_experiment.py` first"
    ) in setup.usage_instructions, setup.usage_instructions


def test_a_notebooks_arms_are_what_its_code_passes(tmp_path: Path) -> None:
    """The task runs a notebook as it is; its arms are set where its code passes them: a
    setting an arm states (`memory_size=0`), the task a string names (`env_name=
    "world-pick-place-v2"`), and a class of the repository made in its base's place."""
    optim = (
        '"""Optimizers of traced programs."""\n\n\nclass Prime:\n'
        "    def __init__(self, params, memory_size=0):\n        self.memory = memory_size\n\n\n"
        'class Opro(Prime):\n    """Optimization by prompting: a meta-prompt of past '
        'solutions."""\n'
    )
    notebook = _notebook(
        [
            ("markdown", "# Robot control with traced optimizers\n"),
            ("code", "from optim import Prime\n"),
            (
                "code",
                "def optimize_policy(env_name, steps=10, memory_size=5):\n"
                '    assert env_name in ["world-pick-place-v2", "world-reach-v2"]\n'
                "    optimizer = Prime([], memory_size=memory_size)\n"
                "    return [optimizer.memory] * steps\n",
            ),
            (
                "code",
                'returns = optimize_policy(\n    env_name="world-pick-place-v2",\n'
                "    steps=30,\n    memory_size=5,\n)\nprint('success', returns)\n",
            ),
        ]
    )
    files = {"optim.py": optim, "docs/robot.ipynb": notebook, "README.md": "# Traced robots\n"}
    task = TaskDraft(
        key="t",
        question="Does the traced optimizer with memory control the robot better than Opro "
        "and the one without memory on the pick-place and push tasks?",
        method="Optimize the robot's policy in the notebook with each optimizer and task.",
        expected_outcome="Memory helps.",
        design_complexity=DesignComplexity(
            independent_variables={
                "optimizer": [
                    "Prime (with memory, memory_size=5)",
                    "Prime NoMem (memory_size=0)",
                    "Opro",
                ],
                "task": ["Pick-place", "Reach", "Push"],
            },
            dependent_variables={"metric": ["success rate"]},
        ),
    )
    setup = recovered_setup(tmp_path / "nb", files, task)
    usage = setup.usage_instructions
    lines = [x.split(". ", 1)[1] for x in usage.splitlines()]
    assert (
        "Run the experiment: `jupyter nbconvert --to notebook --execute docs/robot.ipynb`." in lines
    )
    where = "docs/robot.ipynb"
    call = next(i for i, x in enumerate(notebook.splitlines(), 1) if "memory_size=5,\\n" in x)
    made = next(i for i, x in enumerate(notebook.splitlines(), 1) if "optimizer = Prime(" in x)
    env = next(i for i, x in enumerate(notebook.splitlines(), 1) if 'env_name=\\"' in x)
    assert (
        f"Run Prime (with memory, memory_size=5): the notebook passes memory_size=5 "
        f"({where}:{call}) as it stands."
    ) in lines, usage
    assert (
        f"Run Prime NoMem (memory_size=0): set memory_size=0 where the notebook passes "
        f"memory_size=5 "
        f"({where}:{call}), then run it."
    ) in lines, usage
    assert (
        f"Run Opro: make Opro (optim.py:9), a subclass of Prime, where the notebook makes Prime "
        f"({where}:{made}), then run it."
    ) in lines, usage
    assert (
        f'Run Pick-place: the notebook passes env_name="world-pick-place-v2" ({where}:{env}) '
        "as it stands."
    ) in lines, usage
    listed = next(i for i, x in enumerate(notebook.splitlines(), 1) if "assert env_name" in x)
    assert (
        f'Run Reach: where the notebook passes env_name="world-pick-place-v2" ({where}:{env}), '
        f'set env_name="world-reach-v2", as it writes it at :{listed}, then run it.'
    ) in lines, usage
    assert (
        f"Run Push: set env_name to Push's where the notebook passes "
        f'env_name="world-pick-place-v2" ({where}:{env}), and add it to the names its '
        f"`assert env_name in [...]` allows (:{listed}: world-pick-place-v2, world-reach-v2), "
        "then run it."
    ) in lines, usage
    # the lines setting the arms are steps of their own, in the notebook's order
    steps = [r.split(": ", 1)[1] for r in setup.requirements]
    assert f"Make Opro in place of Prime for Opro ({where}:{made})" in steps, steps
    assert f"Set env_name for Pick-place, Reach and Push ({where}:{env})" in steps, steps
    assert (
        f"Set memory_size for Prime (with memory, memory_size=5) and Prime NoMem "
        f"(memory_size=0) ({where}:{call})"
    ) in steps, steps
    assert (
        steps.index(f"Set env_name for Pick-place, Reach and Push ({where}:{env})") < len(steps) - 1
    )
