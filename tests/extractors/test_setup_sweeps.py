"""Setups of tasks that sweep a number (epochs 10, 20, 40): each value runs as the authors'
command with the option named like the variable set to it."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import committed_index, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft

PROGRAM = (
    "import argparse\n"
    "\n"
    "\n"
    "def fit(args):\n"
    "    for epoch in range(args.epochs):\n"
    "        print('AdaptNet accuracy', epoch * args.adapter_layer)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"  # 10
    "    p.add_argument('--epochs', type=int, default=3)\n"
    "    p.add_argument('--warmup_epochs', type=int, default=1)\n"
    "    p.add_argument('--adapter_layer', type=int, default=8)\n"
    "    fit(p.parse_args())\n"
)

SCRIPT = "python finetune.py --adapter_layer 30 --epochs 5 --warmup_epochs 2\n"

README = (
    "# AdaptNet\n\nFine-tune the adapter at each value and compare its accuracy as the epochs"
    " or layers vary; the best value changes with the task:\n\n```\nbash finetune.sh\n```\n"
)


def _task(variable: str, values: list[str]) -> TaskDraft:
    return TaskDraft(
        key="table-6:sweep",
        question=f"How does AdaptNet accuracy change as {variable} varies, and which is best?",
        method="Fine-tune the adapter at each value and compare its accuracy.",
        expected_outcome="The middle value is best.",
        design_complexity=DesignComplexity(
            independent_variables={variable: values},
            dependent_variables={"metric": ["accuracy"]},
        ),
    )


def test_each_value_of_a_swept_number_runs_with_the_option_named_like_it(tmp_path: Path) -> None:
    files = {"finetune.py": PROGRAM, "finetune.sh": SCRIPT, "README.md": README}
    setup = recovered_setup(tmp_path / "e", files, _task("Epoch", ["10", "20", "40"]))
    usage = setup.usage_instructions
    for value in ("10", "20", "40"):
        command = f"python finetune.py --adapter_layer 30 --epochs {value} --warmup_epochs 2"
        assert f"Run Epoch {value}: `{command}`" in usage, usage
        assert f"finetune.sh's command with --epochs set to {value})" in usage, usage
    # the script's own five epochs are none of the task's: no run of them
    assert "Run the default configuration" not in usage, usage
    assert "accuracy of Epoch 10, Epoch 20 and Epoch 40 across the runs" in usage, usage
    steps = "\n".join(setup.requirements)
    assert "select Epoch 10, Epoch 20, Epoch 40: --epochs (finetune.py:11)" in steps, steps


def test_a_swept_number_finds_the_one_option_holding_its_name(tmp_path: Path) -> None:
    files = {"finetune.py": PROGRAM, "finetune.sh": SCRIPT, "README.md": README}
    usage = recovered_setup(tmp_path / "l", files, _task("Layers", ["10", "20"])).usage_instructions
    assert "Run Layers 10: `python finetune.py --adapter_layer 10 --epochs 5" in usage, usage
    # "epochs" of --warmup_epochs is no second option named "Epoch": --epochs is exact
    usage = recovered_setup(tmp_path / "w", files, _task("epochs", ["1", "2"])).usage_instructions
    assert "--epochs 2 --warmup_epochs 2`" in usage, usage


def test_a_script_naming_its_program_from_its_own_folder_runs_from_there(tmp_path: Path) -> None:
    files = {
        "adapter/finetune.py": PROGRAM,
        "adapter/finetune.sh": SCRIPT,
        "README.md": README.replace("bash finetune.sh", "cd adapter\nbash finetune.sh"),
    }
    setup = recovered_setup(tmp_path / "f", files, _task("Epoch", ["10", "20"]))
    usage = setup.usage_instructions
    assert "Run Epoch 10: `cd adapter && python finetune.py --adapter_layer 30 --epochs 10" in usage
    from extractors.agent.figures import command_check

    index = committed_index(tmp_path / "f2", files)
    total, ok, problems = command_check(setup, index)
    assert (total, ok) == (2, 2), problems
    # a script that moves to its folder itself runs from anywhere
    files["adapter/finetune.sh"] = 'cd "$(dirname "$0")"\n' + SCRIPT
    task = _task("Layers", ["10", "20"])
    usage = recovered_setup(tmp_path / "g", files, task).usage_instructions
    assert "Run Layers 10: `python finetune.py --adapter_layer 10" in usage, usage


LR_PROGRAM = PROGRAM.replace("--warmup_epochs", "--lr").replace(
    "type=int, default=1", "default=1e-3"
)


def test_a_rate_written_times_ten_to_a_power_runs_as_a_number_under_its_initials(
    tmp_path: Path,
) -> None:
    """ "Learning rate 1×10⁻², 5×10⁻³" is swept by `--lr` (the variable's initials), each value
    written as the parser reads a number."""
    files = {
        "finetune.py": LR_PROGRAM,
        "finetune.sh": "python finetune.py --adapter_layer 30 --epochs 5 --lr 0.001\n",
        "README.md": README,
    }
    task = _task("learning rate", ["1×10⁻²", "5×10⁻³"])
    usage = recovered_setup(tmp_path / "r", files, task).usage_instructions
    for value in ("0.01", "0.005"):
        assert f"python finetune.py --adapter_layer 30 --epochs 5 --lr {value}`" in usage, usage
    assert "Run learning rate 1×10⁻²: `" in usage, usage  # the paper's label, kept


def test_runs_writing_to_the_same_place_each_write_to_their_own(tmp_path: Path) -> None:
    """The script's `--output_dir ./checkpoint/` in every sweep run: the second run would
    overwrite the first, so each writes under its own value."""
    program = PROGRAM.replace(
        "    p.add_argument('--warmup_epochs', type=int, default=1)\n",
        "    p.add_argument('--warmup_epochs', type=int, default=1)\n"
        "    p.add_argument('--output_dir', default='out/')\n",
    )
    files = {
        "finetune.py": program,
        "finetune.sh": SCRIPT.replace("\n", " --output_dir ./checkpoint/\n"),
        "README.md": README,
    }
    usage = recovered_setup(tmp_path / "o", files, _task("Epoch", ["10", "20"])).usage_instructions
    assert "--epochs 10 --warmup_epochs 2 --output_dir ./checkpoint/epoch_10/`" in usage, usage
    assert "--epochs 20 --warmup_epochs 2 --output_dir ./checkpoint/epoch_20/`" in usage, usage


def test_results_averaged_over_several_seeds_are_repeated_with_the_seed_option(
    tmp_path: Path,
) -> None:
    """ "averaged over three runs": every run says to repeat it with `--seed 0, 1, 2` and
    average; a paper that says nothing of repeats gets no such line."""
    program = PROGRAM.replace(
        "    p.add_argument('--warmup_epochs', type=int, default=1)\n",
        "    p.add_argument('--warmup_epochs', type=int, default=1)\n"
        "    p.add_argument('--seed', type=int, default=42)\n",
    )
    files = {"finetune.py": program, "finetune.sh": SCRIPT, "README.md": README}
    task = _task("Epoch", ["10", "20"])
    task.method = "Fine-tune the adapter at each value; scores are averaged over three runs."
    usage = recovered_setup(tmp_path / "s", files, task).usage_instructions
    assert (
        "For every run: repeat each run with --seed 0, 1, 2 and average, as the paper does."
    ) in usage, usage
    usage = recovered_setup(tmp_path / "n", files, _task("Epoch", ["10", "20"])).usage_instructions
    assert "repeat each run" not in usage, usage
    # a caption reporting the spread too: "Mean and standard deviation over six random runs"
    task.method = "Follow Table 1 (Mean and standard deviation over six random runs are reported)."
    usage = recovered_setup(tmp_path / "d", files, task).usage_instructions
    assert "repeat each run with --seed 0, 1, 2, 3, 4, 5 and average" in usage, usage


def test_data_sets_only_the_measures_name_are_run_on_the_one_most_arms_have_scripts_for(
    tmp_path: Path,
) -> None:
    """Measures "ETTm1 MSE", "ETTh1 MSE", ...: every arm runs its script on one data set, the
    one both arms have a script for, and the comparison says to repeat on the others, with
    the scripts named for them as the runs' scripts are."""
    run = (
        "import argparse\n\np = argparse.ArgumentParser()\n"
        "p.add_argument('--model', default='Alpha')\np.add_argument('--data', default='ETTh1')\n"
        "args = p.parse_args()\nprint('mse', args.model, args.data)\n"
    )
    files = {
        "run.py": run,
        "scripts/Alpha_ETTm1.sh": "python run.py --model Alpha --data ETTm1\n",
        "scripts/Alpha_ETTh1.sh": "python run.py --model Alpha --data ETTh1\n",
        "scripts/Beta_ETTh1.sh": "python run.py --model Beta --data ETTh1\n",
    }
    task = TaskDraft(
        key="table-2:compare",
        question="How does Alpha compare with Beta on ETTm1 MSE and ETTh1 MSE in forecasting?",
        method="Run Alpha and Beta and compare their forecasting MSE and MAE.",
        expected_outcome="Alpha is best.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["Alpha", "Beta"]},
            dependent_variables={"metrics": ["ETTm1 MSE", "ETTm1 MAE", "ETTh1 MSE", "ETTh1 MAE"]},
        ),
    )
    usage = recovered_setup(tmp_path / "m", files, task).usage_instructions
    assert "Run Alpha on ETTh1: `bash scripts/Alpha_ETTh1.sh`" in usage, usage
    assert "Run Beta on ETTh1: `bash scripts/Beta_ETTh1.sh`" in usage, usage
    assert "the runs are on ETTh1: run them again on ETTm1 for the rest" in usage, usage
    # Alpha's script for ETTm1 is named as its ETTh1 one; Beta has none: its options are set
    assert (
        "Run them again on ETTm1: `bash scripts/Alpha_ETTm1.sh` (the other runs with their "
        "data options set to it)."
    ) in usage, usage


