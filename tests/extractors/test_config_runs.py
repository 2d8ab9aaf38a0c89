"""A program that reads its experiment from a config file (`tools/train.py CONFIG`, as in
OpenMMLab's frameworks): each arm runs the authors' documented command with the config file
that names it, the data set the task holds fixed choosing among several, then the documented
evaluation of that config; the classes the config builds are the method's steps and are
masked. The repository is built with git in tmp_path and mined for real."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import committed_index, recovered_setup

from expcurate.records import DesignComplexity, TaskDraft
from extractors.agent.arms import Arm
from extractors.agent.config_runs import ConfigFiles, arm_words
from extractors.agent.steps import StepTracer
from extractors.repo import RepoSearch

README = """# FooSeg

## Training

```bash
./tools/dist_train.sh /path/to/config 8
```

## Evaluation

```bash
./tools/dist_test.sh /path/to/config /path/to/checkpoint_file 8 --eval mIoU
```

## FLOPs

```bash
python tools/get_flops.py /path/to/config --shape 512 512
```
"""

TRAIN = '''"""Train a segmentor from a config file."""
import argparse

from fooseg.apis import build_dataset, build_segmentor, train_segmentor
from fooseg.config import Config


def parse_args():
    parser = argparse.ArgumentParser(description="Train a segmentor")
    parser.add_argument("config", help="train config file path")
    parser.add_argument("--work-dir", help="the dir to save logs and models")
    parser.add_argument("--launcher", default="none")
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = Config.fromfile(args.config)
    model = build_segmentor(cfg.model)
    model.init_weights()
    datasets = [build_dataset(cfg.data.train)]
    train_segmentor(model, datasets, cfg, validate=True)


if __name__ == "__main__":
    main()
'''

TEST = '''"""Test a segmentor."""
import argparse

from fooseg.apis import build_dataset, build_segmentor, single_gpu_test
from fooseg.config import Config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("checkpoint")
    parser.add_argument("--eval", nargs="+")
    parser.add_argument("--launcher", default="none")
    args = parser.parse_args()
    cfg = Config.fromfile(args.config)
    dataset = build_dataset(cfg.data.test)
    model = build_segmentor(cfg.model)
    outputs = single_gpu_test(model, dataset)
    print(dataset.evaluate(outputs, args.eval))


if __name__ == "__main__":
    main()
'''

FLOPS = """import argparse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config")
    parser.add_argument("--shape", nargs="+", type=int)
    args = parser.parse_args()
    model = dict(config=args.config)
    flops, params = len(model), len(args.shape)
    print("GFLOPs", flops, "params", params)


if __name__ == "__main__":
    main()
"""

DIST_TRAIN = """CONFIG=$1
GPUS=$2
python -m torch.distributed.launch --nproc_per_node=$GPUS $(dirname "$0")/train.py $CONFIG --launcher pytorch
"""

DIST_TEST = """CONFIG=$1
CHECKPOINT=$2
GPUS=$3
python -m torch.distributed.launch --nproc_per_node=$GPUS $(dirname "$0")/test.py $CONFIG $CHECKPOINT --launcher pytorch ${@:4}
"""

BACKBONE = (
    '''import torch.nn as nn


class FooNet(nn.Module):
    """The multi-scale convolutional attention backbone."""

    def __init__(self, depths=(2, 2, 4, 2), dims=(32, 64, 160, 256)):
        super().__init__()
        self.stages = nn.ModuleList()
        for depth, dim in zip(depths, dims):
            self.stages.append(nn.Sequential(*[nn.Conv2d(dim, dim, 3) for _ in range(depth)]))
'''
    + "".join(f"        self.extra{i} = nn.Identity()\n" for i in range(40))
    + """
    def forward(self, x):
        outs = []
        for stage in self.stages:
            x = stage(x)
            outs.append(x)
        return outs
"""
)

HEAD = '''import torch.nn as nn


class BarHead(nn.Module):
    """A light decoder with matrix decomposition."""

    def __init__(self, channels=256):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1)

    def forward(self, inputs):
        return self.conv(inputs[-1])
'''

BASE_MODEL = """model = dict(
    type='EncoderDecoder',
    backbone=dict(type='FooNet', depths=(2, 2, 4, 2)),
    decode_head=dict(type='BarHead', channels=256),
)
"""


def _dataset(name: str) -> str:
    return f"""dataset_type = '{name}Dataset'
