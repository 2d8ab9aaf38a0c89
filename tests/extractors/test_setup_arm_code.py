"""The code an arm's branch hands over to is cited as the arm's own: the class an `elif`
builds, the method it calls and the one that method binds; a branch reaching code wins over
one of the same arms that only sets numbers, and the models' module is masked. Each
repository is built with git in tmp_path and mined for real."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import committed_index, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft

ENCODE = '''"""Masked-number prediction with number encoders."""
import argparse


class Reader:
    def __init__(self, enc="def", hidden=200):
        self.hidden = hidden
        if enc == "def":
            self.encoder = self._plain
        elif enc == "exp":
            self._init_exp_encoder()
        elif enc == "val":
            self._init_value_encoder()

    def _plain(self, x):
        return x

    def _init_exp_encoder(self):
        self.bins = [10 ** (i - 4) for i in range(self.hidden)]
        self.scale = len(self.bins)
        self.encoder = self._forward_exp_encoder

    def _forward_exp_encoder(self, embeds, nums):
        codes = [min(range(len(self.bins)), key=lambda b: abs(self.bins[b] - n)) for n in nums]
        for i, code in enumerate(codes):
            embeds[i] = embeds[i] + code / self.scale
        return embeds

    def _init_value_encoder(self):
        self.weight = 0.5
        self.bias = 0.1
        self.encoder = lambda embeds, nums: [e + self.weight * n for e, n in zip(embeds, nums)]

    def fit(self, data):
        """Fit the reader to the training sentences."""
        for batch in data:
            self.encoder(batch, batch)
        return self


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--enc", default="def", help="[val/lval/exp/none/def*]")
    parser.add_argument("--hidden", type=int, default=200)
    args = parser.parse_args()
    reader = Reader(args.enc, args.hidden)
    reader.fit([[1.0, 2.0], [3.0, 4.0]])
    print("ppl", 1.0)


if __name__ == "__main__":
    main()
'''

MODELS = '''"""Two link predictors."""


class WLNet:
    def __init__(self, layers):
        self.layers = layers

    def forward(self, graph):
        h = graph
        for _ in range(self.layers):
            h = [x + y for x, y in zip(h, h[1:] + h[:1])]
        return h


class LocalWLNet:
    def __init__(self, layers):
        self.layers = layers

    def forward(self, graph):
        h = graph
        for _ in range(self.layers):
            h = [max(x, y) for x, y in zip(h, h[1:] + h[:1])]
        return h
'''

LINKS = '''"""Train a link predictor."""
import argparse

from model import LocalWLNet, WLNet


def run(args):
    if args.pattern == "2wl":
        params = {"lr": 0.01, "layers": 2}
    if args.pattern == "2wl_l":
        params = {"lr": 0.005, "layers": 3}
    if args.pattern == "2wl":
        net = WLNet(params["layers"])
    elif args.pattern == "2wl_l":
        net = LocalWLNet(params["layers"])
    print("auc", net.forward([1, 2, 3]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--pattern", default="2wl_l")
    parser.add_argument("--dataset", default="USAir")
    run(parser.parse_args())
'''


def _task(question: str, arms: list[str], metric: str = "PPL") -> TaskDraft:
    return TaskDraft(
        key="table-3:compare",
        question=question,
        method=f"Train and evaluate {arms[0]} and the compared methods.",
        expected_outcome="The first wins.",
        design_complexity=DesignComplexity(
            independent_variables={"method": arms},
            dependent_variables={"metric": [metric]},
        ),
    )


def test_the_methods_an_arms_branch_calls_and_binds_are_its_steps(tmp_path: Path) -> None:
    task = _task("Do exponent embeddings beat the default encoder?", ["Exp", "Default"])
    setup = recovered_setup(tmp_path / "enc", {"train.py": ENCODE}, task)
    steps = setup.requirements
    assert "python train.py --enc exp" in setup.usage_instructions
    assert any("Take the Exp path (method) where enc == 'exp' (train.py:10-11)" in s for s in steps)
    # the method the branch calls, then the forward that method binds to the encoder
    init = next(i for i, s in enumerate(steps) if "(Reader._init_exp_encoder) (train.py:" in s)
    assert steps[init].endswith(
        "On the Exp path: init exp encoder (Reader._init_exp_encoder) (train.py:18-21)"
    )
    assert steps[init + 1].endswith(
        "On the Exp path: implement Reader._forward_exp_encoder (train.py:23-27)"
    )
    # the default's two-line pass-through implements nothing
    assert not any("_plain" in s for s in steps), steps


def test_an_arm_named_by_a_common_word_runs_by_the_short_form_its_option_lists(
    tmp_path: Path,
) -> None:
    arms = ["Value", "LValue", "None", "Default", "Average"]
    task = _task("How does Value compare with LValue and Default?", arms)
    setup = recovered_setup(tmp_path / "enc", {"train.py": ENCODE}, task)
    usage = setup.usage_instructions
    assert "Average" not in usage.split("Compare")[0], usage  # a summary column, no run
    # "Value" is a generic word, yet the arm's name: it runs, as the help spells it
    assert "Run Value: `python train.py --enc val`" in usage, usage
    assert "Run LValue: `python train.py --enc lval`" in usage, usage
    assert "Run None: `python train.py --enc none`" in usage, usage  # a value the help lists
    assert "Run the default configuration: `python train.py`" in usage, usage
    assert any("On the Value path: init value encoder" in s for s in setup.requirements)


def test_a_branch_building_the_arms_model_wins_over_one_setting_its_numbers(
    tmp_path: Path,
) -> None:
    task = _task("How do 2-WL and 2-WLL compare on USAir?", ["2-WL", "2-WLL"], "AUC")
    files = {"links.py": LINKS, "model.py": MODELS}
    setup = recovered_setup(tmp_path / "wl", files, task)
    steps = setup.requirements
    text = "\n".join(steps)
    assert "Take the 2-WL path (method) where args.pattern == '2wl' (links.py:12-13)" in text
    assert "Take the 2-WLL path (method) where args.pattern == '2wl_l' (links.py:14-15)" in text
    # the hyperparameter branches of the same tests are no steps beside them
    assert "(links.py:8-9)" not in text and "(links.py:10-11)" not in text, steps
    assert "On the 2-WL path: implement WLNet.forward (model.py:8-12)" in text
    assert "On the 2-WLL path: implement LocalWLNet.forward (model.py:19-23)" in text
    # the models are the method's own code: masked with the entry point
    assert {"links.py", "model.py"} <= set(setup.masked_source), setup.masked_source


def test_the_default_run_leaves_what_the_arms_set_to_the_program(tmp_path: Path) -> None:
    """The README's recipe chooses the exponent encoder; the default arm's run is that recipe
    without the choice, every other arm's the recipe with its own, and a framework's options
    the recipe passes (`--max_epochs`, added by `pl.Trainer.add_argparse_args`) parse."""
    program = ENCODE.replace(
        "    args = parser.parse_args()",
        "    parser = pl.Trainer.add_argparse_args(parser)\n    args = parser.parse_args()",
    ).replace("import argparse", "import argparse\n\nimport pytorch_lightning as pl")
    readme = (
        "# Encoders\n\n```bash\nnice python train.py --enc exp --hidden 100 --max_epochs 10\n```\n"
    )
    task = _task("Do exponent embeddings beat the default encoder?", ["Exp", "Default"])
    files = {"train.py": program, "README.md": readme}
    setup = recovered_setup(tmp_path / "enc", files, task)
    usage = setup.usage_instructions
    assert "Run Exp: `nice python train.py --enc exp --hidden 100 --max_epochs 10`" in usage, usage
    assert (
        "Run the default configuration: `nice python train.py --hidden 100 --max_epochs 10`"
        in usage
    ), usage
    assert "not a flag" not in usage, usage


def test_a_loops_option_stays_when_the_default_run_drops_the_arms_options() -> None:
    from extractors.agent.launch import without_options

    loop = "for d in a b; do python x.py --dout $d --enc exp; done"
    assert (
        without_options(loop, {"--dout", "--enc"}) == "for d in a b; do python x.py --dout $d; done"
    )
    assert without_options("python x.py --enc=exp --cut --lr 1", {"--enc", "--cut"}) == (
        "python x.py --lr 1"
    )


EVAL = """import argparse


