"""Setups of tasks whose data sets are one of the things they vary: a design variable the
drafts name after a table's row groups ("group": CIFAR-10, ImageNet-10) is read as data sets
when the repository's data option names them; each arm then runs on each data set, through
the program for those data sets rather than a sibling named after another one."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import cites, committed_index, recovered_setup

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


LINKS = '''"""Train a link predictor on one network."""
import argparse

import yaml


def run(args):
    with open(f"config/{args.pattern}/{args.dataset}.yaml") as f:
        params = yaml.safe_load(f)
    print("auc", params["lr"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="USAir")
    parser.add_argument("--pattern", default="2wl_l")
    args = parser.parse_args()
    if args.pattern not in ("2wl", "2wl_l"):
        raise ValueError(args.pattern)
    run(args)
'''
NETWORKS = ["Celegans", "Citeseer", "Cora", "Ecoli", "NS", "PB", "Power", "Pubmed", "USAir"]


def _links_task(columns: list[str]) -> TaskDraft:
    return TaskDraft(
        key="table-3:best",
        question=f"How do 2-WL and 2-WLL compare on {', '.join(columns)}?",
        method="Train 2-WL and 2-WLL on each network and report AUC.",
        expected_outcome="2-WLL is best.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["2-WL", "2-WLL"]},
            dependent_variables={"measured on": columns},
        ),
    )


def _links_files() -> dict[str, str]:
    files = {f"config/{p}/{n}.yaml": "lr: 0.01\n" for p in ("2wl", "2wl_l") for n in NETWORKS}
    files["links.py"] = LINKS
    files["README.md"] = "# Links\n\n```\npython links.py --dataset USAir --pattern 2wl_l\n```\n"
    return files


def test_the_networks_a_table_is_measured_on_are_the_data_sets_each_arm_runs_on(
    tmp_path: Path,
) -> None:
    """The program builds its config's path from `--dataset`, so the config files name the
    values it takes; the table's columns are such values, so each arm runs on each."""
    setup = recovered_setup(tmp_path / "l", _links_files(), _links_task(["Cora", "Citeseer"]))
    usage = setup.usage_instructions
    for arm, pattern in (("2-WL", "2wl"), ("2-WLL", "2wl_l")):
        for net in ("Cora", "Citeseer"):
            run = f"Run {arm} on {net}: `python links.py --dataset {net} --pattern {pattern}`"
            assert run in usage, usage
    assert "USAir" not in usage, usage


def test_too_many_networks_for_a_run_each_go_through_a_loop(tmp_path: Path) -> None:
    """Two arms on seven networks are fourteen runs: each arm's run loops over them, the
    README's own network among them, and "Cele" is the network only Celegans starts like."""
    columns = ["USAir", "NS", "PB", "Cele", "Power", "Ecoli", "Cora"]
    setup = recovered_setup(tmp_path / "l", _links_files(), _links_task(columns))
    usage = setup.usage_instructions
    loop = "for dataset in USAir NS PB Celegans Power Ecoli Cora; do python links.py"
    assert f"Run 2-WL on {', '.join(columns)}: `{loop} --dataset $dataset --pattern 2wl; done`" in (
        usage
    ), usage
    assert f"`{loop} --dataset $dataset --pattern 2wl_l; done`" in usage, usage


def test_metrics_on_one_network_are_no_data_sets_to_run_on(tmp_path: Path) -> None:
    """ "Cora AUC" and "Cora AP" both start with a network's name: two measures of one run."""
    setup = recovered_setup(tmp_path / "l", _links_files(), _links_task(["Cora AUC", "Cora AP"]))
    usage = setup.usage_instructions
    assert "Run 2-WL on" not in usage, usage
    assert "Run 2-WL: `python links.py --dataset USAir --pattern 2wl`" in usage, usage


def test_a_run_whose_options_name_a_file_the_repository_lacks_says_so(tmp_path: Path) -> None:
    """2-WLL has no config for Pubmed: `--pattern 2wl_l --dataset Pubmed` would stop at
    opening `config/2wl_l/Pubmed.yaml`; the run says so, and only that run."""
    files = _links_files()
    del files["config/2wl_l/Pubmed.yaml"]
    index_entry = {e.path: e for e in committed_index(tmp_path / "i", files).entry_points}
    assert index_entry["links.py"].opens == ["config/{pattern}/{dataset}.yaml"]
    usage = recovered_setup(
        tmp_path / "p", files, _links_task(["Cora", "Pubmed"])
    ).usage_instructions
    assert (
        "`python links.py --dataset Pubmed --pattern 2wl_l` (links.py opens "
        "config/2wl_l/Pubmed.yaml for these options, which the repository does not have: "
        "write it first)"
    ) in usage, usage
    assert usage.count("does not have") == 1, usage


