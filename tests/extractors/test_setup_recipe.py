"""How the authors run their experiment outranks a file that shares its words: when the
top-level README runs exactly one program, that program leads a task whose best word match
is a file the README does not document. The repository is built with git in tmp_path and
mined for real."""

from __future__ import annotations

from pathlib import Path

from repo_fixture import recovered_setup

from expcurate.records import DesignComplexity, TaskDraft

README = """# Evolver

```bash
pip install -r requirements.txt
python prepare_data.py --out data/
python main.py configs/demo.yaml
```
"""

MAIN = '''"""Load a config file and run the evolution pipeline."""
import sys

import yaml

from evolve.pipeline import Pipeline


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "configs/demo.yaml"
    with open(path) as f:
        config = yaml.safe_load(f)
    Pipeline(config).run()


if __name__ == "__main__":
    main()
'''

PIPELINE = '''class Pipeline:
    """Evolve prompts and a router over the benchmarks of the config."""

    def __init__(self, config):
        self.config = config
        self.tasks = config["tasks"]

    def run(self):
        for task in self.tasks:
            self.evolve(task)
        return self.evaluate()

    def evolve(self, task):
        return [task]

    def evaluate(self):
        return {t: 0.0 for t in self.tasks}
'''

# every word of the task, in a benchmark's answer checker the README never runs
CHECKER = '''"""Check GSM8K and MATH answers for accuracy: GSM8K accuracy, MATH accuracy, exact match."""


def gsm8k_answer_is_correct(answer, gold):
    """GSM8K accuracy: the answer matches the gold number."""
    return answer.strip() == gold.strip()


def math_answer_is_correct(answer, gold):
    """MATH accuracy: the boxed answer matches."""
    return answer.strip() == gold.strip()


if __name__ == "__main__":
    print(gsm8k_answer_is_correct("4", "4"), math_answer_is_correct("1", "1"))
'''

FILES = {
    "README.md": README,
    "main.py": MAIN,
    "evolve/__init__.py": "",
    "evolve/pipeline.py": PIPELINE,
    "tasks/gsm8k/checker.py": CHECKER,
    "prepare_data.py": "import argparse\nif __name__ == '__main__':\n    print('data')\n",
    "configs/demo.yaml": "tasks:\n  - gsm8k\n  - math\n",
}


def _task() -> TaskDraft:
    return TaskDraft(
        key="table-1:compare",
        question="How does Evolver compare with Baseline on GSM8K accuracy and MATH accuracy?",
        design_complexity=DesignComplexity(
            independent_variables={"method": ["Evolver", "Baseline"]},
            dependent_variables={"metrics": ["GSM8K accuracy", "MATH accuracy"]},
        ),
    )


def test_the_readmes_one_program_leads_a_keyword_neighbour(tmp_path: Path) -> None:
    setup = recovered_setup(tmp_path, FILES, _task())
    assert setup.source[0] == "main.py"
    assert "`python main.py configs/demo.yaml`" in setup.usage_instructions
    assert "python tasks/gsm8k/checker.py" not in setup.usage_instructions
    assert any("(evolve/pipeline.py:" in s for s in setup.requirements)


def test_a_readme_running_two_programs_names_no_one_recipe(tmp_path: Path) -> None:
    files = {
        **FILES,
        "README.md": README + "\n```bash\npython tasks/gsm8k/checker.py\n```\n",
    }
    setup = recovered_setup(tmp_path, files, _task())
    # the checker is documented now: the README's own command for it, no recipe moved first
    assert setup.source[0] == "tasks/gsm8k/checker.py"


def test_a_command_offered_as_a_check_of_the_set_up_is_no_second_program(
    tmp_path: Path,
) -> None:
    check = "import yaml\nif __name__ == '__main__':\n    print(yaml.__version__)\n"
    files = {
        **FILES,
        "check_env.py": check,
        "README.md": README
        + "\nYou can try `python check_env.py` to check if your environment is set up"
        " correctly.\n\n```bash\npython check_env.py\n```\n",
    }
    setup = recovered_setup(tmp_path, files, _task())
    # the check runs no experiment: the README still runs one program, and it leads
    assert setup.source[0] == "main.py"
    assert "`python main.py configs/demo.yaml`" in setup.usage_instructions


