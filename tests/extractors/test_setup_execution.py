"""Steps in the order the run reaches them: a program's main building its model and data
before the inference whose branches the arms differ by, a class where it is made, a launch
script's lines and unreached code left where the plan put them. Built with git in tmp_path."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import cites, committed_index, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft
from extractors.agent.execution import ExecutionOrder
from extractors.agent.steps import Step, StepTracer
from extractors.repo import RepoSearch

DEMO = '''"""Segment a CT volume with or without the zoom-in pass."""
import argparse

from net.model import VolNet
from prep import load_case


def dice(pred, gold):
    """Dice overlap of two masks."""
    inter = sum(p * g for p, g in zip(pred, gold))
    return 2 * inter / (sum(pred) + sum(gold))


def segment(model, case, zoom_in):
    """Zoom out, then refine the region of interest when zoom_in is set."""
    pred = model.coarse(case)
    if zoom_in:
        roi = [p for p in pred if p]
        pred = model.refine(roi)
    return dice(pred, case)


def run_case(model, case, args):
    """Segment one case and print its dice score."""
    score = segment(model, case, args.zoom_in)
    print("dice", score)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ckpt", default="ckpt.pth")
    parser.add_argument("--case", default="case.npy")
    args = parser.parse_args()
    model = VolNet(args.ckpt)
    model.load(args.ckpt)
    case = load_case(args.case)
    args.zoom_in = True
    run_case(model, case, args)


if __name__ == "__main__":
    main()
'''

MODEL = '''"""The volumetric network."""


class VolNet:
    def __init__(self, ckpt):
        self.ckpt = ckpt
        self.layers = [1, 2, 3]

    def coarse(self, case):
        return [1 for _ in case]

    def refine(self, roi):
        return [1 for _ in roi]

    def never_called(self):
        return None
'''

PREP = '''def load_case(path):
    """Load and normalise one CT case."""
    values = [1, 0, 1]
    return [v / max(values) for v in values]
'''


def _tracer(tmp_path: Path) -> StepTracer:
    root = tmp_path / "vol"
    files = {
        "demo.py": DEMO,
        "net/__init__.py": "",
        "net/model.py": MODEL,
        "prep.py": PREP,
        "run.sh": "python demo.py --ckpt ckpt.pth\n",
    }
    index = committed_index(root, files)
    return StepTracer(index, RepoSearch(root, index))


def test_steps_follow_the_run_from_main_into_what_it_calls(tmp_path: Path) -> None:
    tracer = _tracer(tmp_path)
    # as a plan gathers them: the arm's branch, then the model, then main's own lines
    gathered = [
        Step("Take the zoom-in path", "demo.py", 17, 19),
        Step("Implement dice", "demo.py", 8, 11),
        Step("Build the parts of VolNet", "net/model.py", 5, 7),
        Step("Load the case", "prep.py", 1, 4),
        Step("Build the model", "demo.py", 34, 35),
        Step("Set the zoom-in switch", "demo.py", 37, 37),
        Step("Segment one case", "demo.py", 23, 26),
    ]
    ordered = ExecutionOrder(tracer).ordered(gathered, "demo.py")
    assert [s.action for s in ordered] == [
        "Build the model",  # main: line 34
        "Build the parts of VolNet",  # made at line 34
        "Load the case",  # called at line 36
        "Set the zoom-in switch",  # line 37
        "Segment one case",  # run_case, called at line 38
        "Take the zoom-in path",  # segment, called inside run_case
        "Implement dice",  # called at segment's end
    ]


def test_steps_no_call_reaches_keep_their_slots(tmp_path: Path) -> None:
    tracer = _tracer(tmp_path)
    launch = Step("Run demo.py (run.sh)", "run.sh", 1, 1)
    unused = Step("Implement never_called", "net/model.py", 15, 16)
    gathered = [
        launch,
        Step("Segment one case", "demo.py", 23, 26),
        unused,
        Step("Build the model", "demo.py", 34, 35),
    ]
    order = ExecutionOrder(tracer)
    assert order.place(unused, "demo.py") is None  # a method no line of demo.py calls
    ordered = order.ordered(gathered, "demo.py")
    assert ordered[0] is launch and ordered[2] is unused
    assert [s.action for s in ordered[1::2]] == ["Build the model", "Segment one case"]
    # an entry point that is no Python program leaves the steps as they are
    assert order.ordered(list(reversed(gathered)), "run.sh") == list(reversed(gathered))


def _documented() -> dict[str, str]:
    """The volume program with a README running it through its launch script."""
    return {
        "README.md": "# VolNet\n\n```bash\nbash run.sh\n```\n",
        "demo.py": DEMO,
        "net/__init__.py": "",
        "net/model.py": MODEL,
        "prep.py": PREP,
        "run.sh": "python demo.py --ckpt ckpt.pth --case case.npy\n",
    }


def test_a_setup_cites_the_model_and_data_before_the_arms_inference(tmp_path: Path) -> None:
    root = tmp_path / "vol"
    files = _documented()
    task = TaskDraft(
        question="Does the zoom-in pass improve the dice score over zooming out only?",
        method="Segment the CT case with zoom_in set to True and to False; compare dice.",
        design_complexity=DesignComplexity(
            independent_variables={"zoom in": ["True", "False"]},
            dependent_variables={"dice": "dice score"},
        ),
    )
    setup = recovered_setup(root, files, task)
    cited = [r.rsplit("(", 1)[-1].rstrip(")") for r in setup.requirements]
    built = cited.index("demo.py:30-38")  # main making the model, ahead of the arm's run
    assert cited[built + 1] == "net/model.py:5-7"  # the class, where it is made
    assert built < cited.index("demo.py:37") < cited.index("demo.py:17-19")
    # one script line both arms run, each after its switch: its step names both, and it
    # runs what the steps before it wrote, after the last of them
    assert cited.index("run.sh:1") == cited.index("demo.py:8-11") + 1
    launch = setup.requirements[cited.index("run.sh:1")]
    assert "Run zoom in = True and zoom in = False (run.sh), each after setting its switches" in (
        launch
    ), launch


def test_a_call_chain_too_deep_to_follow_leaves_the_steps_as_gathered(tmp_path: Path) -> None:
    """A generated program whose 3000 functions call each other in a chain: its steps keep
    the plan's order rather than failing the setup."""
    chain = "".join(f"def f{i}():\n    return f{i + 1}()\n\n\n" for i in range(3000))
    program = chain + "def f3000():\n    return 0\n\n\nif __name__ == '__main__':\n    f0()\n"
    root = tmp_path / "deep"
    index = committed_index(root, {"deep.py": program})
    tracer = StepTracer(index, RepoSearch(root, index))
    gathered = [Step("The last", "deep.py", 12001, 12002), Step("The first", "deep.py", 1, 2)]
    assert ExecutionOrder(tracer).ordered(gathered, "deep.py") == gathered