def test_a_file_an_unset_option_would_name_is_not_checked() -> None:
    """`--pattern` left at `None`: the path is not `config/None/Cora.yaml`, nothing is said."""
    from expcurate.records import CliFlag, EntryPoint
    from extractors.agent.run import Run
    from extractors.agent.run_notes import unopened

    entry = EntryPoint(
        path="links.py",
        flags=[
            CliFlag(name="--dataset", default="Cora"),
            CliFlag(name="--pattern", default="None"),
        ],
        opens=["config/{pattern}/{dataset}.yaml"],
    )
    runs = [
        Run("python links.py --dataset Cora"),
        Run("python links.py --dataset Cora --pattern x"),
    ]
    unopened(runs, {"links.py": entry}, lambda c: ["links.py"], {"links.py"})
    assert runs[0].warning == ""
    assert runs[1].warning.startswith("links.py opens config/x/Cora.yaml for these options")


def test_an_option_the_program_never_reads_is_not_where_the_data_goes(tmp_path: Path) -> None:
    """`--path` is parsed and never read (a copy-paste from a sibling program that stores
    its database there): the data goes where the program reads `--data_root`, which a module
    it imports uses."""
    program = (
        '"""Link prediction on citation graphs: train the predictor, report its accuracy."""\n'
        "import argparse\n"
        "\n"
        "from loader import load\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--path', type=str, default='opt/')\n"
        "    parser.add_argument('--data_root', type=str, default='data/')\n"
        "    parser.add_argument('--dataset', type=str, default='Cora')\n"
        "    args = parser.parse_args()\n"
        "    print('accuracy', load(args))\n"
    )
    loader = (
        "import os.path\n"
        "import sys\n"
        "\n"
        "\n"
        "def load(args):\n"
        "    sys.path.append('.')\n"
        "    return os.path.join(args.data_root, args.dataset)\n"
    )
    task = TaskDraft(
        key="table-3:compare",
        question="What accuracy does link prediction reach on the Cora citation graph?",
        method="Train the link predictor on Cora and report its accuracy.",
        expected_outcome="High accuracy.",
        design_complexity=DesignComplexity(
            constant_variables={"dataset": ["Cora"]},
            dependent_variables={"metric": ["accuracy"]},
        ),
    )
    readme = (
        "# Link prediction\n\nTrain the link predictor on a citation graph and report the "
        "high accuracy it can reach:\n\n```\npython run.py --dataset Cora\n```\n"
    )
    files = {"run.py": program, "loader.py": loader, "README.md": readme}
    setup = recovered_setup(tmp_path / "p", files, task)
    usage = setup.usage_instructions
    assert not setup.no_answer, setup.no_answer
    assert "Put the data where run.py reads it: --data_root <DATA_PATH>" in usage, usage
    assert "--path <DATA_PATH>" not in usage, usage
    # read as a parameter the options are spread into (`load(**vars(args))`) is read too
    files["run.py"] = program.replace("load(args)", "load(**vars(args))")
    files["loader.py"] = "def load(data_root, dataset, **rest):\n    return data_root + dataset\n"
    usage = recovered_setup(tmp_path / "k", files, task).usage_instructions
    assert "Put the data where run.py reads it: --data_root <DATA_PATH>" in usage, usage


