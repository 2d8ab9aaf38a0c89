"""The setup plan on a forecasting repository built with git in tmp_path: arms run through the
launch scripts that name them, an ablation through its option, steps cite narrow ranges of the
code that does each thing, tasks of one paper get their own steps, masking hides the method."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_fixture import cites, committed_index, recovered_setup

from expcurate.records import REF_RE, STEP_RE, DesignComplexity, RepoIndex, Setup, TaskDraft
from extractors.agent import SetupAgent, validate_references
from extractors.agent.figures import boilerplate, citations, command_check
from extractors.repo.commands import check_command

RUN = '''"""Long-term forecasting with CycleNet."""
import argparse

from exp import Exp


def get_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--model_type", default="mlp", help="backbone: linear or mlp")
    p.add_argument("--data", "--ds", default="ETTh1", help="dataset name")
    p.add_argument("--root_path", default="./dataset/", help="root path of the data file")
    p.add_argument("--seq_len", type=int, default=96, help="input length")
    p.add_argument("--pred_len", type=int, default=96, help="forecast horizon")
    p.add_argument("--wo_cycle", action="store_true", help="without the cycle module")
    p.add_argument("--learning_rate", type=float, default=0.005, help="optimizer learning rate")
    return p


if __name__ == "__main__":
    args = get_parser().parse_args()
    exp = Exp(args)
    exp.train()
    exp.test()
'''

EXP = '''"""Training and evaluation."""
from data_loader import Dataset_ETT
from models.cyclenet import Model
from utils.metrics import MAE, MSE


class Exp:
    def __init__(self, args):
        self.args = args
        self.model = Model(args)
        self.data = Dataset_ETT(args.root_path, args.data)

    def train(self):
        """Train with early stopping on the validation loss."""
        best = None
        for epoch in range(30):
            loss = self.model.step(self.data)
            if best is None or loss < best:
                best = loss
        return best

    def test(self):
        preds, trues = self.model.predict(self.data), self.data.targets()
        mse, mae = MSE(preds, trues), MAE(preds, trues)
        print("mse:{}, mae:{}".format(mse, mae))
        return mse, mae
'''

MODEL_BODY = "\n".join(f"        self.layer{i} = {i}" for i in range(40))
MODEL = f'''"""CycleNet: recurrent cycles plus a linear or MLP backbone."""


class RecurrentCycle:
    """Learnable cycles that are removed from the input and added back to the output."""

    def __init__(self, cycle_len, channels):
        self.data = [[0.0] * channels for _ in range(cycle_len)]

    def __call__(self, index, length):
        return self.data[index:index + length]


class Model:
    def __init__(self, args):
        self.model_type = args.model_type
        self.wo_cycle = args.wo_cycle
        self.cycle = RecurrentCycle(24, 7)
{MODEL_BODY}
        if self.model_type == "linear":
            self.backbone = [args.seq_len, args.pred_len]
        elif self.model_type == "mlp":
            self.backbone = [args.seq_len, 512, args.pred_len]

    def forward(self, x, index):
        if not self.wo_cycle:
            x = [a - b for a, b in zip(x, self.cycle(index, len(x)))]
        y = list(x)
        if not self.wo_cycle:
            y = [a + b for a, b in zip(y, self.cycle(index, len(y)))]
        return y

    def step(self, data):
        return 0.1

    def predict(self, data):
        return [0.0]
'''

DATA_LOADER = '''class Dataset_ETT:
    """The ETT hourly data, split 12/4/4 months into train, validation and test."""

    def __init__(self, root, name):
        self.root = root
        self.name = name
        self.__read_data__()

    def __read_data__(self):
        self.rows = [self.root, self.name]
        self.train = self.rows[:1]
        self.test = self.rows[1:]

    def targets(self):
        return [0.0]
'''

METRICS = """def MAE(pred, true):
    return sum(abs(p - t) for p, t in zip(pred, true)) / len(pred)


def MSE(pred, true):
    return sum((p - t) ** 2 for p, t in zip(pred, true)) / len(pred)
"""


def script(model_type: str, data: str) -> str:
    return f"""model_type={model_type}
data_name={data}
seq_len=96

for pred_len in 96 192 336 720
do
    python -u run.py \\
      --model_type $model_type \\
      --data $data_name \\
      --seq_len $seq_len \\
      --pred_len $pred_len \\
      --learning_rate 0.005 > logs/$model_type'_'$data_name'_'$pred_len.log
done
"""


README = """# CycleNet

Run every experiment of the paper:

```
sh scripts/MLP/etth1.sh
```
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RepoIndex]:
    root = tmp_path_factory.mktemp("plan") / "cyclenet"
    files = {
        "run.py": RUN,
        "exp.py": EXP,
        "models/__init__.py": "",
        "models/cyclenet.py": MODEL,
        "data_loader.py": DATA_LOADER,
        "utils/__init__.py": "",
        "utils/metrics.py": METRICS,
        "README.md": README,
        "requirements.txt": "torch\n",
        "docs/usage.md": "From the repository's root:\n\n```\npython run.py --ds ETTh2\n```\n",
    }
    for model_type in ("Linear", "MLP"):
        for data in ("ETTh1", "ETTh2"):
            files[f"scripts/{model_type}/{data.lower()}.sh"] = script(model_type.lower(), data)
    return root, committed_index(root, files)


def _task(key: str, question: str, independent: dict, constant: dict) -> TaskDraft:
    return TaskDraft(
        key=key,
        question=question,
        method="Train CycleNet on the ETT data with each backbone and report MSE and MAE.",
        expected_outcome="The MLP backbone has the lower MSE.",
        design_complexity=DesignComplexity(
            independent_variables=independent,
            constant_variables=constant,
            dependent_variables={"metrics": ["MSE", "MAE"]},
        ),
    )


BACKBONES = _task(
    "table-1",
    "Does CycleNet with an MLP backbone beat the Linear backbone on ETTh1 and ETTh2?",
    {"backbone": ["MLP", "Linear"], "horizon": ["96", "192", "336", "720"]},
    {"dataset": ["ETTh1", "ETTh2"]},
)
ONE_SET = _task(
    "table-2",
    "Does CycleNet with an MLP backbone beat the Linear backbone on ETTh1?",
    {"backbone": ["MLP", "Linear"]},
    {"dataset": ["ETTh1"]},
)
ABLATION = _task(
    "table-3",
    "Does removing the cycle module (w/o Cycle) hurt CycleNet on ETTh1?",
    {"variant": ["CycleNet", "w/o Cycle"]},
    {"dataset": ["ETTh1"]},
)


@pytest.fixture(scope="module")
def setups(repo: tuple[Path, RepoIndex]) -> dict[str, Setup]:
    root, index = repo
    agent = SetupAgent(index, root)
    return {t.key: agent.recover(t) for t in (BACKBONES, ONE_SET, ABLATION)}


def _block_actions(source: str) -> list[str]:
    """How a program's inline blocks are worded, at most ten."""
    import ast

    from extractors.agent.inline import inline_blocks

    blocks = inline_blocks(ast.parse(source), source.splitlines(), set(), limit=10)
    return [action for action, _, _ in blocks]


def test_each_arm_runs_through_the_script_that_names_it_once_per_data_set(setups) -> None:
    usage = setups["table-1"].usage_instructions.splitlines()
    runs = [line for line in usage if ": `bash scripts/" in line]
    assert [r.split("`")[1] for r in runs] == [
        "bash scripts/MLP/etth1.sh",
        "bash scripts/MLP/etth2.sh",
        "bash scripts/Linear/etth1.sh",
        "bash scripts/Linear/etth2.sh",
    ]
    assert runs[0].split(": `")[0].endswith("Run MLP on ETTh1")
    # the script's settings, its variables filled in and the horizon sweep shown
    assert "--model_type mlp --data ETTh1" in runs[0]
    assert "--pred_len {96,192,336,720}" in runs[0]
    assert usage[0] == "1. Install the dependencies: `pip install -r requirements.txt`."
    assert usage[1].startswith("2. Put the data where run.py reads it: --root_path <DATA_PATH>")
    assert usage[-1].startswith(f"{len(usage)}. Compare MSE, MAE of MLP and Linear across the runs")
    assert "(for each horizon 96, 192, 336, 720)" in usage[-1]