data = dict(
    samples_per_gpu=4,
    train=dict(type=dataset_type, data_root='data/{name.lower()}', split='train'),
    val=dict(type=dataset_type, data_root='data/{name.lower()}', split='val'),
    test=dict(type=dataset_type, data_root='data/{name.lower()}', split='val'),
)
"""


def _config(size: str, data: str, depths: str) -> str:
    return f"""_base_ = [
    '../_base_/models/foonet.py',
    '../_base_/datasets/{data}.py',
]
model = dict(
    backbone=dict(depths={depths}, init_cfg=dict(checkpoint='pretrained/foonet_{size}.pth')),
    decode_head=dict(channels=256),
)
data = dict(samples_per_gpu=8)
optimizer = dict(
    type='AdamW',
    lr=0.00006,
    weight_decay=0.01,
)
"""


FILES = {
    "README.md": README,
    "tools/train.py": TRAIN,
    "tools/test.py": TEST,
    "tools/get_flops.py": FLOPS,
    "tools/dist_train.sh": DIST_TRAIN,
    "tools/dist_test.sh": DIST_TEST,
    "fooseg/__init__.py": "",
    "fooseg/models/backbones/foonet.py": BACKBONE,
    "fooseg/models/heads/bar_head.py": HEAD,
    "configs/_base_/models/foonet.py": BASE_MODEL,
    "configs/_base_/datasets/ade20k.py": _dataset("ADE20K"),
    "configs/_base_/datasets/cityscapes.py": _dataset("Cityscapes"),
    "configs/foonet/foonet.tiny.512x512.ade.160k.py": _config("tiny", "ade20k", "(2, 2, 4, 2)"),
    "configs/foonet/foonet.tiny.1024x1024.city.160k.py": _config(
        "tiny", "cityscapes", "(2, 2, 4, 2)"
    ),
    "configs/foonet/foonet.small.512x512.ade.160k.py": _config("small", "ade20k", "(2, 2, 8, 2)"),
    "configs/foonet/foonet.small.1024x1024.city.160k.py": _config(
        "small", "cityscapes", "(2, 2, 8, 2)"
    ),
}


def _task(arms: list[str], metrics: list[str], setting: str = "ADE20K") -> TaskDraft:
    return TaskDraft(
        key="table-2:factor",
        question=(
            f"How does FooNet-T compare with FooNet-S on {', '.join(metrics)} "
            f"for semantic segmentation on {setting}?"
        ),
        design_complexity=DesignComplexity(
            constant_variables={"setting": setting},
            independent_variables={"model size": arms},
            dependent_variables={"metrics": metrics},
        ),
    )


def test_arm_words_read_model_sizes_and_split_names() -> None:
    assert arm_words("FooNet-T") == ["foonet", "tiny"]
    assert arm_words("MogaNet-XT") == ["moganet", "xtiny"]
    assert arm_words("Mask R-CNN") == ["mask", "rcnn"]
    assert arm_words("FooNet-B w/ Ham") == ["foonet", "base", "ham"]
    assert arm_words("MiT-B0") == ["mit", "b0"]


def test_each_arm_runs_the_documented_command_with_its_config_then_its_evaluation(
    tmp_path: Path,
) -> None:
    setup = recovered_setup(tmp_path, FILES, _task(["FooNet-T", "FooNet-S"], ["mIoU"]))
    usage = setup.usage_instructions
    tiny = "configs/foonet/foonet.tiny.512x512.ade.160k.py"
    small = "configs/foonet/foonet.small.512x512.ade.160k.py"
    # the README's recipe with the arm's config in the config's place, on the fixed ADE20K
    assert f"Run FooNet-T: `./tools/dist_train.sh {tiny} 8`" in usage
    assert f"Run FooNet-S: `./tools/dist_train.sh {small} 8`" in usage
    assert f"then evaluate it: `./tools/dist_test.sh {tiny} /path/to/checkpoint_file 8" in usage
    assert "city" not in usage
    assert "no launch script, option or in-code switch" not in usage
    assert setup.source[0] == "tools/train.py"
    assert tiny in setup.source
    # the config's model and the classes it builds are steps, and masked
    steps = "\n".join(setup.requirements)
    assert f"Set the model in foonet.tiny.512x512.ade.160k.py ({tiny}:5-8)" in steps
    assert "Compute the backbone FooNet's forward pass (fooseg/models/backbones/foonet.py:" in steps
    assert "Define the decode head BarHead (fooseg/models/heads/bar_head.py:4-" in steps
    assert "Set the data sets and their pipeline (configs/_base_/datasets/ade20k.py:2-7)" in steps
    assert f"Set the optimizer ({tiny}:10-14)" in steps
    # the training program's own steps, then the evaluation's, which ends the steps
    assert "(tools/train.py:" in steps
    assert "(tools/test.py:" in setup.requirements[-1]
    assert "fooseg/models/backbones/foonet.py" in setup.masked_source
    assert "fooseg/models/heads/bar_head.py" in setup.masked_source


def test_an_arm_whose_config_the_readme_runs_takes_that_command_whole(tmp_path: Path) -> None:
    """A README running each config with options of its own (`--work-dir work/small`): each
    run took the first documented command, written for the tiny config, with its config
    swapped in and its output folder renamed apart (`work/tiny_foonet_s`). A documented
    command naming the arm's own config is that arm's run, its other options as written."""
    tiny = "configs/foonet/foonet.tiny.512x512.ade.160k.py"
    small = "configs/foonet/foonet.small.512x512.ade.160k.py"
    readme = README.replace(
        "./tools/dist_train.sh /path/to/config 8\n",
        f"python tools/train.py {tiny} --work-dir work/tiny\n"
        f"python tools/train.py ./{small} --work-dir work/small\n",
    )
    setup = recovered_setup(
        tmp_path, FILES | {"README.md": readme}, _task(["FooNet-T", "FooNet-S"], ["mIoU"])
    )
    usage = setup.usage_instructions
    assert f"Run FooNet-T: `python tools/train.py {tiny} --work-dir work/tiny`" in usage, usage
    assert f"Run FooNet-S: `python tools/train.py {small} --work-dir work/small`" in usage, usage


def test_the_fixed_data_set_chooses_the_config(tmp_path: Path) -> None:
    setup = recovered_setup(
        tmp_path, FILES, _task(["FooNet-T", "FooNet-S"], ["mIoU"], setting="Cityscapes")
    )
    assert "configs/foonet/foonet.tiny.1024x1024.city.160k.py 8`" in setup.usage_instructions
    assert "ade" not in setup.usage_instructions


def test_arms_one_config_cannot_tell_apart_are_left_to_the_reviewer(tmp_path: Path) -> None:
    index = committed_index(tmp_path, FILES)
    search = RepoSearch(tmp_path, index)
    files = ConfigFiles(index, search, StepTracer(index, search))
    arms = [Arm("decoder", v, frozenset()) for v in ("FooNet-T (a)", "FooNet-T (b)", "FooNet-S")]
    found = files.configs_for("tools/train.py", arms, ["ade20k"])
    assert found == {2: "configs/foonet/foonet.small.512x512.ade.160k.py"}
    # an arm the repository has no config of finds none: `w/o` is no file's word
    assert files.config_for("tools/train.py", Arm("x", "w/o FooNet", frozenset()), []) is None
    # the one config they share is each one's starting point
    tiny = "configs/foonet/foonet.tiny.512x512.ade.160k.py"
    assert files.shared_configs("tools/train.py", arms, ["ade20k"]) == {tiny: [0, 1]}
    # two methods one file happens to match share no starting point
    rivals = [Arm("method", v, frozenset()) for v in ("FooNet-T", "FooNetX-T", "FooNet-S")]
    assert files.shared_configs("tools/train.py", rivals, ["ade20k"]) == {}


def test_arms_sharing_one_config_run_it_once_as_where_each_starts(tmp_path: Path) -> None:
    task = _task(["FooNet-T (a)", "FooNet-T (b)", "FooNet-S"], ["mIoU"])
    setup = recovered_setup(tmp_path, FILES, task)
    usage = setup.usage_instructions
    tiny = "configs/foonet/foonet.tiny.512x512.ade.160k.py"
    assert f"Run FooNet-T (a), FooNet-T (b): `./tools/dist_train.sh {tiny} 8`" in usage, usage
    assert (
        "the repository has this one config for FooNet-T (a), FooNet-T (b): start each from it"
    ) in usage, usage
    assert "no launch script, option or in-code switch" not in usage, usage


def test_a_cost_counter_gives_way_to_training_unless_the_task_measures_costs(
    tmp_path: Path,
) -> None:
    index = committed_index(tmp_path, FILES)
    search = RepoSearch(tmp_path, index)
    files = ConfigFiles(index, search, StepTracer(index, search))
    assert files.program("tools/get_flops.py", ["mIoU", "GFLOPs"]) == "tools/train.py"
    assert files.program("tools/get_flops.py", ["GFLOPs", "Params (M)"]) == "tools/get_flops.py"
    assert files.program("tools/dist_train.sh", ["mIoU"]) == "tools/train.py"
    assert files.program(None, ["mIoU"]) == "tools/train.py"
    # a program that takes no config is not one
    assert files.program("fooseg/models/heads/bar_head.py", ["mIoU"]) is None


CLASSIFY = '''"""Train FooNet-T and FooNet-S image classifiers: semantic features, segmentation-ready
backbones compared on mIoU-style scores; FooNet-T, FooNet-S, FooNet, ADE20K-free."""
import torch


def train_classifier(model_size):
    """Train a FooNet classifier of this model size."""
    return torch.zeros(model_size)


if __name__ == "__main__":
    train_classifier(1)
'''


def test_a_documented_config_trainer_outranks_an_entry_point_reading_no_config(
    tmp_path: Path,
) -> None:
    # the best word match is a program of another experiment that takes no config; the
    # README's training program has a config for each arm on the data set held fixed
    files = {**FILES, "classify.py": CLASSIFY}
    setup = recovered_setup(tmp_path, files, _task(["FooNet-T", "FooNet-S"], ["mIoU"]))
    tiny = "configs/foonet/foonet.tiny.512x512.ade.160k.py"
    assert f"Run FooNet-T: `./tools/dist_train.sh {tiny} 8`" in setup.usage_instructions
    assert setup.source[0] == "tools/train.py"
    # with no config naming the data set the task holds, the entry point stays
    other = recovered_setup(
        tmp_path / "other", files, _task(["FooNet-T", "FooNet-S"], ["mIoU"], setting="COCO")
    )
    assert "dist_train.sh" not in other.usage_instructions


def test_zoo_configs_name_backbones_by_depth_and_data_sets_by_split() -> None:
    from extractors.agent.config_runs import _dated, _same

    assert _same("resnet101", "r101") and _same("resnet50", "r50")
    assert not _same("resnet101", "r50") and not _same("hrnet18", "r18")
    assert _same("bisenet", "bisenetv1") and not _same("bisenet", "bisenetv2")
    assert _dated("voc", "voc12aug") and not _dated("mask", "mask2former")


def test_a_baselines_zoo_config_on_the_tasks_data_runs_it_and_one_elsewhere_says_so(
    tmp_path: Path,
) -> None:
    zoo = {
        "configs/danet/danet_r101-d8_512x512_20k_voc12aug.py": _config("r101", "ade20k", "()"),
        "configs/danet/danet_r101-d8_512x1024_40k_cityscapes.py": _config(
            "r101", "cityscapes", "()"
        ),
        "configs/emanet/emanet_r101-d8_512x1024_80k_cityscapes.py": _config(
            "r101", "cityscapes", "()"
        ),
    }
    task = _task(["DANet / ResNet101", "EMANet / ResNet101"], ["mIoU"], setting="Pascal VOC")
    usage = recovered_setup(tmp_path, {**FILES, **zoo}, task).usage_instructions
    danet = "configs/danet/danet_r101-d8_512x512_20k_voc12aug.py"
    emanet = "configs/emanet/emanet_r101-d8_512x1024_80k_cityscapes.py"
    assert f"Run DANet / ResNet101: `./tools/dist_train.sh {danet} 8`" in usage, usage
    assert f"Run EMANet / ResNet101: `./tools/dist_train.sh {emanet} 8`" in usage, usage
    emanet_line = next(line for line in usage.splitlines() if "Run EMANet" in line)
    assert "its config trains on other data than Pascal VOC" in emanet_line, emanet_line
    danet_line = next(line for line in usage.splitlines() if "Run DANet" in line)
    assert "other data" not in danet_line, danet_line


def test_a_config_loading_weights_the_repository_lacks_says_to_fetch_them(tmp_path: Path) -> None:
    """`init_cfg=dict(checkpoint='pretrained/foonet_tiny.pth')`: the run stops where it loads
    them unless they are downloaded first; weights the repository has need no word."""
    files = {**FILES, "pretrained/foonet_small.pth": "weights"}
    usage = recovered_setup(
        tmp_path, files, _task(["FooNet-T", "FooNet-S"], ["mIoU"])
    ).usage_instructions
    tiny = next(line for line in usage.splitlines() if "Run FooNet-T:" in line)
    small = next(line for line in usage.splitlines() if "Run FooNet-S:" in line)
    assert (
        "foonet.tiny.512x512.ade.160k.py loads pretrained/foonet_tiny.pth, which the repository "
        "does not have: download those pretrained weights there first"
    ) in tiny, usage
    assert "download" not in small, usage


def test_the_input_size_a_caption_gives_chooses_among_the_data_sets_configs(
    tmp_path: Path,
) -> None:
    """No data set named, but "FLOPs are calculated using the input size of 512×512": of the
    tiny model's configs, the one at 512x512, not the Cityscapes one at 1024x1024."""
    from extractors.agent.config_runs import _same

    assert _same("512", "512x512") and _same("1024", "512x1024")
    assert not _same("512", "1024x1024") and not _same("51", "512x512")
    task = _task(["FooNet-T", "FooNet-S"], ["mIoU"], setting="")
    task.design_complexity.constant_variables = {}
    task.question = (
        "How does FooNet-T compare with FooNet-S on mIoU? FLOPs are calculated using the input "
        "size of 512×512."
    )
    usage = recovered_setup(tmp_path, FILES, task).usage_instructions
    assert "foonet.tiny.512x512.ade.160k.py" in usage, usage
    assert "1024x1024" not in usage, usage