HANDED = '''"""Evaluate one task, its scorer looked up by name."""
from models import Model


def score_math(answers):
    return sum(answers) / len(answers)


def score_qa(answers):
    return max(answers)


SCORERS = {"math": score_math, "qa": score_qa}


def main(task):
    Exp = Model
    exp = Exp()
    answers = exp.predict()
    print(SCORERS[task](answers))


if __name__ == "__main__":
    main("math")
'''


def test_a_function_handed_over_by_name_runs_where_it_is_handed(tmp_path: Path) -> None:
    """`score_qa` is called by no name but handed into a table of scorers: it is reached
    there, when the module is read; a class only renamed (`Exp = Model`) is made later,
    where `Exp()` is called, and its step is placed there. What runs ahead of the program
    (the training it is chained after) goes before the steps with a place."""
    root = tmp_path / "handed"
    model = "class Model:\n    def predict(self):\n        return [1, 0]\n"
    index = committed_index(root, {"evaluate.py": HANDED, "models.py": model})
    order = ExecutionOrder(StepTracer(index, RepoSearch(root, index)))
    scorer = Step("Implement score_qa", "evaluate.py", 9, 10)
    made = Step("Create the Model", "models.py", 1, 3)
    predict = Step("Predict", "evaluate.py", 19, 19)
    assert order.place(scorer, "evaluate.py") == (13, 9)  # the table, made at import
    assert order.place(made, "evaluate.py") == (24, 18, 1)  # made by its new name, `Exp()`
    trained = Step("Train first with train.py", "train.py", 5, 9)
    steps = order.ordered([predict, made, scorer, trained], "evaluate.py", before=[trained])
    assert steps == [trained, scorer, made, predict]