def test_steps_are_this_experiments_actions_citing_narrow_ranges(repo, setups) -> None:
    root, index = repo
    setup = setups["table-1"]
    steps = setup.requirements
    assert 8 <= len(steps) <= 15, steps
    assert all(STEP_RE.match(s) and REF_RE.search(s) for s in steps)
    assert validate_references(setup, root) == []
    assert not any(boilerplate(s) for s in steps)
    text = "\n".join(steps)
    # the run launched first, then what it runs: the data, the options, the method
    assert steps[0].startswith("Step 1: Run MLP on ETTh1 (etth1.sh) with --model_type mlp")
    assert "Load and split the ETTh1, ETTh2 data (Dataset_ETT) (data_loader.py:1-15)" in text
    # `--model_type` only names the backbone each run takes: its parser line is no step,
    # the backbone's own path is
    assert "--model_type (run.py:" not in text
    # the method's own classes, the long one cut into its parts
    assert "Implement RecurrentCycle: learnable cycles" in text
    assert "Build the parts of Model (Model.__init__) (models/cyclenet.py:" in text
    assert "Compute Model's forward pass (models/cyclenet.py:" in text
    # where the code takes each arm's path
    assert "Take the MLP path (backbone) where self.model_type == 'mlp'" in text
    assert "Train (Exp.train): Train with early stopping on the validation loss (exp.py:" in text
    # each run cites the invocation inside its script, not the whole file; the first run's
    # settings are a step of their own, and the run's step leaves their lines to it (cited
    # twice, the same lines read as padding), while a run without such a step cites it whole;
    # the cut run's wording names only the flags its lines give
    assert (
        "Run MLP on ETTh1 (etth1.sh) with --model_type mlp, and the settings the next steps "
        "give (scripts/MLP/etth1.sh:7-8)"
    ) in text
    assert "Set the data and horizons for MLP on ETTh1: data, seq_len, pred_len " in text
    assert "(scripts/MLP/etth1.sh:9-11)" in text
    assert "(scripts/Linear/etth1.sh:7-12)" in text
    assert "Compute MAE, MSE as measured (utils/metrics.py:1-6)" in text
    assert steps[-1].startswith(
        "Final Step: Report MSE, MAE of each run, then compare MLP and Linear across them (exp.py:"
    )
    assert 'print("mse' in (root / "exp.py").read_text().splitlines()[citations(steps)[-1][1] - 1]
    widths = [last - first + 1 for _, first, last in citations(steps)]
    assert max(widths) <= 50 and sorted(widths)[len(widths) // 2] <= 12, widths  # Model.__init__
    total, ok, problems = command_check(setup, index)
    assert total == 4 and ok == 4, problems


def test_tasks_of_one_paper_get_their_own_steps(setups) -> None:
    cited = {k: citations(s.requirements) for k, s in setups.items()}
    assert cited["table-1"] != cited["table-2"] != cited["table-3"] != cited["table-1"]
    one = setups["table-2"].usage_instructions
    assert "scripts/MLP/etth1.sh" in one and "etth2" not in one


def test_an_ablation_arm_runs_as_the_scripts_command_with_its_option(repo, setups) -> None:
    _, index = repo
    setup = setups["table-3"]
    usage = setup.usage_instructions
    derived = next(line for line in usage.splitlines() if "Run w/o Cycle" in line)
    command = derived.split("`")[1]
    assert command.startswith("python -u run.py --model_type mlp --data ETTh1 --seq_len 96")
    assert "--pred_len 96 " in command and command.endswith("--wo_cycle")
    assert ">" not in command  # the script's log redirection is not part of the run
    # the command is the script's first run: the line says what it stands for
    assert "(scripts/MLP/etth1.sh's command with --wo_cycle added, once per value it sweeps (" in (
        derived
    ), derived
    assert check_command(
        command, {f.path for f in index.files}, {e.path: e for e in index.entry_points}
    ) == ("", [])
    text = "\n".join(setup.requirements)
    # the block under `not` runs when the arm is off: the arm leaves there
    assert "Leave the w/o Cycle path (variant) where not self.wo_cycle (models/cyclenet.py:" in text


def test_masking_hides_the_runs_and_the_method_not_the_support_code(setups) -> None:
    masked = setups["table-1"].masked_source
    assert {"scripts/MLP/etth1.sh", "scripts/Linear/etth2.sh", "models/cyclenet.py"} <= set(masked)
    assert not {"utils/metrics.py", "data_loader.py", "exp.py"} & set(masked)


def test_option_aliases_are_accepted_and_documented_commands_run_from_where_their_scripts_are(
    repo,
) -> None:
    _, index = repo
    entries = {e.path: e for e in index.entry_points}
    known = {f.path for f in index.files}
    (data,) = [f for f in entries["run.py"].flags if f.name == "--data"]
    assert data.aliases == ["--ds"]
    assert check_command("python run.py --ds ETTh2", known, entries) == ("", [])
    from extractors.repo.commands import run_from

    (doc,) = [c for c in index.commands if c.doc == "docs/usage.md"]
    assert run_from(doc, known) == "python run.py --ds ETTh2"  # the script is at the root
    # a Python file a document runs with a shell (a slip) runs with Python
    slip = doc.model_copy(update={"text": "PORT=1 bash run.py --ds ETTh2"})
    assert run_from(slip, known) == "PORT=1 python run.py --ds ETTh2"
    shell = doc.model_copy(update={"text": "bash scripts/x.sh run.py"})
    assert run_from(shell, known).endswith("bash scripts/x.sh run.py")  # a script stays
    # a command moving itself to its script's folder is not moved a second time; one whose
    # script is not found keeps its own `cd`
    moves = doc.model_copy(update={"text": "cd scripts && python x.py", "runs": ["scripts/x.py"]})
    assert run_from(moves, known | {"scripts/x.py"}) == "cd scripts && python x.py"
    assert run_from(moves, known).endswith(" && cd scripts && python x.py")


def test_arm_values_are_written_the_way_a_parser_takes_them() -> None:
    from expcurate.records import CliFlag
    from extractors.agent.arm_options import arm_option
    from extractors.agent.arms import Arm, value_forms
    from extractors.agent.launch import with_setting

    assert value_forms("moganet_tiny (MogaNet-T)") == [
        "moganet_tiny (MogaNet-T)",
        "moganet_tiny",
        "MogaNet-T",
    ]
    assert value_forms("CycleNet/MLP")[-1] == "MLP"
    options = [CliFlag(name="--model", default="moganet_base"), CliFlag(name="--lr")]
    arm = Arm("model_type", "moganet_tiny (MogaNet-T)", frozenset({"moganet_tiny"}))
    found = arm_option(arm, options)
    assert found is not None and (found[0].name, found[1]) == ("--model", "moganet_tiny")
    assert arm_option(Arm("drop_path", "0.1 for moganet_tiny", frozenset()), options) is None
    # an option whose parser allows one value only selects nothing: every run has it
    metric = [CliFlag(name="--metric", default="msp", help="score (choices: ['msp'])")]
    assert arm_option(Arm("method", "ST (MSP)", frozenset({"st", "msp"})), metric) is None
    # "Exp Units" of a table stratified by the masked token's kind: `--enc exp` selects it
    enc = [CliFlag(name="--enc", help="[val/lval/exp/def*]", default="def"), *options]
    units = arm_option(Arm("setting", "Exp Units", frozenset({"exp", "unit"})), enc)
    assert units is not None and (units[0].name, units[1]) == ("--enc", "exp")
    # a number after the head is a setting no option was found for; words that are values of
    # options too make no one option's arm
    assert arm_option(Arm("method", "Exp / 384", frozenset({"exp"})), enc) is None
    assert arm_option(Arm("setting", "Exp Val", frozenset({"exp", "val"})), enc) is None
    sweep = "python run.py -m algorithm=mappo,qmix task=vmas/balance seed=0,1"
    assert with_setting(sweep, ["algorithm=iql"]) == (
        "python run.py -m algorithm=iql task=vmas/balance seed=0,1"
    )
    assert (
        with_setting("python run.py --lr 0.1", ["--wo_conv"]) == "python run.py --lr 0.1 --wo_conv"
    )


HYDRA_RUN = '''import hydra


@hydra.main(config_path="conf", config_name="config", version_base=None)
def main(cfg):
    """Train the configured algorithm on the configured task."""
    algorithm = cfg.algorithm.name
    return algorithm


if __name__ == "__main__":
    main()
'''


HYDRA_FILES = {
    "run.py": HYDRA_RUN,
    "conf/config.yaml": "defaults:\n  - algorithm: mappo\n  - task: balance\nseed: 0\n",
    "conf/algorithm/mappo.yaml": "name: mappo\n",
    "conf/algorithm/qmix.yaml": "name: qmix\n",
    "conf/algorithm/iql.yaml": "name: iql\n",
    "conf/task/vmas/balance.yaml": "name: balance\n",
    "conf/task/vmas/navigation.yaml": "name: navigation\n",
    "conf/experiment/base.yaml": "lr: 0.0003\nmax_n_frames: 3_000_000\n",
    "scripts/run_mappo.sh": "python run.py -m algorithm=mappo task=vmas/balance seed=0,1\n",
    "scripts/configure.sh": "python run.py algorithm=qmix task=vmas/balance experiment.lr=0.03\n",
}


def _algorithms_task(key: str, algorithms: list[str]) -> TaskDraft:
    first, *rest = algorithms
    return TaskDraft(
        key=key,
        question=f"Does {first} reach a higher return than {' and '.join(rest)} on the balance task?",
        method=f"Train {', '.join(algorithms[:-1])} and {algorithms[-1]} on the balance task "
        "with two seeds each.",
        expected_outcome=f"{first} reaches the highest return.",
        design_complexity=DesignComplexity(
            independent_variables={"algorithm": algorithms},
            constant_variables={"task": ["balance"]},
            dependent_variables={"return": ["mean return"]},
        ),
    )


def test_hydra_arms_run_as_one_multirun_over_their_config_groups(tmp_path: Path) -> None:
    root = tmp_path / "marl"
    index = committed_index(root, HYDRA_FILES)
    task = _algorithms_task("fig-2", ["MAPPO", "QMIX", "IQL"])
    setup = SetupAgent(index, root).recover(task)
    usage = setup.usage_instructions
    # the step cites the authors' line, which sweeps their own values: it says so
    assert any(
        "start from the authors' multirun (run_mappo.sh) and sweep algorithm=mappo,qmix,iql" in r
        for r in setup.requirements
    )
    # the authors' multirun, with the task's algorithms in place of theirs
    assert (
        "Run every combination of algorithm MAPPO, QMIX, IQL in one multirun: "
        "`python run.py -m algorithm=mappo,qmix,iql task=vmas/balance seed=0,1`" in usage
    )
    assert "configure.sh" not in usage and "lr=0.03" not in usage  # a demo of other settings


def test_a_hydra_multirun_sweeps_config_keys_and_takes_the_task_the_question_names(
    tmp_path: Path,
) -> None:
    root = tmp_path / "marl"
    index = committed_index(root, HYDRA_FILES)
    task = TaskDraft(
        key="fig-3",
        question="Do more frames help MAPPO and IQL on the Navigation task?",
        method="Train MAPPO and IQL for 2e7 and 5e7 frames with three seeds.",
        expected_outcome="More frames raise the return.",
        design_complexity=DesignComplexity(
            independent_variables={
                "algorithm": ["MAPPO", "IQL"],
                "experiment.max_n_frames": ["2e7", "5e7"],
                "seed": ["0", "1", "2"],
                "experiment.gamma": ["0.9", "0.99"],  # no config sets it: not swept
            },
            dependent_variables={"return": ["mean return"]},
        ),
    )
    setup = SetupAgent(index, root).recover(task)
    usage = setup.usage_instructions
    assert (
        "`python run.py -m algorithm=mappo,iql task=vmas/navigation seed=0,1,2 "
        "experiment.max_n_frames=20000000,50000000`" in usage
    )
    assert "experiment.gamma=" not in usage
    # a value noted as the paper's reference ("1e7 (original)") is swept too: the config's
    # own default (3_000_000) is not it
    task.design_complexity.independent_variables["experiment.max_n_frames"] = [
        "1e7 (original)",
        "2e7",
        "5e7",
    ]
    noted = SetupAgent(index, root).recover(task).usage_instructions
    assert "experiment.max_n_frames=10000000,20000000,50000000`" in noted, noted
    # the step where the swept key is set; a config group (algorithm=, task=) is no key
    assert any(
        r.endswith(
            "Set the overridden config values: experiment.max_n_frames "
            "(conf/experiment/base.yaml:2)"
        )
        for r in setup.requirements
    )


def test_a_hydra_runs_configs_are_steps_the_defaults_then_each_chosen_file(
    tmp_path: Path,
) -> None:
    root = tmp_path / "marl"
    files = {
        **HYDRA_FILES,
        "conf/config.yaml": (
            "defaults:\n  - experiment: base\n  - algorithm: ???\n  - task: ???\n"
            "  - model: layers/mlp\n  - _self_\n\nseed: 0\n"
        ),
        "conf/model/layers/mlp.yaml": "num_cells: [256, 256]\n",
        "conf/algorithm/mappo.yaml": (
            "defaults:\n  - mappo_config\n  - _self_\n\nname: mappo\nclip_epsilon: 0.2\n"
            "entropy_coef: 0.0\nlmbda: 0.9\n"
        ),
        "conf/algorithm/qmix.yaml": "name: qmix\nmixing_embed_dim: 32\ndelay_value: true\n",
        "conf/task/vmas/balance.yaml": "max_steps: 100\nn_agents: 4\npackage_mass: 5\n",
    }
    index = committed_index(root, files)
    task = _algorithms_task("fig-4", ["MAPPO", "QMIX"])
    setup = SetupAgent(index, root).recover(task)
    steps = [r.split(": ", 1)[1] for r in setup.requirements]
    # what every run composes (the groups the command chooses aside), then each file it
    # chooses at its keys (its own defaults list aside), named after the arm it sets
    assert steps[0].startswith("Run every combination of algorithm MAPPO, QMIX in one multirun")
    assert steps[1:5] == [
        "Compose each run's config from the defaults: experiment base, model layers/mlp "
        "(conf/config.yaml:1-6)",
        "Set the algorithm config of MAPPO: name, clip_epsilon, entropy_coef, lmbda "
        "(conf/algorithm/mappo.yaml:5-8)",
        "Set the task config of vmas/balance: max_steps, n_agents, package_mass "
        "(conf/task/vmas/balance.yaml:1-3)",
        "Set the algorithm config of QMIX: name, mixing_embed_dim, delay_value "
        "(conf/algorithm/qmix.yaml:1-3)",
    ]
    assert not validate_references(setup, root)
    # a program of another kind composes nothing
    from extractors.agent.entry_args import EntryArgs
    from extractors.agent.multirun import hydra_config_steps
    from extractors.agent.run import Run
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    search = RepoSearch(root, index)
    args = EntryArgs(index, search, StepTracer(index, search))
    run = Run("python run.py algorithm=qmix task=vmas/balance")
    assert hydra_config_steps(args, "run.py", [run])
    assert hydra_config_steps(args, "scripts/run_mappo.sh", [run]) == []


def test_a_module_nothing_explains_is_cited_by_its_own_definitions(repo) -> None:
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    root, index = repo
    tracer = StepTracer(index, RepoSearch(root, index))
    steps = tracer.definition_steps("models/cyclenet.py")
    # the short class whole; the long one by its methods, never the whole 60-line class
    assert [(s.path, s.start) for s in steps] == [
        ("models/cyclenet.py", 4),  # RecurrentCycle, worded by its docstring
        ("models/cyclenet.py", 15),  # Model.__init__
        ("models/cyclenet.py", 64),  # Model.forward
    ]
    assert steps[0].action.startswith("Learnable cycles that are removed from the input")


def test_a_boolean_typed_option_takes_a_value_and_a_store_true_one_does_not() -> None:
    from extractors.repo.pysource import analyze_python

    info = analyze_python(
        "run.py",
        "import argparse\n"
        "p = argparse.ArgumentParser()\n"
        'p.add_argument("--use_zoom", type=bool, default=False)\n'
        'p.add_argument("--wo_conv", action="store_true")\n'
        "args = p.parse_args()\n",
    )
    assert info.entry is not None
    flags = {f.name: f for f in info.entry.flags}
    assert not flags["--use_zoom"].switch and flags["--wo_conv"].switch


def test_a_plan_that_cannot_be_made_leaves_traced_steps_and_says_why(
    repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    from extractors.agent.runs import RunPlanner

    root, index = repo

    def unreadable(*args: object, **kwargs: object) -> None:
        raise OSError("scripts/MLP/etth1.sh: permission denied")

    monkeypatch.setattr(RunPlanner, "runs", unreadable)
    setup = SetupAgent(index, root).recover(BACKBONES)
    assert setup.source and setup.requirements and setup.usage_instructions
    assert validate_references(setup, root) == []
    (note,) = [c for c in setup.trace if c.tool == "plan"]
    assert note.result.startswith("no plan (OSError: scripts/MLP/etth1.sh: permission denied)")


def test_a_plain_variable_the_authors_override_inside_a_group_is_swept_there(
    tmp_path: Path,
) -> None:
    files = {
        **HYDRA_FILES,
        "conf/task/vmas/balance.yaml": "name: balance\nn_agents: 4\n",
        "scripts/agents.sh": "python run.py task=vmas/balance algorithm=mappo task.n_agents=4\n",
    }
    root = tmp_path / "marl"
    index = committed_index(root, files)
    task = TaskDraft(
        key="fig-4",
        question="How does the number of agents change MAPPO's return on VMAS/balance?",
        method="Train MAPPO on balance with 2, 4 and 6 agents.",
        expected_outcome="More agents lower the return.",
        design_complexity=DesignComplexity(
            independent_variables={"n_agents": ["2", "4", "6"]},
            dependent_variables={"return": ["mean return"]},
        ),
    )
    setup = SetupAgent(index, root).recover(task)
    # `n_agents` is no key of the primary config; the authors write it `task.n_agents=`, and
    # choosing the task keeps it (a group's choice would drop its keys' overrides)
    assert "task=vmas/balance seed=0,1 task.n_agents=2,4,6`" in setup.usage_instructions, (
        setup.usage_instructions
    )
    # after the config files the runs choose, the key they override, where it is set
    assert any(
        r.endswith(
            "Set the overridden config values: task.n_agents (conf/task/vmas/balance.yaml:2)"
        )
        for r in setup.requirements
    ), setup.requirements


def test_when_steps_are_too_many_an_arms_only_branch_stays_and_repeated_runs_go() -> None:
    from extractors.agent.arms import Arm
    from extractors.agent.branches import _extra_branches
    from extractors.agent.plan import _repeated_runs
    from extractors.agent.run import Run
    from extractors.agent.steps import Step

    leave = Step("Leave the w/o Conv path (module) where not self.wo_conv", "b.py", 73, 79)
    take = Step("Take the w/o Conv path (module) where self.wo_conv", "b.py", 90, 97)
    serial = Step("Take the Seq Conv path (module) where self.serial_conv", "b.py", 98, 107)
    again = Step("Take the w/o Conv path (module) where wo_conv", "c.py", 5, 9)
    # the only branch of Seq Conv is kept; a third branch of an arm cited already may go
    arms = ["w/o Conv", "w/o Conv", "Seq Conv", "w/o Conv"]
    assert _extra_branches([leave, take, serial, again], arms) == [again]
    assert _extra_branches([leave, take], arms[:2]) == []

    linear, mlp = Arm("backbone", "Linear", frozenset()), Arm("backbone", "MLP", frozenset())
    runs = [
        Run("bash a.sh", arms=[linear], script="a.sh", data="Electricity"),
        Run("bash b.sh", arms=[linear], script="b.sh", data="Traffic"),
        Run("bash a.sh", arms=[mlp], script="a.sh", data="Electricity"),
        Run("bash b.sh", arms=[mlp], script="b.sh", data="Traffic"),
    ]
    steps = [Step(f"Run {i}", r.script, 1, 2) for i, r in enumerate(runs)]
    # each arm's run on its second data set may go; each arm's first run stays
    assert _repeated_runs(runs, steps) == [steps[1], steps[3]]


def test_launch_scripts_go_with_the_launches_setting_options_a_bare_program_last() -> None:
    from extractors.agent.plan import _launch_order
    from extractors.agent.run import Run
    from extractors.agent.steps import Step

    traffic = Step("Run PDF on Traffic (traffic.sh)", "scripts/traffic.sh", 20, 46)
    etth1 = Step("Run PDF on ETTh1 (etth1.sh)", "scripts/etth1.sh", 20, 44)
    demo = Step("Run the demo (demo.py)", "demo.py", 10, 12)
    runs = [
        Run("bash scripts/traffic.sh", script="scripts/traffic.sh", settings="--period 8"),
        Run("python -u run.py --period 24", script="scripts/etth1.sh"),
        Run("python demo.py --demo_config x.json"),
    ]
    assert _launch_order([traffic, etth1, demo], runs) == ([traffic, etth1], [demo])
    # no launch sets options: every launch only starts its program, after the code
    bare = [Run("bash scripts/etth1.sh", script="scripts/etth1.sh"), runs[2]]
    assert _launch_order([etth1, demo], bare) == ([], [etth1, demo])


def test_an_ablation_on_two_data_sets_says_its_command_stands_for_both(repo) -> None:
    root, index = repo
    task = _task(
        "table-4",
        "Does removing the cycle module (w/o Cycle) hurt CycleNet on ETTh1 and ETTh2?",
        {"variant": ["CycleNet", "w/o Cycle"]},
        {"dataset": ["ETTh1", "ETTh2"]},
    )
    usage = SetupAgent(index, root).recover(task).usage_instructions
    derived = next(line for line in usage.splitlines() if "Run w/o Cycle" in line)
    assert "--data ETTh1" in derived and derived.split("`")[1].endswith("--wo_cycle")
    assert "; likewise on ETTh2, with their scripts' commands)" in derived, derived


def test_a_branch_every_compared_arm_takes_selects_none(tmp_path: Path) -> None:
    from repo_fixture import recovered_setup

    run = (
        "import argparse\n"  # 1
        "\n"
        "\n"
        "def build(args):\n"
        "    if args.model in ['Linear', 'MLP']:\n"  # 5
        "        layers = [args.d_model]\n"
        "    if args.model == 'MLP':\n"
        "        layers = layers + [args.d_model * 2]\n"
        "    return layers\n"
        "\n"  # 10
        "\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--model', default='Linear', choices=['Linear', 'MLP'])\n"
        "    p.add_argument('--d_model', type=int, default=16)\n"  # 15
        "    print(build(p.parse_args()))\n"
    )
    task = TaskDraft(
        key="t",
        question="Does an MLP backbone beat a Linear one?",
        method="Build each backbone and compare their outputs.",
        expected_outcome="MLP is better.",
        design_complexity=DesignComplexity(
            independent_variables={"backbone": ["Linear", "MLP"]},
            dependent_variables={"metric": ["MSE"]},
        ),
    )
    steps = "\n".join(recovered_setup(tmp_path / "b", {"run.py": run}, task).requirements)
    assert "Take the MLP path (backbone) where args.model == 'MLP' (run.py:7-8)" in steps, steps
    assert "(run.py:5-6)" not in steps, steps


def test_a_branch_that_only_names_the_run_gives_way_to_one_doing_the_arms_work(
    tmp_path: Path,
) -> None:
    """Trace's DSPy program tests `args.copro` first where it builds the file name to save
    to (`save_name += "copro_"`), and again where it makes the COPRO optimizer. The COPRO
    arm's branch step cited the file name (the 38th and 39th development readers: "only
    the save-name suffix; the COPRO compile is at :135-139"). A branch only building a
    string names the run: a later branch of the same test doing more is the arm's, in its
    place among the steps."""
    from repo_fixture import recovered_setup

    run = (
        "import argparse\n"  # 1
        "\n"
        "\n"
        "def main(args):\n"
        "    save_name = ''\n"  # 5
        "    if args.copro:\n"
        "        save_name += 'copro_'\n"
        "    save_name += f'{args.task}.pkl'\n"
        "    program = Predict()\n"
        "    if args.train:\n"  # 10
        "        tuned = Bootstrap(metric=score).compile(program)\n"
        "    elif args.copro:\n"
        "        teleprompter = Copro(metric=score, breadth=4)\n"
        "        tuned = teleprompter.compile(program)\n"
        "    else:\n"  # 15
        "        tuned = program\n"
        "    print('accuracy', evaluate(tuned), save_name)\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"  # 20
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--copro', action='store_true')\n"
        "    p.add_argument('--train', action='store_true')\n"
        "    p.add_argument('--task', default='sports')\n"
        "    main(p.parse_args())\n"  # 25
    )
    readme = (
        "# Prompts\n\nOptimize the prompt with COPRO:\n\n```\npython run.py --copro\n```\n\n"
        "Or with bootstrapping:\n\n```\npython run.py --train\n```\n"
    )
    task = TaskDraft(
        key="t",
        question="Does COPRO reach a higher accuracy than bootstrapping the few-shot prompt?",
        method="Optimize the program with COPRO and with bootstrapping; compare accuracy.",
        expected_outcome="COPRO is better.",
        design_complexity=DesignComplexity(
            independent_variables={"optimizer": ["COPRO", "bootstrapping"]},
            dependent_variables={"metric": ["accuracy"]},
        ),
    )
    files = {"run.py": run, "README.md": readme}
    steps = "\n".join(recovered_setup(tmp_path / "b", files, task).requirements)
    assert "Take the COPRO path (optimizer) where args.copro (run.py:12-14)" in steps, steps
    assert "(run.py:6-7)" not in steps, steps


@pytest.mark.parametrize(
    ("name", "other"),
    [
        ("CityscapesDataset.evaluate", True),  # another data set's own evaluation
        ("ADEDataset.evaluate", False),  # the task's ADE20K, by a shorter name
        ("CustomDataset.evaluate", False),  # what every data set builds on
        ("Exp_Main.test", False),  # no data set class
    ],
)
def test_an_evaluation_of_another_data_set_is_not_the_tasks(name: str, other: bool) -> None:
    from extractors.agent.training_steps import _other_data

    assert _other_data(name, frozenset({"ade20k", "imagenet"})) is other
    assert not _other_data(name, frozenset())  # a task naming no data set takes any


def test_a_launch_step_names_the_swept_values_its_lines_run() -> None:
    """A script sweeping --pred_len over two loops (96 192 336, then 720), or one invocation
    per value, is cited by its first: the step names that one's values and says the later
    lines run the rest; a loop over every value is said whole."""
    from extractors.agent.plan import _swept_within

    settings = " with --model PDF --pred_len {96,192,336,720}"
    first_loop = ["for pred_len in 96 192 336", "do", "    python -u run.py \\", "  --x 1"]
    assert _swept_within(settings, first_loop) == (
        " with --model PDF --pred_len {96,192,336}; its later lines run --pred_len 720"
    )
    invocation = ["python -u run.py \\", "  --model PDF \\", "  --pred_len 96 \\"]
    assert _swept_within(settings, invocation) == (
        " with --model PDF --pred_len 96; its later lines run --pred_len 192, 336, 720"
    )
    every = ["for pred_len in 96 192 336 720", "do", "    python -u run.py --pred_len $pred_len"]
    assert _swept_within(settings, every) == settings


def test_a_path_one_run_takes_for_two_arms_is_named_by_what_they_share(tmp_path: Path) -> None:
    """ "Exp Units" and "Exp Others" are one run (`--enc exp`), told apart by the tokens their
    results are counted on: the branch is the Exp path, not the first arm's."""
    from repo_fixture import recovered_setup

    run = (
        "import argparse\n"  # 1
        "\n"
        "\n"
        "def encode(args):\n"
        "    if args.enc == 'exp':\n"  # 5
        "        return exponent_embedding(args.hidden)\n"
        "    return default_embedding(args.hidden)\n"
        "\n"
        "\n"
        "def exponent_embedding(hidden):\n"  # 10
        "    return [hidden] * 2\n"
        "\n"
        "\n"
        "def default_embedding(hidden):\n"
        "    return [hidden]\n"  # 15
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--enc', default='def', choices=['def', 'exp'])\n"  # 20
        "    p.add_argument('--hidden', type=int, default=16)\n"
        "    print('ppl', encode(p.parse_args()))\n"
    )
    task = TaskDraft(
        key="t",
        question="Does the exponent embedding lower the perplexity on units and other tokens?",
        method="Train each embedding and report the perplexity on units and on other tokens.",
        expected_outcome="Exp is better on units.",
        design_complexity=DesignComplexity(
            independent_variables={"setting": ["Exp Units", "Exp Others"]},
            dependent_variables={"metric": ["PPL"]},
        ),
    )
    readme = "# Numbers\n\nThe test set's tokens carry NUM and UNIT annotations.\n"
    setup = recovered_setup(tmp_path / "e", {"run.py": run, "README.md": readme}, task)
    steps = "\n".join(setup.requirements)
    assert "Take the Exp path (setting) where args.enc == 'exp' (run.py:5-6)" in steps, steps
    assert "Exp Units path" not in steps, steps
    assert "Add the options that select Exp: --enc (run.py:20)" in steps, steps
    # nothing splits the run's perplexity by the tokens' kind: the usage says so
    assert (
        "Run Exp Units, Exp Others: `python run.py --enc exp` (one run gives Exp Units and Exp "
        "Others, but no code of the repository names Units, only README.md:3 does: "
        "split this run's outputs by Units and Others yourself)."
    ) in setup.usage_instructions, setup.usage_instructions
    # code that reports by unit and by other token splits them itself
    counted = run.replace(
        "    print('ppl', encode(p.parse_args()))\n",
        "    print('ppl on units', encode(p.parse_args()))\n"
        "    print('ppl on others', encode(p.parse_args()))\n",
    )
    setup = recovered_setup(tmp_path / "f", {"run.py": counted, "README.md": readme}, task)
    assert "Run Exp Units, Exp Others: `python run.py --enc exp`." in setup.usage_instructions


def test_an_arm_is_the_choice_its_name_spells_without_punctuation(tmp_path: Path) -> None:
    from repo_fixture import recovered_setup

    run = (
        "import argparse\n"
        "\n"
        "\n"
        "def layer(args):\n"
        "    if args.variant == 'gcn':\n"  # 5
        "        return 1\n"
        "    elif args.variant == 'gcn_l':\n"
        "        return 2\n"
        "    return 3\n"
        "\n"  # 10
        "\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--variant', type=str, default='gat')\n"
        "    print(layer(p.parse_args()))\n"
    )
    task = TaskDraft(
        key="t",
        question="Does the local GCN-L layer beat GCN and GAT?",
        method="Train each layer and compare their accuracy.",
        expected_outcome="GCN-L is better.",
        design_complexity=DesignComplexity(
            independent_variables={"layer": ["GCN", "GCN-L", "GAT"]},
            dependent_variables={"metric": ["accuracy"]},
        ),
    )
    usage = recovered_setup(tmp_path / "g", {"run.py": run}, task).usage_instructions
    # "GCN-L" is gcn_l, not the gcn its first word spells
    assert "Run GCN-L: `python run.py --variant gcn_l`" in usage, usage
    assert "Run GCN: `python run.py --variant gcn`" in usage, usage
    assert "Run GAT: `python run.py --variant gat`" in usage, usage  # the default, as spelt
    assert "write the command" not in usage, usage


def test_a_main_blocks_chores_are_no_steps() -> None:
    """Making the output folder, dumping the results and a framework's entry say nothing of
    the experiment; the blocks that build, train and evaluate do."""

    source = (
        "import json\n"
        "import os\n"
        "\n"
        "\n"
        "def main(args):\n"
        "    os.makedirs(args.out, exist_ok=True)\n"
        "\n"
        "    # work_dir is determined in this priority: CLI > segment in file > filename\n"
        "    cfg_dir = choose_dir(args.work_dir, args.config)\n"
        "\n"
        "    model = build_model(args.depth)\n"
        "\n"
        "    history = train_model(model, args.epochs)\n"
        "\n"
        "    with open(os.path.join(args.out, 'results.json'), 'w') as f:\n"
        "        json.dump(history, f)\n"
        "\n"
        "    score = evaluate(model)\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    main(parse_args())\n"
    )
    actions = _block_actions(source)
    assert actions == ["Build model", "Train model into history", "Evaluate into score"]


def test_logging_plotting_and_containers_are_no_steps() -> None:
    """A section of the run's log, a plot, a counter and a thread pool say nothing of the
    experiment; the evolution and the evaluation do."""

    source = (
        "from collections import Counter\n"
        "import matplotlib.pyplot as plt\n"
        "\n"
        "\n"
        "def main(self, args):\n"
        "    counts = Counter()\n"
        "\n"
        "    self.rlog.section('Evolution')\n"
        "\n"
        "    prompts = evolve_prompts(args.tasks)\n"
        "\n"
        "    plt.plot(prompts)\n"
        "\n"
        "    score = evaluate(prompts)\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    main(parse_args())\n"
    )
    actions = _block_actions(source)
    assert actions == ["Compute prompts with evolve_prompts", "Evaluate into score"], actions


def test_a_commented_out_line_names_no_block_and_a_long_test_is_cut_between_its_parts() -> None:
    """`# G = np.zeros((N, N)) # the graph` is code put aside, not what the next lines do;
    a test too long to quote whole is cut after a whole operand, never inside a bracket,
    and a builtin it sorts with (`sorted`) is not what the branch does."""
    import ast

    from extractors.agent.inline import said_code

    source = (
        "def main(args):\n"
        "    # G = np.zeros((N, N)) # initialize the graph structure\n"
        "    score = score_graph(args.data)\n"
        "\n"
        "    for i in range(N):\n"
        "        if graph[i, j] == 0 and graph[j, i] == 0 and i != j and len(parents[j]) <= cap:\n"
        "            order = sorted(parents[j])\n"
        "            grow_graph(order)\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    main(parse_args())\n"
    )
    actions = _block_actions(source)
    assert actions == [
        "Compute score with score_graph",
        "Repeat N times: if graph[i, j] == 0 and graph[j, i] == 0 and i != j and …: "
        "Call grow_graph",
    ], actions
    call = ast.parse("fit(first_argument, second_argument, third_argument, fourth)").body[0]
    assert said_code(call, limit=40) == "fit(first_argument, second_argument, …)"


def test_main_block_steps_are_named_by_what_they_do_not_by_a_helper_they_call() -> None:
    """A loop by what it iterates and does, a branch by what it chooses, a print by what it
    prints: never "Call tqdm", "Call l.strip" or "Call np.mean". Results written in a loop,
    and waiting, are chores."""

    source = (
        "import numpy as np\n"
        "from tqdm import tqdm\n"
        "\n"
        "\n"
        "def main(args):\n"
        "    if '600' in args.ckpt:\n"
        "        testfile = 'data/test600.json'\n"
        "        valids = [int(l.strip()) for l in open('common600.txt')]\n"
        "    else:\n"
        "        testfile = 'data/test_wiki.json'\n"
        "\n"
        "    if args.dataset == 'cifar10':\n"
        "        num_classes = 10\n"
        "        test_set = ImbalanceCIFAR10(args.root)\n"
        "\n"
        "    for key, value in vars(args).items():\n"
        "        with open('record.txt', 'a') as f:\n"
        "            f.write(key + str(value))\n"
        "\n"
        "    time.sleep(args.wait)\n"
        "\n"
        "    for epoch in range(args.epochs):\n"
        "        loss = fit(net, testfile)\n"
        "\n"
        "    for i in range(args.runs):\n"
        "        scores.append(evaluate(net, i))\n"
        "\n"
        "    for idx, mask, target in tqdm(iter(loader)):\n"
        "        output = net(mask)\n"
        "\n"
        "    print(f'Final Test: AUC {np.mean(scores):.2f}')\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    main(parse_args())\n"
    )
    actions = _block_actions(source)
    assert actions == [
        "If '600' in args.ckpt: set testfile = 'data/test600.json'",
        "If args.dataset == 'cifar10': Create the ImbalanceCIFAR10",
        "For each epoch in range(args.epochs): fit into loss",
        "Repeat args.runs times: evaluate",
        "Loop over loader: compute output with net",
        "Print the results (Final Test: AUC)",
    ], actions


def test_a_training_loop_longer_than_a_step_is_cited_where_it_computes_the_loss(
    tmp_path: Path,
) -> None:
    """A 60-line epoch loop: the step is the part from the loss through `backward()` and the
    optimizer's step on it, where the method trains, not the loop's first lines of
    bookkeeping."""
    bookkeeping = "".join(f"            meter_{i} = step * {i}\n" for i in range(45))
    program = (
        "import argparse\n"
        "\n"
        "\n"
        "def train(model, data, optimizer, epochs):\n"
        '    """Train the regressor and report its regression error."""\n'
        "    for epoch in range(epochs):\n"
        "        for step, (x, y) in enumerate(data):\n"
        f"{bookkeeping}"
        "            logits = model(x)\n"
        "            loss = (logits - y).pow(2).mean()\n"
        "            optimizer.zero_grad()\n"
        "            loss.backward()\n"
        "            optimizer.step()\n"
        "        print('regression error', loss)\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--epochs', type=int, default=10)\n"
        "    args = p.parse_args()\n"
        "    train(None, [], None, args.epochs)\n"
    )
    lines = program.splitlines()
    loss_line = next(i for i, x in enumerate(lines, 1) if "loss = " in x)
    backward_line = next(i for i, x in enumerate(lines, 1) if "backward()" in x)
    step_line = next(i for i, x in enumerate(lines, 1) if "optimizer.step()" in x)
    files = {
        "train.py": program,
        "README.md": "# Regressor\n\nTrain the regressor:\n\n```\npython train.py --epochs 10\n```\n",
    }
    task = TaskDraft(
        key="table-1:train",
        question="What regression error does the regressor report after training?",
        method="Train the regressor and report its error.",
        expected_outcome="The regressor reports its regression error.",
    )
    setup = recovered_setup(tmp_path / "t", files, task)
    step = next(s for s in setup.requirements if "Train (train)" in s)  # "Train (train): ..."
    first, last = (int(n) for n in step.rsplit(":", 1)[1].rstrip(")").split("-"))
    assert first <= loss_line and last == step_line == backward_line + 1, step


def test_a_component_an_arm_names_by_its_acronym_is_cited_by_the_classes_implementing_it(
    tmp_path: Path,
) -> None:
    """ "w/o MSCA", where the question spells out "multi-scale convolutional attention
    (MSCA)": the method's module's classes named by "attention" are the arm's code."""
    filler = "".join(
        f"class Part{i}(nn.Module):\n    def forward(self, x):\n"
        + "".join(f"        x = self.layer{j}(x)\n" for j in range(12))
        + "        return x\n\n\n"
        for i in range(6)
    )
    model = (
        "import torch.nn as nn\n"
        "\n"
        "\n"
        f"{filler}"
        "class AttentionModule(nn.Module):\n"
        "    def forward(self, x):\n"
        "        attn = self.conv0(x)\n"
        "        attn = attn + self.conv1(attn)\n"
        "        return attn * x\n"
        "\n"
        "\n"
        "class Block(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x + self.attn(x)\n"
        "\n"
        "\n"
        "class SegNet(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.blocks = [Block() for _ in range(4)]\n"
        "        self.parts = [Part0(), Part1(), Part2(), Part3(), Part4(), Part5()]\n"
        "\n"
        "    def forward(self, x):\n"
        "        for b in self.blocks:\n"
        "            x = b(x)\n"
        "        return x\n"
    )
    train = (
        "import argparse\n\nfrom segnet.model import SegNet\n\n\ndef train(args):\n"
        "    model = SegNet()\n    print('segmentation miou', model)\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--epochs', type=int, default=10)\n    train(p.parse_args())\n"
    )
    files = {
        "segnet/__init__.py": "",
        "segnet/model.py": model,
        "train.py": train,
        "README.md": "# SegNet\n\nTrain SegNet and report mIoU:\n\n```\npython train.py\n```\n",
    }
    task = TaskDraft(
        key="table-8:factor",
        question=(
            "How does w/ MSCA compare with w/o MSCA on segmentation mIoU (importance of our "
            "multi-scale convolutional attention (MSCA))?"
        ),
        method="Train SegNet with and without its attention and compare mIoU.",
        expected_outcome="SegNet with MSCA is better.",
        design_complexity=DesignComplexity(
            independent_variables={"setting": ["w/ MSCA", "w/o MSCA"]},
            dependent_variables={"metric": ["mIoU"]},
        ),
    )
    steps = "\n".join(recovered_setup(tmp_path / "m", files, task).requirements)
    first = 4 + 6 * 17  # after the six parts
    assert f"Implement MSCA (AttentionModule) (segnet/model.py:{first}-{first + 4})" in steps, steps


def test_a_long_function_cited_whole_among_few_steps_is_read_through_its_body(
    tmp_path: Path,
) -> None:
    """A fine-tuning script whose work is one long `train()` got three steps, one of them the
    whole function; the function's blocks are its steps instead, each saying where it is."""
    filler = "".join(f"    step_{i} = {i}  # bookkeeping {i}\n" for i in range(45))
    program = (
        '"""Fine-tune a language model with LoRA and report its accuracy."""\n'
        "import argparse\n\nfrom peft import LoraConfig, get_peft_model\n"
        "from transformers import AutoModel, Trainer\n\n\n"
        "def train(data_path='data.json', use_lora=True):\n"
        "    # Load the base model\n"
        "    model = AutoModel.from_pretrained('base')\n"
        "    model = model.half()\n\n"
        "    # Wrap it with low-rank adapters\n"
        "    config = LoraConfig(r=8)\n"
        "    model = get_peft_model(model, config)\n\n"
        "    # Load and tokenize the data\n"
        "    data = load_dataset(data_path)\n"
        "    data = data.map(tokenize)\n\n"
        f"{filler}\n"
        "    # Build the trainer\n"
        "    trainer = Trainer(model=model, train_dataset=data)\n\n"
        "    # Fine-tune\n"
        "    trainer.train()\n"
        "    print('accuracy', trainer.evaluate())\n\n\n"
        "def load_dataset(path):\n    return open(path)\n\n\n"
        "def tokenize(x):\n    return x\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n    p.add_argument('--data_path')\n"
        "    train(p.parse_args().data_path)\n"
    )
    task = TaskDraft(
        key="t",
        question="What accuracy does the LoRA fine-tuned model reach?",
        method="Fine-tune the model with LoRA adapters and report accuracy.",
        expected_outcome="",
    )
    steps = recovered_setup(tmp_path / "ft", {"finetune.py": program}, task).requirements
    text = "\n".join(steps)
    assert "Wrap it with low-rank adapters (in train)" in text, text
    assert "Build the trainer (in train)" in text, text
    assert not any(s.endswith("(finetune.py:8-72)") for s in steps), text


def test_a_class_the_entry_point_creates_is_cited_by_its_constructor(tmp_path: Path) -> None:
    """A program whose main block hands its config to one long class: the class is cited by
    its `__init__` (and its `run` by its blocks), never as one step over the whole class."""
    helpers = "".join(
        f"    def _stage_{i}(self, pool):\n        kept = [p for p in pool if p % {i + 2}]\n"
        f"        return sorted(kept)[: self.width]\n\n"
        for i in range(12)
    )
    pipeline = (
        '"""Evolving prompts at test time."""\n\n\nclass EvolvePipeline:\n'
        "    def __init__(self, config):\n        self.config = config\n"
        "        self.width = config.get('width', 4)\n        self.rounds = config['rounds']\n\n"
        + helpers
        + "    def run(self):\n        pool = list(range(100))\n"
        "        for r in range(self.rounds):\n            pool = self._stage_0(pool)\n"
        "            pool = self._stage_1(pool)\n        score = sum(pool) / max(len(pool), 1)\n"
        "        print('final score', score)\n        return score\n"
    )
    main = (
        "import sys\n\nimport yaml\n\nfrom pipeline import EvolvePipeline\n\n\n"
        "def main():\n    config = yaml.safe_load(open(sys.argv[1]))\n"
        "    pipeline = EvolvePipeline(config)\n    pipeline.run()\n\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    files = {
        "main.py": main,
        "pipeline.py": pipeline,
        "configs/demo.yaml": "rounds: 3\nwidth: 4\n",
        "README.md": "# Evolve\n\nRun:\n\n    python main.py configs/demo.yaml\n",
    }
    task = TaskDraft(
        key="t",
        question="Does EvolvePipeline raise the final score over three rounds of evolution?",
        method="Run EvolvePipeline on the demo config and report the final score.",
        expected_outcome="The final score rises.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["final score"]}),
    )
    steps = recovered_setup(tmp_path / "r", files, task).requirements
    lines = len(pipeline.splitlines())
    assert not any(s.endswith(f"(pipeline.py:4-{lines})") for s in steps), steps
    assert any(s.endswith("(EvolvePipeline.__init__) (pipeline.py:5-8)") for s in steps), steps


def test_a_model_named_by_its_factory_function_is_the_class_it_builds(tmp_path: Path) -> None:
    """`--model GateNet_adapter` names a function the program looks up, not a module; the
    function builds gm/model.py's `Transformer`, which a package re-exports. That class is
    the method, not the inference wrapper that merely shares the method's name."""
    train = (
        "import argparse\n\nimport models_gate\n\n\n"
        "def train(model, epochs):\n    for epoch in range(epochs):\n"
        "        loss = model.forward(epoch)\n        print('val acc', 1.0 - loss)\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--model', default='GateNet_adapter')\n"
        "    p.add_argument('--adapter_layer', type=int, default=30)\n"
        "    p.add_argument('--epochs', type=int, default=5)\n    args = p.parse_args()\n"
        "    model = models_gate.__dict__[args.model](args)\n    train(model, args.epochs)\n"
    )
    factory = (
        "from gm import Transformer\n\n\ndef GateNet_adapter(args):\n"
        "    model = Transformer(args.adapter_layer)\n    model.freeze_all_but_adapters()\n"
        "    return model\n"
    )
    model = (
        "class Transformer:\n    def __init__(self, adapter_layer):\n"
        "        self.adapter_layer = adapter_layer\n        self.layers = list(range(32))\n\n"
        "    def freeze_all_but_adapters(self):\n        self.frozen = self.layers[: -self.adapter_layer]\n"
        "        return self.frozen\n\n"
        "    def forward(self, x):\n        for layer in self.layers[-self.adapter_layer :]:\n"
        "            x = x * 0.5 + layer\n        return x\n"
    )
    generation = (
        "class GateNet:\n    def __init__(self, model):\n        self.model = model\n\n"
        "    def generate(self, prompts, max_len=64):\n        out = []\n"
        "        for p in prompts:\n            out.append(self.sample(p, max_len))\n        return out\n\n"
        "    def sample(self, p, max_len):\n        return p[:max_len]\n"
    )
    files = {
        "train.py": train,
        "models_gate.py": factory,
        "gm/__init__.py": "from .generation import GateNet\nfrom .model import Transformer\n",
        "gm/model.py": model,
        "gm/generation.py": generation,
        "scripts/finetune.sh": "python train.py --model GateNet_adapter --adapter_layer 30\n",
    }
    task = TaskDraft(
        key="t",
        question="How does the val acc of GateNet change as the adapter layers vary (10, 20, 30)?",
        method="Fine-tune GateNet with each number of adapter layers and report val acc.",
        expected_outcome="30 layers is best.",
        design_complexity=DesignComplexity(
            independent_variables={"adapter layers": ["10", "20", "30"]},
            dependent_variables={"metric": ["val acc"]},
        ),
    )
    steps = recovered_setup(tmp_path / "r", files, task).requirements
    # the class itself, as the method (not only the lines reading --adapter_layer)
    assert any(s.endswith("Transformer class (gm/model.py:1-13)") for s in steps), steps
    assert not any("gm/generation.py" in s for s in steps), steps


def test_what_the_question_studies_by_a_common_name_is_cited_where_code_names_it(
    tmp_path: Path,
) -> None:
    """ "data augmentations" are the `Transforms` of modules/transform.py, which the training
    imports; a question not about augmentation cites none, and a catalogue of many
    transform classes is no answer."""
    transform = (
        "import random\n\n\nclass Transforms:\n    def __init__(self, size, s=1.0):\n"
        "        self.size = size\n        self.jitter = 0.8 * s\n\n"
        "    def __call__(self, x):\n        return self.view(x), self.view(x)\n\n"
        "    def view(self, x):\n        return x * random.random() * self.jitter\n"
    )
    train = (
        "import argparse\n\nfrom modules.transform import Transforms\n\n\n"
        "def train(data, epochs):\n    for epoch in range(epochs):\n"
        "        loss = sum(a - b for a, b in data)\n        print('NMI', loss)\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--epochs', type=int, default=10)\n    args = p.parse_args()\n"
        "    views = Transforms(224)\n    train([views(x) for x in range(8)], args.epochs)\n"
    )
    files = {
        "train.py": train,
        "modules/__init__.py": "",
        "modules/transform.py": transform,
        "README.md": "# CC\n\n```\npython train.py --epochs 10\n```\n",
    }

    def task(question: str) -> TaskDraft:
        return TaskDraft(
            key="t",
            question=question,
            method="Train CC with each setting and report NMI.",
            expected_outcome="It helps.",
            design_complexity=DesignComplexity(
                independent_variables={"views": ["T a(x) + T b(x)", "x + x"]},
                dependent_variables={"metric": ["NMI"]},
            ),
        )

    steps = recovered_setup(
        tmp_path / "a", files, task("Do data augmentations help CC?")
    ).requirements
    assert cites(steps, "Implement the augmentation (Transforms)", "modules/transform.py:4-13"), (
        steps
    )
    steps = recovered_setup(tmp_path / "b", files, task("Do paired views help CC?")).requirements
    assert not any("Implement the augmentation" in s for s in steps), steps
    many = "".join(
        f"class Transform{i}:\n    def __call__(self, x):\n        return x\n\n\n" for i in range(4)
    )
    files["modules/transform.py"] = transform + "\n\n" + many
    steps = recovered_setup(
        tmp_path / "c", files, task("Do data augmentations help CC?")
    ).requirements
    assert not any("Implement the augmentation" in s for s in steps), steps


def test_a_main_block_picking_between_two_mains_is_read_in_the_main_the_runs_take(
    tmp_path: Path,
) -> None:
    """`if args.async_test: asyncio.run(async_main(args)) else: main(args)`: no run passes
    --async-test, so the steps are `main`'s, where the detector is built and run on the
    image, and nothing of `async_main`."""
    demo = (
        "import asyncio\nfrom argparse import ArgumentParser\n\n"
        "from detlib import detect_objects, draw_boxes, load_detector\n\n\n"
        "def parse_args():\n    p = ArgumentParser()\n    p.add_argument('img')\n"
        "    p.add_argument('config')\n    p.add_argument('--async-test', action='store_true')\n"
        "    return p.parse_args()\n\n\n"
        "def main(args):\n"
        "    # build the model from the config file\n"
        "    model = load_detector(args.config)\n"
        "    # detect the objects in the image\n"
        "    boxes = detect_objects(model, args.img)\n"
        "    # draw the detected boxes on the image\n"
        "    draw_boxes(args.img, boxes, out_file='pred.png')\n\n\n"
        "async def async_main(args):\n"
        "    model = load_detector(args.config)\n"
        "    boxes = await asyncio.gather(detect_objects(model, args.img))\n"
        "    draw_boxes(args.img, boxes[0], out_file='pred.png')\n\n\n"
        "if __name__ == '__main__':\n    args = parse_args()\n    if args.async_test:\n"
        "        asyncio.run(async_main(args))\n    else:\n        main(args)\n"
    )
    files = {
        "demo/image_demo.py": demo,
        "configs/detector_small.py": "model = dict(type='MaskRCNN', backbone='small')\n",
        "README.md": (
            "# Detector\n\nDetect the objects of an image with the small detector:\n\n```\n"
            "cd demo && python image_demo.py demo.png ../configs/detector_small.py\n```\n"
        ),
    }
    task = TaskDraft(
        key="demo",
        question="How can the detector be used for object detection on an image?",
        method="Run the detector on an image and draw the detected objects' boxes.",
        expected_outcome="Boxes around the objects.",
    )
    requirements = recovered_setup(tmp_path / "d", files, task).requirements
    cited = "\n".join(requirements)
    assert "(demo/image_demo.py:19)" in cited, requirements  # detect the objects
    assert not any(f"demo/image_demo.py:{n}" in cited for n in range(24, 28)), requirements


ASSIGNER = '''"""Assign the benchmark's tasks to the agents and record their success."""
import argparse
import time


class Assigner:
    def __init__(self, config, retry):
        self.config = config
        self.retry = retry
        self.agents = config["agents"]
        self.tasks = config["tasks"]

    def start(self):
        for agent in self.agents:
            for task in self.tasks:
                success = self.run_task(agent, task)
                self.record(agent, task, success)

    def run_task(self, agent, task):
        for attempt in range(3):
            reply = agent + task
            if reply:
                return 1.0
            time.sleep(attempt)
        return 0.0

    def record(self, agent, task, success):
        print(agent, task, "success rate", success)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/assignment.yaml")
    args = parser.parse_args()
    config = {"agents": ["gpt-4", "llama-2"], "tasks": ["os", "db"]}
    Assigner(config, False).start()
'''

ANALYSIS = '''"""Summarise the success rates of every agent on every task."""
import argparse
import json


def analyze_output(folder):
    rates = {}
    for agent in ("gpt-4", "llama-2"):
        with open(f"{folder}/{agent}.json") as f:
            rates[agent] = json.load(f)["success rate"]
    return rates


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", default="outputs")
    args = parser.parse_args()
    rates = analyze_output(args.output)
    print("success rate per agent", rates)
'''


def test_the_object_a_method_runs_on_is_made_first_and_the_analysis_comes_last(
    tmp_path: Path,
) -> None:
    """`Assigner(config, False).start()`: the constructor's step, then `start`'s, then the
    analysis program that reads what the runs wrote; nothing of a retry's `time.sleep`."""
    files = {
        "src/__init__.py": "",
        "src/assigner.py": ASSIGNER,
        "src/analysis.py": ANALYSIS,
        "README.md": (
            "# Agent benchmark\n\nRun every agent on every task and record its success rate:"
            "\n\n```bash\npython -m src.assigner\n```\n"
        ),
    }
    task = TaskDraft(
        key="agents",
        question="Do API-based agents reach a higher success rate than open agents on the tasks?",
        method="Run each agent on every task of the benchmark and analyze the success rates.",
        expected_outcome="API-based agents do.",
        design_complexity=DesignComplexity(
            independent_variables={"agent": ["API-based agents", "open agents"]},
            dependent_variables={"metric": ["success rate"]},
        ),
    )
    requirements = recovered_setup(tmp_path / "a", files, task).requirements
    cited = [r.rsplit("(", 1)[-1] for r in requirements]
    made = next(i for i, c in enumerate(cited) if c.startswith("src/assigner.py:7-"))
    started = next(i for i, c in enumerate(cited) if c.startswith("src/assigner.py:13-"))
    analysed = next(i for i, c in enumerate(cited) if c.startswith("src/analysis.py"))
    assert made < started < analysed, requirements
    assert not any("sleep" in r for r in requirements), requirements


def test_one_wording_in_two_programs_says_whose_each_step_is() -> None:
    """Trace's and DSPy's programs both "Go through all 27 items of `tasks`": each step says
    its program, so the two read apart; one program's two such steps keep the wording. Two
    programs of one name in two folders (torchopt's single-GPU and distributed
    `maml_omniglot.py`, the 37th development reader: "repeats comment lines twice") say as
    much of their paths as tells them apart."""
    from extractors.agent.policy import _render
    from extractors.agent.steps import Step

    same = "Go through all 27 items of `tasks`"
    lines = _render(
        [
            Step(same, "bbh/run_trace.py", 321, 328),
            Step(same, "bbh/run_dspy.py", 79, 86),
            Step("Report accuracy of each run", "bbh/run_trace.py", 380, 381),
        ]
    )
    assert lines[:2] == [
        f"Step 1: {same} in run_trace.py (bbh/run_trace.py:321-328)",
        f"Step 2: {same} in run_dspy.py (bbh/run_dspy.py:79-86)",
    ], lines
    lines = _render([Step(same, "a/train.py", 1, 2), Step(same, "a/train.py", 5, 6)])
    assert all(" in " not in x for x in lines), lines
    lines = _render([Step(same, "a/train.py", 1, 2), Step(same, "b/train.py", 5, 6)])
    assert [x.split(" (")[0] for x in lines] == [
        f"Step 1: {same} in a/train.py",
        f"Final Step: {same} in b/train.py",
    ], lines
    one, other = "ex/distributed/few-shot/maml.py", "ex/few-shot/maml.py"
    lines = _render([Step(same, one, 1, 2), Step(same, other, 5, 6)])
    assert [x.split(" (")[0] for x in lines] == [
        f"Step 1: {same} in distributed/few-shot/maml.py",
        f"Final Step: {same} in ex/few-shot/maml.py",
    ], lines


def test_a_sections_heading_under_a_banner_names_its_first_block_as_its_beginning() -> None:
    """SegVol's `####...` banner, then `# zoom-in inference:`, heads a section of several
    blocks; its first block only finds the region of interest (the 38th development reader:
    "ROI-coordinate detection called 'Zoom-in inference'"). That block is worded as the
    section's beginning, by what it does; a plain comment still words its block."""

    source = (
        "def main(args):\n"
        "    logits = zoom_out(args.image)\n"
        "\n"
        "    ####################\n"
        "    # zoom-in inference:\n"
        "    roi = logits2roi(args.size, logits)\n"
        "\n"
        "    # Crop roi\n"
        "    cropped = crop_image(args.image, roi)\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    main(parse_args())\n"
    )
    actions = _block_actions(source)
    assert "Zoom-in inference, first: compute roi with logits2roi" in actions, actions
    assert "Crop roi" in actions, actions


def test_a_definition_cited_whole_is_implemented_not_called() -> None:
    """AgentBench's final step cited `def interaction(...)` whole as "Call interaction" (the
    38th development reader: "the definition of interaction() is called a call"). A
    definition whose name begins with no verb is worded "Implement"; a method keeps its
    class, a nested function its own name; a name with a verb keeps the verb."""
    from extractors.agent.steps import _action
    from extractors.repo.pysource import OutlineItem

    def item(name: str, kind: str) -> OutlineItem:
        return OutlineItem(name=name, kind=kind, start=1, end=9, doc="")

    assert _action(item("interaction", "function")) == "Implement interaction"
    assert _action(item("OSInteraction._judge", "method")) == "Implement OSInteraction._judge"
    assert _action(item("train.tokenize", "function")) == "Implement tokenize"
    assert _action(item("train_one_epoch", "function")) == "Train one epoch"


def test_steps_worded_alike_in_one_file_are_told_apart_by_their_own_literal() -> None:
    """CycleNet's `acf_plot.ipynb` reads one data set a cell: seven steps read "Compute df_raw
    with pd.read_csv", and AgentBench's `start_sample` gave "Call session.inject" twice (the
    39th and 40th development readers: "Call session.inject ×3"). Each says the first literal
    its lines give that the others' do not; none changes when one has no such value (a
    notebook's source line or a comment's words are no value)."""
    from extractors.agent.policy import told_apart
    from extractors.agent.steps import Step

    text = [
        "df_raw = pd.read_csv('dataset/ETTh1.csv')",  # 1
        "df_raw = df_raw[cols]",
        "df_raw = pd.read_csv('dataset/ETTh2.csv')",  # 3
        "df_raw = df_raw[cols]",
        '"from hest import VisiumReader\\n",',  # 5
        "x = 1",
        '")\\n",',  # 7
    ]
    read = "Compute df_raw with pd.read_csv"
    steps = [
        Step(read, "a.ipynb", 1, 2),
        Step(read, "a.ipynb", 3, 4),
        Step("Load", "a.ipynb", 5, 5),
    ]
    out = told_apart(steps, lambda path: text)
    assert [s.action for s in out] == [
        f"{read} (dataset/ETTh1.csv)",
        f"{read} (dataset/ETTh2.csv)",
        "Load",
    ]
    alike = [Step("Compute st", "a.ipynb", 5, 5), Step("Compute st", "a.ipynb", 7, 7)]
    assert told_apart(alike, lambda path: text) == alike


TUNED_RUN = """import hydra
from hydra.core.hydra_config import HydraConfig


@hydra.main(version_base=None, config_path="conf", config_name="config")
def tuned_experiment(cfg):
    choices = HydraConfig.get().runtime.choices
    print(f"Algorithm: {choices.algorithm}, Task: {choices.task}")
    return cfg.experiment.lr


if __name__ == "__main__":
    tuned_experiment()
"""
TUNED_CONFIG = (
    "defaults:\n  - experiment: base\n  - algorithm: ???\n  - task: ???\n  - _self_\n\n"
    "hydra:\n  searchpath:\n    - pkg://marl/conf\n\nseed: 0\n\n"
    "experiment:\n  lr: 0.00005\n  # tuned for the VMAS tasks\n  max_n_frames: 10_000_000\n"
)


def _frames_task() -> TaskDraft:
    return TaskDraft(
        key="fig-3",
        question="Do more frames help MAPPO and IQL on the Navigation task?",
        method="Train MAPPO and IQL for 2e7 and 5e7 frames.",
        design_complexity=DesignComplexity(
            independent_variables={
                "algorithm": ["MAPPO", "IQL"],
                "experiment.max_n_frames": ["2e7", "5e7"],
            },
            dependent_variables={"return": ["mean return"]},
        ),
    )


def test_a_hydra_multirun_runs_the_program_kept_for_its_benchmark(tmp_path: Path) -> None:
    """The repository keeps a program for the VMAS tasks the runs choose, whose own config
    tunes the experiment's settings: the multirun runs it, its config's tuned block is a
    step (the keys that differ from the experiment group's file first), and a key the runs
    override is cited where that config sets it. A program kept for another benchmark is
    not taken."""
    files = {
        **HYDRA_FILES,
        "tuned/vmas/vmas_run.py": TUNED_RUN,
        "tuned/vmas/conf/config.yaml": TUNED_CONFIG,
    }
    root = tmp_path / "tuned"
    setup = SetupAgent(committed_index(root, files), root).recover(_frames_task())
    assert (
        "`python tuned/vmas/vmas_run.py -m algorithm=mappo,iql task=vmas/navigation "
        "experiment.max_n_frames=20000000,50000000`" in setup.usage_instructions
    ), setup.usage_instructions
    steps = [r.split(": ", 1)[1] for r in setup.requirements]
    assert (
        "Set its own values of base.yaml's experiment settings in config.yaml: lr 0.00005, "
        "max_n_frames 10_000_000 (tuned/vmas/conf/config.yaml:13-16)" in steps
    ), steps
    assert (
        "Set the overridden config values: experiment.max_n_frames "
        "(tuned/vmas/conf/config.yaml:16)" in steps
    ), steps
    assert setup.source[0] == "tuned/vmas/vmas_run.py", setup.source
    assert not validate_references(setup, root)
    # kept for SMAC, not for the runs' VMAS tasks: the documented program runs them
    files = {k.replace("vmas/vmas_run", "smac/smac_run").replace("vmas/conf", "smac/conf"): v
             for k, v in files.items()}  # fmt: skip
    root = tmp_path / "other"
    setup = SetupAgent(committed_index(root, files), root).recover(_frames_task())
    assert "`python run.py -m algorithm=mappo,iql" in setup.usage_instructions
    assert not any("smac" in r for r in setup.requirements), setup.requirements


def test_a_block_calling_a_cited_function_with_a_library_argument_says_nothing_new(
    tmp_path: Path,
) -> None:
    """`db = get_data_loader(args, device=torch.device('cpu'))` only calls the loader whose
    definition a step cites: `torch.device` is the library's, not another call of the
    block's. A block calling a function of its own besides does say more."""
    from extractors.agent.step_filters import StepFilters
    from extractors.agent.steps import Step, StepTracer
    from extractors.repo import RepoSearch

    program = (
        "import numpy as np\nimport torch\n\n\n"
        "def get_data_loader(args, device):\n    return [args, device]\n\n\n"
        "def shuffle(db):\n    return db\n\n\n"
        "def main(args):\n"
        "    db = get_data_loader(args, device=torch.device('cpu'))\n"
        "    np.save('db.npy', get_data_loader(args, device=None))\n"
        "    db = shuffle(get_data_loader(args, device=None))\n"
    )
    root = tmp_path / "f"
    index = committed_index(root, {"train.py": program})
    search = RepoSearch(root, index)
    filters = StepFilters(search, StepTracer(index, search), {})
    cited = {"get_data_loader"}
    assert filters.only_calls(Step("Set up the loader", "train.py", 14, 14), cited)
    assert filters.only_calls(Step("Save the loader", "train.py", 15, 15), cited)
    assert not filters.only_calls(Step("Shuffle the loader", "train.py", 16, 16), cited)
