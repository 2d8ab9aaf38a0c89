"""What a task holds fixed (its data set, its backbone, its training settings) on the commands
and steps of its setup: the program whose options accept those values leads, the README's
own value gives way to the task's, an option that sets a fixed value selects no arm, the code
switching on the value is a step and the branch of another value is none; a program reads
the options of the parser module it imports. Each repository is built with git in tmp_path
and mined for real."""

from __future__ import annotations

import re
from pathlib import Path

from repo_fixture import committed_index, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft
from extractors.agent.inline import doc_wording

EVALUATE = '''"""Score a classifier."""
import argparse

from data import LongTailCifar10, LongTailCifar100
from metrics import auroc, fpr_at_95
from nets import resnet18, resnet34


def score_ood(net, in_set, out_set):
    """Score every image by its maximum softmax probability."""
    in_scores = [max(net(x)) for x in in_set]
    out_scores = [max(net(x)) for x in out_set]
    return in_scores, out_scores


def main(args):
    if args.dataset == "cifar10":
        in_set = LongTailCifar10(args.rho)
        classes = 10
    elif args.dataset == "cifar100":
        in_set = LongTailCifar100(args.rho)
        classes = 100
    print("in-distribution images:", len(in_set.images), "classes:", classes)
    out_set = load_ood(args.ood)
    print("out-of-distribution images:", len(out_set))
    if args.model == "ResNet18":
        net = resnet18(classes)
    elif args.model == "ResNet34":
        net = resnet34(classes)
    in_scores, out_scores = score_ood(net, in_set, out_set)
    print(auroc(in_scores, out_scores), fpr_at_95(in_scores, out_scores))


def load_ood(name):
    return [name]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", "--ds", choices=["cifar10", "cifar100"])
    parser.add_argument("--ood", choices=["svhn", "texture", "lsun", "cifar"])
    parser.add_argument("--model", choices=["ResNet18", "ResNet34"])
    parser.add_argument("--rho", type=float, default=0.01)
    parser.add_argument("--ckpt", default="")
    main(parser.parse_args())
'''

# every word of the task, on data and a model the task is not about
EVALUATE_IMAGENET = '''"""Evaluate OOD detection (AUROC, FPR95) of EAT and OE on ImageNet-LT: Texture, SVHN,
LSUN and CIFAR10 out-of-distribution sets, ResNet backbones, as on CIFAR100-LT."""
import argparse

from metrics import auroc, fpr_at_95


def evaluate_ood_imagenet(net, texture, svhn, lsun):
    """Report AUROC and FPR95 of EAT against OE on the Texture, SVHN and LSUN sets."""
    for out_set in (texture, svhn, lsun):
        print("AUROC", auroc(net, out_set), "FPR95", fpr_at_95(net, out_set))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", "--ds", default="imagenet", choices=["imagenet"])
    parser.add_argument("--ood", default="texture", help="Texture, SVHN or LSUN OOD set")
    parser.add_argument("--model", default="ResNet50", choices=["ResNet50"])
    parser.add_argument("--ckpt", default="")
    args = parser.parse_args()
    evaluate_ood_imagenet(args.model, "texture", "svhn", "lsun")
'''

NETS = '''class ResNet:
    def __init__(self, blocks, classes):
        self.layers = [["conv"] * n for n in blocks]
        self.classes = classes


def resnet18(classes):
    """FLOPs: 0.56G, params: 11.2M"""
    model = ResNet([2, 2, 2, 2], classes)
    return model


def resnet34(classes):
    """FLOPs: 1.16G, params: 21.3M"""
    model = ResNet([3, 4, 6, 3], classes)
    return model
'''

DATA = '''class LongTailCifar10:
    """CIFAR-10 with an exponentially decaying number of images per class."""

    def __init__(self, rho):
        self.rho = rho
        self.images = []


class LongTailCifar100(LongTailCifar10):
    """CIFAR-100, long-tailed the same way."""

    def __init__(self, rho):
        super().__init__(rho)
        self.classes = 100
'''