def test_an_arm_run_by_an_option_is_run_again_by_its_own_script_on_the_other_data(
    tmp_path: Path,
) -> None:
    """Beta's only script on ETTh1 forecasts, so its imputation run is Alpha's command with
    `--model Beta`; on Electricity, Beta has an imputation script of its own, named as
    Alpha's there: it is among the scripts to run again on Electricity."""
    run = (
        "import argparse\n\np = argparse.ArgumentParser()\n"
        "p.add_argument('--model', default='Alpha', choices=['Alpha', 'Beta'])\n"
        "p.add_argument('--data_path', default='ETTh1.csv')\n"
        "args = p.parse_args()\nprint('mse', args.model, args.data_path)\n"
    )
    files = {
        "run.py": run,
        "scripts/imputation/ETT_script/Alpha_ETTh1.sh": (
            "python run.py --model Alpha --data_path ETTh1.csv\n"
        ),
        "scripts/imputation/ECL_script/Alpha.sh": (
            "python run.py --model Alpha --data_path electricity.csv\n"
        ),
        "scripts/imputation/ECL_script/Beta.sh": (
            "python run.py --model Beta --data_path electricity.csv\n"
        ),
        "scripts/forecast/ETT_script/Beta_ETTh1.sh": (
            "python run.py --model Beta --data_path ETTh1.csv\n"
        ),
    }
    task = TaskDraft(
        key="table-4:compare",
        question="How does Alpha compare with Beta on ETTh1 MSE and Electricity MSE in imputation?",
        method="Run Alpha and Beta for imputation and compare their MSE.",
        expected_outcome="Alpha is best.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["Alpha", "Beta"]},
            dependent_variables={
                "metrics": ["ETTh1 MSE", "ETTh1 MAE", "Electricity MSE", "Electricity MAE"]
            },
        ),
    )
    usage = recovered_setup(tmp_path / "m", files, task).usage_instructions
    assert "Alpha_ETTh1.sh's command with --model set to Beta" in usage, usage
    assert (
        "Run them again on Electricity: `bash scripts/imputation/ECL_script/Alpha.sh`, "
        "`bash scripts/imputation/ECL_script/Beta.sh`."
    ) in usage, usage


