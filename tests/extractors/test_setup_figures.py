"""The figures `make bench-setup` prints about recovered setups, on a real mined repository."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import build_demo_repo

from expcurate.records import Setup
from extractors.agent.figures import (
    SetupRow,
    boilerplate,
    citations,
    mostly_shared,
    setup_figures,
    wording,
)
from extractors.agent.gist import thin
from extractors.repo import mine_repo
from extractors.repo.commands import command_lines


def test_citations_read_every_reference_of_a_step_including_lists() -> None:
    steps = [
        "Step 1: Train both arms (scripts/a.sh:1-32, scripts/b.sh:4)",
        "Final Step: Compare the runs (train.py:40-41)",
    ]
    assert citations(steps) == [
        ("scripts/a.sh", 1, 32),
        ("scripts/b.sh", 4, 4),
        ("train.py", 40, 41),
    ]


def test_a_steps_wording_is_it_less_its_label_and_citation() -> None:
    assert wording("Step 3: Train (Exp.train) (exp/exp_main.py:98-123)") == "Train (Exp.train)"
    assert wording("Final Step: Report MSE (a.py:3)") == "Report MSE"
    assert not thin(wording("Step 1: Train (Exp.train): for each epoch: runs self.model (a.py:3)"))


def test_boilerplate_steps_are_recognised_whatever_their_label() -> None:
    assert boilerplate("Step 1: Parse command-line arguments (train.py:8-14)")
    assert boilerplate("Final Step: Run the experiment and report MSE, MAE (x.py:3)")
    assert not boilerplate("Step 2: Build the gated mixing block with --no_gate (gm/model.py:4-9)")


def test_command_lines_come_from_bare_lines_and_quoted_commands_in_prose() -> None:
    usage = (
        "1. Put the data under <DATA_DIR>.\n"
        "2. Train the gated arm: `python train.py --dataset cifar10`\n"
        "bash scripts/ablate_gate.sh\n"
        "3. Compare top-1 accuracy of the two runs."
    )
    assert command_lines(usage) == [
        "python train.py --dataset cifar10",
        "bash scripts/ablate_gate.sh",
    ]


def test_figures_count_copies_bad_flags_and_masked_recall(tmp_path: Path) -> None:
    root = build_demo_repo(tmp_path / "repo", outside=tmp_path / "outside")
    index = mine_repo(root, max_file_bytes=2000)
    steps = [
        "Step 1: Load the data (gm/data.py:1-3)",
        "Final Step: Parse command-line arguments (train.py:8-14)",
    ]
    same = Setup(
        source=["train.py"], requirements=steps, usage_instructions="python train.py --lr 0.1"
    )
    other = Setup(
        source=["train.py"],
        masked_source=["train.py"],
        requirements=steps[:1],
        usage_instructions="python train.py --bogus 1\npython missing.py",
    )
    rows = [
        SetupRow("p", "p/0", same, index, gold_masked=["train.py", "gm/model.py"], question="A?"),
        SetupRow("p", "p/1", same, index, question="B?"),
        SetupRow("p", "p/2", other, index, gold_masked=["train.py"]),
        SetupRow("q", "q/0", same, index),  # another paper: not a copy
        SetupRow("p", "p/3", Setup(no_answer="nothing here"), index),
        SetupRow("p", "p/4", Setup(source=["train.py"]), index),
    ]
    fig = setup_figures(rows)
    assert (fig.tasks, fig.no_answer, fig.empty) == (6, 1, 1)
    assert fig.copied == 2
    assert fig.boilerplate == 3 and fig.all_steps == 7
    # "Load the data" (3 words, a name alone) four times, the argument parsing (3) thrice
    assert sorted(fig.words) == [3] * 7 and fig.name_only == 7
    assert "words per step: median 3; worded by a name alone: 7/7 (100%)" in fig.lines()
    assert (fig.commands, fig.commands_ok) == (5, 3)
    assert any("--bogus is not a flag of train.py" in p for p in fig.problems)
    assert any("runs missing.py" in p for p in fig.problems)
    assert fig.masked_recall == [0.0, 1.0]
    assert sorted(fig.widths) == [3, 3, 3, 3, 7, 7, 7]  # lines of every cited range
    assert any("equal another task's of the paper: 2/5" in line for line in fig.lines())
    assert fig.copied_same_question == 0
    # p/0 and p/1 cite the same two ranges; p/2 cites one of them, all it cites
    assert fig.mostly_shared == 3
    assert any("(half or more of their ranges): 3/5" in line for line in fig.lines())
    # the same question asked twice (EXP-Bench has such pairs): the same setup is right, and
    # the figure says how many of the copies those are
    rows[1].question = "a ?"
    fig = setup_figures(rows)
    assert (fig.copied, fig.copied_same_question) == (2, 2)
    assert any("2/5 (40%), 2 of them asking the same question" in line for line in fig.lines())


def test_mostly_shared_counts_tasks_citing_half_what_another_cites() -> None:
    a = {("x.py", 1, 5), ("y.py", 1, 3)}
    b = {("x.py", 1, 5), ("z.py", 2, 9), ("w.py", 1, 1)}  # a third of its ranges are a's
    c = {("v.py", 1, 2)}
    assert mostly_shared([a, b, c]) == 1  # a: half of its ranges are b's
    assert mostly_shared([a, b, c], at_least=0.3) == 2
    assert mostly_shared([set(), a]) == 0


def test_mostly_shared_by_overlap_counts_ranges_nearly_the_same() -> None:
    # hand-written setups cite a function as 178-189 in one task and 179-189 in the next
    a = {("m.py", 178, 189), ("d.py", 10, 20)}
    b = {("m.py", 179, 189), ("e.py", 1, 4), ("f.py", 1, 4)}
    c = {("m.py", 150, 181)}  # a quarter of it inside a's range: not shared
    assert mostly_shared([a, b, c]) == 0
    assert mostly_shared([a, b, c], overlap=True) == 1  # a: half its ranges lie inside b's
    assert mostly_shared([a, b, c], at_least=0.3, overlap=True) == 2  # b: a third


def test_agreement_is_how_far_the_steps_cite_what_the_curated_steps_cite() -> None:
    from extractors.agent.figures import agreement

    gold = [
        "Step 1: Load the data (/workspace/data.py:10-20)",
        "Step 2: Build the model (/workspace/model.py:5-30)",
        "Final Step: Compare the runs (/workspace/run.py:90)",
    ]
    ours = [
        "Step 1: Load (data.py:11-20)",  # the curated 10-20 is inside it by more than half
        "Step 2: Build the encoder (model.py:5-9)",  # a fifth of the curated 5-30
        "Final Step: Report (run.py:90)",
        "Step 9: Something else (other.py:1-3)",
    ]
    found, kept = agreement(ours, gold) or (0.0, 0.0)
    assert found == 2 / 3  # data.py and run.py
    assert kept == 3 / 4  # data.py:11-20, model.py:5-9 (inside 5-30), run.py:90
    assert agreement(ours, ["Step 1: no citation"]) is None


def test_order_agreement_counts_pairs_of_matched_steps_in_the_curated_order() -> None:
    from extractors.agent.figures import order_agreement

    gold = [
        "Step 1: Load the data (/workspace/data.py:10-20)",
        "Step 2: Build the model (/workspace/model.py:5-30)",
        "Step 3: Train (/workspace/train.py:40-60)",
    ]
    ours = [
        "Step 1: Build the encoder (model.py:5-9)",  # the curated step 2
        "Step 2: Load (data.py:11-20)",  # step 1: before the model in their order
        "Step 3: Train (train.py:45-50)",  # step 3
        "Step 4: Something else (other.py:1-3)",  # matches nothing, counts nothing
        "Step 5: Train more (train.py:55-58)",  # step 3 again: no pair with its twin
    ]
    # pairs (2,1) against; (2,3), (1,3), (2,3), (1,3) in order; (3,3) not a pair
    assert order_agreement(ours, gold) == (4, 1)
    assert order_agreement(ours, []) == (0, 0)