METRICS = """def auroc(in_scores, out_scores):
    pairs = [(a > b) for a in in_scores for b in out_scores]
    return sum(pairs) / max(len(pairs), 1)


def fpr_at_95(in_scores, out_scores):
    cut = sorted(in_scores)[len(in_scores) // 20]
    return sum(s >= cut for s in out_scores) / max(len(out_scores), 1)
"""

README = """# Long-tailed OOD detection

## EAT against OE: AUROC and FPR95 on Texture, SVHN and CIFAR out-of-distribution sets

```
python evaluate_imagenet.py --ood texture --ckpt <CKPT>
```
"""

CHECKPOINTS = """# Checkpoints

```
python evaluate.py --ds cifar10 --ood svhn --ckpt <CKPT>
```
"""

FILES = {
    "evaluate.py": EVALUATE,
    "evaluate_imagenet.py": EVALUATE_IMAGENET,
    "nets.py": NETS,
    "data.py": DATA,
    "metrics.py": METRICS,
    "README.md": README,
    "docs/checkpoints.md": CHECKPOINTS,
}


def _ood_task() -> TaskDraft:
    return TaskDraft(
        key="table-2",
        question=(
            "How does EAT compare with OE on AUROC and FPR95 within each of Texture, SVHN and "
            "CIFAR10 (results on CIFAR100-LT using ResNet18)?"
        ),
        method="For each of Texture, SVHN and CIFAR10, evaluate OOD detection on CIFAR100-LT.",
        expected_outcome="EAT has the higher AUROC on every out-of-distribution set.",
        design_complexity=DesignComplexity(
            constant_variables={"setting": "CIFAR100-LT", "backbone": "ResNet18"},
            independent_variables={"group": ["Texture", "SVHN", "CIFAR10"]},
            dependent_variables={"metrics": ["AUROC", "FPR95"]},
        ),
    )


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_program_whose_options_accept_the_tasks_fixed_values_leads(tmp_path: Path) -> None:
    setup = recovered_setup(tmp_path, FILES, _ood_task())
    # evaluate_imagenet.py shares more words with the task, but lists only ImageNet and
    # ResNet50 among its choices; evaluate.py lists CIFAR100 and ResNet18
    assert setup.source[0] == "evaluate.py", setup.source


def test_the_readmes_value_gives_way_to_the_tasks_and_a_fixed_option_selects_no_arm(
    tmp_path: Path,
) -> None:
    setup = recovered_setup(tmp_path, FILES, _ood_task())
    commands = re.findall(r"`(python [^`]*)`", setup.usage_instructions)
    assert commands, setup.usage_instructions
    for command in commands:
        assert "--ds cifar100" in command and "--model ResNet18" in command, command
        assert not re.search(r"--ds cifar10\b|--dataset cifar10\b", command), command
    assert any("--ood texture" in c for c in commands)
    assert any("--ood svhn" in c for c in commands)
    # CIFAR10 as an out-of-distribution set is not the in-distribution `--dataset cifar10`:
    # it is the out-of-distribution option's short form of it
    assert any("--ood cifar " in c for c in commands), commands
    # and the in-distribution `if args.dataset == 'cifar10':` is not its path
    assert not any("Take the CIFAR10 path" in r for r in setup.requirements), setup.requirements


def test_the_code_switching_on_a_fixed_value_is_a_step_and_another_values_is_none(
    tmp_path: Path,
) -> None:
    setup = recovered_setup(tmp_path, FILES, _ood_task())
    steps = "\n".join(setup.requirements)
    cifar100 = _line(EVALUATE, 'elif args.dataset == "cifar100":')
    resnet18 = _line(EVALUATE, 'if args.model == "ResNet18":')
    assert f"evaluate.py:{cifar100}-" in steps, steps
    assert f"evaluate.py:{resnet18}-" in steps, steps
    assert "args.dataset == 'cifar10':" not in steps, steps  # the branch no run takes
    # and what only that branch, or another model's, calls
    resnet18, resnet34 = _line(NETS, "def resnet18"), _line(NETS, "def resnet34")
    assert f"nets.py:{resnet18}-" in steps and f"nets.py:{resnet34}-" not in steps, steps
    # a docstring of figures is no step's wording
    assert "FLOPs" not in steps, steps