def test_the_sets_a_documented_loop_goes_through_are_that_loops_run(tmp_path: Path) -> None:
    """The README evaluates on every out-of-distribution set with one loop: the sets the task
    compares within are that loop's, not a run each beside it."""
    program = (
        '"""Out-of-distribution detection: evaluate the detector and report its AUROC."""\n'
        "import argparse\n"
        "\n"
        "\n"
        "def auroc(dout):\n"
        "    return 0.9 if dout == 'svhn' else 0.8\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--ds', default='cifar10', choices=['cifar10', 'cifar100'])\n"
        "    parser.add_argument('--dout', default='svhn', choices=['svhn', 'texture', 'lsun'])\n"
        "    args = parser.parse_args()\n"
        "    print('AUROC', auroc(args.dout))\n"
    )
    readme = (
        "# Out-of-distribution detection\n\nTest the detector:\n\n"
        "```\nfor dout in texture svhn lsun\ndo\n"
        "python test.py --ds cifar10 --dout $dout\ndone\n```\n"
    )
    task = TaskDraft(
        key="table-1:factor",
        question="How does the detector (Ours) compare with OE on AUROC within each of "
        "Texture, SVHN and LSUN?",
        method="Evaluate the detector on each out-of-distribution set and report its AUROC.",
        expected_outcome="Ours is best.",
        design_complexity=DesignComplexity(
            independent_variables={
                "compared setting": ["Ours", "OE"],
                "group": ["Texture", "SVHN", "LSUN", "Average"],
            },
            dependent_variables={"metric": ["AUROC"]},
        ),
    )
    files = {"test.py": program, "README.md": readme}
    usage = recovered_setup(tmp_path / "o", files, task).usage_instructions
    loop = "`for dout in texture svhn lsun; do python test.py --ds cifar10 --dout $dout; done`"
    assert loop in usage, usage
    assert "Run Texture" not in usage and "--dout texture" not in usage, usage
    assert "(for each group Texture, SVHN, LSUN" in usage, usage


def test_the_function_assigning_the_measures_by_name_is_their_step(tmp_path: Path) -> None:
    """No definition is named after AUROC or AUPR; `get_measures` assigns `auroc` and `aupr`:
    that is where they are computed. A function assigning only `loss` says nothing of them."""
    program = (
        '"""Out-of-distribution detection: evaluate the detector, report AUROC and AUPR."""\n'
        "import argparse\n"
        "\n"
        "from sklearn.metrics import average_precision_score, roc_auc_score\n"
        "\n"
        "\n"
        "def fit_step(model, batch):\n"
        "    loss = model.loss(batch)\n"
        "    return loss\n"
        "\n"
        "\n"
        "def get_measures(pos, neg):\n"
        "    labels = [1] * len(pos) + [0] * len(neg)\n"
        "    auroc = roc_auc_score(labels, pos + neg)\n"
        "    aupr = average_precision_score(labels, pos + neg)\n"
        "    return auroc, aupr\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--dout', default='svhn', choices=['svhn', 'texture'])\n"
        "    args = parser.parse_args()\n"
        "    print('AUROC AUPR', get_measures([0.9], [0.1]))\n"
    )
    readme = "# OOD detection\n\nTest the detector:\n\n```\npython test.py --dout svhn\n```\n"
    task = TaskDraft(
        key="table-1:compare",
        question="What AUROC and AUPR does the detector reach on out-of-distribution data?",
        method="Evaluate the detector and report AUROC and AUPR.",
        expected_outcome="High AUROC.",
        design_complexity=DesignComplexity(
            dependent_variables={"metrics": ["AUROC (↑)", "AUPR (↑)"]},
        ),
    )
    files = {"test.py": program, "README.md": readme}
    steps = recovered_setup(tmp_path / "m", files, task).requirements
    assert any(
        s.endswith("Compute AUROC, AUPR (get_measures): returns auroc and aupr (test.py:12-16)")
        for s in steps
    ), steps
    assert not any("fit_step" in s for s in steps), steps
    # a measure the function does not compute is not said to be: ACC is counted elsewhere
    task.design_complexity.dependent_variables = {"metrics": ["ACC (↑)", "AUROC (↑)", "AUPR (↑)"]}
    steps = recovered_setup(tmp_path / "acc", files, task).requirements
    assert cites(steps, "Compute AUROC, AUPR (get_measures)", "test.py:12-16"), steps
    # a measure at a level the function computes it at by default only when told: said
    leveled = program.replace(
        "def get_measures(pos, neg):", "def get_measures(pos, neg, recall_level=0.95):"
    ).replace(
        "    return auroc, aupr\n",
        "    fpr = min(neg, default=recall_level)\n    return auroc, aupr, fpr\n",
    )
    for measure, said in (
        ("FPR95 (↓)", ""),
        ("FPR@TPR 0.98 (↓)", "; at recall_level 0.95 by default, the task's is 0.98"),
        ("FPR98 (↓)", "; at recall_level 0.95 by default, the task's is 0.98"),
    ):
        task.design_complexity.dependent_variables = {"metrics": ["AUROC (↑)", "AUPR (↑)", measure]}
        steps = recovered_setup(
            tmp_path / measure[:5], {**files, "test.py": leveled}, task
        ).requirements
        assert any(f"(get_measures{said})" in s for s in steps), steps