def test_a_table_reporting_flops_beside_its_scores_says_to_count_them(tmp_path: Path) -> None:
    """mIoU beside GFLOPs and Params: the runs train and evaluate, and the repository's
    documented FLOPs counter, which no run runs, counts the rest, on each run's config in
    the place its documented command leaves open (`/path/to/config`)."""
    task = _task(["FooNet-T", "FooNet-S"], ["mIoU", "GFLOPs", "Params (M)"])
    setup = recovered_setup(tmp_path / "c", FILES, task)
    usage = setup.usage_instructions
    assert "Run FooNet-T: `./tools/dist_train.sh" in usage, usage
    # and a step cites where the counter counts: in the function its main block calls,
    # from what names a count on, past the arguments and the model it builds
    assert any(
        s.endswith(
            "Count GFLOPs and Params (M) with the repository's counter (tools/get_flops.py:10-11)"
        )
        for s in setup.requirements
    ), setup.requirements
    assert (
        "Count the cost the task reports with the repository's counter, on each run's config: "
        "`python tools/get_flops.py configs/foonet/foonet.tiny.512x512.ade.160k.py --shape 512 "
        "512`, `python tools/get_flops.py configs/foonet/foonet.small.512x512.ade.160k.py "
        "--shape 512 512`."
    ) in usage, usage
    # no run with a config of its own: the documented command, its place left to fill
    task = _task(["w/ Gate", "w/o Gate"], ["mIoU", "GFLOPs"])
    usage = recovered_setup(tmp_path / "g", FILES, task).usage_instructions
    assert (
        "for each run's config or model: `python tools/get_flops.py /path/to/config --shape 512 "
        "512`."
    ) in usage, usage
    setup = recovered_setup(tmp_path / "s", FILES, _task(["FooNet-T"], ["mIoU"]))
    assert "get_flops" not in setup.usage_instructions, setup.usage_instructions
    assert not any("get_flops" in s for s in setup.requirements), setup.requirements


