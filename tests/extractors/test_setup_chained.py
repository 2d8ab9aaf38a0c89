"""Setups whose training is followed by the evaluation its README gives: the evaluation
reads the checkpoint the training saved last, and runs that would write to one place write
each to their own. Each repository is built with git in tmp_path and mined for real."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import cites, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft

TRAIN = (
    "import argparse\n"
    "import os\n"
    "\n"
    "\n"
    "def save(args, epoch):\n"
    "    print(os.path.join(args.model_path, 'checkpoint_{}.tar'.format(epoch)))\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--resnet', default='ResNet18', help='ResNet18 / ResNet34')\n"
    "    p.add_argument('--epochs', type=int, default=1000)\n"
    "    p.add_argument('--model_path', default='save/CIFAR-10')\n"
    "    args = p.parse_args()\n"
    "    if not os.path.exists(args.model_path):\n"
    "        os.makedirs(args.model_path)\n"
    "    for epoch in range(args.epochs):\n"
    "        print('contrastive clustering loss', epoch)\n"
    "    save(args, args.epochs)\n"
)

CLUSTER = (
    "import argparse\n"
    "import os\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--resnet', default='ResNet18')\n"
    "    p.add_argument('--start_epoch', type=int, default=0)\n"
    "    p.add_argument('--model_path', default='save/CIFAR-10')\n"
    "    args = p.parse_args()\n"
    "    model_fp = os.path.join(args.model_path, 'checkpoint_{}.tar'.format(args.start_epoch))\n"
    "    print('clustering NMI ACC ARI of', model_fp)\n"
)

README = (
    "# Contrastive clustering\n\nTrain the model:\n\n```\npython train.py\n```\n\n"
    "To test the trained model, run\n\n```\npython cluster.py\n```\n"
)


def _task() -> TaskDraft:
    return TaskDraft(
        key="table-5:factor",
        question="How does the clustering NMI of ResNet34 compare with ResNet18 backbones?",
        method="Train contrastive clustering with each backbone and compare NMI, ACC and ARI.",
        expected_outcome="ResNet34 is best.",
        design_complexity=DesignComplexity(
            independent_variables={"backbone": ["ResNet18", "ResNet34"]},
            dependent_variables={"metric": ["NMI", "ACC", "ARI"]},
        ),
    )


def test_the_evaluation_reads_the_checkpoint_the_training_saved_last(tmp_path: Path) -> None:
    files = {"train.py": TRAIN, "cluster.py": CLUSTER, "README.md": README}
    usage = recovered_setup(tmp_path / "c", files, _task()).usage_instructions
    # `checkpoint_{start_epoch}` defaults to checkpoint_0, which no training writes
    assert "python cluster.py --resnet ResNet34 --start_epoch 1000" in usage, usage
    # a checkpoint name no file saves is the user's: no epoch is guessed for it
    files["train.py"] = TRAIN.replace("'checkpoint_{}.tar'", "'model_{}.pt'")
    usage = recovered_setup(tmp_path / "n", files, _task()).usage_instructions
    assert "--start_epoch" not in usage, usage


def test_runs_writing_to_one_directory_by_default_each_write_to_their_own(
    tmp_path: Path,
) -> None:
    """`--model_path save/CIFAR-10`, the directory the training makes: both backbones would
    save there, and the evaluation of each would read the last one trained."""
    files = {"train.py": TRAIN, "cluster.py": CLUSTER, "README.md": README}
    usage = recovered_setup(tmp_path / "o", files, _task()).usage_instructions
    for arm in ("ResNet18", "ResNet34"):
        own = f"save/CIFAR-10_{arm.lower()}"
        assert f"`python train.py --resnet {arm} --model_path {own}`" in usage, usage
        assert f"python cluster.py --resnet {arm} --start_epoch 1000 --model_path {own}`" in usage


def test_the_whole_model_beside_arms_taking_parts_away_is_the_run_as_it_stands(
    tmp_path: Path,
) -> None:
    """ "ICH + CCH" beside "ICH Only" and "CCH Only": the two heads are the program as it
    stands, run on each data set; the ablations are left to the reviewer."""
    train = TRAIN.replace(
        "    p.add_argument('--epochs'",
        "    p.add_argument('--dataset', default='CIFAR-10', help='CIFAR-10 / ImageNet-10')\n"
        "    p.add_argument('--epochs'",
    )
    files = {"train.py": train, "cluster.py": CLUSTER, "README.md": README}
    task = TaskDraft(
        key="table-4:factor",
        question="How does ICH + CCH compare with ICH Only and CCH Only on clustering NMI?",
        method="Train contrastive clustering with both heads, or one, and compare NMI.",
        expected_outcome="Both heads are best.",
        design_complexity=DesignComplexity(
            independent_variables={
                "compared setting": ["ICH + CCH", "ICH Only", "CCH Only"],
                "dataset": ["CIFAR-10", "ImageNet-10"],
            },
            dependent_variables={"metric": ["NMI"]},
        ),
    )
    setup = recovered_setup(tmp_path / "w", files, task)
    usage = setup.usage_instructions
    assert "Run ICH + CCH on CIFAR-10: `python train.py --dataset CIFAR-10" in usage, usage
    # `--dataset` selects the data sets, not the whole model the runs are
    steps = "\n".join(setup.requirements)
    assert "select CIFAR-10, ImageNet-10: --dataset" in steps, steps
    assert "Run ICH + CCH on ImageNet-10: `python train.py --dataset ImageNet-10" in usage, usage
    assert "Run ICH Only: no launch script" in usage, usage


def test_whole_model_arms() -> None:
    from extractors.agent.arms import Arm, whole_model

    def arms(*values: str) -> list[Arm]:
        return [Arm("setting", v, frozenset(v.lower().split())) for v in values]

    pair = arms("w/ MSCA", "w/o MSCA")
    assert whole_model(pair[0], pair) and not whole_model(pair[1], pair)
    heads = arms("ICH + CCH", "ICH Only", "CCH Only")
    assert whole_model(heads[0], heads)
    # with a part no sibling removes, or two rivals "with" different parts: neither
    assert not whole_model(arms("w/ MSCA", "w/ Ham")[0], arms("w/ MSCA", "w/ Ham"))
    partial = arms("ICH + CCH + Aug", "ICH Only", "CCH Only")
    assert not whole_model(partial[0], partial)


def test_an_evaluation_the_readme_introduces_as_one_is_trained_for_first(tmp_path: Path) -> None:
    """`cluster.py`, introduced by "To test the trained model": its runs are preceded by the
    training documented before it (not by train_STL10.py, a twin for other data), on the
    run's data set, and read the checkpoint that training saves last."""
    train = TRAIN.replace(
        "    p.add_argument('--epochs'",
        "    p.add_argument('--dataset', default='CIFAR-10')\n    p.add_argument('--epochs'",
    )
    cluster = CLUSTER.replace(
        "    p.add_argument('--start_epoch'",
        "    p.add_argument('--dataset', default='CIFAR-10')\n    p.add_argument('--start_epoch'",
    )
    files = {
        "train.py": train,
        "train_STL10.py": train,
        "cluster.py": cluster,
        "README.md": README.replace(
            "python train.py\n```\n",
            "python train.py\n```\n\nOn STL-10:\n\n```\npython train_STL10.py\n```\n",
        ),
    }
    task = TaskDraft(
        key="table-2:compare",
        question="What clustering NMI, ACC and ARI does cluster.py report on ImageNet-10?",
        method="Cluster ImageNet-10 with the trained model and report NMI, ACC and ARI.",
        expected_outcome="NMI 0.85.",
        design_complexity=DesignComplexity(
            constant_variables={"dataset": ["ImageNet-10"]},
            dependent_variables={"metric": ["NMI", "ACC", "ARI"]},
        ),
    )
    usage = recovered_setup(tmp_path / "t", files, task).usage_instructions
    assert "`python cluster.py --dataset ImageNet-10 --start_epoch 1000`" in usage, usage
    assert "(train first as documented: `python train.py --dataset ImageNet-10`)" in usage, usage
    assert "train_STL10" not in usage, usage


