"""Setups in a repository with one sub-project per kind of experiment (a backbone classified
at the root, detection/ and pose_estimation/ beside it): the question's kind of experiment
picks its sub-project, and a program that only counts a model's cost is not the experiment."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import recovered_setup

from expcurate.records import DesignComplexity, TaskDraft

CLASSIFY = (
    '"""Train the WaveNet backbone: the image classifier behind the human pose estimation,'
    ' keypoint AP, object detection and COCO results."""\n'
    "import argparse\n"
    "\n"
    "\n"
    "def train(args):\n"
    "    for epoch in range(args.epochs):\n"
    "        print('wavenet top-1 accuracy on imagenet', epoch)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--model', default='wavenet_tiny')\n"
    "    p.add_argument('--epochs', type=int, default=300)\n"
    "    p.add_argument('--data_dir', default='data/')\n"
    "    train(p.parse_args())\n"
)

DOWNSTREAM = (
    "import argparse\n"
    "\n"
    "\n"
    "def {verb}(cfg):\n"
    "    print('{what}', cfg)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('config')\n"
    "    {verb}(p.parse_args().config)\n"
)

FLOPS = (
    "import argparse\n"
    "\n"
    "\n"
    "def count(cfg):\n"
    "    print('flops of the wavenet object detection backbone on coco, as AP', cfg)\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    p = argparse.ArgumentParser()\n"
    "    p.add_argument('config')\n"
    "    count(p.parse_args().config)\n"
)

README = (
    "# WaveNet\n\nA vision backbone that improves keypoint AP in human pose estimation and AP"
    " in object detection on COCO. Train WaveNet on ImageNet and report its accuracy:\n\n```\npython train.py --model wavenet_tiny --data_dir /path/to/imagenet\n"
    "```\n\nDownstream experiments live in detection/ and pose_estimation/.\n"
)


def _files() -> dict[str, str]:
    files = {"train.py": CLASSIFY, "README.md": README}
    for folder, what, data in (
        ("detection", "object detection", "coco"),
        ("pose_estimation", "human pose estimation keypoints", "coco_keypoints"),
    ):
        files[f"{folder}/train.py"] = DOWNSTREAM.format(verb="train", what=what)
        files[f"{folder}/test.py"] = DOWNSTREAM.format(verb="test", what=what)
        files[f"{folder}/configs/wavenet_{data}.py"] = "model = dict(backbone='wavenet')\n"
        files[f"{folder}/README.md"] = (
            f"# WaveNet for {what}\n\nTrain and evaluate the wavenet backbone on COCO:\n\n```\n"
            f"cd {folder}\npython train.py configs/wavenet_{data}.py\n"
            f"python test.py configs/wavenet_{data}.py\n```\n"
        )
    files["detection/get_flops.py"] = FLOPS
    files["detection/README.md"] += (
        "\nCount the WaveNet detector's FLOPs on COCO:\n\n```\ncd detection\n"
        "python get_flops.py configs/wavenet_coco.py\n```\n"
    )
    return files


def _task(question: str) -> TaskDraft:
    return TaskDraft(
        key="table-5:wavenet",
        question=question,
        method="Train the WaveNet backbone in the task's framework on COCO and compare AP.",
        expected_outcome="WaveNet beats the baselines.",
        design_complexity=DesignComplexity(
            constant_variables={"dataset": ["COCO"]},
            dependent_variables={"metric": ["AP"]},
        ),
    )


def test_the_sub_project_the_question_names_runs_it_not_the_root_program(tmp_path: Path) -> None:
    task = _task("Does WaveNet improve keypoint AP in human pose estimation on COCO?")
    setup = recovered_setup(tmp_path / "p", _files(), task)
    assert setup.source[0].startswith("pose_estimation/"), setup.source
    usage = setup.usage_instructions
    assert "cd pose_estimation && python train.py configs/wavenet_coco_keypoints.py" in usage
    assert "--model wavenet_tiny" not in usage, usage  # the classification run is another one


def test_of_two_named_sub_projects_the_one_matching_the_task_runs(tmp_path: Path) -> None:
    """ "object detection and instance segmentation": both words name a folder here only if
    the repository has both; detection/ is the one whose files are about the task."""
    files = _files()
    files["segmentation/train.py"] = DOWNSTREAM.format(verb="train", what="semantic ade20k")
    files["segmentation/test.py"] = DOWNSTREAM.format(verb="test", what="semantic ade20k")
    files["segmentation/configs/wavenet_ade20k.py"] = "model = dict(backbone='wavenet')\n"
    files["segmentation/README.md"] = (
        "# WaveNet for semantic segmentation\n\nTrain the wavenet backbone on ADE20K:\n\n```\n"
        "cd segmentation\npython train.py configs/wavenet_ade20k.py\n```\n"
    )
    task = _task("Does WaveNet improve object detection and instance segmentation AP on COCO?")
    setup = recovered_setup(tmp_path / "d", files, task)
    assert setup.source[0] == "detection/train.py", setup.source
    # segmentation/ is about ADE20K: a folder the words name, but not this task's
    assert "segmentation/train.py" not in setup.source[:3], setup.source


def test_a_program_counting_flops_is_not_the_experiment_unless_cost_is_asked(
    tmp_path: Path,
) -> None:
    task = _task("Does WaveNet improve object detection AP on COCO?")
    setup = recovered_setup(tmp_path / "a", _files(), task)
    assert setup.source[0] == "detection/train.py", setup.source
    cost = _task("How many FLOPs does the WaveNet detector need for object detection on COCO?")
    setup = recovered_setup(tmp_path / "c", _files(), cost)
    assert setup.source[0] == "detection/get_flops.py", setup.source


def test_a_folder_any_repository_has_or_a_name_inside_a_word_names_no_sub_project(
    tmp_path: Path,
) -> None:
    """ "data" names data/ in no useful sense, and "PoseNet" is one word, naming no pose/:
    the classifier at the root still runs the ImageNet task."""
    files = _files()
    for name in (
        "data/more_data_top1.py",
        "data/more_data_beat.py",
        "pose/run_a.py",
        "pose/run_b.py",
    ):
        files[name] = DOWNSTREAM.format(verb="run", what="wavenet posenet imagenet top-1 data")
    task = _task("Does WaveNet trained with more data beat PoseNet in top-1 accuracy?")
    task.design_complexity.constant_variables = {"dataset": ["ImageNet"]}
    setup = recovered_setup(tmp_path / "g", files, task)
    assert setup.source[0] == "train.py", setup.source
    ranked = next(t.result for t in setup.trace if t.tool == "rank").split("; ")
    assert ranked[0].startswith("train.py "), ranked[:3]  # data/'s programs not above it
    assert not ranked[1].startswith("pose/"), ranked[:3]  # nor pose/'s, for "PoseNet"
