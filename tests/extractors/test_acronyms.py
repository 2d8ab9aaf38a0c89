"""What a paper's acronyms stand for: drafted into the task's method, read by the setup."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_fixture import committed_index, recovered_setup

from expcurate.records import DesignComplexity, ParsedPaper, Section, Table, TaskDraft
from extractors.acronyms import (
    key_word,
    spelled_out,
    spelled_sentence,
    without_spelled_sentence,
)
from extractors.tasks.heuristic import draft


@pytest.mark.parametrize(
    ("text", "acronym", "long"),
    [
        (
            "three parts: an instance-level contrastive head (ICH), and",
            "ICH",
            "instance-level contrastive head",
        ),
        (
            "a novel multi-scale convolutional attention (MSCA) module",
            "MSCA",
            "multi-scale convolutional attention",
        ),
        ("prompting with chain-of-thoughts (CoT) and", "CoT", "chain-of-thoughts"),
        ("we adopt Low-Rank adaptation (LoRA) for", "LoRA", "Low-Rank adaptation"),
        ("trained with Outlier Ex- posure (OE) on", "OE", "Outlier Exposure"),
        ("named Reasoning Module Networks (RMN), which", "RMN", "Reasoning Module Networks"),
        ("the mean of a point of view (MPV) score", "MPV", "mean of a point of view"),
        # initials that do not spell it, or no definition at all
        ("Tool learning with execution feedback (TRICE)", "TRICE", ""),
        ("as shown by the baseline (ST) in", "ST", ""),
        ("we run ICH on CIFAR-10", "ICH", ""),
    ],
)
def test_an_acronym_is_spelled_out_by_the_words_before_it(
    text: str, acronym: str, long: str
) -> None:
    assert spelled_out(text, acronym) == long


def test_the_spelled_sentence_is_read_again_and_taken_out_of_the_search() -> None:
    said = spelled_sentence(
        {"ICH": "instance-level contrastive head", "CCH": "cluster-level contrastive head"}
    )
    assert said == (
        "The paper spells out ICH as instance-level contrastive head, and CCH as "
        "cluster-level contrastive head."
    )
    method = f"Run ICH + CCH and ICH Only. {said} Follow Table 4."
    assert spelled_out(method, "CCH") == "cluster-level contrastive head"
    assert spelled_out(method, "ICH") == "instance-level contrastive head"
    assert without_spelled_sentence(method) == "Run ICH + CCH and ICH Only. Follow Table 4."
    assert spelled_sentence({}) == ""


def test_the_word_code_names_a_part_by_is_the_one_its_name_differs_in() -> None:
    assert key_word("multi-scale convolutional attention") == "attention"
    heads = ["instance-level contrastive head", "cluster-level contrastive head"]
    assert key_word(heads[0], heads[1:]) == "instance"
    assert key_word(heads[1], heads[:1]) == "cluster"
    assert key_word("a b c", []) == ""


def _ablation_paper(abstract: str) -> ParsedPaper:
    table = Table(
        label="Table 4",
        caption="Table 4: Effect of two contrastive heads.",
        page=6,
        rows=[
            ["Setting", "NMI", "ACC"],
            ["ICH + CCH", "0.705", "0.790"],
            ["ICH Only", "0.699", "0.782"],
            ["CCH Only", "0.592", "0.656"],
        ],
    )
    model = (
        "Our model consists of a pair construction backbone (PCB), an instance-level "
        "contrastive head (ICH), and a cluster-level contrastive head (CCH)."
    )
    text = "Table 4 shows the effect of the two heads: removing either hurts NMI and ACC."
    return ParsedPaper(
        title="Contrastive Grouping",
        abstract=abstract,
        sections=[
            Section(number="3", title="Method", text=model, page=3),
            Section(number="4", title="Ablation", text=text, page=6),
        ],
        tables=[table],
    )


def test_the_draft_says_what_the_compared_names_acronyms_stand_for() -> None:
    """ "ICH Only" means nothing without the paper: the method spells out ICH and CCH as the
    paper does; the paper's own method (CG) and an acronym no compared name uses (PCB) are
    not spelled out."""
    paper = _ablation_paper("We propose Contrastive Grouping (CG), an online clustering method.")
    methods = [t.method for t in draft(paper).tasks if "ICH Only" in t.question]
    assert methods, [t.question for t in draft(paper).tasks]
    for method in methods:
        assert method.endswith(
            "The paper spells out ICH as instance-level contrastive head, and CCH as "
            "cluster-level contrastive head."
        ), method
        assert "PCB as" not in method and "CG as" not in method, method


TRAIN = """import argparse

from losses import ClusterLoss, InstanceLoss


def train(model, loader, criterion_instance, criterion_cluster, optimizer):
    total = 0
    for x_i, x_j in loader:
        z_i, z_j, c_i, c_j = model(x_i, x_j)
        loss_instance = criterion_instance(z_i, z_j)
        loss_cluster = criterion_cluster(c_i, c_j)
        loss = loss_instance + loss_cluster
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total


def evaluate(dataset):
    return 0.0, 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="CIFAR-10")
    parser.add_argument("--epochs", type=int, default=1000)
    args = parser.parse_args()
    for epoch in range(args.epochs):
        print(f"epoch {epoch} loss {train(None, [], InstanceLoss(), ClusterLoss(), None)}")
    nmi, acc = evaluate(args.dataset)
    print(f"NMI = {nmi:.4f} ACC = {acc:.4f}")


if __name__ == "__main__":
    main()
"""

LOSSES = """import torch