MIT = '''import torch.nn as nn


class MixVisionTransformer(nn.Module):
    """A hierarchical transformer backbone."""

    def __init__(self, embed_dims=64):
        super().__init__()
        self.proj = nn.Linear(embed_dims, embed_dims)

    def forward(self, x):
        return [self.proj(x)]
'''

SEGFORMER = """_base_ = ['../_base_/datasets/ade20k.py']
model = dict(
    type='EncoderDecoder',
    backbone=dict(type='MixVisionTransformer', embed_dims=64),
    decode_head=dict(type='BarHead', channels=256),
)
optimizer = dict(type='AdamW', lr=0.00006)
"""


def test_the_method_the_question_asks_about_leads_and_the_framework_builds_are_no_steps(
    tmp_path: Path,
) -> None:
    """The drafted arms list the baseline first, but the question asks how FooNet-T compares:
    FooNet's config and classes lead, the baseline's backbone follows, and the training and
    test programs' `build_segmentor(cfg.model)`, `build_dataset(cfg.data.train)` lines,
    which only build what the configs set, are no steps."""
    files = {
        **FILES,
        "fooseg/models/backbones/mit.py": MIT,
        "configs/segformer/segformer_mit-b2_512x512_160k_ade20k.py": SEGFORMER,
    }
    task = _task(["Segformer-B2", "FooNet-T"], ["mIoU"])
    task.question = "How does FooNet-T compare with Segformer-B2 on mIoU on ADE20K?"
    setup = recovered_setup(tmp_path, files, task)
    steps = "\n".join(setup.requirements)
    assert "Segformer-B2: `./tools/dist_train.sh configs/segformer/" in setup.usage_instructions
    ours = steps.index("Compute the backbone FooNet's forward pass")
    theirs = steps.index(
        "Define the backbone MixVisionTransformer: a hierarchical transformer backbone "
        "(fooseg/models/backbones/mit.py:"
    )
    assert ours < theirs, steps
    assert steps.index("Set the model in foonet.tiny") < steps.index("Set the model in segformer")
    assert "Build" not in steps, steps
    assert "(tools/test.py:" in setup.requirements[-1], steps