def perplexity(ckpt, limit):
    losses = [len(ckpt) / (i + 1) for i in range(limit)]
    return 2 ** (sum(losses) / len(losses))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", default="")
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args()
    ppl = perplexity(args.ckpt, args.limit)
    print("ppl", ppl)
"""


def test_training_is_followed_by_the_evaluation_program_the_readme_gives_next(
    tmp_path: Path,
) -> None:
    """`eval.py` after `train.py` in the README is the evaluation, though no sentence says
    "test"; its checkpoint is the document's own run's, so each run names its own."""
    readme = (
        "# Encoders\n\n**train.py:** training\n```bash\npython train.py --enc exp\n```\n"
        "**eval.py:** perplexity and hits\n```bash\n"
        "python eval.py --limit 100 --ckpt checkpoints/read-def/epoch=9.ckpt\n```\n"
    )
    task = _task("Do exponent embeddings beat the default encoder?", ["Exp", "Default"])
    files = {"train.py": ENCODE, "eval.py": EVAL, "README.md": readme}
    setup = recovered_setup(tmp_path / "enc", files, task)
    usage = setup.usage_instructions
    then = "then evaluate it: `python eval.py --limit 100 --ckpt <TRAINED_CHECKPOINT>`"
    assert f"Run Exp: `python train.py --enc exp`, {then}" in usage, usage
    assert f"Run the default configuration: `python train.py`, {then}" in usage, usage
    # the evaluation program is the experiment's: masked, its steps after the training's
    assert "eval.py" in setup.masked_source, setup.masked_source
    cited = [r.split("(")[-1] for r in setup.requirements]
    evaluating = [i for i, c in enumerate(cited) if c.startswith("eval.py")]
    training = [i for i, c in enumerate(cited) if c.startswith("train.py")]
    assert evaluating and min(evaluating) > max(training), setup.requirements


DISPATCH = '''"""Run one of the library's tasks."""
import argparse

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--task_name", default="forecast")
    parser.add_argument("--model", default="Trans")
    args = parser.parse_args()
    if args.task_name == "forecast":
        from exp.exp_forecast import ExpForecast
        Exp = ExpForecast
    elif args.task_name == "classification":
        from exp.exp_classification import ExpClassification
        Exp = ExpClassification
    exp = Exp(args)
    exp.train()
    exp.test()
'''


def _exp(kind: str, metric: str) -> str:
    return f"""class Exp{kind}:
    def __init__(self, args):
        self.args = args

    def train(self):
        for epoch in range(10):
            self.args.model
        return self

    def test(self):
        score = 0.5
        print("{metric}", score)
        return score
"""


def test_the_experiment_class_the_runs_task_name_picks_trains_and_evaluates(
    tmp_path: Path,
) -> None:
    files = {
        "run.py": DISPATCH,
        "exp/__init__.py": "",
        "exp/exp_forecast.py": _exp("Forecast", "mse"),
        "exp/exp_classification.py": _exp("Classification", "accuracy"),
        "scripts/classification/Trans.sh": "python run.py --task_name classification --model Trans\n",
        "scripts/classification/Mixer.sh": "python run.py --task_name classification --model Mixer\n",
    }
    task = _task(
        "How does Mixer compare with Trans on classification?", ["Mixer", "Trans"], "accuracy"
    )
    setup = recovered_setup(tmp_path / "lib", files, task)
    steps = "\n".join(setup.requirements)
    assert "Train (ExpClassification.train) (exp/exp_classification.py:5-8)" in steps, steps
    assert (
        "Evaluate (ExpClassification.test): returns score (exp/exp_classification.py:10-13)"
        in steps
    ), steps
    assert "exp_forecast.py" not in steps, steps


SWEEP_TRAIN = '''"""Fine-tune the adapter model."""
import argparse