def test_only_checks_reads_the_prose_of_the_command_up_to_its_heading() -> None:
    from expcurate.records import DocCommand
    from extractors.repo.commands import only_checks

    lines = [
        "## Step 2. Configure the agent",
        "",
        "Run `python -m src.agent_test` to check if your agent is configured correctly.",
        "",
        "```bash",
        "python -m src.agent_test --agent gpt-4",
        "```",
        "## Step 3. Run",
        "Make sure the data is set up correctly, then start the evaluation.",
        "```bash",
        "python -m src.assigner",
        "```",
    ]
    assert only_checks(DocCommand(text="python -m src.agent_test", doc="README.md", line=3), lines)
    assert only_checks(DocCommand(text="python -m src.agent_test", doc="README.md", line=6), lines)
    # a run under another heading; "make sure ..." prose is a precondition, not a check
    assert not only_checks(
        DocCommand(text="python -m src.assigner", doc="README.md", line=11), lines
    )


def _worker(name: str) -> str:
    return f'''class DataProcessor:
    """Read the {name} questions and answers."""

    def __init__(self, path):
        self.path = path
        self.items = self.load()

    def load(self):
        with open(self.path) as f:
            return [line.split("\\t") for line in f]
'''


def test_the_benchmarks_a_task_measures_are_loaded_by_their_own_folders(tmp_path: Path) -> None:
    files = {
        **FILES,
        "tasks/gsm8k/data_worker.py": _worker("GSM8K"),
        "tasks/math/data_worker.py": _worker("MATH"),
        "tasks/mbpp/data_worker.py": _worker("MBPP"),
    }
    task = _task()
    task.design_complexity.dependent_variables = {"metrics": ["GSM8K", "MATH", "Avg."]}
    setup = recovered_setup(tmp_path, files, task)
    steps = "\n".join(setup.requirements)
    for name in ("GSM8K", "MATH"):
        said = f"Load {name} (DataProcessor): read the {name} questions and answers"
        assert f"{said} (tasks/{name.lower()}/data_worker.py:1-10)" in steps, steps
    assert setup.source[0] == "main.py"
    assert "tasks/mbpp/" not in steps  # not measured by this task
    # a folder with no like folders beside it is no benchmark's
    alone = {k: v for k, v in files.items() if not k.startswith("tasks/m")}
    setup = recovered_setup(tmp_path / "alone", alone, task)
    assert "Load GSM8K" not in "\n".join(setup.requirements)


def _long_worker(name: str) -> str:
    """A benchmark's data processor longer than a step cites whole: a one-line `__init__`
    storing its name, and the method turning raw records into items."""
    checks = "".join(f"            if not row[{i}]:\n                continue\n" for i in range(20))
    return f'''class DataProcessor:
    """The {name} records as items."""

    def __init__(self, task_name="{name}"):
        self.task_name = task_name

    def process_task_data(self, raw):
        items = []
        for row in raw:
{checks}            items.append({{"question": row[0], "answer": row[1]}})
        return items
'''


def test_a_benchmarks_long_processor_is_cited_where_it_turns_records_into_items(
    tmp_path: Path,
) -> None:
    """A one-statement `__init__` (storing the task's name) loads nothing: the step cites
    `process_task_data`, which makes the benchmark's items."""
    files = {
        **FILES,
        "tasks/gsm8k/data_worker.py": _long_worker("GSM8K"),
        "tasks/math/data_worker.py": _long_worker("MATH"),
        "tasks/mbpp/data_worker.py": _long_worker("MBPP"),
    }
    task = _task()
    task.design_complexity.dependent_variables = {"metrics": ["GSM8K", "MATH", "Avg."]}
    steps = "\n".join(recovered_setup(tmp_path, files, task).requirements)
    assert "Load GSM8K (DataProcessor.process_task_data) (tasks/gsm8k/data_worker.py:7-" in steps
    assert "DataProcessor.__init__" not in steps, steps