def _building_bar() -> dict[str, str]:
    """The repository with each size's config building its decode head by type itself."""
    files = dict(FILES)
    for path in list(files):
        if path.startswith("configs/foonet/"):
            files[path] = files[path].replace(
                "decode_head=dict(channels=256)", "decode_head=dict(type='BarHead', channels=256)"
            )
    return files


def test_the_arm_every_runs_config_builds_by_name_is_what_the_runs_run(tmp_path: Path) -> None:
    """ "w/ Bar" beside "w/ Qux", which no option, script or config path selects: every size's
    config builds `decode_head=dict(type='BarHead')`, so the runs are "w/ Bar" and only
    "w/ Qux" is left to write. Where the configs build neither, both are left."""
    files = _building_bar()
    task = TaskDraft(
        key="table-2:factor",
        question="How does w/ Bar compare with w/ Qux on mIoU within FooNet-T and FooNet-S on ADE20K?",
        design_complexity=DesignComplexity(
            constant_variables={"setting": "ADE20K"},
            independent_variables={
                "model size": ["FooNet-T", "FooNet-S"],
                "decoder head": ["w/ Bar", "w/ Qux"],
            },
            dependent_variables={"metrics": ["mIoU"]},
        ),
    )
    usage = recovered_setup(tmp_path / "b", files, task).usage_instructions
    assert "its config builds BarHead: that is w/ Bar" in usage, usage
    assert "Run FooNet-T, w/ Bar: `./tools/dist_train.sh configs/foonet/foonet.tiny" in usage
    assert "Run w/ Qux: no launch script" in usage, usage
    assert "Run w/ Bar: no launch script" not in usage, usage
    usage = recovered_setup(tmp_path / "n", FILES, task).usage_instructions  # type in the base
    assert "Run w/ Bar: no launch script" in usage and "builds" not in usage, usage


QUX_HEAD = '''import torch.nn as nn


class QuxHead(nn.Module):
    """A non-local decoder."""

    def __init__(self, channels=256):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3)

    def forward(self, inputs):
        x = inputs[-1]
        y = self.conv(x)
        return y + x
'''


def test_arms_adding_parts_to_one_model_start_from_its_config(tmp_path: Path) -> None:
    """ "FooNet-T w/ Bar", "FooNet-T w/ Qux" and "FooNet-T w/ Zed": no config path names an
    arm whole, but each adds a part to FooNet-T, whose ADE20K config is every run's start. The
    config builds BarHead as its decode head, so it is "w/ Bar" as it stands; "w/ Qux" starts
    from it with the repository's QuxHead in that place, which is a step; "w/ Zed" names no
    class the repository has."""
    files = _building_bar()
    files["fooseg/models/heads/qux_head.py"] = QUX_HEAD
    task = TaskDraft(
        key="table-5:best",
        question="Which decoder head is best on ADE20K (mIoU)?",
        design_complexity=DesignComplexity(
            constant_variables={"setting": "ADE20K"},
            independent_variables={
                "setting": ["FooNet-T w/ Qux", "FooNet-T w/ Zed", "FooNet-T w/ Bar"]
            },
            dependent_variables={"metrics": ["mIoU"]},
        ),
    )
    setup = recovered_setup(tmp_path / "h", files, task)
    usage = setup.usage_instructions
    assert (
        "Run FooNet-T w/ Qux, FooNet-T w/ Zed, FooNet-T w/ Bar: `./tools/dist_train.sh "
        "configs/foonet/foonet.tiny.512x512.ade.160k.py 8`"
    ) in usage, usage
    assert (
        "foonet.tiny.512x512.ade.160k.py builds BarHead as its decode_head: that is FooNet-T w/ "
        "Bar; start the others from it with its decode_head replaced: FooNet-T w/ Qux by QuxHead "
        "(fooseg/models/heads/qux_head.py); FooNet-T w/ Zed by the decode_head it names"
    ) in usage, usage
    assert "no launch script" not in usage, usage
    assert any(
        r.startswith("Step")
        and "FooNet-T w/ Qux's decode_head (QuxHead)" in r
        and r.endswith("(fooseg/models/heads/qux_head.py:11-14)")
        for r in setup.requirements
    ), setup.requirements