def test_a_measure_at_a_level_is_where_a_loop_over_the_levels_reports_it(
    tmp_path: Path,
) -> None:
    """ACC95 is accuracy at TPR 0.95: the report loop over `[0.98, 0.95]` labels it
    `ACC@TPR%s` (made, then printed a few lines later); the loop over FPR levels labelling
    `ACC@FPR%s` holds no 0.95 and is not it. FPR@TPR 0.98 is the `FPR@TPR%s` loop's, not
    `get_measures`', which computes FPR at 0.95 by default."""
    program = (
        '"""Out-of-distribution detection: evaluate the detector, report AUROC and AUPR."""\n'
        "import argparse\n"
        "\n"
        "from sklearn.metrics import average_precision_score, roc_auc_score\n"
        "\n"
        "\n"
        "def get_measures(pos, neg, recall_level=0.95):\n"
        "    labels = [1] * len(pos) + [0] * len(neg)\n"
        "    auroc = roc_auc_score(labels, pos + neg)\n"
        "    aupr = average_precision_score(labels, pos + neg)\n"
        "    fpr = min(neg, default=recall_level)\n"
        "    return auroc, aupr, fpr\n"
        "\n"
        "\n"
        "def evaluate(pos, neg):\n"
        "    auroc, aupr, fpr = get_measures(pos, neg)\n"
        "    print('auroc: %.4f' % auroc)\n"
        "    print('aupr: %.4f' % aupr)\n"
        "    for fpr_level in [0.001, 0.01]:\n"
        "        acc_str = 'ACC@FPR%s: %.4f' % (fpr_level, 0.5)\n"
        "        print(acc_str)\n"
        "    for tpr_level in [0.98, 0.95]:\n"
        "        acc_str = 'ACC@TPR%s: %.4f' % (tpr_level, 0.5)\n"
        "        kept = [p for p in pos if p > tpr_level]\n"
        "        print(len(kept))\n"
        "        print('kept')\n"
        "        print(acc_str)\n"
        "    for tpr_level in [0.98, 0.95]:\n"
        "        print('FPR@TPR%s: %.4f' % (tpr_level, fpr))\n"
        "\n"
        "\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--dout', default='svhn', choices=['svhn', 'texture'])\n"
        "    args = parser.parse_args()\n"
        "    evaluate([0.9], [0.1])\n"
    )
    readme = "# OOD detection\n\nTest the detector:\n\n```\npython test.py --dout svhn\n```\n"
    task = TaskDraft(
        key="table-1:compare",
        question="What AUROC and AUPR does the detector reach on out-of-distribution data?",
        method="Evaluate the detector and report AUROC, AUPR, FPR95 and ACC95.",
        expected_outcome="High AUROC.",
        design_complexity=DesignComplexity(
            dependent_variables={"metrics": ["AUROC", "AUPR", "FPR@TPR 0.98 (↓)", "ACC95"]},
        ),
    )
    files = {"test.py": program, "README.md": readme}
    steps = recovered_setup(tmp_path / "m", files, task).requirements
    assert cites(steps, "Compute AUROC, AUPR (get_measures)", "test.py:7-12"), steps
    final = steps[-1]
    assert final.startswith("Final Step: Report AUROC, AUPR, FPR@TPR 0.98 (↓), ACC95 of"), final
    assert "; ACC95 at :23, in the loop over tpr_level (:22)" in final, final
    assert "; FPR@TPR 0.98 (↓) at :29, in the loop over tpr_level (:28)" in final, final
    assert "the line prints no" not in final, final


