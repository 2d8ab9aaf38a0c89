"""Compared methods the paper cites as prior work: drafted into the task, read by the setup."""

from __future__ import annotations

from pathlib import Path

import pytest
from repo_fixture import committed_index, recovered_setup

from expcurate.records import DesignComplexity, ParsedPaper, Section, Table, TaskDraft
from extractors.citations import citation_after, cited_sentence, without_cited_sentence
from extractors.repo import RepoSearch
from extractors.tasks.heuristic import draft


@pytest.mark.parametrize(
    ("text", "name", "cited"),
    [
        ("as in OE (Hendrycks, Mazeika, and Dietterich 2019), which", "OE", True),
        ("PASCL (Wang et al. 2022) optimizes a contrastive objective", "PASCL", True),
        ("BERT (Devlin et al., 2019; Zhou et al., 2019) and", "BERT", True),
        ("compared with DF2-Seg [46] and SwiftNet [60]", "DF2-Seg", True),
        ("VisualBERT [22,23] is", "VisualBERT", True),
        ("MAM-RNN [Li et al., 2017] and", "MAM-RNN", True),
        ("LogTrans (2019)", "LogTrans", True),
        # the name is another's word, or what follows is no citation
        ("unlike DF2-Segformer [46]", "DF2-Seg", False),
        ("TimesNet (ours) is best", "TimesNet", False),
        ("GateNet (see Section 4) and GateNet [a]", "GateNet", False),
        ("we run OE on CIFAR-10", "OE", False),
    ],
)
def test_a_citation_is_read_right_after_a_name(text: str, name: str, cited: bool) -> None:
    assert bool(citation_after(text, name)) is cited


def test_a_row_is_cited_by_its_method_less_its_backbone_and_marks() -> None:
    from extractors.citations import cited_part, cited_works

    assert cited_part("DeepLabV3+∗ / Xception-71") == "DeepLabV3+"
    assert cited_part("NAS-FPN$ / EfficientNet-L2") == "NAS-FPN"
    text = "DenseASPP [83] and DeepLabV3+ [8] are strong."
    assert cited_works(text, ["DenseASPP / ResNet50", "DeepLabV3+∗ / Xception-71"]) == {
        "DenseASPP": "[83]",
        "DeepLabV3+": "[8]",
    }


def test_the_cited_sentence_lists_the_works_and_is_taken_out_again() -> None:
    said = cited_sentence({"OE": "(Hendrycks 2019)", "PASCL": "(Wang et al. 2022)"})
    assert said == "The paper cites OE (Hendrycks 2019) and PASCL (Wang et al. 2022) as prior work."
    method = f"Run EAT and the baselines. {said} Follow Table 1."
    assert without_cited_sentence(method) == "Run EAT and the baselines. Follow Table 1."
    assert cited_sentence({}) == ""


def _table(rows: list[list[str]]) -> Table:
    return Table(label="Table 1", caption="Table 1: Detection results on QuizSet.", page=4,
                 rows=rows)  # fmt: skip


def test_the_draft_says_which_compared_rows_the_paper_cites_as_prior_work() -> None:
    """Rows the text cites (PASCL), or whose cell carries a citation (OldNet [7]), are said in
    the method; the paper's own method and a variant of it ("w/ Ham", cited for its part)
    are not."""
    table = _table(
        [
            ["Method", "AUROC", "FPR95"],
            ["PASCL", "90.1", "33.0"],
            ["OldNet [7]", "88.2", "35.1"],
            ["w/ Ham [21]", "91.0", "31.0"],
            ["GateNet (ours)", "92.8", "26.0"],
        ]
    )
    text = (
        "PASCL (Wang et al. 2022) optimizes a contrastive objective. We compare GateNet with "
        "PASCL and OldNet on QuizSet (Lee et al. 2020) in Table 1."
    )
    paper = ParsedPaper(
        title="GateNet",
        abstract="We propose GateNet.",
        sections=[Section(number="4", title="Results", text=text, page=4)],
        tables=[table],
    )
    methods = [t.method for t in draft(paper).tasks]
    assert methods, "no task drafted"
    said = [m for m in methods if "as prior work" in m]
    assert said, methods
    for method in said:
        assert "PASCL (Wang et al. 2022)" in method and "OldNet [7]" in method, method
        assert "Ham" not in method.split("The paper cites")[1], method
        assert "GateNet (ours) (" not in method, method