def test_held_out_benchmarks_are_prepared_and_listed_in_the_config_the_run_passes(
    tmp_path: Path,
) -> None:
    """The config lists gsm8k and math; the task measures MBPP and MATH. Each measured
    benchmark's documented preparation comes first, and the run is told to list mbpp."""
    prepare = "import argparse\n\nif __name__ == '__main__':\n    print('prepared')\n"
    files = {
        **FILES,
        "tasks/gsm8k/data_worker.py": _worker("GSM8K"),
        "tasks/math/data_worker.py": _worker("MATH"),
        "tasks/mbpp/data_worker.py": _worker("MBPP"),
        "tasks/mbpp/prepare_mbpp_data.py": prepare,
        "tasks/math/prepare_math_data.py": prepare,
        "tasks/gsm8k/prepare_gsm8k_data.py": prepare,
        "docs/data.md": "# Data\n\n```bash\npython tasks/gsm8k/prepare_gsm8k_data.py\n"
        "python tasks/math/prepare_math_data.py\npython tasks/mbpp/prepare_mbpp_data.py\n```\n",
    }
    task = _task()
    task.design_complexity.dependent_variables = {"metrics": ["MBPP", "MATH", "Avg."]}
    usage = recovered_setup(tmp_path / "held", files, task).usage_instructions
    assert (
        "Prepare the data of the benchmarks the task measures: "
        "`python tasks/mbpp/prepare_mbpp_data.py`, `python tasks/math/prepare_math_data.py`."
    ) in usage, usage
    assert "prepare_gsm8k_data" not in usage, usage
    assert (
        "configs/demo.yaml lists gsm8k, math under tasks, not mbpp, which the task measures: "
        "list those under tasks in a copy of it and pass the copy"
    ) in usage, usage
    # the benchmarks the config lists are what the task measures: nothing to change
    task.design_complexity.dependent_variables = {"metrics": ["GSM8K", "MATH", "Avg."]}
    usage = recovered_setup(tmp_path / "main", files, task).usage_instructions
    assert "lists gsm8k, math" not in usage, usage
    assert "`python tasks/gsm8k/prepare_gsm8k_data.py`, `python tasks/math/" in usage, usage


def test_a_task_on_each_benchmark_on_its_own_runs_one_config_per_benchmark(
    tmp_path: Path,
) -> None:
    """The config lists gsm8k and math together; a figure of scores "after learning on each
    benchmark independently" runs each alone. A task saying nothing of it keeps the list."""
    files = {
        **FILES,
        "tasks/gsm8k/data_worker.py": _worker("GSM8K"),
        "tasks/math/data_worker.py": _worker("MATH"),
        "tasks/mbpp/data_worker.py": _worker("MBPP"),
    }
    task = _task()
    task.question += " (scores after learning on each benchmark independently)"
    usage = recovered_setup(tmp_path / "alone", files, task).usage_instructions
    assert (
        'the task runs each benchmark on its own ("on each benchmark independently"), and '
        "configs/demo.yaml lists gsm8k, math together under tasks: run once per benchmark, "
        "with a copy of it listing only that one"
    ) in usage, usage
    usage = recovered_setup(tmp_path / "together", files, _task()).usage_instructions
    assert "on its own" not in usage, usage


def test_held_out_benchmarks_are_listed_to_be_evaluated_only(tmp_path: Path) -> None:
    """The config's entries each set `mode: train`, and the pipeline tests a mode against
    "eval": a task on held-out benchmarks lists them with `mode: eval`, or the run trains
    on what the task holds out. A task that holds nothing out is told only to list them."""
    pipeline = PIPELINE.replace(
        "        for task in self.tasks:\n            self.evolve(task)\n",
        "        for task in self.tasks:\n            task_mode = task.get('mode', 'train')\n"
        "            if task_mode == 'eval':\n                continue\n            self.evolve(task)\n",
    )
    entries = "".join(f"  - name: {t}\n    mode: train\n" for t in ("gsm8k", "math"))
    files = {
        **FILES,
        "evolve/pipeline.py": pipeline,
        "configs/demo.yaml": f"tasks:\n{entries}",
        "tasks/gsm8k/data_worker.py": _worker("GSM8K"),
        "tasks/math/data_worker.py": _worker("MATH"),
        "tasks/mbpp/data_worker.py": _worker("MBPP"),
    }
    task = _task()
    task.question = "How does Evolver compare with Baseline on the held-out benchmark MBPP?"
    task.design_complexity.dependent_variables = {"metrics": ["MBPP", "Avg."]}
    usage = recovered_setup(tmp_path / "held", files, task).usage_instructions
    assert "list those under tasks, each with mode: eval (the task holds them out" in usage, usage
    task.question = "How does Evolver compare with Baseline on MBPP?"
    usage = recovered_setup(tmp_path / "kept", files, task).usage_instructions
    assert "list those under tasks in a copy of it" in usage, usage
    assert "mode: eval" not in usage, usage


