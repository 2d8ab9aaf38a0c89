"""Heuristic setup recovery on a real git repository built in tmp_path (and on data/sample)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repo_fixture import build_demo_repo

from expcurate.records import REF_RE, STEP_RE, DesignComplexity, RepoIndex, Setup, TaskDraft
from extractors.agent import (
    SetupAgent,
    build_query,
    leaked_names,
    recover_setup,
    validate_references,
)
from extractors.repo import mine_repo

SAMPLE_REPO = Path(__file__).resolve().parents[2] / "data" / "sample" / "repo"

ABLATION = TaskDraft(
    key="table-2",
    question="Does removing the gating unit (w/o Gate) hurt GateMix's top-1 accuracy on CIFAR-10?",
    method="Train GateMix on CIFAR-10 with and without the gate, lr 1e-3 for 300 epochs.",
    expected_outcome="Without the gate, top-1 accuracy drops from 91.2 to 88.7.",
)
IMAGENET = TaskDraft(
    key="table-1",
    question="How accurate is GateMix on ImageNet?",
    method="Train GateMix on ImageNet with lr 0.004 for 300 epochs and report top-1 accuracy.",
    expected_outcome="GateMix reaches 78.4 top-1 accuracy on ImageNet.",
)
UNRELATED = TaskDraft(
    key="other-paper",
    question="Does AlphaFold2's Evoformer improve protein structure prediction on CASP14?",
    method="Fold the CASP14 targets with AlphaFold2 and score them with GDT-TS and lDDT.",
    expected_outcome="Median GDT-TS above 90 on CASP14 free-modelling targets.",
)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RepoIndex]:
    base = tmp_path_factory.mktemp("agent")
    root = build_demo_repo(base / "repo", outside=base / "outside")
    return root, mine_repo(root, max_file_bytes=2000)


@pytest.fixture(scope="module")
def agent(demo) -> SetupAgent:
    root, index = demo
    return SetupAgent(index, root)


def test_query_turns_ablation_prose_into_flag_guesses_names_and_numbers() -> None:
    q = build_query(ABLATION)
    assert "--no_gate" in q.flag_guesses
    assert {"gatemix", "cifar_10"} <= set(q.names)
    assert {"0.001", "300"} <= q.numbers
    assert "91.2" not in q.numbers  # a result, not a setting
    # the number a name ends in is no setting: `10` of ImageNet-10 ranked `train_STL10.py`
    named = build_query(TaskDraft(key="t", question="Train on ImageNet-10 for 200 epochs."))
    assert named.numbers == {"200"}


def test_design_variables_labels_are_words_never_missing_names(agent: SetupAgent) -> None:
    """A drafter labels its variables in snake case ("model_config_file", "expected_outcome");
    a label the code does not use is not a missing name, so it never makes a task
    unanswerable (one the code uses, such as `use_zoom_in`, still counts for it)."""
    labelled = ABLATION.model_copy(
        update={
            "design_complexity": DesignComplexity(
                independent_variables={"gating_unit_setting": ["with gate", "w/o Gate"]},
                constant_variables={"model_config_file": "the default configuration"},
                dependent_variables={"expected_outcome_metric": ["top-1 accuracy"]},
            )
        }
    )
    q = build_query(labelled)
    assert {"model_config_file", "expected_outcome_metric", "gating_unit_setting"} <= q.keys
    setup = agent.recover(labelled)
    assert setup.no_answer == "" and setup.source


def test_ablation_task_finds_its_launch_script_and_entry_point(agent: SetupAgent) -> None:
    setup = agent.recover(ABLATION)
    assert setup.no_answer == ""
    assert setup.source[0] in {"scripts/ablate_gate.sh", "train.py"}
    assert {"scripts/ablate_gate.sh", "train.py"} <= set(setup.source[:3])
    assert not any(p.startswith(("node_modules", "leak", "data/")) for p in setup.source)


def test_imagenet_task_ranks_the_imagenet_script_first(agent: SetupAgent) -> None:
    setup = agent.recover(IMAGENET)
    # the program the runs run, then the ImageNet script that runs it; the CIFAR one after
    assert setup.source[:2] == ["train.py", "scripts/run_imagenet.sh"]
    assert next(c for c in setup.trace if c.tool == "rank").result.startswith(
        "scripts/run_imagenet.sh "
    )
    # the ImageNet launch script, with the settings it passes, not the CIFAR one
    usage = setup.usage_instructions
    assert "`bash scripts/run_imagenet.sh` (it runs train.py with --dataset imagenet" in usage
    assert "cifar" not in usage.lower()


def test_requirements_are_steps_with_references_inside_the_files(agent: SetupAgent, demo) -> None:
    root, _ = demo
    setup = agent.recover(ABLATION)
    assert setup.requirements[-1].startswith("Final Step: ")
    assert all(STEP_RE.match(r) and REF_RE.search(r) for r in setup.requirements)
    assert validate_references(setup, root) == []
    text = "\n".join(setup.requirements)
    # the options this experiment sets, not the whole parser; no boilerplate closing step
    assert "Add the options that select w/o Gate: --no_gate (train.py:13)" in text
    assert "Parse command-line arguments" not in text and "Run the experiment and" not in text
    assert "Run w/o Gate (ablate_gate.sh) with --dataset cifar10 --no_gate" in text
    assert "Build the GateMix model (gm/model.py:18-20)" in text  # from the docstring
    assert "Train the model with AdamW and a cosine schedule (train.py:18-22)" in text


def test_usage_comes_from_the_readme_or_the_launch_script(agent: SetupAgent) -> None:
    setup = agent.recover(ABLATION)
    lines = setup.usage_instructions.splitlines()
    # numbered: the ablated arm through its own script, the full model, then the comparison
    assert lines[0].startswith("1. Run w/o Gate: `bash scripts/ablate_gate.sh`")
    assert lines[1].startswith("2. Run the default configuration: `bash scripts/run_cifar.sh`")
    assert lines[-1].startswith("3. Compare top-1, accuracy of w/o Gate across the runs")


def test_masked_files_include_the_experiments_script_and_config(agent: SetupAgent) -> None:
    setup = agent.recover(ABLATION)
    assert set(setup.source) <= set(setup.masked_source)
    assert "configs/cifar.yaml" in setup.masked_source  # the one config the script names


def test_agent_instructions_name_no_masked_file(agent: SetupAgent) -> None:
    for task in (ABLATION, IMAGENET):
        setup = agent.recover(task)
        assert setup.agent_instructions
        assert leaked_names(setup.agent_instructions, setup.masked_source) == []
        for path in setup.masked_source:
            assert path not in setup.agent_instructions
            assert path.rsplit("/", 1)[-1] not in setup.agent_instructions


def test_unrelated_task_gets_no_answer_with_a_reason(agent: SetupAgent) -> None:
    setup = agent.recover(UNRELATED)
    assert setup.no_answer.startswith("no implementation found")
    assert setup.source == [] and setup.requirements == []
    assert setup.trace  # the search that led there is kept


def test_trace_records_the_tool_calls_and_respects_the_step_budget(agent: SetupAgent) -> None:
    setup = agent.recover(ABLATION)
    tools = [c.tool for c in setup.trace]
    assert tools[0] == "search" and "rank" in tools and "outline" in tools
    assert all(c.result for c in setup.trace)
    short = agent.recover(ABLATION, max_steps=2)
    assert len(short.trace) <= 2
    assert short.no_answer.startswith("step budget")


def test_same_inputs_give_the_same_setup_byte_for_byte(demo) -> None:
    root, index = demo
    first = recover_setup(ABLATION, index, root).model_dump_json()
    again = recover_setup(ABLATION, mine_repo(root, max_file_bytes=2000), root).model_dump_json()
    assert first == again


def test_validate_references_reports_each_kind_of_bad_reference(demo) -> None:
    root, _ = demo
    setup = Setup(
        source=["train.py", "missing.py"],
        masked_source=["../outside/secret.txt", "train.py"],
        requirements=[
            "Step 1: Parse arguments (train.py:9-15)",
            "Step 2: Past the end (train.py:40-400)",
            "Step 3: Not a file (gm/nothing.py:1-2)",
            "Final Step: No reference at all",
            "Do something (train.py:1)",
        ],
        agent_instructions="Rewrite train.py from scratch.",
    )
    problems = validate_references(setup, root)
    assert len(problems) == 7, problems
    joined = "\n".join(problems)
    assert "lines 40-400 of train.py" in joined
    assert "gm/nothing.py" in joined and "missing.py" in joined and "secret.txt" in joined
    assert "no (path:line) reference" in joined
    assert "does not start with 'Step k:'" in joined
    assert "masked file 'train.py'" in joined


@pytest.mark.skipif(not SAMPLE_REPO.is_dir(), reason="data/sample/repo is not present")
def test_sample_repository_ablation_task_finds_train_and_ablation_script() -> None:
    index = mine_repo(SAMPLE_REPO)
    task = TaskDraft(
        key="sample",
        question="Does removing the gate (w/o gate) hurt GateMix forecasting on Weather?",
        method="Train GateMix on Weather with and without the sigmoid gate; compare MSE and MAE.",
        expected_outcome="Without the gate the MSE rises.",
    )
    setup = recover_setup(task, index, SAMPLE_REPO)
    assert {"train.py", "scripts/run_ablation.sh"} <= set(setup.source[:3])
    assert validate_references(setup, SAMPLE_REPO) == []
    assert leaked_names(setup.agent_instructions, setup.masked_source) == []
    assert json.loads(setup.model_dump_json())["source"] == setup.source


def test_hyphenated_task_names_match_code_that_drops_the_hyphen(tmp_path: Path) -> None:
    """A task naming `2-WL` (queried as `2_wl`) is not `no_answer` when the code says `2wl`.

    Regression from the held-out check (issue 6): the index splits words at hyphens, so the
    relevance test never found such names and answered `no_answer` on the authors' own repo.
    """
    root = tmp_path / "wl"
    (root / "config" / "2wl").mkdir(parents=True)
    (root / "config" / "2wl" / "usair.yaml").write_text("lr: 0.01\nlayers: 2\n")
    (root / "config" / "1wl").mkdir(parents=True)
    (root / "config" / "1wl" / "usair.yaml").write_text("lr: 0.01\nlayers: 2\n")
    (root / "config" / "2fwl").mkdir(parents=True)
    (root / "config" / "2fwl" / "usair.yaml").write_text("lr: 0.01\nlayers: 3\n")
    (root / "train2wl.py").write_text(
        '"""Train a graph network for link prediction."""\n\nimport argparse\n\n\n'
        "def main():\n    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--pattern", default="2wl", help="2wl, 1wl or 2fwl")\n'
        '    print(p.parse_args())\n\n\nif __name__ == "__main__":\n    main()\n'
    )
    task = TaskDraft(
        key="t",
        question="Does 2-WL outperform 1-WL and 2-FWL for link prediction, measured by AUC?",
        method="Train 2-WL, 1-WL and 2-FWL variants and compare their AUC.",
        expected_outcome="2-WL reaches a higher AUC than 1-WL.",
    )
    setup = SetupAgent(mine_repo(root), root).recover(task)
    assert setup.no_answer == ""
    assert setup.source and setup.source[0].endswith((".py", ".yaml"))


def _comparison(methods: list[str]) -> TaskDraft:
    others = ", ".join(methods[1:])
    return TaskDraft(
        key="table-3:compare",
        question=f"Does {methods[0]} outperform {others} on CIFAR-10?",
        method=f"Train and evaluate {methods[0]} and the compared methods ({others}).",
        expected_outcome=f"{methods[0]} reaches 91.2 top-1 accuracy against 89.4 and 88.1.",
        design_complexity={"independent_variables": {"method": methods}},
    )


def test_baselines_missing_from_the_repository_do_not_make_a_comparison_unanswerable(
    agent: SetupAgent,
) -> None:
    """The authors' repository holds their method, not the baselines it is compared with: once
    one alternative is found, the absent ones do not count; when none is, they count once."""
    ours = agent.recover(_comparison(["GateMix", "ViTNet5", "ResMLP9", "ConvNeXt7", "DeiT3"]))
    assert not ours.no_answer and ours.source
    q = build_query(_comparison(["GateMix", "ViTNet5"]))
    assert q.alternatives == [["gatemix", "vitnet5"]]
    theirs = agent.recover(
        _comparison(["AlphaFold2", "RoseTTAFold3", "ESMFold4", "OmegaFold5", "trRosetta6"])
    )
    assert theirs.no_answer.startswith("no implementation found")
    assert "alphafold2/rosettafold3" in theirs.no_answer


def test_baselines_the_method_lists_beside_its_design_are_alternatives_too(
    agent: SetupAgent,
) -> None:
    """A draft's design variable may keep two of a table's methods while its method text lists
    the rest ("the compared methods (A, B, C)"): the listed ones are that variable's values, so
    absent baselines do not count against the repository that holds the authors' method."""
    task = _comparison(["ViTNet5", "GateMix"])
    task.method = (
        "Train and evaluate GateMix and the compared methods (KMeans7, SpecClu, AggloNet, "
        "NMFNet, DeepAE, ViTNet5) and report the top-1 accuracy."
    )
    q = build_query(task)
    assert q.alternatives == [
        ["vitnet5", "gatemix", "kmeans7", "specclu", "agglonet", "nmfnet", "deepae"]
    ]
    ours = agent.recover(task)
    assert not ours.no_answer and ours.source
    # a list that shares nothing with a design variable is no set of its values
    task.method = "Compare on the data sets (CIFAR-10, STL-10, ImageNet-10)."
    assert build_query(task).alternatives == [["vitnet5", "gatemix"]]