def test_a_data_set_the_repository_names_nowhere_is_said_before_the_runs(
    tmp_path: Path,
) -> None:
    """LS07 beside a `--data` taking ls14 and ls21: the runs would run on ls21 unsaid."""
    program = (
        '"""Lexical substitution with a prompted causal language model."""\n'
        "import argparse\n\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--data', type=str, default='ls21')\n"
        "parser.add_argument('--seed', type=int, default=0)\n"
        "parser.add_argument('--model', type=str, default='gpt2')\n"
        "args = parser.parse_args()\n"
        "if args.data == 'ls14':\n    print('lexical substitution best oot on LS14')\n"
        "else:\n    print('lexical substitution best oot on LS21')\n"
    )

    def task(data: str) -> TaskDraft:
        return TaskDraft(
            key="table-2:factor",
            question=f"How does prompted GPT2 score on lexical substitution on {data}?",
            method="Run the prompted lexical substitution model and report best and oot.",
            expected_outcome="",
            design_complexity=DesignComplexity(
                constant_variables={"setting": data}, dependent_variables={"metric": ["best"]}
            ),
        )

    readme = (
        "# Prompted lexical substitution\n\nScore the prompted model on lexical "
        "substitution (best, oot):\n\n    python main.py --data ls14\n"
    )
    files = {"main.py": program, "README.md": readme}
    setup = recovered_setup(tmp_path / "l", files, task("LS07"))
    usage = setup.usage_instructions
    assert (
        "The task runs on LS07, which the repository names nowhere: its code gives --data "
        "ls14, ls21 (default ls21). Find which value or file holds LS07, or add its data, "
        "before the runs; else they run on ls21."
    ) in usage, setup.no_answer
    # a data folder's README listing another data file beside those of the option's values
    listing = "# Data\n\n```\ndata\n├── ls14.pkl\n├── ls21.pkl\n└── genesis.pkl\n```\n"
    usage = recovered_setup(
        tmp_path / "g", {**files, "res/data/README.md": listing}, task("LS07")
    ).usage_instructions
    assert (
        "its code gives --data ls14, ls21 (default ls21), and res/data/README.md lists "
        "genesis.pkl beside ls14.pkl, ls21.pkl. Find which value or file holds LS07"
    ) in usage, usage
    usage = recovered_setup(tmp_path / "k", files, task("LS14")).usage_instructions
    assert "names nowhere" not in usage, usage
    both = task("LS14")
    both.design_complexity.constant_variables = {"setting": ["LS14", "LS21"]}  # a list held
    usage = recovered_setup(tmp_path / "b", files, both).usage_instructions
    assert "names nowhere" not in usage, usage


READER = (
    "import argparse\n"
    "\n"
    "\n"
    "def encoder(enc):\n"
    "    if enc == 'val':\n"
    "        return 'value'\n"
    "    return 'default'\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--enc', help='[val/exp/def*]', default='def')\n"
    "    parser.add_argument('--dataset', help='40 or 600 or WC (default: WC)', default='WC')\n"
    "    parser.add_argument('--seed', type=int, default=0)\n"
    "    args = parser.parse_args()\n"
    "    if args.dataset == 'WC':  # Wiki-Convert\n"
    "        tfile = 'data/train_wiki.json'\n"
    "    elif args.dataset == '600':  # Numeracy600k\n"
    "        tfile = 'data/train600.json'\n"
    "    print(encoder(args.enc), tfile)\n"
)


def _measured_task() -> TaskDraft:
    measures = [f"{d} {m}" for d in ("Wiki-Convert", "Numeracy600K") for m in ("PPL", "Hit@1")]
    return TaskDraft(
        key="table-3:methods",
        question="How does Value compare with Exp on Wiki-Convert PPL and Hit@1 in Table 3?",
        method="Train and evaluate Value and Exp and report perplexity and Hit@1.",
        expected_outcome="Value is better.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["Value", "Exp"]},
            dependent_variables={"metrics": measures},
        ),
    )