def test_the_long_run_the_main_block_hands_over_to_is_the_experiment(tmp_path: Path) -> None:
    """`main()` reads a config and hands everything to `Pipeline(config).run()`, a long
    method whose first lines read the config too: it is the experiment (its rounds of
    evolution), not a wrapper around one, so its steps are cited."""
    rounds = "".join(
        f"        # round {i}: mutate the prompts and keep the top one\n"
        f"        pool = self.mutate(pool, {i})\n"
        f"        top = max(pool)\n        kept.append(top)\n"
        for i in range(16)
    )
    pipeline = PIPELINE.replace(
        "    def run(self):\n        for task in self.tasks:\n            self.evolve(task)\n"
        "        return self.evaluate()\n",
        "    def run(self):\n        config = self.config\n        pool = list(config['tasks'])\n"
        "        kept = []\n" + rounds + "        return self.evaluate()\n\n"
        "    def mutate(self, pool, i):\n        return [p + str(i) for p in pool]\n",
    )
    main = MAIN.replace(
        "    Pipeline(config).run()\n", "    pipeline = Pipeline(config)\n    pipeline.run()\n"
    )
    files = {
        **FILES,
        "main.py": main,
        "evolve/pipeline.py": pipeline,
        **{f"tasks/{t}/data_worker.py": _worker(t) for t in ("gsm8k", "math", "mbpp", "humaneval")},
    }
    task = _task()  # its benchmarks' loaders are steps enough that nothing else is traced
    task.design_complexity.dependent_variables = {"metrics": ["GSM8K", "MATH", "MBPP", "HumanEval"]}
    steps = recovered_setup(tmp_path / "run", files, task).requirements
    assert any("(in run) (evolve/pipeline.py:" in x for x in steps), steps


def test_traced_steps_are_added_where_the_trace_runs_them() -> None:
    """A constructor the trace reaches before `run` goes before the run's step, not after."""
    from extractors.agent.policy import _in_trace_order
    from extractors.agent.steps import Step

    init = Step("Create the Pipeline (Pipeline.__init__)", "p.py", 1, 9)
    run = Step("Run (Pipeline.run)", "p.py", 11, 90)
    load = Step("Load GSM8K", "tasks/gsm8k/w.py", 1, 5)
    assert _in_trace_order([load, run], [init], [init, run]) == [load, init, run]
    assert _in_trace_order([load], [init], [init, run]) == [load, init]


def test_a_config_lists_benchmarks_by_name_or_by_entries_named() -> None:
    from expcurate.records import ConfigFile
    from extractors.agent.suite_config import benchmark_list

    folders = {"tasks/gpqa": "gpqa", "tasks/humaneval": "humaneval", "tasks/mbpp": "mbpp"}
    entries = ConfigFile(
        path="c.yaml",
        values={
            "tasks.0.name": "gpqa_diamond",
            "tasks.0.mode": "train",
            "tasks.1.name": "humaneval",
            "models.0": "gpt",
        },
    )
    assert benchmark_list(entries, folders) == ("tasks", ["gpqa_diamond", "humaneval"])
    # one item naming a benchmark is no suite; paths are files, not benchmarks
    assert (
        benchmark_list(ConfigFile(path="c.yaml", values={"x.0": "mbpp", "x.1": "adam"}), folders)
        is None
    )
    paths = ConfigFile(path="c.yaml", values={"d.0": "tasks/gpqa", "d.1": "tasks/mbpp"})
    assert benchmark_list(paths, folders) is None


