"""A small but awkward research repository, built for real with GitPython in tmp_path.

It has what papers' repositories have (an argparse entry point, launch scripts, configs, a
README with commands, results) and what breaks naive miners (a symlink out of the repo, a
binary without a binary extension, a huge file, a latin-1 file, an LFS pointer, vendored
folders, Python 2 syntax).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import git

from expcurate.records import RepoIndex, Setup, TaskDraft
from extractors.agent import SetupAgent, validate_references
from extractors.repo import mine_repo

TRAIN = '''"""Train GateMix on an image dataset."""
import argparse

from gm.data import load_data
from gm.model import build_model


def parse_args():
    parser = argparse.ArgumentParser(description="GateMix training")
    parser.add_argument("--dataset", default="cifar10", help="dataset to train on")
    parser.add_argument("--lr", type=float, default=1e-3, help="learning rate")
    parser.add_argument("--epochs", type=int, default=300, help="training epochs")
    parser.add_argument("--no_gate", action="store_true", help="ablate the gating unit")
    parser.add_argument("--config", default="configs/cifar.yaml", help="config file")
    return parser.parse_args()


def train_model(model, data, lr, epochs):
    """Train the model with AdamW and a cosine schedule."""
    for _ in range(epochs):
        model.step(data, lr)
    return model


def evaluate(model, data):
    """Report top-1 accuracy on the validation split."""
    return model.accuracy(data)


if __name__ == "__main__":
    args = parse_args()
    data = load_data(args.dataset)
    model = build_model(gate=not args.no_gate)
    train_model(model, data, args.lr, args.epochs)
    print(evaluate(model, data))
'''

MODEL = '''"""The GateMix model."""


class GateMix:
    """Gated token mixing block that mixes channels with a learned gate."""

    def __init__(self, gate=True):
        self.gate = gate
        self.weights = [0.0] * 4

    def step(self, data, lr):
        self.weights = [w - lr for w in self.weights]

    def accuracy(self, data):
        return 0.5


def build_model(gate=True):
    """Build the GateMix model."""
    return GateMix(gate=gate)
'''

DATA = '''def load_data(name):
    """Load an image dataset by name."""
    return [name] * 10
'''

CLI = """import click


@click.command()
@click.option("--depth", default=12, help="number of blocks")
def main(depth):
    print(depth)


if __name__ == "__main__":
    main()
"""

HYDRA_APP = """import hydra


@hydra.main(config_path="../configs", config_name="cifar")
def run(cfg):
    print(cfg)


if __name__ == "__main__":
    run()
"""

FIRE_APP = """import fire


def sweep(lr=0.1):
    return lr


fire.Fire(sweep)
"""

TYPER_APP = """import typer

app = typer.Typer()


@app.command()
def export(fmt: str = typer.Option("onnx", "--format", help="output format")):
    print(fmt)


if __name__ == "__main__":
    app()
"""

USAGE_RST = """Usage
=====

.. code-block:: bash

   python train.py --dataset cifar10 --epochs 10
"""

README = """# GateMix

Train on CIFAR-10:

```bash
python train.py --dataset cifar10 --lr 1e-3
```

Reproduce the ImageNet table:

$ bash scripts/run_imagenet.sh

The command-line tool:

    CUDA_VISIBLE_DEVICES=0 python -m gm.cli --depth 12

Run `torchrun --nproc_per_node=8 train.py --dataset imagenet` on 8 GPUs.
"""

RUN_CIFAR = """#!/bin/bash
# CIFAR-10 with the gating unit
dataset=cifar10
for seed in 1 2 3; do
  python -u train.py --dataset $dataset --lr 0.001 \\
    --config configs/cifar.yaml --epochs 300
done
"""

RUN_IMAGENET = """#!/bin/bash
cd "$(dirname "$0")/.."
python train.py --dataset imagenet --lr 0.004 --epochs 300 > logs/imagenet.log 2>&1
"""

RUN_ABLATION = """#!/bin/bash
python train.py --dataset cifar10 --no_gate --config configs/cifar.yaml
"""

CIFAR_YAML = """optimizer:
  name: adamw
  lr: 0.001