def test_data_sets_only_the_measures_name_run_by_the_value_the_code_labels_with_them(
    tmp_path: Path,
) -> None:
    """No launch script per data set, but the program's `--dataset` tests 'WC' and '600'
    under comments naming Wiki-Convert and Numeracy600k: each arm runs on each, with the value
    the code tests (never `--dataset Numeracy600K`, nor `--enc num` for "Numeracy600K"), and
    every measure is compared on both."""
    files = {
        "reader.py": READER,
        "README.md": "# Reader\n\n```\npython reader.py --enc exp --seed 0 --dataset WC\n```\n",
    }
    setup = recovered_setup(tmp_path / "r", files, _measured_task())
    usage = setup.usage_instructions
    for arm, enc in (("Value", "val"), ("Exp", "exp")):
        for name, value in (("Wiki-Convert", "WC"), ("Numeracy600K", "600")):
            assert f"Run {arm} on {name}: `" in usage, usage
            line = next(x for x in usage.splitlines() if f"Run {arm} on {name}: `" in x)
            assert f"--enc {enc}" in line and f"--dataset {value}`" in line, line
            assert line.count("--dataset") == 1, line
    assert "Numeracy600K`" not in usage and "--enc num" not in usage, usage
    assert "Compare PPL, Hit@1 on Wiki-Convert and Numeracy600K of" in usage, usage
    # the default encoder, an arm with no option of its own, runs on each data set too
    task = _measured_task()
    task.design_complexity.independent_variables = {"method": ["Value", "Exp", "Default"]}
    usage = recovered_setup(tmp_path / "d", files, task).usage_instructions
    for name, value in (("Wiki-Convert", "WC"), ("Numeracy600K", "600")):
        line = next(x for x in usage.splitlines() if f"configuration on {name}: `" in x)
        assert f"--dataset {value}`" in line and "--enc" not in line, line


def test_the_authors_run_goes_over_the_data_sets_its_measures_name_each_by_its_program(
    tmp_path: Path,
) -> None:
    """A comparison with baselines the repository lacks, measured on CIFAR-10 and STL-10
    ("CIFAR-10 NMI", "STL-10 ACC"): the authors' run as it stands, once per data set, each
    through the program that has a path for it (train.py for CIFAR-10, train_STL10.py for
    STL-10, though the latter matches the task's words best), and each measure compared on
    both. The general program leads, since the task runs on more than STL-10."""
    evaluation = PROGRAM.replace("print(build(", "print('NMI', build(").replace(
        "    return 'imagenet'\n", "    if args.dataset == 'STL-10':\n        return 'stl'\n"
    )
    readme = README + (
        "\nTo test the trained model (CC), run\n\n> python cluster.py\n\n"
        "It reports the clustering NMI and ACC.\n"
    )
    files = {
        "config/config.yaml": CONFIG,
        "train.py": PROGRAM,
        "train_STL10.py": PROGRAM.replace("'CIFAR-10'", "'STL-10'").replace(
            "def build(args):", "def build(args):\n    # STL-10 unlabeled split, STL-10 NMI"
        ),
        "cluster.py": evaluation,
        "README.md": readme,
    }
    measures = [f"{d} {m}" for d in ("CIFAR-10", "STL-10") for m in ("NMI", "ACC")]
    task = TaskDraft(
        key="table-2:methods",
        question="How does CC compare with the baselines on the clustering benchmarks?",
        method="Train and evaluate CC (Ours) and the compared methods (PICA) and report NMI.",
        expected_outcome="CC is best.",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["CC (Ours)", "PICA"]},
            dependent_variables={"metrics": measures},
        ),
    )
    setup = recovered_setup(tmp_path / "c", files, task)
    usage = setup.usage_instructions
    assert setup.source and setup.source[0] == "train.py", (setup.no_answer, setup.source)
    assert (
        "Run CC (Ours) on CIFAR-10: `python train.py --dataset CIFAR-10`, then evaluate it: "
        "`python cluster.py --dataset CIFAR-10`"
    ) in usage, usage
    assert (
        "Run CC (Ours) on STL-10: `python train_STL10.py --dataset STL-10`, then evaluate it: "
        "`python cluster.py --dataset STL-10`"
    ) in usage, usage
    assert "Run the default configuration" not in usage, usage
    assert "Run PICA: no code of the repository is its own" in usage, usage
    assert "Compare NMI, ACC on CIFAR-10 and STL-10 of" in usage, usage
    steps = "\n".join(setup.requirements)
    assert "Take the CIFAR-10 path (dataset) where args.dataset == 'CIFAR-10'" in steps, steps
    assert "Take the CC (Ours) path" not in steps, steps