def test_the_keys_the_code_reads_from_the_environment_are_set_first(tmp_path: Path) -> None:
    """`os.environ.get("OPENAI_API_KEY")` in a module the program imports, with no default,
    is a key the user must set; one read with a default, or a path, is not."""
    client = (
        "import os\n\n\ndef client():\n    key = os.environ.get('OPENAI_API_KEY')\n"
        "    log = os.getenv('WANDB_API_KEY', '')\n    home = os.environ.get('HOME_DIR')\n"
        "    return key, log, home\n"
    )
    files = {**FILES, "evolve/llm.py": client}
    files["evolve/pipeline.py"] = "from evolve.llm import client\n\n" + PIPELINE
    setup = recovered_setup(tmp_path / "k", files, _task())
    assert (
        "Set the keys the code reads from the environment: OPENAI_API_KEY (evolve/llm.py:5)."
    ) in setup.usage_instructions, setup.usage_instructions
    setup = recovered_setup(tmp_path / "n", FILES, _task())
    assert "environment" not in setup.usage_instructions


def test_an_option_the_programs_config_overrides_is_set_in_the_config(tmp_path: Path) -> None:
    """`--datasets IDC` beside `--config bench.yaml`, which lists datasets, to a program that
    copies its config over the options it parsed: the run says to set it in the config. A
    program that fills from its config only what the options left unset says nothing."""
    bench = (
        "import argparse\n\nimport yaml\n\n\ndef benchmark(args):\n"
        "    with open(args.config) as f:\n        config = yaml.safe_load(f)\n"
        "    for key in config:\n        if key in args:\n"
        "            setattr(args, key, config[key])\n    print('pearson', args.datasets)\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--config', default=None)\n"
        "    p.add_argument('--datasets', nargs='+', default=['IDC'])\n"
        "    benchmark(p.parse_args())\n"
    )
    files = {
        "bench.py": bench,
        "bench.yaml": "datasets:\n  - IDC\n  - PRAD\n  - PAAD\nepochs: 3\n",
        "README.md": "# Bench\n\n```\npython bench.py --config bench.yaml\n```\n",
    }
    task = TaskDraft(
        key="t",
        question="How does the pearson correlation differ between IDC and PRAD?",
        design_complexity=DesignComplexity(
            independent_variables={"dataset": ["IDC", "PRAD"]},
            dependent_variables={"metric": ["pearson correlation"]},
        ),
    )
    usage = recovered_setup(tmp_path / "o", files, task).usage_instructions
    # the default a list option gives (`['IDC']`) is written as a command line takes it
    assert "`python bench.py --config bench.yaml --datasets IDC`" in usage, usage
    assert "['IDC']" not in usage, usage
    assert (
        "bench.yaml sets datasets too, and the program lets its config override the options "
        "(bench.py:11): set it in a copy of bench.yaml instead"
    ) in usage, usage
    files["bench.py"] = bench.replace("if key in args:", "if getattr(args, key) is None:")
    usage = recovered_setup(tmp_path / "u", files, task).usage_instructions
    assert "override" not in usage, usage