def test_a_training_python_cannot_compile_is_said_with_where_it_stops(tmp_path: Path) -> None:
    """The training the evaluation is chained after has an `else` indented as no block is:
    as the repository has it, it stops before it starts, and the usage says where. A
    training that compiles gets no such note."""
    broken = TRAIN.replace(
        "    save(args, args.epochs)\n",
        "    if args.epochs:\n        save(args, args.epochs)\n      else :\n        pass\n",
    )
    files = {"train.py": broken, "cluster.py": CLUSTER, "README.md": README}
    task = TaskDraft(
        key="table-2:compare",
        question="What clustering NMI, ACC and ARI does cluster.py report?",
        method="Cluster with the trained model and report NMI, ACC and ARI.",
        expected_outcome="NMI 0.85.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["NMI", "ACC"]}),
    )
    usage = recovered_setup(tmp_path / "b", files, task).usage_instructions
    assert "(train first as documented: `python train.py`" in usage, usage
    assert (
        "train.py does not compile as the repository has it (Python stops at line 21: "
        "unindent does not match any outer indentation level): mend it first"
    ) in usage, usage
    files["train.py"] = TRAIN
    usage = recovered_setup(tmp_path / "g", files, task).usage_instructions
    assert "(train first as documented: `python train.py`" in usage, usage
    assert "does not compile" not in usage, usage


RESNET = (
    "import torch.nn as nn\n\n\n"
    "class ResNet(nn.Module):\n"
    "    def __init__(self, depth):\n"
    "        super().__init__()\n"
    "        self.depth = depth\n"
    "        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(depth)])\n"
    "        self.head = nn.Linear(8, 10)\n\n"
    "    def forward(self, x):\n"
    "        for layer in self.layers:\n"
    "            x = layer(x)\n"
    "        return self.head(x)\n\n\n"
    "def ResNet18():\n"
    "    model = ResNet(18)\n"
    "    model.name = 'ResNet18'\n"
    "    return model\n"
)

ABSTAIN = (
    "import argparse\n\n"
    "from models.resnet import ResNet18\n\n\n"
    "def abstention_loss(logits, labels):\n"
    "    # the extra abstention classes take the outliers\n"
    "    tail = logits[:, -3:]\n"
    "    return (tail.sum() - labels.sum()) ** 2\n\n\n"
    "def train(args):\n"
    "    model = ResNet18() if args.model == 'ResNet18' else None\n"
    "    for epoch in range(args.epochs):\n"
    "        loss = abstention_loss(model(epoch), epoch)\n"
    "        print('epoch', epoch, 'loss', loss)\n"
    "    print('AUROC', 0.9)\n\n\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--model', default='ResNet18', choices=['ResNet18'])\n"
    "    p.add_argument('--epochs', type=int, default=180)\n"
    "    train(p.parse_args())\n"
)


def test_the_backbone_a_task_holds_fixed_is_not_the_method(tmp_path: Path) -> None:
    """ "Results on CIFAR10-LT using ResNet18": the runs give `--model ResNet18`, the backbone
    every compared method is built on. Its layers are no step of the method; where the same
    model is what the task compares, they are."""
    files = {
        "models/resnet.py": RESNET,
        "train.py": ABSTAIN,
        "README.md": (
            "# EAT: abstention classes for long-tailed OOD detection\n\nTrain EAT on "
            "CIFAR10-LT and report its AUROC:\n\n```\npython train.py --model ResNet18\n```\n"
        ),
    }
    held = TaskDraft(
        key="table-1:methods",
        question=(
            "How does EAT compare with OE on AUROC in Table 1 (Results on CIFAR10-LT using "
            "ResNet18)?"
        ),
        method="Train EAT and OE with the abstention classes and report AUROC.",
        expected_outcome="EAT is best.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["EAT", "OE"]},
            constant_variables={"setting": ["CIFAR10-LT"], "backbone": ["ResNet18"]},
            dependent_variables={"metric": ["AUROC"]},
        ),
    )
    setup = recovered_setup(tmp_path / "h", files, held)
    steps = "\n".join(setup.requirements)
    assert "--model ResNet18" in setup.usage_instructions, setup.usage_instructions
    assert "Implement the ResNet class" not in steps, steps
    assert "Train (train)" in steps, steps
    compared = held.model_copy(deep=True)
    compared.design_complexity.constant_variables = {"setting": ["CIFAR10-LT"]}
    compared.design_complexity.independent_variables = {"backbone": ["ResNet18"]}
    compared.question = "What AUROC does ResNet18 reach on CIFAR10-LT?"
    steps = "\n".join(recovered_setup(tmp_path / "c", files, compared).requirements)
    assert (
        "Implement the ResNet class: holds nn.ModuleList and nn.Linear (models/resnet.py:4-14)"
        in steps
    ), steps


def test_a_modules_switch_to_training_mode_is_not_the_training(tmp_path: Path) -> None:
    """`TinyNet.train(self, mode=True)` switches the model's layers to training, as torch's
    modules do; the training is the program's `fit` loop."""
    net = (
        "import torch.nn as nn\n\n\n"
        "class TinyNet(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.norm_eval = True\n"
        "        self.body = nn.Linear(8, 2)\n\n"
        "    def train(self, mode=True):\n"
        "        super().train(mode)\n"
        "        if mode and self.norm_eval:\n"
        "            for m in self.modules():\n"
        "                m.eval()\n"
    )
    main = (
        "import argparse\n\n"
        "from net import TinyNet\n\n\n"
        "def fit(model, epochs):\n"
        "    model.train()\n"
        "    for epoch in range(epochs):\n"
        "        loss = model.body(epoch).sum()\n"
        "        print('epoch', epoch, 'accuracy', loss)\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--epochs', type=int, default=10)\n"
        "    fit(TinyNet(), p.parse_args().epochs)\n"
    )
    files = {
        "net.py": net,
        "main.py": main,
        "README.md": "# TinyNet\n\nTrain TinyNet and report its accuracy:\n\n```\npython main.py\n```\n",
    }
    task = TaskDraft(
        key="table-1:accuracy",
        question="What accuracy does TinyNet reach after training for 10 epochs?",
        method="Train TinyNet for 10 epochs and report its accuracy.",
        expected_outcome="90% accuracy.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["accuracy"]}),
    )
    setup = recovered_setup(tmp_path / "m", files, task)
    steps = "\n".join(setup.requirements)
    # up to the report line, which the final step cites
    assert "Train (fit) (main.py:6-9)" in steps, (setup.no_answer, steps)
    assert "Train (TinyNet.train)" not in steps, steps