def test_an_evaluation_block_no_run_takes_is_read_from_the_runs_options(tmp_path: Path) -> None:
    """`if args.format_only or on_format:` where `on_format = (args.eval is not None and
    'cityscapes' in args.eval)`: runs passing `--eval mIoU` take it for none of them; a run
    passing `--eval cityscapes` or `--format-only` does; a test it cannot read keeps it."""
    from extractors.agent.run import Run
    from extractors.agent.step_filters import StepFilters
    from extractors.agent.steps import Step

    program = (
        "import argparse\n\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('config')\n"
        "parser.add_argument('--eval', type=str, nargs='+')\n"
        "parser.add_argument('--format-only', action='store_true')\n"
        "args = parser.parse_args()\n"
        "on_format = (args.eval is not None and 'cityscapes' in args.eval)\n"
        "if args.format_only or on_format:\n    tmpdir = '.format'\n"
        "if len(args.config) > 3:\n    tmpdir = 'long'\n"
    )
    index = committed_index(tmp_path, {"tools/test.py": program})
    search = RepoSearch(tmp_path, index)
    filters = StepFilters(
        search, StepTracer(index, search), {e.path: e for e in index.entry_points}
    )
    block = Step("If args.format_only or on_format: set tmpdir", "tools/test.py", 9, 10)
    unread = Step("If len(args.config) > 3: set tmpdir", "tools/test.py", 11, 12)

    def runs(*flags: str) -> list[Run]:
        return [Run(f"python tools/test.py c.py {f}") for f in flags]

    assert filters.not_taken(block, "tools/test.py", runs("--eval mIoU", "--eval mDice"))
    assert not filters.not_taken(block, "tools/test.py", runs("--eval mIoU", "--eval cityscapes"))
    assert not filters.not_taken(block, "tools/test.py", runs("--format-only"))
    assert not filters.not_taken(unread, "tools/test.py", runs("--eval mIoU"))


def test_a_flag_the_launch_script_sets_decides_the_branch_it_guards(tmp_path: Path) -> None:
    """`dist_test.sh` passes the program `--launcher pytorch` itself, so `distributed` is
    True for its runs (set on both sides of `if args.launcher == 'none':`), and the
    single-GPU test under `if not distributed:` is a line no run reaches; a run of the
    program bare takes it."""
    from extractors.agent.run import Run
    from extractors.agent.step_filters import StepFilters

    program = (
        "import argparse\n\nparser = argparse.ArgumentParser()\n"  # 1-3
        "parser.add_argument('config')\n"
        "parser.add_argument('--launcher', default='none')\n"  # 5
        "args = parser.parse_args()\n"
        "if args.launcher == 'none':\n"
        "    distributed = False\n"
        "else:\n"
        "    distributed = True\n"  # 10
        "if not distributed:\n"
        "    outputs = single_gpu_test(args.config)\n"
        "else:\n"
        "    outputs = multi_gpu_test(args.config)\n"
    )
    wrapper = (
        "CONFIG=$1\nGPUS=$2\npython -m torch.distributed.launch --nproc_per_node=$GPUS \\\n"
        '    $(dirname "$0")/test.py $CONFIG --launcher pytorch ${@:3}\n'
    )
    index = committed_index(tmp_path, {"tools/test.py": program, "tools/dist_test.sh": wrapper})
    search = RepoSearch(tmp_path, index)
    filters = StepFilters(
        search, StepTracer(index, search), {e.path: e for e in index.entry_points}
    )
    wrapped = [Run("python tools/train.py c.py", then="./tools/dist_test.sh c.py 8")]
    assert (12, 12) in filters.untaken("tools/test.py", wrapped)
    assert (14, 14) not in filters.untaken("tools/test.py", wrapped)
    bare = [Run("python tools/train.py c.py", then="python tools/test.py c.py")]
    assert (14, 14) in filters.untaken("tools/test.py", bare)


# a training function longer than a step: its hooks registered one by one, then the run
_HOOKS = "".join(f'    runner.register_hook(cfg.hook_{k}, priority="LOW")\n' for k in range(32))
APIS_TRAIN = (
    '"""Train a segmentor with the framework\'s runner."""\n\n\n'
    "def train_segmentor(model, datasets, cfg, validate=False):\n"
    '    """Launch segmentor training."""\n'
    "    runner = cfg.runner_type(model, cfg.optimizer, cfg.work_dir)\n"
    "    runner.register_lr_hook(cfg.lr_config)\n"
    + _HOOKS
    + '    for hook_cfg in cfg.get("custom_hooks", []):\n'
    "        hook = dict(hook_cfg)\n"
    '        priority = hook.pop("priority", "NORMAL")\n'
    "        runner.register_hook(hook, priority=priority)\n"
    "    if validate:\n"
    "        runner.register_hook(cfg.evaluation)\n"
    "    runner.run(datasets, cfg.workflow)\n"
)


def test_a_config_programs_training_is_the_frameworks_function_it_hands_the_run_to(
    tmp_path: Path,
) -> None:
    """`tools/train.py` hands its run to `train_segmentor` (from the framework's `apis`
    package): the training step is that function, cited where it starts the runner, not its
    loop registering hooks."""
    files = {
        **FILES,
        "fooseg/apis/__init__.py": "from .train import train_segmentor\n",
        "fooseg/apis/train.py": APIS_TRAIN,
    }
    setup = recovered_setup(tmp_path, files, _task(["FooNet-T", "FooNet-S"], ["mIoU"]))
    steps = "\n".join(setup.requirements)
    assert "Train (train_segmentor): Launch segmentor training (fooseg/apis/train.py:46)" in steps


RUNNER = '''"""Run every solver the assignment lists on every task it lists."""
import argparse

import yaml


def run(config):
    for assignment in config["assignments"]:
        for solver in assignment["solver"]:
            print("success rate of", solver)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/runs/default.yaml")
    args = parser.parse_args()
    run(yaml.safe_load(open(args.config)))
'''

ASSIGNMENT = """import: definition.yaml
concurrency:
  solver:
    base-7b: 2
assignments:
  - solver:
      - base-7b
    task:
      - maze
"""

SOLVERS = """default:
  module: solvers.Chat
base-7b:
  parameters:
    size: 7
tuned-13b:
  parameters:
    size: 13
"""