def test_a_readme_value_the_task_shares_stays_and_its_branch_is_cited_once(
    tmp_path: Path,
) -> None:
    task = _ood_task()
    task.design_complexity.constant_variables = {"setting": "CIFAR10-LT", "backbone": "ResNet34"}
    setup = recovered_setup(tmp_path, FILES, task)
    assert "--ds cifar10 " in setup.usage_instructions
    assert "--model ResNet34" in setup.usage_instructions
    steps = setup.requirements
    cifar10 = _line(EVALUATE, 'if args.dataset == "cifar10":')
    # the branch and the main block's own step of it are one step
    assert sum(f"evaluate.py:{cifar10}-" in s for s in steps) == 1, steps
    assert not any("args.model == 'ResNet18'" in s for s in steps), steps


MAIN = '''"""Train a substitute generator."""
from config import Config
from trainer import Trainer


def main():
    config = Config()
    Trainer(config).train()


if __name__ == "__main__":
    main()
'''

CONFIG = """import argparse


def init_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    # ls14, ls21
    parser.add_argument("--data", type=str, default="ls21")
    parser.add_argument("--model", type=str, default="gpt2-medium")
    parser.add_argument("--num_workers", type=int, default=8)
    parser.add_argument("--max_epochs", type=int, default=-1)
    return parser.parse_known_args()[0]


class Config:
    def __init__(self):
        for key, value in vars(init_args()).items():
            setattr(self, key, value)
        if self.data == "ls14":
            self.precision = "16-mixed"
"""

TRAINER = """class Trainer:
    def __init__(self, config):
        self.config = config

    def train(self):
        for epoch in range(3):
            loss = self.step(epoch)
            print("epoch", epoch, "loss", loss, "best", 1 - loss)

    def step(self, epoch):
        return 1.0 / (epoch + 1)
"""


def _substitution_task(setting: str) -> TaskDraft:
    return TaskDraft(
        key=f"table-{setting}",
        question=f"How does the prompted generator score on best and oot on {setting}?",
        method=f"Train the generator on {setting} and report best and oot.",
        expected_outcome="The generator has the higher best score.",
        design_complexity=DesignComplexity(
            constant_variables={"setting": setting, "epochs": "8"},
            dependent_variables={"metrics": ["best", "oot"]},
        ),
    )


def test_a_program_takes_the_options_of_the_parser_module_it_imports(tmp_path: Path) -> None:
    files = {"main.py": MAIN, "config.py": CONFIG, "trainer.py": TRAINER}
    index = committed_index(tmp_path / "mined", files)
    main = next(e for e in index.entry_points if e.path == "main.py")
    assert main.parser == "config.py"
    assert "--data" in {f.name for f in main.flags}
    setup = recovered_setup(tmp_path / "repo", files, _substitution_task("LS14"))
    assert "python main.py --data ls14" in setup.usage_instructions, setup.usage_instructions
    # eight epochs is not the eight data loading workers the parser happens to default to
    assert "--num_workers" not in setup.usage_instructions
    # the parser's lines are cited where they are written
    parse = [s for s in setup.requirements if "Parse command-line" in s or "options" in s]
    assert all("(config.py:" in s for s in parse), setup.requirements


def test_a_docstring_is_a_steps_wording_only_when_it_reads_as_a_sentence() -> None:
    assert doc_wording("Train the model for one epoch.") == "Train the model for one epoch"
    assert doc_wording("compute ``x + alpha * y``") == "compute ``x + alpha * y``"
    assert doc_wording("GFLOPS: 0.5579, model size: 11.1740MB") == ""
    assert doc_wording("`CIFAR100 <https://example.org/cifar>`_ Dataset") == ""
    assert doc_wording(">>> train(model)") == ""
    assert doc_wording("Args:") == ""
    assert doc_wording("RESNET") == ""


PREPARE = '''"""Download CIFAR-10 and write the long-tailed CIFAR-10-LT split (imbalance ratio rho)."""
import argparse


def long_tail_counts(rho, classes=10, largest=5000):
    return [int(largest * rho ** (c / (classes - 1))) for c in range(classes)]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rho", type=float, default=0.01, help="CIFAR-10-LT imbalance ratio")
    args = parser.parse_args()
    print("CIFAR-10-LT counts", long_tail_counts(args.rho))
'''