def test_a_file_the_program_opens_from_where_it_runs_but_kept_elsewhere_is_said(
    tmp_path: Path,
) -> None:
    """score.py opens `vocab.txt` from the folder it runs in; the repository keeps it in
    valids/: the run says to copy it there first. Where it is beside the program, nothing
    is said."""
    program = (
        '"""Score the masked-word model: hit@1 over the valid vocabulary."""\n'
        "import argparse\n\n"
        "parser = argparse.ArgumentParser()\nparser.add_argument('--limit', type=int)\n"
        "args = parser.parse_args()\n"
        "valids = [line.strip() for line in open('vocab.txt')]\n"
        "print('hit@1', len(valids[: args.limit]))\n"
    )
    files = {
        "score.py": program,
        "valids/vocab.txt": "one\ntwo\n",
        "README.md": (
            "# Masked words\n\nWhat hit@1 does the masked-word model score over the valid "
            "vocabulary?\n\n```\npython score.py --limit 100\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:score",
        question="What hit@1 does the masked-word model score over the valid vocabulary?",
        method="Score the masked-word model.",
        expected_outcome="The valid vocabulary is hit.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["hit@1"]}),
    )
    usage = recovered_setup(tmp_path / "v", files, task).usage_instructions
    assert (
        "score.py opens vocab.txt from the folder it runs in, which the repository has at "
        "valids/vocab.txt: copy it there first"
    ) in usage, usage
    files["vocab.txt"] = "one\n"
    usage = recovered_setup(tmp_path / "h", files, task).usage_instructions
    assert "copy it there first" not in usage, usage


def test_a_data_file_the_run_reads_that_the_repository_lacks_is_said_with_its_link(
    tmp_path: Path,
) -> None:
    """train.py reads `data/train_wiki.json` for `--dataset wiki` and `data/train_news.json`
    otherwise, through its dataset class; neither is in the repository, and the README
    links the first. A run on wiki says which file it reads, at which line, and where to
    get it; the other branch's file, the results it writes and a name joined onto a folder
    are not said."""
    program = (
        '"""Train the number reader."""\n'
        "import argparse\nimport json\nimport os\n\n\n"
        "class Numbers:\n"
        "    def __init__(self, path):\n"
        "        self.rows = json.load(open(path))\n\n\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--dataset', default='news', choices=['wiki', 'news'])\n"
        "parser.add_argument('--out', default='runs')\n"
        "args = parser.parse_args()\n"
        "if args.dataset == 'wiki':\n"
        "    tfile = 'data/train_wiki.json'\n"
        "else:\n"
        "    tfile = 'data/train_news.json'\n"
        "rows = Numbers(tfile).rows\n"
        "vocab = open(os.path.join(args.out, 'vocab.txt')).read()\n"
        "result = 'results.json'\n"
        "json.dump({'hit@1': len(rows)}, open(result, 'w'))\n"
        "print('hit@1', len(rows))\n"
    )
    files = {
        "train.py": program,
        "README.md": (
            "# Number reader\n\nWhat hit@1 does the number reader score on Wiki?\n\n"
            "Download [train](https://example.org/wiki/resolve/main/train_wiki.json) into "
            "data/.\n\n```\npython train.py --dataset wiki\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-1:read",
        question="What hit@1 does the number reader score on Wiki?",
        method="Train the number reader on Wiki and score it.",
        expected_outcome="It reads numbers.",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["hit@1"]}),
    )
    usage = recovered_setup(tmp_path / "w", files, task).usage_instructions
    assert (
        "train.py reads data/train_wiki.json (train.py:17), which the repository does not "
        "have: put it there first (the README links train_wiki.json at "
        "https://example.org/wiki/resolve/main/train_wiki.json)"
    ) in usage, usage
    for other in ("train_news.json", "results.json", "vocab.txt"):
        assert other not in usage, usage
    files["data/train_wiki.json"] = "[]\n"
    usage = recovered_setup(tmp_path / "h", files, task).usage_instructions
    assert "which the repository does not have" not in usage, usage