from model import Model, ModelArgs


def main(args):
    model = Model(ModelArgs(adapter_layer=args.adapter_layer))
    for _ in range(args.epochs):
        model.forward([1.0, 2.0, 3.0])
    print("val acc", 0.5)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter_layer", type=int, default=30, help="adapted layers")
    parser.add_argument("--epochs", type=int, default=5)
    main(parser.parse_args())
'''

SWEEP_MODEL = '''"""The model with adapters in its last layers."""
from dataclasses import dataclass


@dataclass
class ModelArgs:
    adapter_layer: int = 30


class Model:
    def __init__(self, params):
        self.layers = [lambda x: x] * 32
        self.adapter_layer = params.adapter_layer

    def forward(self, h):
        for layer in self.layers[: -1 * self.adapter_layer]:
            h = layer(h)
        for layer in self.layers[-1 * self.adapter_layer :]:
            h = [x + 1 for x in layer(h)]
        return h
'''


def test_where_a_swept_option_takes_effect_is_a_step(tmp_path: Path) -> None:
    """`--adapter_layer` reaches the model as `params.adapter_layer` and is read in its
    forward: those definitions are cited, not the parser's line alone."""
    task = TaskDraft(
        key="table-4:sweep",
        question="How does Val Acc of the adapter change as Layers varies (10, 20, 30)?",
        method="Fine-tune with adapters in the last 10, 20 and 30 layers.",
        expected_outcome="More layers help.",
        design_complexity=DesignComplexity(
            independent_variables={"Layers": ["10", "20", "30"]},
            dependent_variables={"metric": ["Val Acc"]},
        ),
    )
    readme = (
        "# Adapter\n\nFine-tune the adapter in the last layers; it reports the Val Acc as it"
        " changes when the number of layers varies (more layers help):\n\n"
        "    python finetune.py --adapter_layer 30\n"
    )
    files = {"finetune.py": SWEEP_TRAIN, "model.py": SWEEP_MODEL, "README.md": readme}
    setup = recovered_setup(tmp_path / "ad", files, task)
    assert "python finetune.py --adapter_layer 20" in setup.usage_instructions
    steps = "\n".join(setup.requirements)
    took = "Read adapter_layer where --adapter_layer takes effect"
    assert f"{took} (Model.forward) (model.py:15-20)" in steps, steps
    assert f"{took} (Model.__init__) (model.py:11-13)" in steps, steps


LOSSES = '''"""The contrastive objectives."""


class InstanceLoss:
    def __init__(self, temperature):
        self.temperature = temperature

    def forward(self, z_i, z_j):
        sim = [a * b / self.temperature for a, b in zip(z_i, z_j)]
        return -sum(sim) / len(sim)


class ClusterLoss:
    def __init__(self, classes):
        self.classes = classes

    def forward(self, c_i, c_j):
        entropy = sum(c_i) / self.classes
        return sum(a - b for a, b in zip(c_i, c_j)) + entropy
'''

CLUSTER_TRAIN = '''"""Train the clustering network."""
import argparse

import losses


def train(model, data, instance, cluster):
    for x in data:
        loss = instance.forward(x, x) + cluster.forward(x, x)
        print("loss", loss)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="CIFAR-10")
    args = parser.parse_args()
    instance = losses.InstanceLoss(0.5)
    cluster = losses.ClusterLoss(10)
    train(None, [[1.0, 2.0]], instance, cluster)
    print("NMI", 0.5)