def test_an_arm_a_registry_defines_runs_with_the_config_list_set_to_its_entry(
    tmp_path: Path,
) -> None:
    files = {
        "src/runner.py": RUNNER,
        "configs/runs/default.yaml": ASSIGNMENT,
        "configs/runs/definition.yaml": "solver:\n  import: ../solvers/chat.yaml\n",
        "configs/solvers/chat.yaml": SOLVERS,
        "configs/tasks/maze.yaml": "maze:\n  module: tasks.Maze\n",
        "README.md": "# Solvers\n\nRun the assigned solvers on the maze tasks and report the "
        "success rate:\n\n    python src/runner.py\n",
    }
    task = TaskDraft(
        key="table-3:compare",
        question="Does the tuned-13b solver reach a higher success rate on the maze tasks "
        "than huge-70b?",
        method="Run each solver on the maze tasks and compare the success rate.",
        expected_outcome="tuned-13b is better.",
        design_complexity=DesignComplexity(
            independent_variables={"solver": ["tuned-13b", "huge-70b"]},
            dependent_variables={"metrics": ["success rate"]},
        ),
    )
    setup = recovered_setup(tmp_path / "reg", files, task)
    usage = setup.usage_instructions
    assert (
        "Run tuned-13b: `python src/runner.py` (set assignments.0.solver in "
        "configs/runs/default.yaml to [tuned-13b] first (its entry: "
        "configs/solvers/chat.yaml:6-8))"
    ) in usage, usage
    # a solver of the same kind the folder does not define: added as its sibling is
    assert (
        "Run huge-70b: `python src/runner.py` (configs/solvers/ defines no huge-70b: add its "
        "entry to configs/solvers/chat.yaml, written as tuned-13b's is (lines 6-8), then set "
        "assignments.0.solver in configs/runs/default.yaml to [huge-70b] first)"
    ) in usage, usage
    # the default list's run served only as their base
    assert "Run the default configuration" not in usage, usage
    steps = "\n".join(setup.requirements)
    assert "Define the tuned-13b entry (configs/solvers/chat.yaml:6-8)" in steps, steps
    # the list under `assignments`, not the same name under `concurrency`
    assert "List the solver entries to run (configs/runs/default.yaml:6-7)" in steps, steps


def test_a_baselines_own_classes_are_not_masked_beside_the_methods(tmp_path: Path) -> None:
    # the README is titled after the method (FooNet); DANet's config, which the question
    # names first, builds a head of its own: the baseline's code, not the method's, visible
    # while the configs stay masked
    da_head = HEAD.replace("BarHead", "DAHead").replace("matrix decomposition", "dual attention")
    danet = "configs/danet/danet_r101-d8_512x512_20k_ade.py"
    files = {
        **FILES,
        "README.md": README.replace("# FooSeg", "# FooNet: attention for segmentation"),
        "fooseg/models/heads/da_head.py": da_head,
        "configs/_base_/models/danet.py": BASE_MODEL.replace("BarHead", "DAHead"),
        danet: _config("r101", "ade20k", "()").replace("models/foonet.py", "models/danet.py"),
    }
    task = _task(["DANet", "FooNet-T"], ["mIoU"])
    task.question = "How does DANet compare with FooNet-T on mIoU for semantic segmentation?"
    setup = recovered_setup(tmp_path, files, task)
    usage = setup.usage_instructions
    assert f"Run DANet: `./tools/dist_train.sh {danet} 8`" in usage, usage
    assert "fooseg/models/backbones/foonet.py" in setup.masked_source, setup.masked_source
    assert danet in setup.masked_source, setup.masked_source
    assert "fooseg/models/heads/da_head.py" not in setup.masked_source, setup.masked_source


def test_the_own_method_written_with_its_encoder_runs_by_its_name(tmp_path: Path) -> None:
    """ "FooNet-T / FooBone-T (Ours)": no config path names the encoder, but the method's
    name finds its config, on other data than the task's VOC (which the run says); with no
    data set held, a config on any data would pass for the task's, so none is given."""
    files = {**FILES, "configs/pspnet/pspnet_r101-d8_512x512_20k_voc12aug.py": BASE_MODEL}
    task = TaskDraft(
        key="table-10:compare",
        question="How does FooNet-T / FooBone-T (Ours) compare with PSPNet / ResNet101 on VOC?",
        design_complexity=DesignComplexity(
            constant_variables={"setting": "VOC"},
            independent_variables={"method": ["FooNet-T / FooBone-T (Ours)", "PSPNet / ResNet101"]},
            dependent_variables={"metrics": ["mIoU"]},
        ),
    )
    usage = recovered_setup(tmp_path / "v", files, task).usage_instructions
    assert "Run FooNet-T / FooBone-T (Ours): `./tools/dist_train.sh configs/foonet/" in usage, usage
    assert "its config trains on other data than VOC: adapt its data" in usage, usage
    assert "Run PSPNet / ResNet101: `./tools/dist_train.sh configs/pspnet/" in usage, usage
    task.design_complexity.constant_variables = {}
    usage = recovered_setup(tmp_path / "n", files, task).usage_instructions
    assert "configs/foonet/" not in usage, usage


