"""One run of a task's experiment, and the label its step carries.

The record the planner in `runs.py` returns, kept apart from it so that the plan's steps
(`plan.py`) can name a run without importing how runs are chosen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from expcurate.records import EntryPoint

from .arms import Arm, CodeSetting, about_data, arm_name
from .suite import Suite

MAX_RUNS = 12  # the runs of one task, at most


@dataclass
class Run:
    """One way to run (part of) the experiment: a launch script, a README line, a command."""

    command: str
    arms: list[Arm] = field(default_factory=list)
    script: str = ""  # the launch script it runs, if any
    lines: tuple[int, int] = (0, 0)  # the entry point's invocation inside the script
    settings: str = ""  # the invocation's experiment-defining flags, as they are set
    invocation: str = ""  # the script's command with its variables filled (one sweep value)
    switch: str = ""  # the option this run adds to turn its arm on
    data: str = ""  # the data set it runs on, when the task names several
    missing: bool = False  # no script or option selects this arm: the reviewer writes it
    elsewhere: bool = False  # the arm's only script runs it on other data than the task's
    # for such a run, the options to change and their values on the task's data, as another
    # arm's script for that data gives them (`--data_path ETTm1.csv`), and that script
    repointed: tuple[str, str] = ("", "")
    sweep: bool = False  # one multirun over every combination of its arms
    warning: str = ""  # what would stop the command as written, for the reader
    variant: str = ""  # the model its script trains in the arm's place (CycleiTransformer)
    # in-code settings to give before it runs, with their values for this run
    edits: list[tuple[CodeSetting, bool]] = field(default_factory=list)
    # values of a variable the run goes through in one pass (a config's list it passes:
    # `categories: [liver, kidney, ...]`), with where they are listed
    covers: list[Arm] = field(default_factory=list)
    covered_by: str = ""  # "categories in config/config_demo.json"
    # the program's own list the run goes through whole (`tasks[args.task_start:...]`), and
    # the program that lists it
    suite: Suite | None = None
    suite_program: str = ""
    config: str = ""  # the config file that selects its arm (`configs/x/y_tiny.py`)
    then: str = ""  # the documented evaluation of what it trained, with the same config
    # what writes that evaluation's input, run before it (`generate.py --output_path x.json`)
    then_after: list[str] = field(default_factory=list)
    # that evaluation again for a measure it takes with a switch: ("mIoU (MS)", "... --aug-test")
    again: tuple[str, str] | None = None
    # the training programs documented before an evaluation run, run first (`stage1.py`)
    trained_by: list[str] = field(default_factory=list)
    # the config lines that select its arm, as steps (action, path, first and last line):
    # the registry entry it lists and the list (`vicuna-13b:` in configs/agents/fs_agent.yaml)
    selects: list[tuple[str, str, int, int]] = field(default_factory=list)

    def say(self, note: str) -> None:
        """Add `note` to what a reader must know about the run, after what it says."""
        self.warning = "; ".join(w for w in (self.warning, note) if w)

    def say_first(self, note: str) -> None:
        """Add `note` to what a reader must know about the run, before what it says."""
        self.warning = "; ".join(w for w in (note, self.warning) if w)


def within_cap(runs: list[Run]) -> list[Run]:
    """The runs kept under `MAX_RUNS` first, shared among the arms: every arm's run on its
    first data set before any arm's on a later one, so many data sets never push an arm out.
    The kept runs stay in their order; those past the cap follow, in theirs."""
    if len(runs) <= MAX_RUNS:
        return runs
    seen: dict[tuple[str, ...], int] = {}
    ranked = []
    for k, run in enumerate(runs):
        key = tuple(arm_name(a) for a in run.arms if not about_data(a.variable))
        ranked.append((seen.get(key, 0), k))
        seen[key] = seen.get(key, 0) + 1
    kept = {k for _, k in sorted(ranked)[:MAX_RUNS]}
    return [r for k, r in enumerate(runs) if k in kept] + [
        r for k, r in enumerate(runs) if k not in kept
    ]


def shared_heads(run: Run) -> list[tuple[str, list[str]]]:
    """Of a run's arms, those of one variable whose values begin with the same words and
    differ after them ("Exp Others" and "Exp Units"): the words they share, and the values.
    One run gives them all: they are its results told apart by what they are reported by."""
    out: list[tuple[str, list[str]]] = []
    for variable in dict.fromkeys(a.variable for a in run.arms):
        values = [a.value.split() for a in run.arms if a.variable == variable]
        if len(values) < 2:
            continue
        shared: list[str] = []
        for words in zip(*values, strict=False):
            if len(set(words)) > 1:
                break
            shared.append(words[0])
        if shared and all(len(v) > len(shared) for v in values):
            out.append((" ".join(shared), [" ".join(v) for v in values]))
    return out


def run_label(run: Run) -> str:
    """ "Run CycleNet/MLP on ETTh1", "Run w/o Conv", "Run the default configuration on ETTh2"."""
    arms = ", ".join(arm_name(a) for a in run.arms)
    if run.sweep:  # "algorithm MAPPO, QMIX × seed 0, 1"
        by: dict[str, list[str]] = {}
        for a in run.arms:
            by.setdefault(a.variable.replace("_", " "), []).append(a.value)
        grid = " × ".join(f"{k} {', '.join(v)}" for k, v in by.items())
        return f"Run every combination of {grid} in one multirun"
    # a data set among the arms is where the others run ("PDF(336) on ETTh1")
    methods = [a for a in run.arms if not about_data(a.variable)]
    sets = [a.value for a in run.arms if about_data(a.variable)]
    data = run.data or ", ".join(sets)
    if sets and not run.elsewhere:
        arms = ", ".join(arm_name(a) for a in methods)
    what = f"Run {arms}" if arms else "Run the default configuration"
    if run.elsewhere and run.data:  # say so rather than pass another data set off as this one
        options, script = run.repointed
        if options:
            return (
                f"{what} (its script runs other data: for {run.data}, set {options} in it, "
                f"as {script} does)"
            )
        return f"{what} (its script runs other data: set its data options to {run.data})"
    return what + (f" on {data}" if data and data not in arms else "")


def given_values(entry: EntryPoint, runs: list[Run]) -> dict[str, set[str]]:
    """The values the runs give each of the entry point's options, by the option's name in
    the code (`--md ResNet34` and `--model ResNet34` both as `model`)."""
    dest = {
        name: flag.name.lstrip("-").replace("-", "_")
        for flag in entry.flags
        for name in (flag.name, *flag.aliases)
    }
    out: dict[str, set[str]] = {}
    for r in runs:
        words = (r.invocation or r.command).split()
        for word, value in pairwise(words):
            name, _, inline = word.partition("=")
            if name in dest:
                out.setdefault(dest[name], set()).add((inline or value).strip("'\""))
    return out