TRAIN = '''"""Train a classifier on CIFAR-10-LT with the logit adjustment loss."""
import argparse


def train(epochs, lr):
    for epoch in range(epochs):
        loss = lr / (epoch + 1)
        print("epoch", epoch, "loss", loss, "accuracy", 1 - loss)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    train(args.epochs, args.lr)
'''


def _long_tail_task(question: str) -> TaskDraft:
    return TaskDraft(
        key="table-1",
        question=question,
        method="Train on CIFAR-10-LT with imbalance ratio rho = 0.01 and report the accuracy.",
        expected_outcome="The logit adjustment loss has the higher accuracy.",
        design_complexity=DesignComplexity(dependent_variables={"metrics": ["accuracy"]}),
    )


def test_a_program_that_prepares_the_data_does_not_lead_unless_asked_about(tmp_path: Path) -> None:
    files = {"tools/prepare_cifar10_lt.py": PREPARE, "train.py": TRAIN}
    trained = recovered_setup(
        tmp_path / "a",
        files,
        _long_tail_task("What accuracy does the logit adjustment loss reach on CIFAR-10-LT?"),
    )
    assert trained.source[0] == "train.py", trained.source
    prepared = recovered_setup(
        tmp_path / "b",
        files,
        _long_tail_task(
            "How is the CIFAR-10-LT data prepared to train a classifier with the logit "
            "adjustment loss?"
        ),
    )
    assert prepared.source[0] == "tools/prepare_cifar10_lt.py", prepared.source


def test_a_conv_layer_is_not_a_question_about_converting_the_data(tmp_path: Path) -> None:
    """ "Conversion" and "Conv" once met at the same crude stem (the asking words were stemmed
    twice), so an ablation of a 1 x 1 Conv was read as asking how the data is converted and
    the data program was let lead (SegNeXt's MSCA ablation, led by a Vaihingen converter)."""
    files = {"tools/convert_cifar10_lt.py": PREPARE, "train.py": TRAIN}
    setup = recovered_setup(
        tmp_path,
        files,
        _long_tail_task(
            "How does the logit adjustment loss compare with and without a 1 x 1 Conv on "
            "CIFAR-10-LT?"
        ),
    )
    assert setup.source[0] == "train.py", setup.source


def test_a_symbol_the_task_holds_sets_the_option_named_after_it(tmp_path: Path) -> None:
    task = _ood_task()
    task.design_complexity.constant_variables["ρ"] = "50"
    setup = recovered_setup(tmp_path / "a", FILES, task)
    commands = re.findall(r"`(python [^`]*)`", setup.usage_instructions)
    assert commands and all("--rho 0.02" in c for c in commands), setup.usage_instructions
    # the option takes 1/ρ: its default 0.01 is no ρ of 0.01, so the value is turned and said
    note = "ρ = 50 is `--rho 0.02` in the commands: the option takes 1/ρ (its default, 0.01, "
    assert note + "is ρ = 100)." in setup.usage_instructions, setup.usage_instructions
    task.design_complexity.constant_variables["ρ"] = "100"
    usage = recovered_setup(tmp_path / "b", FILES, task).usage_instructions
    assert "--rho 0.01" in usage and "the option takes 1/ρ" not in usage, usage


def test_only_a_small_default_one_over_a_whole_number_takes_the_reciprocal() -> None:
    from expcurate.records import CliFlag
    from extractors.agent.arm_options import reciprocal, spelled

    assert reciprocal(CliFlag(name="--rho", default="0.01"), "50") == "0.02"
    assert reciprocal(CliFlag(name="--imb_factor", default="0.1"), "10") == "0.1"
    assert reciprocal(CliFlag(name="--k", default="8"), "50") == ""  # taken as it is
    assert reciprocal(CliFlag(name="--lam", default="0.5"), "2") == ""  # a weight, not 1/2
    assert reciprocal(CliFlag(name="--tau", default="0.07"), "20") == ""  # 1/0.07 is no whole
    assert reciprocal(CliFlag(name="--rho", default="0.01"), "5") == ""
    assert spelled("ρ") == "rho" and spelled("λ_1") == "lambda_1"