'''


def test_the_repositorys_own_losses_the_training_uses_are_steps(tmp_path: Path) -> None:
    task = _task("Do the instance and cluster heads cluster CIFAR-10 well?", ["CIFAR-10"], "NMI")
    files = {"train.py": CLUSTER_TRAIN, "losses.py": LOSSES}
    setup = recovered_setup(tmp_path / "cc", files, task)
    steps = "\n".join(setup.requirements)
    assert "Compute the loss (InstanceLoss.forward) (losses.py:8-10)" in steps, steps
    assert "Compute the loss (ClusterLoss.forward) (losses.py:17-19)" in steps, steps
    # a framework's catalogue of losses is no method's own
    many = LOSSES + "".join(
        f"\n\nclass Extra{i}Loss:\n    def forward(self, x):\n        y = x\n        return y\n"
        for i in range(3)
    )
    many_train = CLUSTER_TRAIN.replace(
        "    train(None,",
        "    extra = [losses.Extra0Loss(), losses.Extra1Loss(), losses.Extra2Loss()]\n    train(None,",
    )
    other = recovered_setup(tmp_path / "fw", {"train.py": many_train, "losses.py": many}, task)
    assert not any("Compute the loss" in r for r in other.requirements), other.requirements


def test_an_evaluation_named_so_wins_over_a_helper_that_starts_like_one(tmp_path: Path) -> None:
    """Every file is searched for `evaluate` before any for a name starting `eval_`: the
    data module's `eval_collate_fn` is no evaluation."""
    program = (
        "import argparse\n\nfrom utils import eval_collate_fn\nfrom scoring import evaluate\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--enc', default='def', help='[exp/def*]')\n"
        "    args = p.parse_args()\n    batch = eval_collate_fn([1, 2])\n"
        "    print('ppl', evaluate(batch, args.enc))\n"
    )
    utils = (
        "def eval_collate_fn(items):\n    batch = list(items)\n    batch.sort()\n    return batch\n"
    )
    scoring = (
        "def evaluate(batch, enc):\n    total = sum(batch)\n    scale = len(enc)\n"
        "    return total / scale\n"
    )
    task = _task("Do exponent embeddings beat the default encoder?", ["Exp", "Default"])
    files = {"train.py": program, "utils.py": utils, "scoring.py": scoring}
    steps = "\n".join(recovered_setup(tmp_path / "ev", files, task).requirements)
    assert "Evaluate (evaluate) (scoring.py:1-4)" in steps, steps
    assert "Evaluate (eval_collate_fn)" not in steps, steps


def test_a_module_of_functions_is_entered_by_the_one_named_as_it_is(tmp_path: Path) -> None:
    """search/PC.py: `pc` hands over to `pc_alg` or to the longer `mvpc_alg` (data with
    missing values); the PC algorithm is `pc`, not the module's longest function."""
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    long_body = "".join(f"    step_{k} = data * {k}\n" for k in range(30))
    module = (
        "def pc(data, alpha, missing=False):\n"
        "    if missing:\n        return mvpc_alg(data, alpha)\n"
        "    return pc_alg(data, alpha)\n\n\n"
        "def pc_alg(data, alpha):\n    skeleton = data\n    return skeleton, alpha\n\n\n"
        f"def mvpc_alg(data, alpha):\n{long_body}    return data, alpha\n"
    )
    root = tmp_path / "pc"
    index = committed_index(root, {"search/__init__.py": "", "search/PC.py": module})
    search = RepoSearch(root, index)
    methods = MethodModules(index, StepTracer(index, search))
    step = methods.main_definition("search/PC.py", "PC")
    assert step is not None
    assert (step.action, step.start, step.end) == ("Implement PC (pc)", 1, 4)


def test_a_forward_pass_returning_early_in_the_runs_mode_is_cited_to_there(
    tmp_path: Path,
) -> None:
    """SegVol's `forward` returns `self.forward_decoder(...)` under `if self.test_mode:`;
    the training losses follow. An evaluation program's runs take the first branch: the
    step cites the pass to its return and says so; a training program's take the rest,
    and the pass is cited whole, as it is when the program's mode is unknown."""
    from extractors.agent.methods import MethodModules
    from extractors.agent.query import build_query
    from extractors.agent.stages import program_mode
    from extractors.agent.steps import Step, StepTracer
    from extractors.repo import RepoSearch

    parts = "".join(f"        self.part_{k} = k * {k}\n" for k in range(35))
    module = (
        "class VolNet:\n"
        "    def __init__(self, test_mode=False):\n"
        f"{parts}"
        "        self.test_mode = test_mode\n\n"
        "    def forward(self, image, text=None):\n"
        "        embedding = self.encode(image)\n"
        "        if self.test_mode:\n"
        "            return self.decode(embedding, text)\n"
        "        sl_loss = self.supervised(image, embedding)\n"
        "        ssl_loss = self.unsupervised(image, embedding)\n"
        "        return sl_loss, ssl_loss\n"
    )
    root = tmp_path / "vol"
    index = committed_index(root, {"net/__init__.py": "", "net/model.py": module})
    methods = MethodModules(index, StepTracer(index, RepoSearch(root, index)))
    q = build_query(_task("Do text prompts help VolNet segment?", ["text", "box"]))
    assert program_mode("inference_demo.py") == "test" and program_mode("train.py") == "train"
    assert program_mode("main.py") == ""
    whole = Step("Implement VolNet", "net/model.py", 1, 46)
    passes = {
        mode: next(s for s in methods.method_steps(whole, q, mode) if "forward" in s.action)
        for mode in ("test", "train", "")
    }
    test = passes["test"]
    assert test.action == (
        "Compute VolNet's forward pass in test mode (`if self.test_mode:` returns at :43)"
    ), test
    assert (test.start, test.end) == (40, 43), test
    for mode in ("train", ""):
        assert passes[mode].action == "Compute VolNet's forward pass", passes[mode]
        assert (passes[mode].start, passes[mode].end) == (40, 46), passes[mode]


def test_a_method_only_its_own_body_names_is_no_evaluation(tmp_path: Path) -> None:
    """`Runner.validate` is named only inside itself (`self.trainer.validate(...)`, the
    framework's) and as a stage a `match` compares against (`case 'validate':`): nothing calls
    it, so it is not the run's evaluation. The `Evaluator` the training makes is, and its
    editor's stub docstring ("docstring for Evaluator") says nothing."""
    program = (
        "import argparse\n\nfrom runner import Runner\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--enc', default='def', help='[exp/def*]')\n"
        "    args = p.parse_args()\n    Runner(args).fit()\n"
    )
    runner = (
        "from scoring import Evaluator\n\n\n"
        "def stage_of(stage):\n    match stage:\n        case 'validate':\n            return 1\n"
        "    return 0\n\n\n"
        "class Runner:\n    def __init__(self, args):\n        self.args = args\n"
        "        self.trainer = None\n\n"
        "    def fit(self):\n        scores = [len(self.args.enc), stage_of('fit')]\n"
        "        eva = Evaluator(scores)\n        print('ppl', eva.info)\n\n"
        "    def validate(self, ckpt=None):\n        self.trainer.validate(\n"
        "            ckpt_path=ckpt,\n        )\n        return ckpt\n"
    )
    scoring = (
        'class Evaluator:\n    """docstring for Evaluator"""\n\n'
        "    def __init__(self, scores):\n        self.scores = scores\n"
        "        self.info = self.mean()\n\n"
        "    def mean(self):\n        total = sum(self.scores)\n        return total / 2\n"
    )
    task = _task("Do exponent embeddings beat the default encoder?", ["Exp", "Default"])
    files = {"train.py": program, "runner.py": runner, "scoring.py": scoring}
    steps = "\n".join(recovered_setup(tmp_path / "val", files, task).requirements)
    assert "Runner.validate" not in steps, steps
    assert "Evaluate (Evaluator) (scoring.py:1-" in steps, steps
    assert "docstring for" not in steps, steps


def test_a_named_measure_is_reported_before_a_value_called_result(tmp_path: Path) -> None:
    """The table's columns are data sets ("Cora"), so no line names the measure by the
    task's words: the report is the line printing AUC, not the earlier record of the
    parameters (`f.write(f'{key}: ' + str(result))`), which only calls its value a result."""
    program = (
        "import argparse\n\n\ndef trial(enc):\n    scale = len(enc)\n    return scale / 10\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--enc', default='def', help='[exp/def*]')\n"
        "    args = p.parse_args()\n    params = {'enc': args.enc}\n"
        "    for key, result in params.items():\n"
        "        with open('record.txt', 'a') as f:\n"
        "            f.write(f'{key}: ' + str(result) + ' ')\n"
        "    auc = trial(args.enc)\n"
        "    print(f'Final Test: AUC {auc * 100:.2f}')\n"
    )
    task = _task("Do exponent embeddings beat the default on Cora?", ["Exp", "Default"], "Cora")
    steps = recovered_setup(tmp_path / "auc", {"train.py": program}, task).requirements
    assert "(train.py:18)" in steps[-1], steps


def test_a_long_data_class_is_cited_where_it_gets_its_data(tmp_path: Path) -> None:
    """A data set class too long to cite whole is cited by the method that gets its data
    (`get_data`, which merges train and val for the full-data arm), not by a one-statement
    `__getitem__` that only indexes what that method made."""
    padding = "".join(
        f"    def feature_{i}(self, row):\n        value = row * {i}\n        return value\n\n"
        for i in range(10)
    )
    loader = (
        "import json\n\n\nclass PairDataset:\n"
        "    def __init__(self, mode, path):\n        self.mode = mode\n        self.path = path\n"
        "        self.get_data()\n\n"
        "    def __getitem__(self, i):\n        return self.rows[i]\n\n"
        "    def get_data(self):\n        with open(self.path) as f:\n            data = json.load(f)\n"
        "        if self.mode == 'full':\n            self.rows = data['train'] + data['val']\n"
        "        else:\n            self.rows = data[self.mode]\n\n" + padding
    )
    program = (
        "import argparse\n\nfrom data_loader import PairDataset\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--enc', default='def', help='[exp/def*]')\n"
        "    args = p.parse_args()\n    data = PairDataset('train', 'pairs.json')\n"
        "    print('ppl', len(args.enc), data[0])\n"
    )
    task = _task("Do exponent embeddings beat the default encoder?", ["Exp", "Default"])
    files = {"train.py": program, "data_loader.py": loader}
    steps = "\n".join(recovered_setup(tmp_path / "data", files, task).requirements)
    assert "Load and split the data (PairDataset.get_data) (data_loader.py:13-" in steps, steps


def test_a_common_measure_no_code_names_is_said_to_be_written(tmp_path: Path) -> None:
    """The task measures "Val Acc (%)" and the training only computes a loss: nothing in the
    programs' code names accuracy by any of its names, so the comparison says to write it.
    Counting `correct` answers is accuracy; and a module imported by a name only a path
    set at run time reaches (`from scorer import Scorer`, scorer.py in eval/) may compute it."""
    program = (
        "import argparse\n\n\ndef validate(enc):\n    loss = len(enc) / 10\n    return loss\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--enc', default='def', help='[exp/def*]')\n"
        "    args = p.parse_args()\n    print('val loss', validate(args.enc))\n"
    )
    task = _task("Does Exp beat Default on Val Acc?", ["Exp", "Default"], "Val Acc (%)")
    usage = recovered_setup(tmp_path / "loss", {"train.py": program}, task).usage_instructions
    assert "(Val Acc (%): no string or report statement" in usage, usage
    counted = program.replace("    loss = len(enc) / 10\n", "    correct = len(enc)\n")
    counted = counted.replace("    return loss\n", "    return correct / 10\n")
    usage = recovered_setup(tmp_path / "acc", {"train.py": counted}, task).usage_instructions
    assert "no string or report statement" not in usage, usage
    hidden = program.replace("import argparse\n", "import argparse\n\nfrom scorer import Scorer\n")
    files = {"train.py": hidden, "eval/scorer.py": "class Scorer:\n    accuracy = 0.0\n"}
    usage = recovered_setup(tmp_path / "hidden", files, task).usage_instructions
    assert "no string or report statement" not in usage, usage


def test_a_method_step_where_an_arms_option_takes_effect_says_so() -> None:
    """The forward pass cited as the method's part is where `--adapter_layer` takes effect:
    it says so; an arm's own path keeps its wording, and other lines are left alone."""
    from extractors.agent.plan import _where_used
    from extractors.agent.steps import Step

    forward = Step("Compute Transformer's forward pass", "llama/model.py", 195, 222)
    use = Step("Read adapter_layer where --adapter_layer takes effect", "llama/model.py", 195, 222)
    other = Step("Build the parts of Transformer", "llama/model.py", 173, 193)
    used = [(use, "--adapter_layer")]
    assert _where_used(forward, used).action == (
        "Compute Transformer's forward pass, where --adapter_layer takes effect"
    )
    assert _where_used(other, used) is other
    assert _where_used(use, used) is use  # the use itself, as it is


PROMPTED = '''"""A segmenter prompted by text, boxes or points."""