def test_a_name_the_code_only_writes_in_a_message_or_a_path_is_not_implemented(
    tmp_path: Path,
) -> None:
    files = {
        "train.py": (
            '"""Training, as PASCL\'s code does it."""\n'
            "import os\n\n\n"
            "def oe_loss(logits):\n"
            "    return -logits.mean()\n\n\n"
            "def main(args):\n"
            '    assert args.k > 0, "with k == 0 it is just the Energy baseline"\n'
            "    out = os.path.join(args.root, 'PASCL', 'runs')\n"
            "    if args.method == 'mixup':\n"
            "        pass\n"
            "    return out\n"
        ),
        "scripts/run.sh": "python train.py --method cutmix  # not a word of Energy\n",
        "heads.py": (
            "class LightHead:\n"
            '    """This head is the implementation of `HamNet`."""\n\n'
            "    def forward(self, x):\n        return x\n"
        ),
        "README.md": "We thank the authors of PASCL and Energy.\n",
    }
    root = tmp_path / "r"
    search = RepoSearch(root, committed_index(root, files))
    # a function's name, a string the code tests, a word of a shell command
    assert search.implements("OE") and search.implements("Mixup") and search.implements("CutMix")
    # a docstring, a message, a path, a comment, the README; but a definition's docstring
    # saying what it implements is its name
    assert not search.implements("PASCL") and not search.implements("Energy")
    assert search.implements("HamNet")
    # a word that holds the name's letters is not the name
    assert not search.implements("ai")
    # where a name implemented is defined: the first definition holding it; a name only a
    # string holds (mixup) or that is not implemented has none
    assert search.definition_of("OE") == ("train.py", 5, "oe_loss")
    assert search.definition_of("Mixup") is None and search.definition_of("PASCL") is None


PROGRAM = (
    "import argparse\n"
    "import os\n\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--lr', type=float, default=0.1)\n"
    "    parser.add_argument('--save_root', default='runs')\n"
    "    args = parser.parse_args()\n"
    "    out = os.path.join(args.save_root, 'PASCL', 'detector')\n"
    "    print('AUROC', train(args.lr), out)\n\n\n"
    "def train(lr):\n"
    "    return lr * 2\n\n\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)


def test_a_cited_language_model_the_code_does_not_call_is_queried(tmp_path: Path) -> None:
    """GPT-3.5, cited and called by no code of the repository, is a model to query (or
    whose numbers to take), not another work's code to run."""
    task = TaskDraft(
        key="table-1:compare",
        question="How does Detector compare with GPT-3.5 on AUROC in Table 1?",
        method="Train Detector and report AUROC. The paper cites GPT-3.5 (OpenAI, 2022) as "
        "prior work.",
        expected_outcome="Detector is best.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["Detector (ours)", "GPT-3.5"]},
            dependent_variables={"metrics": ["AUROC"]},
        ),
    )
    files = {"train.py": PROGRAM, "README.md": "Run `python train.py --lr 0.1`.\n"}
    usage = recovered_setup(tmp_path / "q", files, task).usage_instructions
    assert (
        "Run GPT-3.5: a language model the repository does not call: the paper's numbers for it "
        "usually come from the work it cites for it; take them from there, or query the model "
        "through its provider on the task's inputs, scored as the other runs are "
        "(method = GPT-3.5)."
    ) in usage, usage


@pytest.mark.parametrize("cited", [True, False])
def test_a_cited_baseline_the_repository_does_not_implement_comes_from_its_own_work(
    tmp_path: Path, cited: bool
) -> None:
    """PASCL is only a folder name of the saved runs: cited by the task, it is another work's
    method to take the numbers of; uncited, the repository's word for it leaves it a command
    to write."""
    sentence = " The paper cites PASCL (Wang et al. 2022) as prior work." if cited else ""
    task = TaskDraft(
        key="table-1:compare",
        question="How does Detector compare with PASCL on AUROC in Table 1?",
        method="Train Detector and PASCL and report AUROC." + sentence,
        expected_outcome="Detector is best.",
        design_complexity=DesignComplexity(
            independent_variables={"compared setting": ["Detector (ours)", "PASCL"]},
            dependent_variables={"metrics": ["AUROC"]},
        ),
    )
    files = {"train.py": PROGRAM, "README.md": "Run `python train.py --lr 0.1`.\n"}
    usage = recovered_setup(tmp_path / "d", files, task).usage_instructions
    elsewhere = "Run PASCL: no code of the repository is its own, so it is another work's method"
    assert (elsewhere in usage) is cited, usage
    assert ("Run PASCL: no launch script, option or in-code switch" in usage) is not cited, usage


def test_another_works_method_joined_with_the_authors_says_to_add_its_code_to_the_run(
    tmp_path: Path,
) -> None:
    """ "PASCL+Ours" runs another work's method, which the repository does not implement,
    with the authors': the line says to add that work's code to the repository's run, not
    merely to write a command. "Detector+Ours" joins two of the authors' own: no such line."""
    task = TaskDraft(
        key="table-6:compare",
        question="How does PASCL+Ours compare with PASCL on AUROC in Table 6?",
        method="Train PASCL+Ours and PASCL and report AUROC. The paper cites PASCL (Wang et "
        "al. 2022) as prior work.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["PASCL+Ours", "PASCL", "Detector+Ours"]},
            dependent_variables={"metrics": ["AUROC"]},
        ),
    )
    files = {
        "train.py": PROGRAM.replace("'PASCL', ", "").replace("train(lr)", "train_detector(lr)"),
        "README.md": "Run `python train.py --lr 0.1`.\n",
    }
    usage = recovered_setup(tmp_path / "j", files, task).usage_instructions
    assert (
        "Run PASCL+Ours: the authors' method (Ours) is the repository's run, and PASCL is "
        "another work's method, which no code of the repository implements: add PASCL's own "
        "code (Wang et al. 2022, the work the paper cites for it) to that run, and write the "
        "command that runs the two together (method = PASCL+Ours)." in usage
    ), usage
    assert "Run Detector+Ours: the authors' method" not in usage, usage