def test_an_arm_no_run_runs_is_told_the_definition_its_words_name(tmp_path: Path) -> None:
    """ "sliding window" has no switch, but the repository defines
    `sliding_window_inference`: the line to write its run names it; an arm whose words
    name nothing ("patch merging") is only to write."""
    root = tmp_path / "vol"
    utils = (
        "def sliding_window_inference(volume, size):\n"
        '    """Segment a volume window by window."""\n'
        "    return [volume[i : i + size] for i in range(0, len(volume), size)]\n"
    )
    files = {**_documented(), "utils/windows.py": utils}
    task = TaskDraft(
        question="Does the zoom-in pass beat a sliding window and patch merging on dice score?",
        method="Segment the CT case with the zoom-in pass, a sliding window and patch merging.",
        design_complexity=DesignComplexity(
            independent_variables={"inference": ["zoom in", "sliding window", "patch merging"]},
            dependent_variables={"dice": "dice score"},
        ),
    )
    setup = recovered_setup(root, files, task)
    usage = setup.usage_instructions
    assert (
        "the repository defines sliding_window_inference (utils/windows.py:1), which that run "
        "would use"
    ) in usage, usage
    assert usage.count("the repository defines") == 1, usage
    # and its code is a step, before the last
    assert cites(
        setup.requirements[:-1],
        "Implement sliding_window_inference, which the sliding window run would use",
        "utils/windows.py:1-3",
    ), setup.requirements


def test_arms_set_in_code_run_through_the_script_when_it_names_no_data_set(tmp_path: Path) -> None:
    """The task's data set (AMOS22) is named by no launch script: the in-code switches are
    still set before the script runs, not before the program run bare."""
    task = TaskDraft(
        question="Does the zoom-in pass improve the dice score over zooming out only?",
        method="Segment the CT cases with zoom_in set to True and to False; compare dice.",
        design_complexity=DesignComplexity(
            independent_variables={"zoom in": ["True", "False"]},
            constant_variables={"dataset": "AMOS22 dataset with 48 fixed cases"},
            dependent_variables={"dice": "dice score"},
        ),
    )
    usage = recovered_setup(tmp_path / "vol", _documented(), task).usage_instructions
    assert usage.count("then run `bash run.sh`") == 2, usage


def test_a_short_arm_the_repository_implements_is_told_its_definition(tmp_path: Path) -> None:
    """ "OE" is too short a name to look for by words, but the repository implements it as
    its own (`oe_loss`): the line to write its run names that definition."""
    root = tmp_path / "oe"
    files = {**_documented(), "losses.py": "def oe_loss(logits):\n    return -logits.mean()\n"}
    task = TaskDraft(
        question="Does the zoom-in pass beat outlier exposure (OE) on dice score?",
        method="Segment the CT case with the zoom-in pass and with OE.",
        design_complexity=DesignComplexity(
            independent_variables={"inference": ["zoom in", "OE"]},
            dependent_variables={"dice": "dice score"},
        ),
    )
    usage = recovered_setup(root, files, task).usage_instructions
    assert (
        "the repository defines oe_loss (losses.py:1), which that run would use (inference = OE)"
    ) in usage, usage