def test_a_data_set_only_the_documents_name_is_said_to_be_missing(tmp_path: Path) -> None:
    """The task is measured on ScienceQA, which only the README names (as what the method
    extends to): the programs read other benchmarks, so the usage says the data and its
    scoring are still to be added. A data set a program reads, itself or the set it is a
    part of (`cifar10` for CIFAR10-LT), gets no such note."""
    program = (
        "import argparse\n\n"
        "p = argparse.ArgumentParser()\n"
        "p.add_argument('--benchmark', default='mme', choices=['mme'])\n"
        "p.add_argument('--imbalance', type=float, default=0.01)\n"
        "args = p.parse_args()\n"
        "print('accuracy on', args.benchmark)\n"
    )
    files = {
        "evaluate.py": program,
        "README.md": (
            "# Visual adapter\n\nThe adapter extends to multi-modal questions such as "
            "ScienceQA and CIFAR10-LT.\n\nEvaluate the adapter's accuracy:\n\n"
            "```\npython evaluate.py --benchmark mme\n```\n"
        ),
    }
    task = TaskDraft(
        key="table-2:accuracy",
        question="What accuracy does the visual adapter reach on ScienceQA's test set?",
        method="Evaluate the visual adapter and report its accuracy.",
        expected_outcome="85% accuracy.",
        design_complexity=DesignComplexity(
            constant_variables={"setting": "ScienceQA"},
            dependent_variables={"metric": ["accuracy"]},
        ),
    )
    usage = recovered_setup(tmp_path / "s", files, task).usage_instructions
    assert (
        "The task runs on ScienceQA, which only README.md names: no program, script or config "
        "of the repository reads it, so the runs below are on the data their programs read. "
        "Add ScienceQA's data and its scoring first."
    ) in usage, usage
    files["evaluate.py"] = program.replace("choices=['mme']", "choices=['mme', 'cifar10']")
    task.design_complexity.constant_variables = {"setting": "CIFAR10-LT"}
    task.question = task.question.replace("ScienceQA's test set", "CIFAR10-LT")
    usage = recovered_setup(tmp_path / "c", files, task).usage_instructions
    assert "which only README.md names" not in usage, usage
    # named nowhere at all: the same note, without a document to point at; a model the
    # task holds ("Qwen3-4B") is no data set
    task.design_complexity.constant_variables = {"setting": "Wikicorpus"}
    usage = recovered_setup(tmp_path / "w", files, task).usage_instructions
    assert (
        "The task runs on Wikicorpus, which the repository names nowhere: the runs below are on "
        "the data their programs read. Add Wikicorpus's data, and the code that reads it, first."
    ) in usage, usage
    task.design_complexity.constant_variables = {"setting": "Qwen3-4B"}
    usage = recovered_setup(tmp_path / "q", files, task).usage_instructions
    assert "names nowhere" not in usage, usage


EVALUATION = (
    "import argparse\n"
    "\n"
    "\n"
    "def evaluate(args):\n"
    "    print('accuracy', len(args.backbone))\n"
    "\n"
    "\n"
    "if __name__ == '__main__':\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--backbone', default='ResNet18', choices=['ResNet18', 'ResNet34'])\n"
    "    evaluate(parser.parse_args())\n"
)


def test_a_training_in_another_folder_is_no_twin_of_the_main_one(tmp_path: Path) -> None:
    # retrieval/train_index.py shares train.py's stem but not its folder: another stage the
    # document gives before the evaluation, not train.py renamed for other data as
    # train_STL10.py is
    trains = "import argparse\nif __name__ == '__main__':\n    print('trained')\n"
    readme = (
        "# Retrieval\n\nFirst train the retrieval index:\n\n> python retrieval/train_index.py\n\n"
        "Then train the reader:\n\n> python train.py\n\n"
        "On STL-10, train with\n\n> python train_STL10.py\n\n"
        "To evaluate the trained reader, run\n\n> python eval.py --backbone ResNet18\n"
    )
    files = {
        "train.py": trains,
        "train_STL10.py": trains,
        "retrieval/train_index.py": trains,
        "eval.py": EVALUATION,
        "README.md": readme,
    }
    task = TaskDraft(
        key="table-2:compare",
        question="How does the evaluated accuracy of the reader compare across backbones?",
        method="Evaluate the trained reader with each backbone and compare accuracy.",
        expected_outcome="ResNet34 is better.",
        design_complexity=DesignComplexity(
            independent_variables={"backbone": ["ResNet18", "ResNet34"]},
            dependent_variables={"metrics": ["accuracy"]},
        ),
    )
    usage = recovered_setup(tmp_path / "t", files, task).usage_instructions
    assert "`python retrieval/train_index.py`, then `python train.py`" in usage, usage
    assert "train_STL10.py" not in usage, usage