IMPUTE = (
    "import argparse\n\n\nif __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--model', default='GapNet')\n    p.add_argument('--model_id', default='x')\n"
    "    p.add_argument('--data', default='ETTh1')\n"
    "    p.add_argument('--mask_rate', type=float, default=0.25)\n"
    "    p.add_argument('--d_model', type=int, default=16)\n"
    "    p.add_argument('--seed', type=int, default=1)\n    args = p.parse_args()\n"
    "    print('MSE', args.mask_rate * args.d_model)\n"
)


def _block(model: str, data: str, rate: str, d_model: str = "16", seed: str = "1") -> str:
    return (
        f"python -u run.py \\\n  --model_id {data}_mask_{rate} \\\n  --mask_rate {rate} \\\n"
        f"  --model {model} \\\n  --data {data} \\\n  --d_model {d_model} \\\n  --seed {seed}\n\n"
    )


def test_a_sweep_written_out_run_by_run_is_shown_and_carried_to_derived_commands(
    tmp_path: Path,
) -> None:
    """GapNet's script runs run.py once per mask rate, each run labelled by its rate: that is
    a sweep over four rates, shown as one, and the baseline's command built on it is run
    once per rate. A run on other data, or differing in more, is not part of the sweep."""
    rates = ["0.125", "0.25", "0.375", "0.5"]
    script = "model_name=GapNet\n\n" + "".join(_block("$model_name", "ETTh1", r) for r in rates)
    script += _block("$model_name", "ETTm1", "0.125") + _block(
        "$model_name", "ETTh1", "0.7", "64", "7"
    )
    files = {
        "run.py": IMPUTE,
        "scripts/GapNet_ETTh1.sh": script,
        "models/GapNet.py": "class Model:\n    def forward(self, x):\n        return x * 0.5\n",
        "models/Linear.py": "class Model:\n    def forward(self, x):\n        return x + 1\n",
        "README.md": "# GapNet\n\nImpute:\n\n```\nbash scripts/GapNet_ETTh1.sh\n```\n",
    }
    task = TaskDraft(
        key="table-4:impute",
        question="How does GapNet compare with Linear on MSE for imputation on ETTh1?",
        method="Run GapNet and Linear on ETTh1 and compare the MSE averaged over mask ratios.",
        expected_outcome="GapNet is best.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["GapNet", "Linear"]},
            constant_variables={"dataset": "ETTh1"},
            dependent_variables={"metric": ["MSE"]},
        ),
    )
    usage = recovered_setup(tmp_path / "g", files, task).usage_instructions
    assert "--mask_rate {0.125,0.25,0.375,0.5} " in usage, usage
    # the labels that follow the sweep are not settings; the outlier run is no value of it
    assert "--model_id" not in usage.splitlines()[0] and "0.7" not in usage, usage
    assert "once per value it sweeps (--mask_rate {0.125,0.25,0.375,0.5})" in usage, usage