def test_a_name_the_code_writes_with_its_hyphen_is_found(tmp_path: Path) -> None:
    """The index splits `ImageNet-10` into `imagenet` and `10`, so the task's `imagenet_10` was
    never found in code that spells it as the paper does, and the authors' own repository
    answered no_answer (Contrastive Clustering's Figure 3)."""
    root = tmp_path / "cc"
    root.mkdir()
    (root / "train.py").write_text(
        '"""Contrastive clustering."""\n\nimport argparse\n\n\n'
        "def main():\n    p = argparse.ArgumentParser()\n"
        '    p.add_argument("--dataset", default="CIFAR-10")\n'
        "    args = p.parse_args()\n"
        '    if args.dataset == "ImageNet-10":\n        print("ten classes of ImageNet")\n'
        '    print("similarities per epoch")\n\n\nif __name__ == "__main__":\n    main()\n'
    )
    (root / "notes.md").write_text("ImageNet subsets: 10 classes, or dogs.\n")
    task = TaskDraft(
        key="figure-3",
        question="How do the similarities of positive pairs change as training goes on?",
        method="Reproduce the measurements behind Figure 3 on ImageNet-10.",
        expected_outcome="",
    )
    agent = SetupAgent(mine_repo(root), root)
    assert agent.search.written("imagenet_10")
    assert agent.search.written("IMAGENET-10")
    assert not agent.search.written("imagenet_dogs")  # both words, never as one name
    assert not agent.search.written("imagenet")  # one part: the index answers that
    setup = agent.recover(task)
    assert setup.no_answer == "", setup.no_answer