def test_a_function_cited_whole_beside_its_named_part_goes(tmp_path: Path) -> None:
    """MogaNet's steps cited `train_one_epoch` whole (train.py:688-806) and, as "Train
    (train_one_epoch)", its loop that trains (732-752): the whole says nothing the part does
    not. The part stays; a one-line call of a method of the name is no such part."""
    pad = "".join(f"    meter_{k} = {k}\n" for k in range(20))
    train = (
        "import argparse\n\nimport torch\n\n\n"
        "def train_one_epoch(epoch, model, loader, optimizer, loss_fn):\n"
        f"{pad}"
        "    for batch_idx, (input, target) in enumerate(loader):\n"
        "        output = model(input)\n"
        "        loss = loss_fn(output, target)\n"
        "        optimizer.zero_grad()\n"
        "        loss.backward()\n"
        "        optimizer.step()\n"
        f"{pad}"
        "    return meter_0\n\n\n"
        "def validate(model, loader):\n"
        "    correct = 0\n"
        "    for input, target in loader:\n"
        "        correct += (model(input).argmax(-1) == target).sum()\n"
        "    top1 = correct / len(loader)\n"
        "    print('top1', top1)\n"
        "    return top1\n\n\n"
        "def main():\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--model', default='tinynet')\n"
        "    parser.add_argument('--epochs', type=int, default=300)\n"
        "    args = parser.parse_args()\n"
        "    model = torch.nn.Linear(3, 3)\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for epoch in range(args.epochs):\n"
        "        train_one_epoch(epoch, model, [], optimizer, torch.nn.functional.cross_entropy)\n"
        "        validate(model, [])\n\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    files = {
        "train.py": train,
        "README.md": "# Tiny\n\n`python train.py --model tinynet --epochs 300`\n",
    }
    task = TaskDraft(
        paper_id="p",
        question="How does tinynet compare with widenet on top-1 accuracy?",
        method="Train tinynet and widenet and compare top-1 accuracy.",
        design_complexity=DesignComplexity(
            independent_variables={"model": ["tinynet", "widenet"]},
            dependent_variables={"metrics": ["top-1 accuracy"]},
        ),
    )
    steps = recovered_setup(tmp_path, files, task).requirements
    assert any(
        s.endswith(
            "(train_one_epoch): over loader: runs model, computes the loss with "
            "loss_fn, backpropagates, steps optimizer (train.py:27-32)"
        )
        for s in steps
    ), steps
    assert not any("(train.py:6-" in s for s in steps), steps
    from extractors.agent import SetupAgent

    root = tmp_path / "unit"
    planner = SetupAgent(committed_index(root, files), root).step_planner
    whole = Step("Train one epoch", "train.py", 6, 53)
    call = Step("Train (train_one_epoch)", "train.py", 30, 30)
    assert planner.named_parts_only([whole, call]) == [whole, call]


def test_a_class_renamed_before_it_is_made_is_placed_where_it_is_made(tmp_path: Path) -> None:
    """TimesNet's run.py imports its experiment class in a branch and renames it (`Exp =
    Exp_Anomaly_Detection`), then makes it (`exp = Exp(args)`) and calls `exp.train(...)`
    before `exp.test(...)`: the class's `train` runs where the class is made, before the
    run's test lines, not after them (the 32nd held-out reader: "Test placed before
    Train")."""
    run = (
        "import argparse\n\n"  # 1-2
        "parser = argparse.ArgumentParser()\n"  # 3
        "parser.add_argument('--task', default='anomaly')\n"  # 4
        "args = parser.parse_args()\n"  # 5
        "if args.task == 'anomaly':\n"  # 6
        "    from exp_anomaly import ExpAnomaly\n"  # 7
        "    Exp = ExpAnomaly\n"  # 8
        "exp = Exp(args)\n"  # 9
        "exp.train('run')\n"  # 10
        "print('>>> testing')\n"  # 11
        "exp.test('run')\n"  # 12
    )
    anomaly = (
        "class ExpAnomaly:\n"
        "    def __init__(self, args):\n        self.args = args\n\n"
        "    def train(self, setting):\n"
        "        for epoch in range(10):\n            loss = epoch * 2\n        return loss\n\n"
        "    def test(self, setting):\n        return setting\n"
    )
    root = tmp_path / "tsl"
    index = committed_index(root, {"run.py": run, "exp_anomaly.py": anomaly})
    order = ExecutionOrder(StepTracer(index, RepoSearch(root, index)))
    test = Step("Test", "run.py", 11, 12)
    train = Step("Train (ExpAnomaly.train)", "exp_anomaly.py", 5, 8)
    assert order.ordered([test, train], "run.py") == [train, test]