def test_of_methods_one_config_matches_the_one_it_names_whole_runs_it(tmp_path: Path) -> None:
    """`configs/point_rend/pointrend_r50_...` holds PointRend's name whole, and PointFlow's
    only by the folder's `point`: PointRend runs it, PointFlow stays to write. The question
    alone names the data set (iSAID, the last word of some configs' names): a config on
    other data says so, as the question writes it."""
    zoo = {
        "configs/point_rend/pointrend_r50_512x1024_80k_cityscapes.py": _config(
            "r50", "cityscapes", "()"
        ),
        "configs/pspnet/pspnet_r50-d8_4x4_896x896_80k_isaid.py": _config("r50", "isaid", "()"),
    }
    task = TaskDraft(
        key="table-4:compare",
        question="How does FooNet-T compare with PointRend / ResNet50, PointFlow / ResNet50 and "
        "PSPNet / ResNet50 on mIoU in Table 4 (results on the remote sensing dataset iSAID)?",
        design_complexity=DesignComplexity(
            independent_variables={
                "method": ["PointRend / ResNet50", "PointFlow / ResNet50", "PSPNet / ResNet50"]
            },
            dependent_variables={"metrics": ["mIoU"]},
        ),
    )
    usage = recovered_setup(tmp_path, {**FILES, **zoo}, task).usage_instructions
    rend = "configs/point_rend/pointrend_r50_512x1024_80k_cityscapes.py"
    line = next(x for x in usage.splitlines() if "Run PointRend" in x)
    assert f"`./tools/dist_train.sh {rend} 8`" in line, usage
    assert "its config trains on other data than iSAID: adapt its data" in line, line
    psp = next(x for x in usage.splitlines() if "Run PSPNet" in x)
    assert "isaid.py" in psp and "other data" not in psp, psp
    assert rend not in next(x for x in usage.splitlines() if "PointFlow" in x), usage


def test_a_name_and_its_depth_joined_by_a_dash_are_one_word_a_path_writes_short(
    tmp_path: Path,
) -> None:
    """ "HRNet / HRNetW-18" is `fcn_hr18_...` (its name's initials and depth); a depth the
    task names is no other depth: "DeepLabV3+ / ResNeSt-269" is not the `resnest/` folder's
    ResNeSt-101 config."""
    from extractors.agent.config_runs import _same

    assert arm_words("HRNet / HRNetW-18") == ["hrnet", "hrnetw18"]
    assert arm_words("ResNet-50") == ["resnet50"]
    assert arm_words("MiT-B0") == ["mit", "b0"]
    assert _same("hrnetw18", "hr18") and _same("resnet50", "r50")
    assert not _same("resnest269", "resnest") and not _same("resnest269", "s101")
    zoo = {
        "configs/hrnet/fcn_hr18_4x4_896x896_80k_isaid.py": _config("hr18", "isaid", "()"),
        "configs/resnest/deeplabv3_s101-d8_512x512_160k_ade20k.py": _config("s101", "ade20k", "()"),
    }
    task = _task(["HRNet / HRNetW-18", "DeepLabV3+ / ResNeSt-269"], ["mIoU"], setting="iSAID")
    usage = recovered_setup(tmp_path, {**FILES, **zoo}, task).usage_instructions
    hr = "configs/hrnet/fcn_hr18_4x4_896x896_80k_isaid.py"
    assert f"Run HRNet / HRNetW-18: `./tools/dist_train.sh {hr} 8`" in usage, usage
    assert "deeplabv3_s101" not in usage, usage


def test_a_versioned_name_and_its_width_are_the_name_and_that_width(tmp_path: Path) -> None:
    """ "OCRNet / HRNetV2-W48" is `ocrnet_hr48_...`: the version goes, the width stays,
    as file names write it; HRNetV2-W18 is not the W48 config."""
    assert arm_words("OCRNet / HRNetV2-W48") == ["ocrnet", "hrnetw48"]
    zoo = {
        "configs/ocrnet/ocrnet_hr48_512x512_20k_voc12aug.py": _config("hr48", "voc12aug", "()"),
    }
    task = _task(["OCRNet / HRNetV2-W48", "OCRNet / HRNetV2-W18"], ["mIoU"], setting="Pascal VOC")
    usage = recovered_setup(tmp_path, {**FILES, **zoo}, task).usage_instructions
    hr = "configs/ocrnet/ocrnet_hr48_512x512_20k_voc12aug.py"
    assert f"Run OCRNet / HRNetV2-W48: `./tools/dist_train.sh {hr} 8`" in usage, usage
    assert f"Run OCRNet / HRNetV2-W18: `./tools/dist_train.sh {hr}" not in usage, usage


def test_the_arm_the_question_names_leads_and_the_data_is_the_tasks(tmp_path: Path) -> None:
    """SegNeXt's Table 10 names "SegNeXt-L" first; its arm reads "SegNeXt-L∗ / MSCAN-L",
    and SegNeXt-L's only config trains on COCO-Stuff, not the task's Pascal VOC. The arm
    is named by its method, its mark left out, so its config leads (its classes are the
    method's); the data step is that of the first config on the task's data."""
    from extractors.agent.plan import mentioned_at
    from extractors.agent.run import Run

    question = "Does FooNet-T perform better than FooNet-S on Cityscapes?"
    marked = Run("train", arms=[Arm("method", "FooNet-T∗ / FN-T", frozenset())])
    assert mentioned_at(marked, question) == question.index("FooNet-T")
    assert mentioned_at(Run("t", arms=[Arm("method", "T / FN-T", frozenset())]), question) == -1
    files = dict(FILES)
    del files["configs/foonet/foonet.tiny.1024x1024.city.160k.py"]
    task = _task(["FooNet-T", "FooNet-S"], ["mIoU"], setting="Cityscapes")
    task.question = question
    steps = recovered_setup(tmp_path, files, task).requirements
    data = next(s for s in steps if "Set the data sets" in s)
    assert data.endswith("(configs/_base_/datasets/cityscapes.py:2-7)"), steps
    models = [s for s in steps if s.split(": ", 1)[1].startswith("Set the model in")]
    assert models and "foonet.tiny.512x512.ade.160k.py" in models[0], steps