def test_a_sweep_whose_longer_values_tune_other_options_is_still_one_sweep(
    tmp_path: Path,
) -> None:
    """TimesNet's long-term script: four runs labelled by their horizon, the two longest with a
    smaller `--d_model` and one with `--train_epochs 3` of its own. The labels spell the
    horizon, so that is the sweep, all four values of it; what is tuned with it is the
    script's to set, not a setting to show."""
    program = IMPUTE.replace("'--mask_rate', type=float, default=0.25", "'--pred_len', type=int")
    program = program.replace("args.mask_rate", "args.pred_len").replace(
        "    args = p.parse_args()",
        "    p.add_argument('--train_epochs', type=int, default=10)\n    args = p.parse_args()",
    )

    def horizon(pred_len: str, d_model: str, epochs: str = "") -> str:
        tail = f" \\\n  --train_epochs {epochs}\n\n" if epochs else "\n\n"
        return (
            f"python -u run.py \\\n  --model_id ETTh1_96_{pred_len} \\\n  --pred_len {pred_len} "
            f"\\\n  --model GapNet \\\n  --data ETTh1 \\\n  --d_model {d_model} \\\n"
            f"  --seed 1{tail}"
        )

    script = horizon("96", "64") + horizon("192", "64") + horizon("336", "16", "3")
    script += horizon("720", "16")
    files = {
        "run.py": program,
        "scripts/GapNet_ETTh1.sh": script,
        "models/GapNet.py": "class Model:\n    def forward(self, x):\n        return x * 0.5\n",
        "README.md": "# GapNet\n\nForecast:\n\n```\nbash scripts/GapNet_ETTh1.sh\n```\n",
    }
    task = TaskDraft(
        key="table-13:compare",
        question="How does GapNet forecast ETTh1 on MSE at each prediction length?",
        method="Run GapNet on ETTh1 at every prediction length and report the MSE.",
        expected_outcome="GapNet's error grows with the horizon.",
        design_complexity=DesignComplexity(
            constant_variables={"dataset": "ETTh1"},
            dependent_variables={"metric": ["MSE"]},
        ),
    )
    usage = recovered_setup(tmp_path / "t", files, task).usage_instructions
    assert "--pred_len {96,192,336,720}" in usage, usage
    assert "--d_model" not in usage and "--train_epochs" not in usage, usage