model:
  depth: 12
  gate: true
schedule: [cosine, 300]
"""

PY_CONFIG = """_base_ = ["./base.py"]
depth = 12
model = dict(type="GateMix", depth=depth, gate=dict(kind="sigmoid"))
optimizer = dict(type="AdamW", lr=0.001)
"""

LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 12345\n"
)


def write(root: Path, rel: str, content: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def committed_index(root: Path, files: dict[str, str]) -> RepoIndex:
    """Write the files, commit them to a new git repository, and mine it."""
    for rel, text in files.items():
        write(root, rel, text)
    g = git.Repo.init(root)
    g.git.add(A=True)
    g.index.commit("the experiment's code")
    return mine_repo(root)


def cites(steps: str | list[str], label: str, ref: str) -> bool:
    """Some step is worded `label` (and maybe what its lines do, after a colon) and cites
    `ref` ("model.py:14-17")."""
    lines = steps.splitlines() if isinstance(steps, str) else steps
    said = re.compile(rf"{re.escape(label)}(?:: [^\n]*)? \({re.escape(ref)}\)$")
    return any(said.search(line) for line in lines)


def recovered_setup(root: Path, files: dict[str, str], task: TaskDraft) -> Setup:
    """The heuristic setup of `task` on a committed repository of `files`, its references
    checked against the checkout."""
    index = committed_index(root, files)
    setup = SetupAgent(index, root).recover(task)
    assert validate_references(setup, root) == []
    return setup


def build_demo_repo(root: Path, *, outside: Path, commit: bool = True) -> Path:
    """Write the demo repository under `root` (and a secret file in `outside`)."""
    root.mkdir(parents=True, exist_ok=True)
    write(root, "train.py", TRAIN)
    write(root, "gm/__init__.py", "")
    write(root, "gm/model.py", MODEL)
    write(root, "gm/data.py", DATA)
    write(root, "gm/cli.py", CLI)
    write(root, "apps/hydra_app.py", HYDRA_APP)
    write(root, "apps/fire_app.py", FIRE_APP)
    write(root, "apps/typer_app.py", TYPER_APP)
    write(root, "docs/usage.rst", USAGE_RST)
    write(root, "legacy/old.py", 'print "python 2"\n')
    write(root, "README.md", README)
    write(root, "scripts/run_cifar.sh", RUN_CIFAR)
    write(root, "scripts/run_imagenet.sh", RUN_IMAGENET)
    write(root, "scripts/ablate_gate.sh", RUN_ABLATION)
    write(root, "configs/cifar.yaml", CIFAR_YAML)
    write(root, "configs/base.json", '{"data": {"root": "data/", "splits": [0.8, 0.2]}}')
    write(root, "configs/gatemix_cfg.py", PY_CONFIG)
    write(root, "results/cifar.csv", "model,top1\ngatemix,91.2\nbaseline,88.7\n")
    write(root, "logs/imagenet.log", "epoch 300 top1 78.4 loss 1.23\n")
    write(root, "data/weights.dat", b"\x00\x01\x02binary\x00" * 20)
    write(root, "data/huge.txt", "x" * 5000)
    write(root, "docs/latin1.txt", "caf\xe9 na\xefve r\xe9sum\xe9\n".encode("latin-1"))
    write(root, "checkpoints/model.pt", LFS_POINTER)
    write(root, "node_modules/pkg/index.js", "module.exports = 1;\n")
    write(root, ".venv/lib/site.py", "import os\n")
    outside.mkdir(parents=True, exist_ok=True)
    secret = write(outside, "secret.txt", "do not read\n")
    os.symlink(secret, root / "leak.txt")
    os.symlink("train.py", root / "train_link.py")
    if commit:
        repo = git.Repo.init(root)
        repo.git.add("-A")
        repo.git.execute(
            [
                "git",
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
                "commit",
                "-q",
                "-m",
                "demo",
            ]
        )
    return root