def test_a_value_the_program_looks_up_in_its_own_table_is_one_of_its_keys(
    tmp_path: Path,
) -> None:
    """The README's `--task math` to a program doing `eval_dict[args.task]` over the keys
    "Math" and "QA" stops at a KeyError: the command gives Math and says why. A value no key
    holds in any case is said; a shell variable is the user's to fill."""
    evaluate = (
        '"""Evaluate the answers of the tool-using model on the math reasoning or QA dev data: the accuracy they reach."""\n'
        "import argparse\n\n\ndef math_accuracy(path):\n    return 0.5\n\n\n"
        "def qa_accuracy(path):\n    return 0.4\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--task', default=None)\n"
        "    p.add_argument('--data_path', default='data/dev.json')\n"
        "    args = p.parse_args()\n"
        "    eval_dict = {'Math': math_accuracy, 'QA': qa_accuracy}\n"
        "    print('accuracy', eval_dict[args.task](args.data_path))\n"
    )
    readme = "# Tool use\n\nEvaluate:\n\n```\npython evaluate.py --task {task}\n```\n"
    task = TaskDraft(
        key="t",
        question="What accuracy does the tool-using model reach on the math reasoning task?",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["accuracy"]}),
    )
    files = {"evaluate.py": evaluate, "README.md": readme.format(task="math")}
    usage = recovered_setup(tmp_path / "m", files, task).usage_instructions
    assert "`python evaluate.py --task Math`" in usage, usage
    assert (
        "evaluate.py looks --task up in eval_dict (evaluate.py:19), whose keys are Math, QA: "
        "--task math set to Math"
    ) in usage, usage
    files["README.md"] = readme.format(task="physics")
    usage = recovered_setup(tmp_path / "p", files, task).usage_instructions
    assert "--task physics is none of them" in usage, usage
    files["README.md"] = readme.format(task="$TASK")
    usage = recovered_setup(tmp_path / "v", files, task).usage_instructions
    assert "looks --task up" not in usage, usage
    # a program that looks in the table first need not fail on a value it lacks
    files["README.md"] = readme.format(task="physics")
    files["evaluate.py"] = evaluate.replace(
        "    print('accuracy', eval_dict[args.task]",
        "    if args.task not in eval_dict:\n        raise SystemExit('unknown task')\n"
        "    print('accuracy', eval_dict[args.task]",
    )
    usage = recovered_setup(tmp_path / "g", files, task).usage_instructions
    assert "looks --task up" not in usage, usage
    # a launch script's line is the user's to change: said, not rewritten
    files["evaluate.py"] = evaluate
    files["scripts/eval_math.sh"] = "python evaluate.py --task math\n"
    files["README.md"] = "# Tool use\n\nEvaluate:\n\n```\nbash scripts/eval_math.sh\n```\n"
    usage = recovered_setup(tmp_path / "s", files, task).usage_instructions
    assert "give --task Math, not math, in scripts/eval_math.sh" in usage, usage


def test_a_table_a_module_of_the_program_indexes_with_an_option_is_checked_too(
    tmp_path: Path,
) -> None:
    """PDF's `run_longExp.py --model FEDformer` reaches `model_dict[self.args.model]` in
    exp/exp_main.py, whose keys hold no FEDformer: a KeyError the run says. A table the
    program adds to (`model_dict[name] = ...`) may hold more than it lists: nothing is said."""
    exp = (
        '"""Build the forecasting model the options name."""\n\n\nclass Exp:\n'
        "    def __init__(self, args):\n        self.args = args\n\n"
        "    def build(self):\n"
        "        model_dict = {'Linear': 1, 'Transformer': 2}\n"
        "        return model_dict[self.args.model]\n"
    )
    run = (
        '"""Long-term forecasting: train the model on the data and report the MSE."""\n'
        "import argparse\n\nfrom exp.exp_main import Exp\n\n\n"
        "if __name__ == '__main__':\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--model', default='Linear')\n"
        "    print('forecasting MSE', Exp(p.parse_args()).build())\n"
    )
    files = {
        "run.py": run,
        "exp/__init__.py": "",
        "exp/exp_main.py": exp,
        "README.md": "# Forecasting\n\n```\npython run.py --model Informer\n```\n",
    }
    task = TaskDraft(
        key="t",
        question="What forecasting MSE does the long-term model reach?",
        design_complexity=DesignComplexity(dependent_variables={"metric": ["MSE"]}),
    )
    usage = recovered_setup(tmp_path / "m", files, task).usage_instructions
    assert (
        "exp/exp_main.py looks --model up in model_dict (exp/exp_main.py:10), whose keys are "
        "Linear, Transformer: --model Informer is none of them"
    ) in usage, usage
    files["exp/exp_main.py"] = exp.replace(
        "        return model_dict", "        model_dict['Informer'] = 3\n        return model_dict"
    )
    usage = recovered_setup(tmp_path / "g", files, task).usage_instructions
    assert "looks --model up" not in usage, usage