def test_measures_named_by_data_set_and_horizon_are_taken_on_the_data_set() -> None:
    """ "ETTm1 / 96 MSE" is the MSE on ETTm1 at one horizon, "ETTm1 / Avg MSE" its average
    over them: the data sets are ETTm1 and ETTm2, not "ETTm1 / 96" and its siblings."""
    from extractors.agent.arms import measured_on, measures_per_set

    measures = [
        f"{d} / {h} {m}"
        for d in ("ETTm1", "ETTm2")
        for h in (96, 192, "Avg")  # the average over the horizons is taken there too
        for m in ("MSE", "MAE")
    ]
    task = TaskDraft(
        key="t",
        question="How does GapNet compare with Linear?",
        design_complexity=DesignComplexity(dependent_variables={"metrics": measures}),
    )
    assert measured_on(task) == ["ETTm1", "ETTm2"]
    assert measures_per_set(task) == ["MSE", "MAE"]


def test_a_kind_of_model_given_by_one_example_runs_that_example(tmp_path: Path) -> None:
    """ "Transformer-based models (e.g., FEDformer with a 96 look-back window)" is run as
    FEDformer, through a command built on a launch script; the script it is built on, which
    runs no arm, is no run of its own. Several examples name no one model."""
    from extractors.agent.arms import task_arms

    program = IMPUTE.replace("'--model', default='GapNet'", "'--model', default='Transformer'")
    files = {
        "run.py": program,
        "scripts/GapNet_ETTh1.sh": _block("GapNet", "ETTh1", "0.125"),
        "scripts/GapNet_ETTh2.sh": _block("GapNet", "ETTh2", "0.125"),
        "baselines/Transformer.sh": _block("Transformer", "ETTh1", "0.125"),
        "models/GapNet.py": "class Model:\n    def forward(self, x):\n        return x * 0.5\n",
        "models/FEDformer.py": "class Model:\n    def forward(self, x):\n        return x + 1\n",
        "models/Transformer.py": "class Model:\n    def forward(self, x):\n        return x - 1\n",
    }
    kinds = ["GapNet", "Transformer-based models (e.g., FEDformer with a 96 look-back window)"]
    task = TaskDraft(
        key="table-1:compare",
        question="How does GapNet compare with Transformer-based models on MSE on ETTh1?",
        method="Run GapNet and the Transformer-based models on ETTh1 and compare MSE.",
        expected_outcome="GapNet is best.",
        design_complexity=DesignComplexity(
            independent_variables={"model": kinds},
            constant_variables={"datasets": ["ETTh1", "ETTh2"]},
            dependent_variables={"metric": ["MSE"]},
        ),
    )
    assert [a.value for a in task_arms(task)] == ["GapNet", "FEDformer"]
    usage = recovered_setup(tmp_path / "f", files, task).usage_instructions
    assert "Run FEDformer on ETTh1: `python -u run.py" in usage, usage
    assert "--model FEDformer" in usage, usage
    assert "default configuration" not in usage, usage
    several = TaskDraft(
        key="t",
        question="q",
        design_complexity=DesignComplexity(
            independent_variables={"model": ["GapNet", "baselines (e.g., PatchTST or DLinear)"]}
        ),
    )
    assert [a.value for a in task_arms(several)] == ["GapNet"]


