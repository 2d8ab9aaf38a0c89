"""Setups of tasks whose data sets are one of the things they vary: a design variable the
drafts name after a table's row groups ("group": CIFAR-10, ImageNet-10) is read as data sets
when the repository's data option names them; each arm then runs on each data set, through
the program for those data sets rather than a sibling named after another one."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import recovered_setup

from expcurate.records import DesignComplexity, TaskDraft

CONFIG = (
    "seed: 1\n"
    "dataset: 'CIFAR-10'  # CIFAR-10 / STL-10 / ImageNet-10\n"
    "backbone: 'ResNet34'  # ResNet18 / ResNet34\n"
)

PROGRAM = (
    "import argparse\n"
    "\n"
    "import yaml\n"
    "\n"
    "\n"
    "def build(args):\n"
    "    if args.dataset == 'CIFAR-10':\n"
    "        return 'cifar'\n"
    "    return 'imagenet'\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    parser = argparse.ArgumentParser()\n"
    "    config = yaml.safe_load(open('config/config.yaml'))\n"
    "    for k, v in config.items():\n"
    "        parser.add_argument(f'--{k}', default=v, type=type(v))\n"
    "    print(build(parser.parse_args()))\n"
)

README = (
    "# Clustering\n\n"
    "Edit config/config.yaml, then train the contrastive clustering model:\n\n"
    "> python train.py\n\n"
    "Training on STL-10 uses its unlabeled split, with the test split, for the contrastive "
    "clustering, so run\n\n"
    "> python train_STL10.py\n"
)


def _task() -> TaskDraft:
    return TaskDraft(
        key="table-5:factor",
        question="Does a deeper ResNet backbone improve contrastive clustering NMI?",
        method="Train the clustering model with each backbone and compare NMI.",
        expected_outcome="ResNet34 is better.",
        design_complexity=DesignComplexity(
            independent_variables={
                "compared setting": ["ResNet18", "ResNet34"],
                "group": ["CIFAR-10", "ImageNet-10"],
            },
            dependent_variables={"metrics": ["NMI"]},
        ),
    )


def test_each_arm_runs_on_each_data_set_the_data_option_names(tmp_path: Path) -> None:
    files = {
        "config/config.yaml": CONFIG,
        "train.py": PROGRAM,
        "train_STL10.py": PROGRAM.replace("'CIFAR-10'", "'STL-10'"),
        "README.md": README,
    }
    setup = recovered_setup(tmp_path / "r", files, _task())
    usage = setup.usage_instructions
    # the program for these data sets, not its twin named after STL-10
    assert setup.source[0] == "train.py", setup.source
    assert "train_STL10.py" not in usage, usage
    for arm in ("ResNet18", "ResNet34"):
        for data in ("CIFAR-10", "ImageNet-10"):
            line = f"Run {arm} on {data}: `python train.py --backbone {arm} --dataset {data}`"
            assert line in usage, usage
    assert "Run the default configuration" not in usage, usage
    assert "(for each dataset CIFAR-10, ImageNet-10)" in usage, usage
    steps = "\n".join(setup.requirements)
    assert "--backbone, --dataset (config/config.yaml:2-3)" in steps or (
        "--dataset, --backbone (config/config.yaml:2-3)" in steps
    ), steps


def test_a_variable_the_data_option_does_not_name_stays_an_arm(tmp_path: Path) -> None:
    task = _task()
    task.design_complexity.independent_variables["group"] = ["CIFAR-10", "SVHN"]
    files = {"config/config.yaml": CONFIG, "train.py": PROGRAM, "README.md": README}
    usage = recovered_setup(tmp_path / "s", files, task).usage_instructions
    assert "Run SVHN: no launch script" in usage, usage
    assert "for each dataset" not in usage, usage


def test_a_training_run_is_followed_by_the_documented_evaluation(tmp_path: Path) -> None:
    evaluation = PROGRAM.replace("print(build(", "print('NMI', build(")
    readme = README + "\nTo test the trained model, run\n\n> python cluster.py\n"
    files = {
        "config/config.yaml": CONFIG,
        "train.py": PROGRAM,
        "train_STL10.py": PROGRAM.replace("'CIFAR-10'", "'STL-10'"),
        "cluster.py": evaluation,
        "README.md": readme,
    }
    usage = recovered_setup(tmp_path / "t", files, _task()).usage_instructions
    # the evaluation takes the run's settings; the STL-10 training, whose prose speaks of a
    # "split" and which comes first, is no evaluation
    assert (
        "Run ResNet18 on CIFAR-10: `python train.py --backbone ResNet18 --dataset CIFAR-10`, "
        "then evaluate it: `python cluster.py --backbone ResNet18 --dataset CIFAR-10`"
    ) in usage, usage
    assert "then evaluate it: `python train_STL10.py" not in usage, usage