class Segmenter:
    def __init__(self, encoder, decoder):
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, image, text=None, boxes=None, points=None):
        embedding = self.encoder(image)
        return self.forward_decoder(embedding, text, boxes, points)

    def forward_decoder(self, embedding, text=None, boxes=None, points=None):
        prompts = self.encoder.prompts(text=text, boxes=boxes, points=points)
        return self.decoder(embedding, prompts)
'''


def test_where_the_arms_inputs_enter_the_model_is_a_step(tmp_path: Path) -> None:
    """The text, box and point prompts are parameters of both `forward` and
    `forward_decoder`; `forward` only hands them on, `forward_decoder` uses them."""
    from extractors.agent.arms import Arm
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    root = tmp_path / "seg"
    index = committed_index(root, {"net/model.py": PROMPTED})
    methods = MethodModules(index, StepTracer(index, RepoSearch(root, index)))

    def arms(*values: str) -> list[Arm]:
        return [Arm("prompt type", v, frozenset(v.lower().split())) for v in values]

    steps = methods.input_steps(arms("text", "box", "point"), ["net/model.py"])
    assert [(s.action, s.path, s.start, s.end) for s in steps] == [
        (
            "Take the arms' inputs (boxes, points, text) into the model "
            "(Segmenter.forward_decoder)",
            "net/model.py",
            13,
            15,
        )
    ]
    assert methods.input_steps(arms("text"), ["net/model.py"]) == []  # one arm: no inputs
    assert methods.input_steps(arms("zoom in", "zoom out"), ["net/model.py"]) == []


MSCAN = '''"""The multi-scale convolutional attention network."""