def test_a_script_that_only_served_as_a_base_is_no_run_of_the_task() -> None:
    from extractors.agent.arms import Arm
    from extractors.agent.run import Run
    from extractors.agent.runs import without_bases

    fed = Arm("model", "FEDformer", frozenset({"fedformer"}))
    base = Run("bash Formers/Transformer.sh", script="Formers/Transformer.sh", data="ETTh1")
    derived = Run(
        "python run.py --model FEDformer",
        arms=[fed],
        warning="Formers/Transformer.sh's command with --model set to FEDformer",
    )
    own = Run("bash scripts/ours.sh", script="scripts/ours.sh")  # the repository's own run
    assert without_bases([base, derived, own]) == [derived, own]


def test_a_derived_command_meets_the_models_own_assertion(tmp_path: Path) -> None:
    """ETSformer's module asserts `e_layers == d_layers`; the command built for it from
    GapNet's script (`--e_layers 2 --d_layers 1`) would stop there, so --d_layers follows
    --e_layers. A model asserting nothing keeps the script's values."""
    program = IMPUTE.replace(
        "    p.add_argument('--seed'",
        "    p.add_argument('--e_layers', type=int, default=2)\n"
        "    p.add_argument('--d_layers', type=int, default=1)\n    p.add_argument('--seed'",
    )
    script = "python -u run.py --model GapNet --data ETTh1 --e_layers 2 --d_layers 1\n"
    checked = (
        "class Model:\n    def __init__(self, configs):\n"
        "        assert configs.e_layers == configs.d_layers, 'equal layers'\n"
        "        self.depth = configs.e_layers\n"
    )
    files = {
        "run.py": program,
        "scripts/GapNet_ETTh1.sh": script,
        "models/GapNet.py": "class Model:\n    def forward(self, x):\n        return x * 0.5\n",
        "models/ETSformer.py": checked,
        "models/Linear.py": "class Model:\n    def forward(self, x):\n        return x + 1\n",
    }
    task = TaskDraft(
        key="table-4:impute",
        question="How does GapNet compare with ETSformer and Linear on MSE on ETTh1?",
        method="Run GapNet, ETSformer and Linear on ETTh1 and compare the MSE.",
        expected_outcome="GapNet is best.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["GapNet", "ETSformer", "Linear"]},
            constant_variables={"dataset": "ETTh1"},
            dependent_variables={"metric": ["MSE"]},
        ),
    )
    lines = recovered_setup(tmp_path / "e", files, task).usage_instructions.splitlines()
    ets = next(x for x in lines if x.split(". ", 1)[1].startswith("Run ETSformer"))
    assert "--model ETSformer" in ets and "--d_layers 2" in ets, ets
    assert "models/ETSformer.py asserts e_layers == d_layers: --d_layers set to 2" in ets
    linear = next(x for x in lines if x.split(". ", 1)[1].startswith("Run Linear"))
    assert "--d_layers 1" in linear and "asserts" not in linear, linear