class InstanceLoss:
    def __init__(self, temperature=0.5):
        self.temperature = temperature

    def forward(self, z_i, z_j):
        z = torch.cat((z_i, z_j), dim=0)
        sim = torch.matmul(z, z.T) / self.temperature
        positives = torch.diag(sim)
        return -positives.mean()


class ClusterLoss:
    def __init__(self, temperature=1.0):
        self.temperature = temperature

    def forward(self, c_i, c_j):
        c = torch.cat((c_i.t(), c_j.t()), dim=0)
        sim = torch.matmul(c, c.T) / self.temperature
        entropy = (c.sum(0) * c.sum(0).log()).sum()
        return -torch.diag(sim).mean() + entropy
"""


def _heads_task(spelled: bool) -> TaskDraft:
    method = "For CIFAR-10, run ICH + CCH and ICH Only and CCH Only and report NMI, ACC."
    if spelled:
        method += " " + spelled_sentence(
            {"ICH": "instance-level contrastive head", "CCH": "cluster-level contrastive head"}
        )
    return TaskDraft(
        key="table-4:factor",
        question="How does ICH + CCH compare with ICH Only and CCH Only on NMI and ACC?",
        method=method,
        design_complexity=DesignComplexity(
            independent_variables={"compared setting": ["ICH + CCH", "ICH Only", "CCH Only"]},
            dependent_variables={"metrics": ["NMI", "ACC"]},
        ),
    )


def test_an_arm_keeping_one_head_points_where_the_other_is_added_in(tmp_path: Path) -> None:
    """ "ICH Only", which no option selects, takes CCH away: with CCH spelled out as the
    cluster-level head, the usage points at the cluster loss the steps cite and at the line
    adding it in (`loss = loss_instance + loss_cluster`). Without the spelled-out names the
    code's `cluster` is not known to be CCH's, and nothing is pointed at."""
    files = {
        "train.py": TRAIN,
        "losses.py": LOSSES,
        "README.md": "Train and evaluate with `python train.py --dataset CIFAR-10`.\n",
    }
    usage = recovered_setup(tmp_path / "a", files, _heads_task(True)).usage_instructions
    only = next(
        line for line in usage.splitlines() if line.split(". ", 1)[1].startswith("Run ICH Only")
    )
    assert "what it takes away (CCH) is implemented at losses.py:" in only, usage
    assert "is added in at train.py:12 (`loss = loss_instance + loss_cluster`)" in only, usage
    other = next(line for line in usage.splitlines() if "Run CCH Only" in line)
    assert "what it takes away (ICH)" in other and "train.py:12" in other, usage
    usage = recovered_setup(tmp_path / "b", files, _heads_task(False)).usage_instructions
    assert "takes away (CCH)" not in usage and "added in" not in usage, usage


def test_the_classes_of_two_heads_spelled_alike_are_told_apart_by_their_first_word(
    tmp_path: Path,
) -> None:
    from extractors.agent.arms import Arm
    from extractors.agent.methods import MethodModules
    from extractors.agent.steps import StepTracer
    from extractors.repo import RepoSearch

    root = tmp_path / "h"
    index = committed_index(root, {"losses.py": LOSSES})
    methods = MethodModules(index, StepTracer(index, RepoSearch(root, index)))
    arms = [
        Arm("compared setting", v, frozenset(v.lower().split())) for v in ("ICH + CCH", "ICH Only")
    ]
    task = _heads_task(True)
    steps = methods.component_steps(f"{task.question}\n{task.method}", arms, ["losses.py"])
    assert [(s.action, s.start) for s in steps] == [
        ("Implement ICH (InstanceLoss)", 4),
        ("Implement CCH (ClusterLoss)", 15),
    ]
    task = _heads_task(False)
    assert methods.component_steps(f"{task.question}\n{task.method}", arms, ["losses.py"]) == []


def test_what_an_ablation_removes_is_found_in_what_the_steps_lines_do() -> None:
    """ "No Co-evolution": no step's name says evolution; what one's lines do does (a call its
    wording lists), never "co": that place is pointed at. A part nothing names gets none."""
    from dataclasses import replace

    from extractors.agent.arms import Arm
    from extractors.agent.steps import Step
    from extractors.agent.taken import taken_away

    steps = [
        Step("Make eval fn into eval_fn (in run)", "evolve/pipeline.py", 261, 270),
        Step("Run (in run)", "evolve/pipeline.py", 328, 340),
    ]
    gist = ": in ExplorationStage.run, calls self._start_prompt_set_evolution"
    worded = [steps[0], replace(steps[1], action=steps[1].action + gist)]
    arm = Arm("component", "No Co-evolution", frozenset({"co", "evolut"}))
    assert taken_away(arm, [arm], steps, worded=worded) == (
        "; what it takes away is implemented at evolve/pipeline.py:328-340 (the steps cite "
        "it): remove or bypass it there"
    )
    assert taken_away(arm, [arm], steps) == ""  # the names alone say nothing of it
    # where the repository defines the call the wording names, that is the place
    defined = {"_start_prompt_set_evolution": ("evolve/stage/exploration.py", 194)}

    def define(name: str) -> tuple[str, int, str] | None:
        return (*defined[name], name) if name in defined else None

    assert taken_away(arm, [arm], steps, worded=worded, define=define) == (
        "; what it takes away is implemented at evolve/stage/exploration.py:194 "
        "(_start_prompt_set_evolution, which evolve/pipeline.py:328-340 calls) (the steps "
        "cite its call): remove or bypass it there"
    )
    other = Arm("component", "No Re-ranking", frozenset({"re", "rank"}))
    assert taken_away(other, [other], steps, worded=worded) == ""