def test_a_librarys_objects_made_in_passing_are_no_steps(tmp_path: Path) -> None:
    """The program makes the repository's data set and model, and a library's loader, array,
    sampler and adapter config around them, and sorts with Python's own `sorted`: the
    library's and Python's are plumbing, unless the task names one (LoRA's `LoraConfig`)."""
    main = (
        "import argparse\n\n"
        "import numpy as np\n"
        "import torch\n"
        "from peft import LoraConfig\n"
        "from torch.utils.data import DataLoader\n\n"
        "from longtail import Abstainer, LongTailSet\n\n\n"
        "def train(model, loader, epochs):\n"
        "    for epoch in range(epochs):\n"
        "        for batch in loader:\n"
        "            loss = model.abstain(batch)\n"
        "        print('epoch', epoch, 'AUROC', loss)\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--epochs', type=int, default=10)\n"
        "    p.add_argument('--imbalance', type=float, default=0.01)\n"
        "    args = p.parse_args()\n"
        "    dataset = LongTailSet('cifar10', args.imbalance)\n\n"
        "    counts = np.array(dataset.counts)\n\n"
        "    loader = DataLoader(dataset, batch_size=128, shuffle=True)\n\n"
        "    sampler = torch.utils.data.RandomSampler(dataset)\n\n"
        "    adapter = LoraConfig(r=8, lora_alpha=16)\n\n"
        "    model = Abstainer(counts, adapter)\n\n"
        "    train(model, loader, args.epochs)\n\n"
        "    ranked = sorted(dataset.counts, reverse=True)\n"
    )
    longtail = (
        "class LongTailSet:\n"
        "    def __init__(self, name, imbalance):\n"
        "        self.name = name\n"
        "        self.counts = [int(500 * imbalance ** (i / 9)) for i in range(10)]\n\n\n"
        "class Abstainer:\n"
        "    def __init__(self, counts, adapter):\n"
        "        self.counts = counts\n"
        "        self.adapter = adapter\n\n"
        "    def abstain(self, batch):\n"
        "        return sum(batch) / len(self.counts)\n"
    )
    files = {
        "train.py": main,
        "longtail.py": longtail,
        "README.md": (
            "# Long-tailed abstention\n\nTrain the abstaining model on the long-tailed data "
            "and report its AUROC:\n\n```\npython train.py --imbalance 0.01\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:auroc",
        question="What AUROC does the Abstainer reach on long-tailed LongTailSet data?",
        method="Train the Abstainer on the long-tailed data and report AUROC.",
        expected_outcome="AUROC 0.9.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["AUROC"]}),
    )
    steps = "\n".join(recovered_setup(tmp_path / "p", files, task).requirements)
    assert "Create the Abstainer as model (train.py:33)" in steps, steps
    for plumbing in ("DataLoader", "np.array", "RandomSampler", "LoraConfig", "sorted"):
        assert plumbing not in steps, (plumbing, steps)
    task.question = "What AUROC does the Abstainer reach with a LoRA adapter on LongTailSet?"
    steps = "\n".join(recovered_setup(tmp_path / "l", files, task).requirements)
    assert "Create the LoraConfig as adapter (train.py:31)" in steps, steps
    assert "DataLoader" not in steps, steps


def test_a_lightning_modules_steps_are_the_training_and_the_evaluation(tmp_path: Path) -> None:
    """The program hands its module to Lightning's `Trainer.fit`: the framework calls the
    module's `training_step`, `validation_step` and `predict_step`, and no code of the
    repository calls them by name. They, and the module's own method they call
    (`generate`), are the method's steps, and its module is masked."""
    model = (
        "import lightning as L\n\n\n"
        "class Substituter(L.LightningModule):\n"
        "    def __init__(self, lm):\n"
        "        super().__init__()\n"
        "        self.lm = lm\n\n"
        "    def generate(self, prompt, beams=1):\n"
        "        out = self.lm.generate(prompt, num_beams=beams)\n"
        "        words = [o.split('\"')[-2] for o in out]\n"
        "        return [w for w in words if w]\n\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        loss = self.lm(batch).loss\n"
        "        self.log('loss', loss)\n"
        "        return loss\n\n"
        "    def validation_step(self, batch, batch_idx):\n"
        "        subs = self.generate(batch, beams=10)\n"
        "        self.log('f10', len(subs))\n"
        "        return subs\n\n"
        "    def predict_step(self, batch, batch_idx):\n"
        "        subs = self.generate(batch, beams=50)\n"
        "        print('substitutes', subs)\n"
        "        return subs\n"
    )
    main = (
        "import argparse\n\n"
        "import lightning as L\n\n"
        "from model import Substituter\n\n\n"
        "def train(args):\n"
        "    trainer = L.Trainer(max_epochs=args.epochs)\n"
        "    module = Substituter(args.lm)\n"
        "    trainer.fit(module)\n"
        "    print('best f10', trainer.callback_metrics)\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--epochs', type=int, default=10)\n"
        "    p.add_argument('--lm', default='gpt2')\n"
        "    train(p.parse_args())\n"
    )
    files = {
        "model.py": model,
        "main.py": main,
        "README.md": (
            "# Prompted lexical substitution\n\nFine-tune the Substituter and report its "
            "F10:\n\n```\npython main.py --lm gpt2\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-4:f10",
        question="What F10 does the Substituter reach on lexical substitution?",
        method="Fine-tune the Substituter and report F10.",
        expected_outcome="F10 of 20.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["F10"]}),
    )
    setup = recovered_setup(tmp_path / "l", files, task)
    steps = "\n".join(setup.requirements)
    for step, ref in (
        ("Compute the training loss (Substituter.training_step)", "model.py:14-17"),
        ("Validate (Substituter.validation_step)", "model.py:19-22"),
        ("Predict (Substituter.predict_step)", "model.py:24-27"),
        ("Implement Substituter.generate", "model.py:9-12"),
    ):
        assert cites(steps, step, ref), (step, steps)
    assert "model.py" in setup.masked_source, setup.masked_source


def test_the_report_step_is_the_first_measures_line_even_printed_through_a_name(
    tmp_path: Path,
) -> None:
    """The evaluation prints the accuracy at a few false-positive rates first, then AUROC
    through a string it makes just before (`line = 'auroc: %.4f' % auroc`, `print(line)`):
    the report is AUROC's, the task's first measure, cited from where the string is made."""
    program = (
        "import argparse\n\n\n"
        "def evaluate(scores, labels):\n"
        "    for level in [0.01, 0.1]:\n"
        "        print('acc at fpr:', level)\n"
        "    auroc = sum(scores) / len(labels)\n"
        "    line = 'auroc: %.4f' % auroc\n"
        "    print(line)\n"
        "    return auroc\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--scores', default='scores.txt')\n"
        "    args = p.parse_args()\n"
        "    evaluate([0.1, 0.9], [0, 1])\n"
    )
    files = {
        "test.py": program,
        "README.md": (
            "# Abstention\n\nScore the detector's AUROC and accuracy:\n\n"
            "```\npython test.py --scores scores.txt\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:auroc",
        question="What AUROC and accuracy does the detector reach?",
        method="Score the detector and report AUROC and accuracy.",
        expected_outcome="AUROC 0.9.",
        design_complexity=DesignComplexity(dependent_variables={"metrics": ["AUROC", "ACC"]}),
    )
    steps = recovered_setup(tmp_path / "r", files, task).requirements
    # the line prints AUROC only, and the step says so of the accuracy
    assert steps[-1] == (
        "Final Step: Report AUROC of each run, then compare the runs; the line prints no ACC "
        "(test.py:8-9)"
    ), steps


def test_the_report_step_spans_the_next_lines_printing_the_tasks_other_measures(
    tmp_path: Path,
) -> None:
    """AUROC, AUPR and FPR95 are printed one after the other, each also written to a log:
    the report is the block of the three, not AUROC's line saying the others are not
    printed. A measure printed past a gap of code (the accuracy, after the curve is drawn)
    is not of that block: the step says where it is printed."""
    program = (
        "import argparse\n\n\n"
        "def evaluate(scores, labels, fp):\n"
        "    auroc, aupr, fpr95 = sum(scores), max(scores), min(scores)\n"
        "    line = 'auroc: %.4f' % auroc\n"
        "    print(line)\n"
        "    fp.write(line + '\\n')\n\n"
        "    line = 'aupr: %.4f' % aupr\n"
        "    print(line)\n"
        "    fp.write(line + '\\n')\n\n"
        "    line = 'fpr95: %.4f' % fpr95\n"
        "    print(line)\n"
        "    fp.flush()\n"
        "    curve = sorted(scores)\n"
        "    cut = curve[len(curve) // 2]\n"
        "    kept = [s for s in scores if s <= cut]\n"
        "    share = len(kept) / len(scores)\n"
        "    print('acc: %.4f' % share)\n"
        "    return auroc\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--scores', default='scores.txt')\n"
        "    args = p.parse_args()\n"
        "    with open('log.txt', 'w') as fp:\n"
        "        evaluate([0.1, 0.9], [0, 1], fp)\n"
    )
    files = {
        "test.py": program,
        "README.md": (
            "# Abstention\n\nScore the detector's AUROC, AUPR, FPR95 and accuracy:\n\n"
            "```\npython test.py --scores scores.txt\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:ood",
        question="What AUROC, AUPR, FPR95 and accuracy does the detector reach?",
        method="Score the detector and report AUROC, AUPR, FPR95 and accuracy.",
        expected_outcome="AUROC 0.9.",
        design_complexity=DesignComplexity(
            dependent_variables={"metrics": ["AUROC", "AUPR", "ACC"]}
        ),
    )
    steps = recovered_setup(tmp_path / "r", files, task).requirements
    assert steps[-1] == (
        "Final Step: Report AUROC, AUPR, ACC of each run, then compare the runs; ACC at :21 "
        "(test.py:6-11)"
    ), steps


def test_the_report_step_says_where_runs_past_a_guarded_exit_print_the_measure_again(
    tmp_path: Path,
) -> None:
    """Each organ's coarse Dice is printed, then `if not args.refine: continue`, then the
    refined Dice: the runs that refine report the later line too, and the step says where.
    A print past no exit is no second report."""
    program = (
        '"""Does refining the coarse segmentation raise the Dice score of each organ?"""\n'
        "import argparse\n\n\n"
        "def segment(args, organs):\n"
        "    for organ in organs:\n"
        "        coarse = len(organ) / 10\n"
        "        print(f'coarse dice: {coarse:.4f}')\n"
        "        if not args.refine:\n"
        "            continue\n"
        "        fine = coarse * 1.1\n"
        "        print(f'coarse dice {coarse:.4f} -> refined dice {fine:.4f}')\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--refine', action='store_true')\n"
        "    args = p.parse_args()\n"
        "    segment(args, ['liver', 'kidney'])\n"
    )
    files = {
        "segment.py": program,
        "README.md": (
            "# Organs\n\nDoes refining the coarse segmentation raise the Dice score of each "
            "organ? Segment with and without refinement:\n\n```\npython segment.py --refine\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:dice",
        question="Does refining the coarse segmentation raise the Dice score of each organ?",
        method="Segment each organ, refining or not, and report the Dice score.",
        expected_outcome="Refining raises the Dice score.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["Dice score"]}),
    )
    steps = recovered_setup(tmp_path / "r", files, task).requirements
    assert steps[-1] == (
        "Final Step: Report Dice score of each run, then compare the runs; past `if not "
        "args.refine` (:9), the runs print it again at :12 (segment.py:8)"
    ), steps
    quiet = program.replace("        if not args.refine:\n            continue\n", "")
    steps = recovered_setup(tmp_path / "q", {**files, "segment.py": quiet}, task).requirements
    assert "again" not in steps[-1], steps


def test_what_the_question_compares_within_each_of_is_repeated_over_not_compared(
    tmp_path: Path,
) -> None:
    """ "How does TRICE compare with Zero-Shot ... within each of ChatGLM and Vicuna": the
    backbones are what the comparison is repeated over, not methods compared with TRICE."""
    files = {
        "evaluate.py": (
            "import argparse\n\n"
            "p = argparse.ArgumentParser()\n"
            "p.add_argument('--task', default='math')\n"
            "p.add_argument('--model', default='vicuna', choices=['chatglm', 'vicuna'])\n"
            "args = p.parse_args()\n"
            "print('TRICE accuracy of', args.model, 'on', args.task, 0.5)\n"
        ),
        "README.md": (
            "# TRICE\n\nTRICE teaches a backbone (ChatGLM, Vicuna) when to use tools; "
            "the zero-shot backbone is the baseline. Evaluate TRICE's accuracy:\n\n"
            "```\npython evaluate.py --task math --model vicuna\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-3:trice",
        question=(
            "How does TRICE compare with Zero-Shot on accuracy within each of ChatGLM and "
            "Vicuna in Table 3 (Performance of TRICE)?"
        ),
        method="Run TRICE and Zero-Shot on each backbone and report accuracy.",
        expected_outcome="TRICE is best.",
        design_complexity=DesignComplexity(
            independent_variables={
                "method": ["TRICE", "Zero-Shot", "0% Tool"],
                "backbone": ["ChatGLM", "Vicuna"],
            },
            dependent_variables={"metric": ["accuracy"]},
        ),
    )
    setup = recovered_setup(tmp_path / "w", files, task)
    usage = setup.usage_instructions
    assert usage, setup.no_answer
    assert (
        "Compare accuracy of TRICE, Zero-Shot and 0% Tool across the runs (for each backbone "
        "ChatGLM, Vicuna) to answer"
    ) in usage, usage
    # the report step compares the methods too, not the backbones
    final = setup.requirements[-1]
    assert final.startswith("Final Step: Report accuracy of each run, then compare TRICE and "), (
        final
    )
    assert "ChatGLM" not in final and "Vicuna" not in final, final


def test_a_long_function_opened_into_blocks_leaves_out_a_librarys_object(
    tmp_path: Path,
) -> None:
    """Few steps, one a whole 70-line training function: its blocks take its place, but
    not the one that only loads a library's tokenizer."""
    from repo_fixture import committed_index

    from extractors.agent import SetupAgent
    from extractors.agent.query import build_query
    from extractors.agent.steps import Step

    filler = "".join(f"    margin_{i} = args.margin * {i}\n" for i in range(60))
    train = (
        "from transformers import LlamaTokenizer\n\n"
        "from tooluse import build_model, rank_loss\n\n\n"
        "def train(args):\n"
        "    tokenizer = LlamaTokenizer.from_pretrained(args.base_model)\n\n"
        "    model = build_model(args.base_model, tokenizer)\n\n"
        f"{filler}\n"
        "    for epoch in range(args.epochs):\n"
        "        loss = rank_loss(model, margin_59)\n"
        "        print('epoch', epoch, 'loss', loss)\n"
    )
    files = {
        "train.py": train,
        "tooluse.py": "def build_model(name, tok):\n    return name\n\n\n"
        "def rank_loss(model, margin):\n    return margin\n",
    }
    root = tmp_path / "o"
    index = committed_index(root, files)
    agent = SetupAgent(index, root)
    task = TaskDraft(
        key="t",
        question="How low is the ranking loss of tool use?",
        method="Train the tool-use model and report the ranking loss.",
        expected_outcome="Low.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["loss"]}),
    )
    end = len(train.splitlines())
    steps = agent.step_planner.opened(
        [Step("Train (train)", "train.py", 6, end)], build_query(task)
    )
    actions = [s.action for s in steps]
    assert len(actions) >= 2 and any("build_model" in a or "model" in a for a in actions), actions
    assert not any("LlamaTokenizer" in a for a in actions), actions


def test_a_function_without_gradients_is_not_the_training(tmp_path: Path) -> None:
    """`@torch.no_grad() def train_index` builds a search index; the training is
    `train_model`, whose name comes later."""
    main = (
        "import argparse\n\n"
        "import torch\n\n\n"
        "class Index:\n"
        "    @torch.no_grad()\n"
        "    def train_index(self, vectors):\n"
        "        self.centroids = vectors[:8]\n"
        "        self.size = len(vectors)\n"
        "        return self.centroids\n\n\n"
        "def train_model(epochs, index):\n"
        "    for epoch in range(epochs):\n"
        "        loss = index.size / (epoch + 1)\n"
        "        print('epoch', epoch, 'RetroNet retrieval accuracy', loss)\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--epochs', type=int, default=10)\n"
        "    index = Index()\n"
        "    index.train_index(list(range(100)))\n"
        "    train_model(p.parse_args().epochs, index)\n"
    )
    files = {
        "main.py": main,
        "README.md": "# RetroNet\n\nTrain RetroNet, report its retrieval accuracy:"
        "\n\n```\npython main.py\n```\n",
    }
    task = TaskDraft(
        key="table-1:accuracy",
        question="What retrieval accuracy does RetroNet reach after training?",
        method="Train RetroNet and report its retrieval accuracy.",
        expected_outcome="90%.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["accuracy"]}),
    )
    setup = recovered_setup(tmp_path / "g", files, task)
    steps = "\n".join(setup.requirements)
    assert "Train (train_model) (main.py:14-16)" in steps, (setup.no_answer, steps)
    assert "Train (Index.train_index)" not in steps, steps


def test_syntax_error_gives_the_line_and_the_message() -> None:
    from extractors.repo.pysource import syntax_error

    assert syntax_error("x = 1\n") is None
    assert syntax_error("print 'hello'\n") == (
        1,
        "Missing parentheses in call to 'print'. Did you mean print(...)?",
    )
    assert syntax_error("if x:\n    a = 1\n  b = 2\n") == (
        3,
        "unindent does not match any outer indentation level",
    )


def test_a_measure_taken_at_several_scales_evaluates_again_with_the_switch_for_it(
    tmp_path: Path,
) -> None:
    """ "mIoU (MS)" beside "mIoU (SS)": the evaluation runs again with the switch its help
    calls multi-scale (`--aug-test`), and only then."""
    test = (
        "import argparse\n\nif __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--resnet', default='ResNet18')\n"
        "    p.add_argument('--eval', default='mIoU')\n"
        "    p.add_argument('--aug-test', action='store_true', help='Use Flip and Multi scale aug')\n"
        "    print('segmentation mIoU', p.parse_args())\n"
    )
    files = {
        "train.py": TRAIN,
        "test.py": test,
        "README.md": README.replace("python cluster.py", "python test.py --eval mIoU"),
    }
    task = _task()
    task.question = "How does the segmentation mIoU of ResNet34 compare with ResNet18?"
    task.method = "Train with each backbone and compare mIoU."
    task.design_complexity.dependent_variables = {"metric": ["mIoU (SS)", "mIoU (MS)"]}
    usage = recovered_setup(tmp_path / "m", files, task).usage_instructions
    assert (
        "then evaluate it: `python test.py --eval mIoU --resnet ResNet34`, and for mIoU (MS): "
        "`python test.py --eval mIoU --resnet ResNet34 --aug-test`"
    ) in usage, usage
    # measures named per data set ("ADE20K mIoU (MS)") are named once, by the measure
    task.design_complexity.dependent_variables = {
        "metric": [f"{d} mIoU ({s})" for d in ("ADE20K", "Cityscapes") for s in ("SS", "MS")]
    }
    usage = recovered_setup(tmp_path / "d", files, task).usage_instructions
    assert ", and for mIoU (MS): `python test.py --eval mIoU --resnet ResNet34 --aug-test`" in (
        usage
    ), usage
    task.design_complexity.dependent_variables = {"metric": ["mIoU"]}
    usage = recovered_setup(tmp_path / "s", files, task).usage_instructions
    assert "--aug-test" not in usage, usage


def test_what_writes_the_evaluations_input_runs_between_training_and_evaluation(
    tmp_path: Path,
) -> None:
    """`generate.py --output_path data/response.json`, then `evaluate.py --data_path
    data/response.json`: the generation runs after the training and before the evaluation;
    a command writing something else is no prerequisite."""
    main = (
        "import argparse\n\nif __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "{options}    print('tool accuracy', p.parse_args())\n"
    )

    def program(*options: str) -> str:
        return main.format(options="".join(f"    p.add_argument('{o}')\n" for o in options))

    files = {
        "train.py": program("--output_dir"),
        "generate.py": program("--lora", "--output_path"),
        "plot.py": program("--save_path"),
        "evaluate.py": program("--data_path", "--task"),
        "README.md": (
            "# Tools\n\n```\npython train.py --output_dir ckpt/math\n```\n\n"
            "```\npython plot.py --save_path figs/loss.png\n```\n\n"
            "Generate the responses first:\n\n```\n"
            "python generate.py --lora ckpt/math --output_path data/response.json\n```\n\n"
            "Then evaluate them:\n\n```\n"
            "python evaluate.py --task math --data_path data/response.json\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-3:factor",
        question="What tool accuracy does the evaluation report on math?",
        method="Evaluate the trained model's responses on math and report accuracy.",
        expected_outcome="Accuracy 0.6.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["accuracy"]}),
    )
    usage = recovered_setup(tmp_path / "g", files, task).usage_instructions
    assert (
        "`python train.py --output_dir ckpt/math`, then `python generate.py --lora ckpt/math "
        "--output_path data/response.json`, then evaluate it: `python evaluate.py --task math "
        "--data_path data/response.json`"
    ) in usage, usage
    assert "plot.py" not in usage, usage


def test_producers_are_the_earlier_commands_writing_what_the_evaluation_reads() -> None:
    from expcurate.records import DocCommand
    from extractors.agent.prerequisites import producers

    def doc(text: str, line: int) -> DocCommand:
        return DocCommand(text=text, doc="README.md", line=line)

    generate = doc("python generate.py --output_path=../data/dev/resp.json --task math", 3)
    plot = doc("python plot.py --save_path figs/a.png", 5)
    evaluation = doc("python evaluate.py --data_path ../data/dev/resp.json --task math", 9)
    assert producers([generate, plot], evaluation) == [generate]
    assert producers([plot], evaluation) == []
    # a number after an option named like output (`--timeout 5.0`) is no path
    waits = doc("python warmup.py --timeout 5.0", 4)
    assert producers([waits], doc("python evaluate.py --limit 5.0", 9)) == []


def test_methods_read_with_their_measure_after_them_are_the_methods_once() -> None:
    from extractors.agent.arms import without_measures

    garbled = ["TimesNet MSE", "TimesNet MAE", "ETSformer MSE", "ETSformer MAE", "LightTS∗ MSE"]
    assert without_measures(garbled) == ["TimesNet", "ETSformer", "LightTS∗"]
    # a name that ends like a measure, once per method, is a name
    assert without_measures(["Faster R-CNN AP", "RetinaNet AP"]) == [
        "Faster R-CNN AP",
        "RetinaNet AP",
    ]
    assert without_measures(["MogaNet", "ConvNeXt MSE"]) == ["MogaNet", "ConvNeXt MSE"]


def test_the_comparison_cites_the_chained_evaluation_printing_the_measures(
    tmp_path: Path,
) -> None:
    """The training prints only its loss; the evaluation run after it prints NMI, ACC and
    ARI: that print is where the runs are compared, not the training's loss line."""
    train = TRAIN.replace(
        "        print('contrastive clustering loss', epoch)\n",
        "        loss = epoch * 0.5\n        print(f'Step [{epoch}] loss: {loss}')\n",
    )
    cluster = CLUSTER.replace(
        "    print('clustering NMI ACC ARI of', model_fp)\n",
        "    nmi, acc, ari = score(model_fp)\n"
        "    print('NMI = {:.4f} ACC = {:.4f} ARI = {:.4f}'.format(nmi, acc, ari))\n",
    )
    files = {"train.py": train, "cluster.py": cluster, "README.md": README}
    setup = recovered_setup(tmp_path / "c", files, _task())
    assert "python cluster.py" in setup.usage_instructions, setup.usage_instructions
    last = setup.requirements[-1]
    assert last.startswith("Final Step: Report NMI, ACC, ARI"), setup.requirements
    assert last.endswith("(cluster.py:12)"), setup.requirements


def test_a_training_documented_after_another_is_not_evaluated_after_it(tmp_path: Path) -> None:
    """ "To start training on STL-10 (the test split is used too), run `python train_STL10.py`":
    a second training program, not an evaluation of the first: it is not trained first by
    `train.py`, and its resume option (`checkpoint_{start_epoch}`) is not set to the last
    epoch, which would train nothing."""
    stl = TRAIN.replace(
        "    p.add_argument('--model_path', default='save/CIFAR-10')\n",
        "    p.add_argument('--model_path', default='save/CIFAR-10')\n"
        "    p.add_argument('--start_epoch', type=int, default=0)\n"
        "    p.add_argument('--reload', action='store_true')\n",
    ).replace(
        "    for epoch in range(args.epochs):\n",
        "    if args.reload:\n"
        "        print(os.path.join(args.model_path, 'checkpoint_{}.tar'.format(args.start_epoch)))\n"
        "    for epoch in range(args.start_epoch, args.epochs):\n",
    )
    readme = README.replace(
        "To test the trained model",
        "Since STL-10 uses its unlabeled data on one head while the train and test split are "
        "used on both, to start training on STL-10, run\n\n```\npython train_STL10.py\n```\n\n"
        "To test the trained model",
    )
    files = {"train.py": TRAIN, "train_STL10.py": stl, "cluster.py": CLUSTER, "README.md": readme}
    task = _task()
    task.question = "How does the clustering NMI on STL-10 of ResNet34 compare with ResNet18?"
    usage = recovered_setup(tmp_path / "s", files, task).usage_instructions
    assert "`python train_STL10.py --resnet ResNet34" in usage, usage
    assert "train_STL10.py --resnet ResNet34 --start_epoch" not in usage, usage
    assert "train first as documented: `python train.py" not in usage, usage
    assert "python cluster.py --resnet ResNet34 --start_epoch 1000" in usage, usage


def test_evaluations_trained_first_each_read_their_own_training(tmp_path: Path) -> None:
    """The evaluation is the entry point and each run is trained first: the trainings would
    all save to `save/CIFAR-10` (the last overwriting the rest) and each evaluation would
    read that one, so each training writes to its own and its evaluation reads from there."""
    cluster = '"""Evaluate the backbones\' clustering: NMI, ACC and ARI."""\n' + CLUSTER.replace(
        "default='ResNet18')", "default='ResNet18', help='ResNet18 / ResNet34')"
    )
    files = {"train.py": TRAIN, "cluster.py": cluster, "README.md": README}
    task = _task()
    task.question = "How do NMI, ACC and ARI of the evaluated clustering compare by backbone?"
    task.method = "Evaluate the clustering of each backbone and compare NMI, ACC and ARI."
    usage = recovered_setup(tmp_path / "e", files, task).usage_instructions
    assert "Run ResNet34: `python cluster.py --resnet ResNet34" in usage, usage
    for arm in ("ResNet18", "ResNet34"):
        own = f"save/CIFAR-10_{arm.lower()}"
        assert f"python cluster.py --resnet {arm} --model_path {own} --start_epoch 1000`" in (
            usage
        ), usage
        assert (
            f"train first as documented: `python train.py --resnet {arm} --model_path {own}`"
            in (usage)
        ), usage


def test_the_comparison_is_where_the_chained_evaluation_prints_the_measures(
    tmp_path: Path,
) -> None:
    """The training logs a validation NMI as it goes; the evaluation the README runs after it
    prints the test NMI the paper reports, which is where the arms are compared. Measures
    named with their data set ("CIFAR-10 NMI") are found by the measure."""
    train = TRAIN.replace(
        "        print('contrastive clustering loss', epoch)\n",
        "        nmi = 1.0 / (epoch + 1)\n        print('val NMI', nmi)\n",
    )
    cluster = CLUSTER.replace("    p.add_argument('--resnet', default='ResNet18')\n", "").replace(
        "print('clustering NMI ACC ARI of', model_fp)",
        "nmi, acc = 0.7, 0.8\n    print('NMI = {:.4f} ACC = {:.4f}'.format(nmi, acc))",
    )
    task = _task()
    task.design_complexity.dependent_variables = {
        "metric": ["CIFAR-10 NMI", "CIFAR-10 ACC", "ImageNet-10 NMI", "ImageNet-10 ACC"]
    }
    files = {"train.py": train, "cluster.py": cluster, "README.md": README}
    steps = recovered_setup(tmp_path / "c", files, task).requirements
    last = len(cluster.splitlines())
    assert steps[-1] == (
        f"Final Step: Report NMI, ACC of each run, then compare ResNet18 and ResNet34 across "
        f"them (cluster.py:{last})"
    ), steps


def _with_data(reads: str) -> str:
    """A program choosing its data set by `--dataset`, building each in its own branch."""
    return (
        "import argparse\n"
        "import torchvision\n"
        "\n"
        "\n"
        "def run(args, dataset):\n"
        f"    print('{reads}', len(dataset))\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--dataset', default='CIFAR-10', help='CIFAR-10 / ImageNet-10')\n"
        "    p.add_argument('--ddp', action='store_true')\n"
        "    args = p.parse_args()\n"
        "    device = torchvision.device('cpu')\n"
        "    if args.dataset == 'CIFAR-10':\n"
        "        train_set = torchvision.datasets.CIFAR10(\n"
        "            root='data',\n"
        "            train=True,\n"
        "            download=True,\n"
        "        )\n"
        "        test_set = torchvision.datasets.CIFAR10(\n"
        "            root='data',\n"
        "            train=False,\n"
        "            download=True,\n"
        "        )\n"
        "        dataset = torchvision.datasets.ConcatDataset([train_set, test_set])\n"
        "        class_num = 10\n"
        "    elif args.dataset == 'STL-10':\n"
        "        train_set = torchvision.datasets.STL10(\n"
        "            root='data',\n"
        "            split='train',\n"
        "            download=True,\n"
        "        )\n"
        "        dataset = torchvision.datasets.ConcatDataset([train_set])\n"
        "        class_num = 10\n"
        "    elif args.dataset == 'ImageNet-10':\n"
        "        dataset = torchvision.datasets.ImageFolder(\n"
        "            root='datasets/imagenet-10',\n"
        "        )\n"
        "    if args.ddp:\n"
        "        torchvision.distributed.spawn(run, args, dataset)\n"
        "    else:\n"
        "        run(args, dataset)\n"
    )


def test_the_steps_follow_the_data_set_the_runs_give_in_every_program_they_chain(
    tmp_path: Path,
) -> None:
    """Figure 3 "across the training process on ImageNet-10": both programs run with
    `--dataset ImageNet-10`, so neither's CIFAR-10 branch, nor the distributed launch no run
    asks for, is a step of this experiment (Contrastive Clustering's Figure 3 cited the
    CIFAR-10 loaders of both programs beside the ImageNet-10 branch)."""
    files = {
        "train.py": _with_data("instance and cluster similarities per epoch"),
        "cluster.py": _with_data("clustering NMI"),
        "README.md": README,
    }
    task = TaskDraft(
        key="figure-3:trend",
        question=(
            "How do the similarities of positive instance and cluster pairs change as the "
            "training goes (Figure 3: similarities across the training process on ImageNet-10)?"
        ),
        method="Reproduce the measurements behind Figure 3.",
        expected_outcome="The similarities of positive pairs rise as the training goes.",
        design_complexity=DesignComplexity(
            constant_variables={"setting": "ImageNet-10"},
            independent_variables={"the training process": "the values plotted in Figure 3"},
            dependent_variables={"similarities": "as plotted in Figure 3"},
        ),
    )
    setup = recovered_setup(tmp_path / "d", files, task)
    assert "--dataset ImageNet-10" in setup.usage_instructions, setup.usage_instructions
    steps = "\n".join(setup.requirements)
    assert "ImageNet-10" in steps, steps
    assert "CIFAR10" not in steps, steps  # the body of either program's CIFAR-10 branch
    assert "args.ddp" not in steps, steps  # the distributed launch no run turns on


def test_a_message_naming_only_where_results_were_written_reports_nothing() -> None:
    """ "Results saved as {}".format(self.config.RESULTS_PKL) says where, not what was
    measured, whether the value is named in the braces or given to `format`."""
    from extractors.agent.measures import _settings_only

    assert _settings_only(
        "self.logger.info('Results saved as {}.'.format(self.config.RESULTS_PKL))"
    )
    assert _settings_only("print(f'results logged to {self.config.loggers}')")
    assert not _settings_only("print('F10 {}'.format(f10))")
    assert not _settings_only("print(f'accuracy {acc:.2f}')")


INFER = (
    "import argparse\n"
    "\n"
    "p = argparse.ArgumentParser()\n"
    "p.add_argument('--model', type=str, default='gpt-3.5')\n"
    "args = p.parse_args()\n"
    "\n"
    "\n"
    "def get_response(model, question):\n"
    "    if model == 'gemini-pro':\n"
    "        return 'gemini health prediction ' + question\n"
    "    elif model == 'gpt-4':\n"
    "        return 'gpt health prediction ' + question\n"
    "    return 'health alpaca ' + question\n"
    "\n"
    "\n"
    "for q in ['stress', 'fatigue']:\n"
    "    print('health prediction accuracy', get_response(args.model, q))\n"
)

FINETUNE_PY = (
    "from transformers import Trainer\n"
    "\n"
    "\n"
    "def main(model='llama', data_path='data/health.json', output_dir='health-alpaca'):\n"
    "    print('fine-tune health alpaca on', data_path, 'for health prediction')\n"
    "    trainer = Trainer(model=model, train_dataset=data_path)\n"
    "    trainer.train()\n"
    "    trainer.save_model(output_dir)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_a_program_whose_options_list_the_arms_runs_them_after_the_documented_training(
    tmp_path: Path,
) -> None:
    """The README fine-tunes through a shell script, then runs `inference.py --model {...}`,
    whose code tests the compared models' names: each model is a run of inference.py, not of
    the nearby fine-tuning script, and the documented fine-tuning comes first, cited where it
    hands over to the library's trainer."""
    files = {
        "inference.py": INFER,
        "health/train.py": FINETUNE_PY,
        # a launch script as near the task's words as the program, of another program
        "finetune.sh": (
            "# fine-tune healthalpaca for health prediction accuracy\n"
            "torchrun health/train.py --model healthalpaca --data_path health_prediction.json\n"
        ),
        "README.md": (
            "# Health prediction\n\n## Fine-tune HealthAlpaca for health prediction accuracy\n\n"
            "```bash\nbash finetune.sh\n```"
            "\n\n## Inference\n\n```bash\n~$ python3 inference.py --model {gpt-3.5, gpt-4, "
            "gemini-pro, healthalpaca}\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-3:compare",
        question=(
            "How does Fine-tune / HealthAlpaca compare with Zero-shot / Gemini-Pro and "
            "Few-shot / GPT-4 on health prediction accuracy?"
        ),
        method="Fine-tune health alpaca, then compare the models' health prediction accuracy.",
        expected_outcome="HealthAlpaca is best.",
        design_complexity=DesignComplexity(
            independent_variables={
                "method": ["Zero-shot / Gemini-Pro", "Few-shot / GPT-4", "Fine-tune / HealthAlpaca"]
            },
            dependent_variables={"metric": ["accuracy"]},
        ),
    )
    setup = recovered_setup(tmp_path / "h", files, task)
    usage = setup.usage_instructions
    assert "Run Zero-shot / Gemini-Pro: `python3 inference.py --model gemini-pro`" in usage, usage
    assert "Run Few-shot / GPT-4: `python3 inference.py --model gpt-4`" in usage, usage
    assert "`python3 inference.py --model healthalpaca`" in usage, usage
    assert "train once as documented: `bash finetune.sh`" in usage, usage
    # the fine-tuning has no loop of its own: its step is where it hands over to the trainer
    steps = "\n".join(setup.requirements)
    assert "Train first with train.py: Train (trainer.train) (health/train.py:7)" in steps, steps


CLUSTER_BY_DATA = (
    "import argparse\n"
    "import os\n"
    "\n"
    "\n"
    "def inference(loader, model):\n"
    "    return [model(x) for x in loader]\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--dataset', default='CIFAR-10', choices=['CIFAR-10', 'ImageNet-10'])\n"
    "    p.add_argument('--model_path', default='save/CIFAR-10')\n"
    "    args = p.parse_args()\n"
    "    if args.dataset == 'CIFAR-10':\n"
    "        data = os.path.join('datasets', 'cifar-10')\n"
    "        class_num = 10\n"
    "    elif args.dataset == 'ImageNet-10':\n"
    "        data = os.path.join('datasets', 'imagenet-10')\n"
    "        class_num = 10\n"
    "    model_fp = os.path.join(args.model_path, 'checkpoint.tar')\n"
    "    labels = inference([data], len)\n"
    "    nmi, acc = 0.5, 0.6\n"
    "    print('clustering NMI = {:.4f} ACC = {:.4f}'.format(nmi, acc))\n"
    "    # print the results of every cluster\n"
    "    for k in range(class_num):\n"
    "        print('cluster', k, labels.count(k))\n"
)


TRAIN_LOOP = (
    "import argparse\n"
    "\n"
    "\n"
    "def train(loader, model, optimizer):\n"
    "    loss_epoch = 0\n"
    "    for step, x in enumerate(loader):\n"
    "        optimizer.zero_grad()\n"
    "        loss = model(x)\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "        loss_epoch += loss.item()\n"
    "    return loss_epoch\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--model_path', default='save/CIFAR-10')\n"
    "    p.add_argument('--epochs', type=int, default=1000)\n"
    "    args = p.parse_args()\n"
    "    for epoch in range(args.epochs):\n"
    "        print('clustering loss', train([], None, None))\n"
)


def test_an_evaluation_chained_after_its_training_takes_its_branches_after_it(
    tmp_path: Path,
) -> None:
    """The clustering evaluation reads its data set by a branch per data set: on each, the
    training comes first, then the evaluation's branch, and the reported line last."""
    files = {"train.py": TRAIN_LOOP, "cluster.py": CLUSTER_BY_DATA, "README.md": README}
    task = TaskDraft(
        key="table-2:compare",
        question="How does the clustering NMI and ACC on CIFAR-10 compare with ImageNet-10?",
        method="Train contrastive clustering on each data set and compare NMI and ACC.",
        expected_outcome="ImageNet-10 is easier.",
        design_complexity=DesignComplexity(
            independent_variables={"dataset": ["CIFAR-10", "ImageNet-10"]},
            dependent_variables={"metric": ["NMI", "ACC"]},
        ),
    )
    steps = recovered_setup(tmp_path / "b", files, task).requirements
    at = {s.split(": ", 1)[1].split(" (")[0]: k for k, s in enumerate(steps)}
    trained = next(k for name, k in at.items() if name.startswith("Train first with train.py"))
    branch = next(k for name, k in at.items() if name.startswith("Take the CIFAR-10 path"))
    assert trained < branch, steps
    # what only prints the results comes after what computes them
    printed = next(k for name, k in at.items() if name.startswith("Print the results"))
    assert printed > max(k for name, k in at.items() if "inference" in name), steps
    assert steps[-1].startswith("Final Step: Report NMI, ACC"), steps


def test_a_run_whose_documented_training_is_another_arms_says_so(tmp_path: Path) -> None:
    """The README trains Vicuna (`--base_model PLMs/vicuna-7b`) before evaluating it: the
    Alpaca run's evaluation, as written, reads Vicuna's training, and says so; the Vicuna
    run does not."""
    train = TRAIN.replace(
        "    p.add_argument('--epochs'",
        "    p.add_argument('--base_model', default='PLMs/llama-7b')\n    p.add_argument('--epochs'",
    )
    cluster = CLUSTER.replace(
        "    p.add_argument('--start_epoch'",
        "    p.add_argument('--model', default='llama')\n    p.add_argument('--start_epoch'",
    ).replace(
        "    print('clustering NMI",
        "    if args.model == 'alpaca':\n        print('alpaca prompt')\n"
        "    elif args.model == 'vicuna':\n        print('vicuna prompt')\n"
        "    print('clustering NMI",
    )
    readme = (
        "# Tool learning\n\nTrain the model:\n\n```\n"
        "python train.py --base_model PLMs/vicuna-7b --model_path save/vicuna\n```\n\n"
        "To test the trained model, run\n\n```\n"
        "python cluster.py --model vicuna --model_path save/vicuna\n```\n"
    )
    files = {"train.py": train, "cluster.py": cluster, "README.md": readme}
    task = TaskDraft(
        key="table-3:factor",
        question="What clustering NMI does cluster.py report for the Alpaca and Vicuna models?",
        method="Train with each backbone and compare NMI.",
        expected_outcome="Vicuna is best.",
        design_complexity=DesignComplexity(
            independent_variables={"model": ["Alpaca", "Vicuna"]},
            dependent_variables={"metric": ["NMI"]},
        ),
    )
    lines = recovered_setup(tmp_path / "v", files, task).usage_instructions.splitlines()
    alpaca = next(x for x in lines if "Run Alpaca" in x)
    vicuna = next(x for x in lines if "Run Vicuna" in x)
    said = "the documented training and this command are Vicuna's, not Alpaca's"
    assert said in alpaca, alpaca
    assert "documented training and this command are" not in vicuna, vicuna


def test_a_translated_readme_and_another_projects_training_give_no_evaluation(
    tmp_path: Path,
) -> None:
    # the English README is read first, though its translation gives the command on an
    # earlier line; the evaluation it introduces after another folder's training evaluates
    # that training, not this one
    other = "import argparse\nif __name__ == '__main__':\n    print('generator trained')\n"
    readme = (
        "# Contrastive clustering\n\nTrain the model:\n\n```\npython train.py\n```\n\n"
        "## The generator\n\nTrain the generator:\n\n```\npython generator/train_gen.py\n```\n\n"
        "To test the trained generator, run\n\n```\npython cluster.py\n```\n"
    )
    translated = (
        "# 对比聚类\n\n```\npython train.py\n```\n\n测试：\n\n```\npython cluster.py\n```\n"
    )
    files = {
        "train.py": TRAIN,
        "cluster.py": CLUSTER,
        "generator/train_gen.py": other,
        "README.md": "\n\n\n" + readme,
        "README_ZH.md": translated,
    }
    usage = recovered_setup(tmp_path / "z", files, _task()).usage_instructions
    assert "Run ResNet18: `python train.py --resnet ResNet18" in usage, usage
    assert "then evaluate it" not in usage, usage
    # beside the training, the evaluation is found as before
    files["README.md"] = "\n\n\n" + README
    usage = recovered_setup(tmp_path / "e", files, _task()).usage_instructions
    assert "then evaluate it: `python cluster.py --resnet ResNet18" in usage, usage


def test_an_evaluation_is_read_in_the_document_of_its_own_folder(tmp_path: Path) -> None:
    # the top README gives the trainings, then (in a section written from tools/eval/) the
    # pass-rate evaluation; the evaluation's own folder documents it on its own: that
    # document, where no training comes before it, says how it runs
    trains = "import argparse\nif __name__ == '__main__':\n    print('trained')\n"
    evaluation = (
        "import argparse\n\n\ndef pass_rate(answers):\n    return sum(answers) / len(answers)\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--answers', default='answers.json')\n"
        "    args = p.parse_args()\n"
        "    print('pass rate', pass_rate([1, 0]))\n"
    )
    readme = (
        "# Tool agents\n\nTrain the retriever:\n\n```\npython retrieval/train_index.py\n```\n\n"
        "Train the agent:\n\n```\npython agent/train_agent.py\n```\n\n"
        "## Evaluation\n\nTo evaluate the answers' pass rate, run\n\n"
        "```\npython eval_pass_rate.py --answers answers.json\n```\n"
    )
    files = {
        "retrieval/train_index.py": trains,
        "agent/train_agent.py": trains,
        "tools/eval/eval_pass_rate.py": evaluation,
        "tools/eval/README.md": "# The pass rate the tool agent's answers reach\n\n"
        "```\npython eval_pass_rate.py\n```\n",
        "README.md": readme,
    }
    task = TaskDraft(
        key="table-4:compare",
        question="What pass rate do the tool agent's answers reach?",
        method="Evaluate the agent's answers and report the pass rate.",
        expected_outcome="The pass rate reached is high.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["pass rate"]}),
    )
    setup = recovered_setup(tmp_path / "pr", files, task)
    usage = setup.usage_instructions
    assert "cd tools/eval && python eval_pass_rate.py" in usage, usage
    assert "train first" not in usage and "train once" not in usage, usage


def test_a_training_step_opening_with_the_models_mode_switch_is_cited_whole(
    tmp_path: Path,
) -> None:
    # `mod.train()` first switches the model to training; it hands nothing over to a
    # trainer, so the step is the function (longer than a step, with no loop of its own)
    body = "".join(f"    h{k} = h{k - 1} * 2 + batch_size\n" for k in range(1, 45))
    main = (
        "import argparse\n\n\n"
        "def train(mod, opt, batch_size):\n"
        "    mod.train()\n"
        "    h0 = batch_size\n"
        + body
        + "    loss = mod(h44)\n    loss.backward()\n    opt.step()\n    return loss\n\n\n"
        "if __name__ == '__main__':\n"
        "    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--epochs', type=int, default=10)\n"
        "    args = p.parse_args()\n"
        "    for epoch in range(args.epochs):\n"
        "        print('epoch', epoch, 'auc', train(None, None, 8))\n"
    )
    files = {
        "main.py": main,
        "README.md": "# LinkNet\n\nTrain LinkNet and report its AUC:\n\n```\npython main.py\n```\n",
    }
    task = TaskDraft(
        key="table-1:auc",
        question="What AUC does LinkNet reach after training for 10 epochs?",
        method="Train LinkNet for 10 epochs and report its AUC.",
        expected_outcome="An AUC of 0.9.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["AUC"]}),
    )
    steps = "\n".join(recovered_setup(tmp_path / "w", files, task).requirements)
    assert "Train (train): backpropagates; steps opt; returns loss (main.py:4-54)" in steps, steps


def test_a_step_ending_on_the_report_line_ends_before_it(tmp_path: Path) -> None:
    """Contrastive Clustering's "Evaluate (cluster.py:148-149)" ended on the line the final
    step reports from (:149), so that line was cited twice (the 32nd held-out reader): the
    step ends before the report."""
    program = (
        "import argparse\n\nimport evaluation\n\n\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--dataset', default='CIFAR-10')\n"
        "    parser.add_argument('--resnet', default='ResNet34')\n"
        "    args = parser.parse_args()\n"
        "    X, Y = [0, 1], [1, 0]\n"
        "    nmi, ari, acc = evaluation.evaluate(Y, X)\n"
        "    print('NMI = {:.4f} ARI = {:.4f} ACC = {:.4f}'.format(nmi, ari, acc))\n"
    )
    evaluation = (
        "def evaluate(label, pred):\n    nmi = len(label)\n    ari = len(pred)\n"
        "    acc = nmi / ari\n    return nmi, ari, acc\n"
    )
    files = {
        "cluster.py": program,
        "evaluation.py": evaluation,
        "README.md": "# CC\n\n`python cluster.py --dataset CIFAR-10 --resnet ResNet34`\n",
    }
    task = TaskDraft(
        paper_id="p",
        question="Does the ResNet34 backbone cluster CIFAR-10 better than ResNet18 (NMI, ACC, ARI)?",
        method="Cluster with each resnet backbone and compare NMI, ACC and ARI.",
        design_complexity=DesignComplexity(
            independent_variables={"resnet": ["ResNet18", "ResNet34"]},
            dependent_variables={"metrics": ["NMI", "ACC", "ARI"]},
        ),
    )
    steps = recovered_setup(tmp_path, files, task).requirements
    assert steps[0] == "Step 1: Evaluate (cluster.py:7-12)", steps
    assert steps[-1].endswith("(cluster.py:13)"), steps