def test_a_resolution_beside_compared_models_runs_each_model_once_per_value(
    tmp_path: Path,
) -> None:
    """ "input resolution" 224x224 and 256x256 is what `--img_size` sets (a square's side):
    beside the compared models, each model's run goes through both sides, rather than a run
    of its own at 256 of whichever model the recipe names."""
    train = (
        '"""Train an image classifier on ImageNet and report its top-1 accuracy."""\n'
        "import argparse\n\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--model', choices=['gate_tiny', 'gate_small'])\n"
        "parser.add_argument('--img_size', type=int, default=224)\n"
        "parser.add_argument('--input_size', type=int, nargs=3)\n"
        "args = parser.parse_args()\nprint('top-1 accuracy', args.model, args.img_size)\n"
    )
    files = {
        "train.py": train,
        "README.md": (
            "# Gate\n\nTrain the image classifier:\n\n```\n"
            "python train.py --model gate_tiny --img_size 224\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:compare",
        question="Does gate_small beat gate_tiny in top-1 accuracy on ImageNet classification?",
        method="Train both image classifiers at two input resolutions.",
        expected_outcome="gate_small wins.",
        design_complexity=DesignComplexity(
            independent_variables={
                "model": ["gate_tiny", "gate_small"],
                "input resolution": ["224x224", "256x256"],
            },
            dependent_variables={"metric": ["top-1 accuracy"]},
        ),
    )
    usage = recovered_setup(tmp_path / "r", files, task).usage_instructions
    assert "run it once per input resolution (--img_size 224, then 256)" in usage, usage
    assert "Run gate_small: `python train.py --model gate_small --img_size 224" in usage, usage
    assert "Run input resolution" not in usage, usage
    # a note after a value ("(baseline)") leaves it the number it is, swept by its option
    task.design_complexity.independent_variables = {
        "input resolution": ["224x224 (baseline)", "256x256 (refined configuration)"],
    }
    usage = recovered_setup(tmp_path / "n", files, task).usage_instructions
    assert (
        "Run 256x256 (refined configuration): `python train.py --model gate_tiny --img_size 256`"
    ) in usage, usage


def test_a_scripts_twin_for_another_data_set_is_found_by_its_name_or_its_folder() -> None:
    from extractors.agent.usage import _renamed

    known = {
        "scripts/imputation/ETT_script/TimesNet_ETTh1.sh",
        "scripts/imputation/ETT_script/TimesNet_ETTm1.sh",
        "scripts/imputation/Weather_script/TimesNet.sh",
        "scripts/imputation/Weather_script/Autoformer.sh",
    }
    below: dict[str, list[str]] = {}
    for path in sorted(known):
        below.setdefault(path.rsplit("/", 2)[0], []).append(path)
    script = "scripts/imputation/ETT_script/TimesNet_ETTh1.sh"
    texts = {
        "scripts/imputation/ECL_script/TimesNet.sh": (
            "python -u run.py --root_path ./dataset/electricity/ --data_path electricity.csv\n"
        )
    }
    known |= set(texts)
    below = {}
    for path in sorted(known):
        below.setdefault(path.rsplit("/", 2)[0], []).append(path)
    text = lambda p: texts.get(p, "")  # noqa: E731
    assert _renamed(script, "ETTh1", "ETTm1", known, below, text) == (
        "scripts/imputation/ETT_script/TimesNet_ETTm1.sh"
    )
    assert _renamed(script, "ETTh1", "Weather", known, below, text) == (
        "scripts/imputation/Weather_script/TimesNet.sh"
    )
    assert _renamed(script, "ETTh1", "Traffic", known, below, text) == ""
    # ECL_script is named for no data set the task says; its script reads electricity.csv
    assert _renamed(script, "ETTh1", "Electricity", known, below, text) == (
        "scripts/imputation/ECL_script/TimesNet.sh"
    )
    assert _renamed(script, "ETTh1", "Electricity", known, below, lambda p: "") == ""


def test_a_runs_notes_are_joined_in_the_order_they_are_said() -> None:
    """`say` adds after what the run says, `say_first` before; nothing said adds nothing."""
    from extractors.agent.run import Run

    run = Run("python train.py")
    run.say("")
    assert run.warning == ""
    run.say("copy the data first")
    run.say_first("the script trains the authors' model")
    run.say("repeat each run 3 times")
    assert run.warning == (
        "the script trains the authors' model; copy the data first; repeat each run 3 times"
    )


def test_a_shared_place_named_after_one_runs_data_is_named_after_each_runs_own() -> None:
    """`--model_path save/CIFAR-10` shared by runs on CIFAR-10 and CIFAR-100: each writes to
    the place named after its own data set; a value naming no data set, or runs a data set
    does not tell apart, take the run's slug after it."""
    from extractors.agent.run_notes import own_output

    data = ["CIFAR-10", "CIFAR-100"]
    assert own_output("save/CIFAR-10", "cifar_100", "CIFAR-100", data) == "save/CIFAR-100"
    assert own_output("save/CIFAR-10", "cifar_10", "CIFAR-10", data) == "save/CIFAR-10"
    assert own_output("./checkpoint/", "cifar_100", "CIFAR-100", data) == "./checkpoint/cifar_100/"
    same = ["CIFAR-10", "CIFAR-10"]
    assert own_output("save/CIFAR-10", "ich_cch", "CIFAR-10", same) == "save/CIFAR-10_ich_cch"


def test_runs_are_run_again_from_the_scripts_for_the_other_value_of_their_folder() -> None:
    """The runs' scripts sit in scripts/M/720/ (a look-back window of 720) and the
    repository has the same scripts in scripts/M/336/: the other look-back window runs
    them. The horizons each script goes through itself (`--pred_len {96,192}`) are no
    folder to change, though 720 is one of the task's horizons too; a value with no such
    scripts gets no line."""
    from expcurate.records import DesignComplexity, TaskDraft
    from extractors.agent.arms import task_arms
    from extractors.agent.plan import Plan
    from extractors.agent.run import Run
    from extractors.agent.usage import again_with

    task = TaskDraft(
        key="table-7:factor",
        question="Does Par beat Seq for each look-back window and horizon?",
        design_complexity=DesignComplexity(
            independent_variables={
                "look back window": ["336", "512", "720"],
                "horizon": ["96", "720"],
                "method": ["Par", "Seq"],
            }
        ),
    )
    runs = [
        Run(
            f"bash scripts/M/720/{d}.sh",
            script=f"scripts/M/720/{d}.sh",
            settings="--pred_len {96,720}",
        )
        for d in ("etth2", "weather")
    ]
    runs.append(Run("python run.py --seq", settings="--seq"))  # built on etth2.sh's command
    known = {f"scripts/M/{w}/{d}.sh" for w in ("336", "720") for d in ("etth2", "weather")}
    assert again_with(task, Plan(runs=runs), known) == [
        "Run them again with look back window 336: `bash scripts/M/336/etth2.sh`, "
        "`bash scripts/M/336/weather.sh`."
    ]
    # a run that adds its arm's option to a script's command is run again likewise
    runs[2].arms = [a for a in task_arms(task) if a.value == "Seq"]
    said = again_with(task, Plan(runs=runs), known)
    assert said[0].endswith("(and the runs built on their commands likewise)."), said