class AttentionModule:
    def __init__(self, dim):
        self.dim = dim

    def forward(self, x):
        branch7 = x * 7
        branch11 = x * 11
        return x * (branch7 + branch11)


class MSCAN:
    def __init__(self):
        self.block = AttentionModule(64)
'''

OTHER_ATTENTION = "".join(
    f"class Attention{i}:\n    def forward(self, x):\n        return x\n\n\n" for i in range(5)
)


def test_a_module_the_question_names_by_an_acronym_holds_what_it_studies(tmp_path: Path) -> None:
    """ "the design of MSCA": `mscan.py` (not the config of that name) is where its attention
    is; a framework's catalogue of attention blocks elsewhere gives no answer."""
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    root = tmp_path / "ms"
    files = {
        "seg/backbones/mscan.py": MSCAN,
        "configs/_base_/models/mscan.py": "model = dict(type='MSCAN')\n",
        "seg/heads/attention_zoo.py": OTHER_ATTENTION,
    }
    index = committed_index(root, files)
    methods = MethodModules(index, StepTracer(index, RepoSearch(root, index)))
    question = (
        "How does 'w/o Attention' compare with the full model (Ablation on the design of MSCA)?"
    )
    named = methods.named_modules(question)
    assert named == ["seg/backbones/mscan.py"]
    steps = methods.topic_steps(question, named)
    assert [(s.action, s.start) for s in steps] == [
        ("Implement the attention (AttentionModule)", 4)
    ]
    assert methods.topic_steps(question, ["seg/heads/attention_zoo.py", *named]) == []


def test_what_an_arms_branch_reaches_that_the_code_beside_it_reaches_too_is_not_the_arms(
    tmp_path: Path,
) -> None:
    """`if args.enc == "none":` builds a `Corpus` to restrict the data, and every arm builds
    one just after the `if`: the corpus's loading is no step "on the None path"; the
    encoder the Exp branch calls still is the Exp arm's."""
    corpus = (
        "\n\nclass Corpus:\n"
        "    def __init__(self, path, enc='def', limit=None):\n"
        "        self.path = path\n"
        "        self.enc = enc\n"
        "        self.rows = self._load(limit)\n\n"
        "    def _load(self, limit):\n"
        "        rows = []\n"
        "        for i, line in enumerate(open(self.path)):\n"
        "            if limit is not None and i >= limit:\n"
        "                break\n"
        "            rows.append(line.split() if self.enc != 'none' else [line])\n"
        "        return rows\n\n\n"
        "def main():"
    )
    program = ENCODE.replace("\n\ndef main():", corpus, 1).replace(
        "    reader = Reader(args.enc, args.hidden)\n",
        "    if args.enc == 'none':\n"
        "        probe = Corpus('train.txt', 'exp', limit=10)\n"
        "        kept = len(probe.rows)\n"
        "    else:\n"
        "        kept = None\n"
        "    data = Corpus('train.txt', args.enc, limit=kept)\n"
        "    reader = Reader(args.enc, args.hidden)\n",
    )
    task = _task("Do exponent embeddings beat no number encoding?", ["Exp", "None"])
    steps = recovered_setup(tmp_path / "enc", {"train.py": program}, task).requirements
    text = "\n".join(steps)
    assert "On the None path" not in text, steps
    assert "On the Exp path: init exp encoder (Reader._init_exp_encoder)" in text, steps


def test_of_many_compared_methods_the_modules_cited_cover_both_ends_of_the_list(
    tmp_path: Path,
) -> None:
    """Six methods, each with its own module: three are cited, the first, the last and one
    between (`spread`), not the first three, which would leave out every method of the
    other kind the question sets them against."""
    from extractors.agent.arms import spread, task_arms
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    assert spread(list("ABCDEF")) == list("AFCDBE")
    assert spread([1, 2]) == [1, 2] and spread([]) == []
    names = ["masac", "maddpg", "mappo", "iql", "vdn", "qmix"]
    body = "".join(f"        part_{k} = batch * {k}\n" for k in range(6))
    files = {"algorithms/__init__.py": ""} | {
        f"algorithms/{n}.py": (
            f"class {n.capitalize()}:\n    def get_loss(self, batch):\n{body}        return batch\n"
        )
        for n in names
    }
    root = tmp_path / "algos"
    index = committed_index(root, files)
    methods = MethodModules(index, StepTracer(index, RepoSearch(root, index)))
    task = _task("Do actor-critic methods beat Q-learning ones?", [n.upper() for n in names])
    steps = methods.arm_steps(task_arms(task), set())
    assert [s.path for s in steps] == [
        "algorithms/masac.py",
        "algorithms/mappo.py",
        "algorithms/qmix.py",
    ], steps


def _wrapped_forecaster(forward: str) -> dict[str, str]:
    layers = "".join(f"        self.w{k} = nn.Linear(patch_len, patch_len)\n" for k in range(40))
    backbone = (
        "from torch import nn\n\n\n"
        "class Periodic_backbone(nn.Module):\n"
        "    def __init__(self, period, patch_len):\n"
        "        super().__init__()\n"
        f"{layers}"
        "        self.period = period\n\n"
        "    def forward(self, z):\n"
        "        patches = z.unfold(-1, self.period, self.period)\n"
        "        out = self.w0(patches)\n"
        "        for k in range(3):\n"
        "            out = out + self.w1(out)\n"
        "        return out.flatten(-2)\n"
    )
    wrapper = (
        "from torch import nn\n\nfrom layers.Periodic_backbone import Periodic_backbone\n\n\n"
        "class Model(nn.Module):\n"
        "    def __init__(self, configs):\n"
        "        super().__init__()\n"
        + "".join(f"        opt_{k} = configs.opt_{k}\n" for k in range(38))
        + "        self.norm = nn.LayerNorm(configs.period)\n"
        "        self.model = Periodic_backbone(configs.period, configs.patch_len)\n\n"
        f"{forward}"
    )
    run = (
        "import argparse\n\nfrom models import Periodic\n\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--model', default='Periodic')\n"
        "parser.add_argument('--seq_len', type=int, default=336)\n"
        "parser.add_argument('--period', type=int, default=24)\n"
        "args = parser.parse_args()\n"
        "model = Periodic.Model(args)\n"
        "for epoch in range(10):\n    loss = model(epoch)\n"
        "print('mse', loss)\n"
    )
    return {
        "layers/__init__.py": "",
        "layers/Periodic_backbone.py": backbone,
        "models/__init__.py": "",
        "models/Periodic.py": wrapper,
        "run.py": run,
        "scripts/Periodic/etth1.sh": (
            "python run.py --model Periodic --seq_len 336 --period 24\n"
            "python run.py --model Periodic --seq_len 720 --period 24\n"
        ),
    }


def test_a_wrapper_model_is_cited_by_the_class_its_pass_hands_over_to(tmp_path: Path) -> None:
    """PDF's `Model.forward` permutes its input and hands it to `self.model`, the
    `PDF_backbone` its constructor builds from layers/PDF_backbone.py: the method is there.
    Its steps are the backbone's constructor and pass, saying whose wrapper hands over, and
    both modules are masked. A pass doing work of its own (`self.norm` too) is no wrapper."""
    task = TaskDraft(
        paper_id="p",
        question="Does a longer look-back window help Periodic forecast?",
        method="Train Periodic with look-back windows 336 and 720 and compare MSE.",
        design_complexity=DesignComplexity(
            independent_variables={"look-back window": ["336", "720"]},
            dependent_variables={"metrics": ["MSE"]},
        ),
    )
    handing = (
        "    def forward(self, x):\n        x = x.permute(0, 2, 1)\n"
        "        x = self.model(x)\n        return x.permute(0, 2, 1)\n"
    )
    setup = recovered_setup(tmp_path / "wrap", _wrapped_forecaster(handing), task)
    steps = "\n".join(setup.requirements)
    assert (
        "Build the parts of Periodic_backbone, to which `Model.forward` hands its input "
        "(Periodic_backbone.__init__) (layers/Periodic_backbone.py:5-47)"
    ) in steps, steps
    assert "Compute Periodic_backbone's forward pass (layers/Periodic_backbone.py:49-54)" in steps
    assert "models/Periodic.py" not in steps, steps
    assert {"layers/Periodic_backbone.py", "models/Periodic.py"} <= set(setup.masked_source)
    working = (
        "    def forward(self, x):\n        x = self.norm(x)\n"
        "        x = self.model(x)\n        return x.permute(0, 2, 1)\n"
    )
    setup = recovered_setup(tmp_path / "own", _wrapped_forecaster(working), task)
    steps = "\n".join(setup.requirements)
    assert "Compute Model's forward pass" in steps and "(models/Periodic.py:" in steps, steps
    assert "Periodic_backbone, to which" not in steps, steps


def test_a_compared_methods_wrapper_is_cited_by_the_pass_it_hands_over_to(
    tmp_path: Path,
) -> None:
    """PDF's 18244/3 cited its own arm, "PDF(336)", by `Model.forward` (models/PDF.py:70-74),
    which only hands its input to `PDF_backbone`: an arm's own module is cited through its
    wrapper, by the pass of the class it hands over to. Not so for the method the steps
    take apart (that module stays where its parts are looked for)."""
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    handing = (
        "    def forward(self, x):\n        x = x.permute(0, 2, 1)\n"
        "        x = self.model(x)\n        return x.permute(0, 2, 1)\n"
    )
    root = tmp_path / "arm"
    index = committed_index(root, _wrapped_forecaster(handing))
    methods = MethodModules(index, StepTracer(index, RepoSearch(root, index)))
    through = methods.main_definition("models/Periodic.py", "Periodic(336)", through=True)
    assert through is not None and through.action == (
        "Implement Periodic(336)'s Periodic_backbone.forward, to which `Model.forward` hands "
        "its input"
    ), through
    assert (through.path, through.start, through.end) == ("layers/Periodic_backbone.py", 49, 54)
    plain = methods.main_definition("models/Periodic.py", "Periodic(336)")
    assert plain is not None and plain.path == "models/Periodic.py", plain


def _forecaster(name: str, op: str) -> str:
    body = "".join(f"        self.w{k} = nn.Linear(patch_len, patch_len)\n" for k in range(12))
    return (
        "from torch import nn\n\n\n"
        "class Model(nn.Module):\n"
        "    def __init__(self, configs):\n"
        "        super().__init__()\n"
        "        patch_len = configs.patch_len\n"
        f"{body}\n"
        "    def forward(self, x):\n"
        f"        patches = x.{op}(-1, 4, 4)\n"
        "        out = self.w0(patches)\n"
        "        for k in range(3):\n"
        "            out = out + self.w1(out)\n"
        f"        return out.flatten(-2)  # {name}\n"
    )


def test_the_model_the_question_names_first_is_the_method_though_a_baseline_runs_more(
    tmp_path: Path,
) -> None:
    """PDF's 18244/3 asks whether PDF(336) beats PatchTST(336) and PatchTST(336)*: the
    baseline's two arms run twice as often, and the repository's scripts train neither
    clearly most. The steps took PatchTST's model apart, citing PDF only as a rival. Of the
    models the task names, the one it names first is the method; the most run decides only
    among models the task does not name."""
    from extractors.agent.arms import task_arms
    from extractors.agent.methods import MethodModules
    from extractors.agent.query import build_query
    from extractors.agent.run import Run
    from extractors.agent.runs import RunPlanner
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    files = {
        "models/__init__.py": "",
        "models/PerioNet.py": _forecaster("periodic", "unfold"),
        "models/PatchMix.py": _forecaster("patchy", "split"),
        "models/Linear.py": _forecaster("linear", "split"),
        "run.py": "import argparse\n\nparser = argparse.ArgumentParser()\n",
    }
    root = tmp_path / "two"
    index = committed_index(root, files)
    search = RepoSearch(root, index)
    tracer = StepTracer(index, search)
    planner = RunPlanner(index, search, tracer, MethodModules(index, tracer))
    task = TaskDraft(
        paper_id="p",
        question="Does PerioNet forecast better than PatchMix and PatchMix* with longer patches?",
        method="Train PerioNet, PatchMix (patch_len 16) and PatchMix* (patch_len 64); compare MSE.",
        design_complexity=DesignComplexity(
            independent_variables={"model": ["PerioNet", "PatchMix", "PatchMix*"]},
            dependent_variables={"metrics": ["MSE"]},
        ),
    )
    perionet, patchmix, starred = task_arms(task)
    runs = [
        Run("python run.py --model PerioNet --patch_len 1", arms=[perionet]),
        Run("python run.py --model PatchMix --patch_len 16", arms=[patchmix]),
        Run("python run.py --model PatchMix --patch_len 64", arms=[starred]),
    ]
    models = planner.run_models(runs, build_query(task))
    assert [m.path for m in models] == ["models/PerioNet.py", "models/PatchMix.py"], models
    # the task naming neither, the model more runs train leads
    unnamed = task.model_copy(
        update={
            "question": "Which look-back window forecasts best?",
            "method": "Train each model with patch_len 16 and 64; compare MSE.",
            "design_complexity": DesignComplexity(
                independent_variables={"patch_len": ["16", "64"]},
                dependent_variables={"metrics": ["MSE"]},
            ),
        }
    )
    sixteen, sixty_four = task_arms(unnamed)
    runs = [
        Run("python run.py --model Linear --patch_len 16", arms=[sixteen]),
        Run("python run.py --model PatchMix --patch_len 16", arms=[sixteen]),
        Run("python run.py --model PatchMix --patch_len 64", arms=[sixty_four]),
    ]
    models = planner.run_models(runs, build_query(unnamed))
    assert [m.path for m in models][:1] == ["models/PatchMix.py"], models


def test_a_class_only_declaring_fields_is_no_arms_implementation(tmp_path: Path) -> None:
    """vmas/balance's module holds the dataclass of its config's keys: no code of the task
    (BenchMARL's `TaskConfig`); MAML's module holds a NamedTuple beside the function that
    trains: that function is the module's main definition."""
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    schema = (
        "from dataclasses import dataclass, MISSING\n\n\n"
        "@dataclass\nclass TaskConfig:\n    max_steps: int = MISSING\n    n_agents: int = MISSING\n"
        "    package_mass: float = MISSING\n    random_pos: bool = MISSING\n"
    )
    maml = (
        "from typing import NamedTuple\n\n\n"
        "class Traj(NamedTuple):\n    obs: list\n    acs: list\n    rews: list\n    gammas: list\n\n\n"
        "def main(steps):\n    total = 0\n    for step in range(steps):\n        total += step\n"
        "    return total\n"
    )
    root = tmp_path / "m"
    index = committed_index(root, {"envs/vmas/balance.py": schema, "maml/maml.py": maml})
    methods = MethodModules(index, StepTracer(index, RepoSearch(root, index)))
    assert methods.main_definition("envs/vmas/balance.py", "vmas/balance") is None
    step = methods.main_definition("maml/maml.py", "MAML")
    assert step is not None and (step.action, step.start) == ("Implement MAML (main)", 11)
