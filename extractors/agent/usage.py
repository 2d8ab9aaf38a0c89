"""The usage instructions of a setup: numbered lines a researcher follows to run the experiment.

Prerequisites first (installing the dependencies, where the data goes, what every run needs
before it starts), then one command per arm in the order of the plan's runs, the arms no
script, option or switch selects (said so, with the switches of their siblings), and last what
to compare across the runs. A task asking how to build something gets the plan's steps first.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice

from expcurate.records import EntryPoint, RepoIndex, TaskDraft
from extractors.citations import citation_after, cited_part
from extractors.repo import RepoPathError, RepoSearch, terms
from extractors.repo.commands import python_entry, run_from

from .analysis import AnalysisPrograms
from .arm_calls import ArmDefinitions
from .arm_options import (
    choices_of,
    fold,
    reciprocal_notes,
)
from .arms import (
    ABLATED,
    OURS,
    Arm,
    CodeSetting,
    about_data,
    arm_name,
    edit_text,
    in_prose,
    known_metrics,
    listed,
    measured_on,
    measures_per_set,
    notation,
    numeric,
    repeated_within,
    task_arms,
    task_datasets,
)
from .config_runs import with_config
from .data_steps import DataSteps
from .installs import Installs
from .launch import options_of
from .measures import Computed
from .notebook_arms import NotebookArms, unbound_module, unresolved_import
from .plan import Plan
from .query import TaskQuery, asks_how
from .rank import Candidate, asks_cost, counting_docs, names_cost
from .run import Run, run_label
from .run_notes import names_llm
from .stages import experiment_beside
from .steps import Step, reached, usage_for
from .suite_config import preparations
from .taken import taken_away

RUNNABLE = {"script", "entry", "notebook", "test"}
MAX_COUNTED = 4  # the runs' configs a cost counter's command is written out for
# what a data file of a data set is saved as
_DATA_EXT = r"(?:pkl|pickle|json|jsonl|csv|tsv|txt|npy|npz|pt|h5|hdf5|parquet)"
_DATA_OPTION = re.compile(r"--?(?:data|dataset|data_?name|dataset_?name|ds|benchmark)$")
# a data set's proper name: capitals or digits after its first letter (ScienceQA, ADE20K,
# CIFAR10-LT), never a plain word ("Zero-shot")
_PROPER_DATA = re.compile(r"[A-Z][A-Za-z]*[A-Z0-9]")
# a data set's name: "ScienceQA", "ImageNet-10", or one capitalized word of five letters or
# more ("Wikicorpus"); not a number, a lower-case word or an abbreviation of a setting
_DATA_NAME = re.compile(r"[A-Z][A-Za-z]*[A-Z0-9]|[A-Z][a-z]{4,}$")
_DOCUMENT = re.compile(r"\.(?:md|rst|txt|html?|tex)$|(?:^|/)[^./]+$", re.I)
# a setting named by a number and a word ("0% Tool", "100% Tool"), not a number swept
_NAMED_NUMBER = re.compile(r"^\S+\s+[A-Z][A-Za-z-]{2,}")
# "within each of ChatGLM, Alpaca and Vicuna in Table 3": what a comparison is repeated over
_FAMILY = re.compile(r"([a-z]+)\d")  # ls07 and ls14: one kind of data, told apart by number
_ROOT = {"path", "dir", "root"}
# a benchmark's test split scored by its server, not by the labels one has
_TEST_SPLIT = re.compile(r"\btest(?:-dev)? (?:set|split)\b|\btest-dev\b|\btest server\b", re.I)
# a variable whose values are methods compared ("method", "model", "baseline")
_METHOD_VARIABLE = re.compile(r"method|model|baseline|approach|algorithm|architecture", re.I)


@dataclass
class Command:
    """One line of the runs: the command, how it is named, what it sets and what to know."""

    command: str
    label: str = ""
    settings: str = ""
    edits: list[tuple[CodeSetting, bool]] = field(default_factory=list)
    warning: str = ""
    then: str = ""  # the evaluation of what the command trained
    again: tuple[str, str] | None = None  # that evaluation for one more measure
    then_after: list[str] = field(default_factory=list)  # what writes its input, first
    program: str = ""  # the Python program its launch script runs, when it has one

    @classmethod
    def of(cls, run: Run, entries: Mapping[str, EntryPoint]) -> Command:
        return cls(
            run.command,
            run_label(run),
            run.settings,
            run.edits,
            run.warning,
            run.then,
            run.again,
            run.then_after,
            (python_entry(run.script, entries) or "") if run.script else "",
        )


def measured(q: TaskQuery) -> str:
    return ", ".join(known_metrics(q)) or "the measured metrics"


# a key or token read from the environment with no default, or left empty to fill in (in a
# notebook's JSON too, where the quotes are escaped)
_KEY_NAME = r"""["']([A-Z][A-Z0-9_]*(?:_KEY|_TOKEN))["']"""
_CREDENTIAL = re.compile(
    rf"os\.(?:environ\.get|getenv)\(\s*{_KEY_NAME}\s*\)"
    rf"|os\.environ\[\s*{_KEY_NAME}\s*\](?!\s*=[^=])"
    rf"""|os\.environ\[\s*{_KEY_NAME}\s*\]\s*=\s*\\?["']\\?["']"""
)


# autogen's model list, read from a file of that name or the variable
# (`autogen.config_list_from_json("OAI_CONFIG_LIST")`)
_CONFIG_LIST = re.compile(
    r"config_list_from_json\(\s*(?:env_or_file\s*=\s*)?[\"']([A-Z][A-Z0-9_]{2,})[\"']"
)


MAX_ASKED = 300  # characters of the question the last line repeats


def _asked(question: str) -> str:
    """The question as the compare line repeats it: whole when short, else its first
    question ("Do API-based LLMs outperform ...?" before "Specifically, ..."), else cut at a
    word with an ellipsis, never inside a word."""
    text = " ".join(question.split())
    if len(text) <= MAX_ASKED:
        return text
    first = re.match(r".{20,}?\?(?=\s|$)", text)
    if first and len(first.group(0)) <= MAX_ASKED * 4 // 3:
        return first.group(0)
    return text[:MAX_ASKED].rsplit(" ", 1)[0].rstrip(",;:") + " …"


class UsageWriter:
    def __init__(
        self,
        index: RepoIndex,
        search: RepoSearch | None = None,
        data: DataSteps | None = None,
        programs_of: Callable[[str], list[str]] | None = None,
        definitions: ArmDefinitions | None = None,
        analyses: AnalysisPrograms | None = None,
    ) -> None:
        self.index = index
        # the definition an arm left to write would use, looked up once per arm
        self.definitions = definitions or (ArmDefinitions(search) if search else None)
        # the repository's programs a command runs (`RunPlanner.programs`: from the folder a
        # `cd` moves to, through the launch scripts it names)
        self.programs_of = programs_of
        self.search = search  # to read a program's files; without it every option counts read
        self.data = data  # the benchmarks' folders; without it none is prepared
        self.entries = {e.path: e for e in index.entry_points}
        self.known = {f.path for f in index.files}
        self._stems = {fold(posixpath.basename(p).rsplit(".", 1)[0]) for p in self.known}
        # the programs computing measures from the runs' results (the step planner's, read
        # once for both)
        self.analyses = analyses or (
            AnalysisPrograms(search, self.entries) if search is not None else None
        )
        self.installs = Installs(self.known, search)

    def write(
        self,
        chosen: list[Candidate],
        entry: str | None,
        q: TaskQuery,
        task: TaskDraft,
        plan: Plan,
        steps: list[Step],
        worded: list[Step] | None = None,
    ) -> str:
        """Numbered instructions: prerequisites, one command per arm in order, what to compare.
        `worded` are the steps as the requirements word them (what each one's lines do)."""
        commands = [Command.of(r, self.entries) for r in plan.runs if not r.missing]
        chained = 0  # commands that run before another as part of one run
        missing = [(a, r.edits, r.warning) for r in plan.runs if r.missing for a in r.arms]
        if asks_how(task.question):
            # a task asking how to do something has no arms to run one by one: its design's
            # values are what it takes and gives ("input language = Spanish", "greeting
            # choice = Hola"), not runs to write commands for
            missing = []
        if not commands:
            for cand in chosen:
                if cand.kind not in RUNNABLE:
                    continue
                cmd = usage_for(cand.path, cand.kind, self.entries.get(cand.path), self.index, q)
                note = ""
                if cand.kind == "notebook" and self.search is not None:
                    # run from the notebook's folder, its imports resolve from the repository's
                    folder, note = unresolved_import(cand.path, self.search, self.known)
                    cmd = f"PYTHONPATH=$PWD/{shlex.quote(folder)} {cmd}" if folder else cmd
                    unbound = unbound_module(cand.path, self.search, self.known)
                    note = "; ".join(n for n in (note, unbound) if n)
                if cmd and all(cmd != x.command for x in commands):
                    commands.append(Command(cmd, warning=note))
                if len(commands) >= 3 or (commands and chosen[0].kind == "notebook"):
                    break  # a notebook the task is about is the whole program
            # an analysis reads what the experiment beside it writes: that runs first, and
            # the two are one run
            top = chosen[0].path if chosen else None
            experiment = experiment_beside(top, self.index.entry_points)
            if commands and experiment is not None and top and top in commands[0].command:
                run = usage_for(experiment, "entry", self.entries.get(experiment), self.index, q)
                commands[0].label = f"Then run the analysis that reads its results ({top})"
                commands.insert(0, Command(run, label=f"Run the experiment ({experiment})"))
                chained = 1
        if not commands and entry is not None:
            commands.append(
                Command(usage_for(entry, "entry", self.entries.get(entry), self.index, q))
            )
        lines: list[str] = []
        if install := self.installs.line(entry):
            lines.append(install)
        # the keys every program the runs run reads (Trace's and DSPy's for one comparison)
        run_programs = [
            p
            for r in plan.runs
            if not r.missing and self.programs_of is not None
            for p in self.programs_of(r.command)
        ]
        programs = list(dict.fromkeys([*([entry] if entry else []), chosen[0].path, *run_programs]))
        programs = [p for p in programs if p in self.known]
        if keys := self.credentials([p for p in programs if p.endswith((".py", ".ipynb"))]):
            lines.append(keys)
        if data := self.data_option(entry, plan.runs):
            lines.append(data)
        if (e := self.entries.get(entry or "")) is not None:  # "ρ = 50 is `--rho 0.02`"
            lines += [f"{note}." for note in reciprocal_notes(task, e.flags)]
        if absent := self.absent_data(task, entry):
            lines.append(absent)
        if self.data is not None:  # each benchmark the task measures, its data made first
            folders = [f for _, f in self.data.benchmark_folders(task)]
            if made := preparations(self.index.commands, folders, self.known):
                lines.append(
                    "Prepare the data of the benchmarks the task measures: "
                    + ", ".join(f"`{m}`" for m in made)
                    + "."
                )
        # what every run needs (a checkpoint path, a config's data paths, seeds) is said once
        parts = [[p for p in c.warning.split("; ") if p] for c in commands]
        shared = [p for p in parts[0] if all(p in x for x in parts[1:])] if len(parts) > 1 else []
        # one training all the runs evaluate: trained once, not again for each run
        once = [p for p in shared if p.startswith("train first as documented")]
        if once:
            said = "; ".join(p.replace("train first", "train once", 1) for p in once)
            lines.append(f"Before the runs: {said}.")
        if rest := [p for p in shared if p not in once]:
            lines.append(f"For every run: {'; '.join(rest)}.")
        if shared:
            for c, x in zip(commands, parts, strict=True):
                c.warning = "; ".join(p for p in x if p not in shared)
        if asks_how(task.question):  # "How can you implement ...": the plan, in steps
            for step in steps[:10]:
                if not step.path.endswith(".sh"):
                    lines.append(f"{step.action} (as in {step.path}).")
        # every compared arm left to write: the repository's own run is where to start from,
        # not one of the table's rows (EAT's "RIDE+Ours", "GLMC" beside its bare EAT run)
        none_run = bool(missing) and not any(r.arms and not r.missing for r in plan.runs)
        for c in commands:
            what = c.label or "Run the experiment"
            if none_run and what.startswith("Run the default configuration"):
                what = what.replace(
                    "Run the default configuration",
                    "Start from the repository's own run (it names none of the compared arms)",
                    1,
                )
            # a launch script's command hides what it sets; a direct command shows it
            shown = c.settings and (
                c.settings in c.command or set(c.settings.split()) <= set(c.command.split())
            )
            ran = (
                f" (it runs {c.program or entry} with {c.settings})"
                if c.settings and (c.program or entry) and not shown
                else ""
            )
            ran += f" ({c.warning})" if c.warning else ""
            first = f"set {edit_text(c.edits)}, then run " if c.edits else ""
            then = "".join(f", then `{x}`" for x in c.then_after) if c.then else ""
            then += f", then evaluate it: `{c.then}`" if c.then else ""
            then += f", and for {c.again[0]}: `{c.again[1]}`" if c.then and c.again else ""
            lines.append(f"{what}: {first}`{c.command}`{then}{ran}.")
        if (
            not plan.runs
            and chosen
            and chosen[0].kind == "notebook"
            and not asks_how(task.question)
        ):
            # a notebook run as it is: its arms are what its code passes
            passed, missing_arms = self._notebook_arms(chosen[0].path, task_arms(task))
            lines += passed
            missing += [(a, [], "") for a in missing_arms]
        lines += self._unrun_lines(missing, steps, task, worded or steps)
        if cost := self._cost_counter(q, plan, commands):
            lines.append(cost)  # what it counts is measured
            plan.unreported = [m for m in plan.unreported if not names_cost(m)]
        if self.analyses is not None:  # the measures a program of the repository computes
            ran = " ".join(
                [entry or "", *(f"{c.command} {c.then} {' '.join(c.then_after)}" for c in commands)]
            )
            found = self.analyses.find(plan.metrics, [c.path for c in chosen], ran)
            if found is not None:
                lines.append(found.line())
        if server := self._test_server(task, commands):
            lines.append(server)
        lines += again_on(task, plan, self.known, self._script_text)
        lines += again_with(task, plan, self.known)
        lines.append(self._compare(task, q, plan, len(commands) - chained + len(missing)))
        return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))

    def _notebook_arms(self, path: str, arms: list[Arm]) -> tuple[list[str], list[Arm]]:
        """The lines of the arms a notebook's code selects (`NotebookArms`), and the rest."""
        if self.search is None or not arms:
            return [], arms
        return NotebookArms(path, self.search).lines(arms)

    def _definition(self, name: str) -> tuple[str, int, str] | None:
        """Where the repository defines a name (path, line, its name), None without it."""
        return self.search.definition_of(name) if self.search is not None else None

    def _lines(self, path: str) -> list[str]:
        """A file's lines, or [] without the repository to read."""
        return self.search.lines(path) if self.search is not None else []

    def _script_text(self, path: str) -> str:
        """A launch script's first lines, or "" without the repository to read."""
        if self.search is None:
            return ""
        return "\n".join(self.search.lines(path)[:200])

    def _unrun_lines(
        self,
        missing: list[tuple[Arm, list[tuple[CodeSetting, bool]], str]],
        steps: list[Step],
        task: TaskDraft,
        worded: list[Step],
    ) -> list[str]:
        """A line for each arm no run runs: another work's method to take the numbers of, or
        one to write the command of, with what the code offers near it. More than
        `MAX_OWN_LINES` neighbours of one variable with nothing but that to say share a line,
        so a table's ten baselines do not bury the runs."""
        groups: list[tuple[str, list[Arm]]] = []  # the line's kind, its arms
        lines: list[str] = []
        joined: dict[int, tuple[str, str]] = {}  # by arm: another work's method, the authors'
        for arm, near, why in missing:
            if not why and not near and self._elsewhere(arm, task):
                # a language model (GPT-3.5) is queried, not a work whose code is run
                kind = "queried" if names_llm(arm.value) else "elsewhere"
            elif not why and not near and (pair := self._joined(arm, task)):
                joined[id(arm)] = pair
                kind = "joined"  # "RIDE+Ours": another work's method with the authors'
            else:
                hint = f" ({why})" if why else ""
                hint += (
                    f"; the in-code switches {edit_text(near)} select the other arms: change "
                    "them or write the code that runs it"
                    if near
                    else "; write the command that runs it"
                )
                siblings = [a for a in task_arms(task) if a.variable == arm.variable]
                text = f"{task.question}\n{task.method}"
                hint += taken_away(
                    arm, siblings, steps, text, self._lines, worded, self._definition
                ) or self._defined_for(arm)
                kind = "unselected" if hint == "; write the command that runs it" else hint
            # the arms of one kind and variable share a group, wherever they stand in the
            # table (cited baselines between baselines the repository has)
            same = next(
                (g for g in groups if g[0] == kind and g[1][0].variable == arm.variable), None
            )
            if same is not None and kind in _SHARED:
                same[1].append(arm)
            else:
                groups.append((kind, [arm]))
        # a few arms keep a line each; a long list of them (a table's baselines) shares one
        groups = [
            (kind, part)
            for kind, arms in groups
            for part in ([arms] if len(arms) > MAX_OWN_LINES else [[a] for a in arms])
        ]
        # in the table's order, a shared line where its first arm stands
        order = {id(arm): i for i, (arm, _, _) in enumerate(missing)}
        groups.sort(key=lambda g: order.get(id(g[1][0]), 0))
        for kind, arms in groups:
            what = arms[0].variable.replace("_", " ")
            if len(arms) > 1:
                names = _listed([a.value for a in arms])
                lines.append(
                    f"Run {names}: no code of the repository is theirs, so they are other "
                    "works' methods: the paper's numbers for them usually come from the works it cites "
                    "for them; take them from there, or run those works' own code "
                    f"({what}: one each)."
                    if kind == "elsewhere"
                    else f"Run {names}: no launch script, option or in-code switch of the "
                    "repository selects them; write the command that runs each "
                    f"({what}: one run each)."
                )
                continue
            arm = arms[0]
            if kind == "queried":
                lines.append(
                    f"Run {arm.value}: a language model the repository does not call: the "
                    "paper's numbers for it usually come from the work it cites for it; take "
                    "them from there, or query the model through its provider on the task's "
                    f"inputs, scored as the other runs are ({what} = {arm.value})."
                )
                continue
            if kind == "joined":
                other, ours = joined[id(arm)]
                cite = citation_after(f"{task.question} {task.method}", other)
                cite = cite[1:-1] if cite[:1] == "(" and cite[-1:] == ")" else cite
                lines.append(
                    f"Run {arm.value}: the authors' method ({ours}) is the repository's run, "
                    f"and {other} is another work's method, which no code of the repository "
                    f"implements: add {other}'s own code ({cite + ', ' if cite else ''}the work "
                    "the paper cites for it) to that run, and write the command that runs the "
                    f"two together ({what} = {arm.value})."
                )
                continue
            if kind == "elsewhere":
                lines.append(
                    f"Run {arm.value}: no code of the repository is its own, so it is another "
                    "work's method: the paper's numbers for it usually come from the work it cites for "
                    f"it; take them from there, or run that work's own code "
                    f"({what} = {arm.value})."
                )
                continue
            hint = "; write the command that runs it" if kind == "unselected" else kind
            lines.append(
                f"Run {arm.value}: no launch script, option or in-code switch of the repository "
                f"selects it{hint} ({what} = {arm.value})."
            )
        return lines

    def _defined_for(self, arm: Arm) -> str:
        """The definition of the repository an arm no run runs names (`arm_definition`),
        said after "write the command" as what the written run would use; "" for none."""
        found = self.definitions(arm) if self.definitions is not None else None
        if found is None:
            return ""
        path, line, name = found
        return f"; the repository defines {name} ({path}:{line}), which that run would use"

    def _cost_counter(self, q: TaskQuery, plan: Plan, commands: list[Command]) -> str:
        """The task measures parameters or FLOPs (asked, or among its measures) and the
        repository documents a counter (`python tools/get_flops.py /path/to/config --shape
        512 512`) no run runs: it too, given each run's config in the config's place."""
        if not asks_cost(q) and not any(names_cost(m) for m in plan.metrics):
            return ""
        for doc, counters in counting_docs(self.index.commands):
            counter = counters[0]
            if any(counter in f"{c.command} {c.then}" for c in commands):
                continue
            command = run_from(doc, self.known)
            configs = list(dict.fromkeys(r.config for r in plan.runs if r.config))
            each = list(dict.fromkeys(with_config(command, c) for c in configs))
            if not configs or each == [command]:
                return (
                    "Count the cost the task reports with the repository's counter, for each "
                    f"run's config or model: `{command}`."
                )
            listed = ", ".join(f"`{c}`" for c in each[:MAX_COUNTED])
            more = len(each) - MAX_COUNTED
            rest = f", and so for the other {more} configs" if more > 0 else ""
            written = (
                " (and on the config of each run you write)"
                if any(r.missing for r in plan.runs)
                else ""
            )
            return (
                "Count the cost the task reports with the repository's counter, on each "
                f"run's config{written}: {listed}{rest}."
            )
        return ""

    @staticmethod
    def _compare(task: TaskDraft, q: TaskQuery, plan: Plan, runs: int) -> str:
        """The last line: what to compare across the runs, over what, to answer what (for a
        task naming no measure, the one its report line prints: `plan.printed`)."""
        metrics = ", ".join(plan.metrics) or ", ".join(known_metrics(q)) or plan.printed
        metrics = metrics or measured(q)
        # short values, and every arm a run runs ("Multi-GPU with RPC coordination")
        ran = [a for r in plan.runs if not r.missing for a in r.arms]
        # a number with a run of its own, not one a multirun sweeps with the others
        alone = [a for r in plan.runs if not r.missing and not r.sweep for a in r.arms]
        arms = [
            a
            for a in task_arms(task)
            if len(a.value.split()) <= 3
            or len(a.value) <= MAX_NAMED_CHARS
            or notation(a.value)
            or a in ran
        ]
        covered = {(a.variable, a.value): r.covered_by for r in plan.runs for a in r.covers}
        swept: dict[str, list[str]] = {}
        named: list[str] = []
        for a in arms:
            # data sets, numbers no run sets, what one run goes through and the groups the
            # question names are what a comparison is repeated over
            repeated = (
                (numeric(a.value) and a not in alone)
                or about_data(a.variable)
                or "task" in terms(a.variable)
                or (a.variable, a.value) in covered
                or repeated_within(task.question, a.value)
            )
            if repeated:
                swept.setdefault(a.variable.replace("_", " "), []).append(a.value)
            elif a in alone or not numeric(a.value.split()[0]) or _NAMED_NUMBER.match(a.value):
                named.append(arm_name(a))
        named = named[:6]
        swept = dict(list(swept.items())[:3])
        compared = f" of {_listed(named)}" if named else ""
        over = "; ".join(f"{k} {', '.join(v)}" for k, v in swept.items())
        if where := next(iter(dict.fromkeys(covered.values())), ""):
            over += f"; one run goes through them all, as listed by {where}"
        question = _asked(task.question)
        # the runs on one of the data sets the measures are taken on: the others likewise
        ran_on = {r.data for r in plan.runs if r.data and not r.missing}
        taken_on = [] if task_datasets(task) else measured_on(task)
        # runs on each of them (`--dataset WC`, `--dataset 600`): every measure on each
        each = {a.value for r in plan.runs if not r.missing for a in r.arms}
        if len(taken_on) >= 2 and set(taken_on) <= each:
            per = ", ".join(measures_per_set(task)[:6])
            metrics = f"{per} on {' and '.join(taken_on[:6])}"
        if len(ran_on) == 1 and (others := [d for d in taken_on if d not in ran_on]):
            said = ", ".join(others[:6]) + (", ..." if len(others) > 6 else "")
            again = f"; the runs are on {ran_on.pop()}: run them again on {said} for the rest"
        else:
            again = ""
        if plan.unreported:
            parts: list[str] = []
            if unfound := [m for m in plan.unreported if m not in plan.computed_as]:
                it = "them" if len(unfound) > 1 else "it"
                parts.append(
                    f"{', '.join(unfound)}: no string or report statement of the programs the "
                    f"runs run, or of the modules they import, names {it}: write the code that "
                    f"measures {it}"
                )
            parts += [
                f"{m}: no line the runs run prints it, but the code computes it "
                f"{_computed_at(places)}: record it there"
                + (
                    f" while {t} trains (the evaluation does not reach it)"
                    if (t := plan.recorded_in.get(m))
                    else ""
                )
                for m, places in plan.computed_as.items()
            ]
            again += f" ({'; '.join(parts)})"
        # a task asking how to do something compares nothing: its design's values are the
        # inputs of what it builds ("Compare ... of input image path, color palette
        # selection, tiny"); nor has one run of one arm anything to be compared with
        alone_arm = len(named) <= 1 and not over and runs <= 1
        if not (asks_how(task.question) or alone_arm) and (runs > 1 or named or over):
            return (
                f"Compare {metrics}{compared} across the runs"
                + (f" (for each {over})" if over else "")
                + again
                + f" to answer: {question}"
            )
        if plan.metrics or known_metrics(q):  # nothing to compare with
            run = "each run" if runs > 1 else "the run"
            return f"Report {metrics} of {run}{again} to answer: {question}"
        return f"Check that the output answers: {question}"

    def _reads(self, entry: str, option: str) -> bool:
        """Does the program read the option's value (`args.path`, `opt["path"]`, a parameter
        `path` the options are spread into) in its own file or a repository module it
        imports? `os.path` and `sys.path` are no reads."""
        attr = option.lstrip("-").replace("-", "_")
        if self.search is None or not attr.isidentifier():
            return True
        read = re.compile(rf"\b(\w+)\.{attr}\b|\[\s*['\"]{attr}['\"]\s*\]|['\"]{attr}['\"]\s*\)")
        # a parameter of that name takes it from the options spread into a call (`**config`)
        taken = re.compile(rf"\bdef\s+\w+\s*\((?:[^()]|\([^()]*\))*?\b{attr}\b")
        for _, text in self._texts([entry], limit=10**6, depth_first=True):
            if taken.search(text):
                return True
            for m in read.finditer(text):
                if m.group(1) not in {"os", "sys", "osp", "posixpath", "ntpath"}:
                    return True
        return False

    def _texts(
        self, programs: list[str], limit: int = 80, depth_first: bool = False
    ) -> Iterator[tuple[str, str]]:
        """(path, text) of the programs and the repository modules they import, those first
        (at most `limit`), skipping what cannot be read."""
        assert self.search is not None
        for path in islice(reached(self.index, programs, depth_first), limit):
            try:
                yield path, self.search.text(path)
            except (OSError, RepoPathError):
                continue

    def credentials(self, programs: list[str]) -> str:
        """The keys and tokens the programs (and the repository modules they import) read
        from the environment with no default (`os.environ.get("OPENAI_API_KEY")`,
        `os.environ["HF_TOKEN"]`), or leave empty for the user (`os.environ["X"] = ""`), as
        an instruction naming where each is read; "" when none is."""
        if self.search is None:
            return ""
        found: dict[str, str] = {}
        lists: dict[str, str] = {}
        for path, text in self._texts(programs):
            for m in _CREDENTIAL.finditer(text):
                name = next(g for g in m.groups() if g)
                if name not in found:
                    line = text.count("\n", 0, m.start()) + 1
                    found[name] = f"{name} ({path}:{line})"
            for m in _CONFIG_LIST.finditer(text):
                if m[1] not in lists:
                    line = text.count("\n", 0, m.start()) + 1
                    lists[m[1]] = f"{m[1]} ({path}:{line})"
        if not found and not lists:
            return ""
        parts = []
        if found:
            parts.append(
                f"Set the keys the code reads from the environment: {', '.join(list(found.values())[:3])}"
            )
        if lists:
            listed = ", ".join(list(lists.values())[:2])
            parts.append(
                f"{'and write' if found else 'Write'} the model list autogen reads, {listed}: "
                "a JSON list of models and their keys, in a file of that name in the folder the "
                "run starts in or in an environment variable of that name"
            )
        return "; ".join(parts) + "."

    def absent_data(self, task: TaskDraft, entry: str | None) -> str:
        """The data set the task holds fixed, when the repository names it nowhere and the
        entry point's data option takes others of its kind (LS07 where `--data` takes ls14
        and ls21): the runs would run on the default, so the reviewer is told."""
        e = self.entries.get(entry or "")
        if e is None or self.search is None:
            return ""
        held = task.design_complexity.constant_variables.values()
        for value in (v for x in held for v in (x if isinstance(x, list | tuple) else [x])):
            name = str(value).strip()
            family = _FAMILY.match(fold(name))
            if family is None or len(name.split()) > 2 or self._named(name):
                continue
            for f in e.flags:
                if not _DATA_OPTION.match(f.name):
                    continue
                default = f.default.strip("'\"")
                values = list(dict.fromkeys([*choices_of(f), *([default] if default else [])]))
                kin = [v for v in values if (m := _FAMILY.match(fold(v))) and m[1] == family[1]]
                if kin:
                    said = ", ".join(values) + (f" (default {default})" if default else "")
                    return (
                        f"The task runs on {name}, which the repository names nowhere: its "
                        f"code gives {f.name} {said}{self._listed_beside(values)}. Find which "
                        f"value or file holds {name}, or add its data, before the runs; else "
                        f"they run on {default or values[0]}."
                    )
        return self.documented_data(task)

    def _listed_beside(self, values: list[str]) -> str:
        """The other data files a listing of the option's values' files holds (a data
        folder's README listing `ls14.pkl`, `ls21.pkl` and `genesis.pkl`), said after the
        values: the one the task names may be among them under another name."""
        if self.search is None or not values:
            return ""
        names = "|".join(re.escape(v) for v in values)
        try:
            hits = self.search.grep(rf"(?<![\w-])(?:{names})\.{_DATA_EXT}\b", max_hits=10)
        except RepoPathError:
            return ""
        for path, line, _ in hits:
            lines = self.search.lines(path)
            near = "\n".join(lines[max(0, line - 6) : line + 5])
            files = dict.fromkeys(re.findall(rf"(?<![\w./-])([\w-]+)\.({_DATA_EXT})\b", near))
            others = [f"{stem}.{ext}" for stem, ext in files if stem not in values]
            if others and len(files) - len(others) >= 2:
                known = ", ".join(f"{stem}.{ext}" for stem, ext in files if stem in values)
                return f", and {path} lists {', '.join(others[:3])} beside {known}"
        return ""

    def documented_data(self, task: TaskDraft) -> str:
        """The data set the task holds fixed ("on ScienceQA's test set"), when the repository
        names it only in its documents: no program, script or config reads it, nor the data
        set it is a part of (`CIFAR10` of "CIFAR10-LT"), so the runs are on other data and
        the benchmark's reading and scoring are still to be written."""
        if self.search is None:
            return ""
        dc = task.design_complexity
        for variable, values in dc.constant_variables.items():
            if not (about_data(str(variable)) or str(variable) == "setting"):
                continue
            for value in listed(values):
                name = str(value).strip()
                if len(name.split()) > 1 or names_llm(name):
                    continue
                head = re.split(r"[-_]", name)[0]
                found = self.search.where_written(name)
                parent = self.search.where_written(head) if head != name else []
                if not found and not parent and _DATA_NAME.match(name):
                    return (
                        f"The task runs on {name}, which the repository names nowhere: the "
                        f"runs below are on the data their programs read. Add {name}'s data, "
                        f"and the code that reads it, first."
                    )
                if not _PROPER_DATA.match(name):
                    continue
                if not found or any(not _DOCUMENT.search(p) for p in [*found, *parent]):
                    continue
                said = " and ".join(found[:2]) + (" name" if len(found) > 1 else " names")
                return (
                    f"The task runs on {name}, which only {said}: no program, script "
                    f"or config of the repository reads it, so the runs below are on the data "
                    f"their programs read. Add {name}'s data and its scoring first."
                )
        return ""

    def _test_server(self, task: TaskDraft, commands: list[Command]) -> str:
        """The task reports a benchmark's test split ("on the Cityscapes test set"), which
        its evaluation program scores only on the validation split (`--eval mIoU`) but can
        write for the benchmark's server (`--format-only`): how to get the test numbers."""
        said = _TEST_SPLIT.search(f"{task.question}\n{task.method}")
        ran = [f"{c.command} {c.then}" for c in commands]
        if said is None or not any(re.search(r"(?<!\S)--eval(?:\s|=)", r) for r in ran):
            return ""
        named = [p for p in self.entries if any(p in r.replace("./", "") for r in ran)]
        # and what a launch script runs (`dist_test.sh` runs tools/test.py)
        named += [c for p in named for c in self.entries[p].calls if c in self.entries]
        for path in dict.fromkeys(named):
            if any(f.name == "--format-only" for f in self.entries[path].flags):
                return (
                    f"The task reports the {said.group(0)}, whose labels the benchmark keeps: "
                    f"`--eval` scores the validation split; run {path} with `--format-only` "
                    "instead, to write the test predictions, and submit them to the "
                    "benchmark's evaluation server."
                )
        return ""

    def _elsewhere(self, arm: Arm, task: TaskDraft) -> bool:
        """A compared method no word of which the repository holds (NBFNet, LogTrans,
        RIDE), or which the task cites as prior work ("PASCL (Wang et al. 2022)") and no code
        of the repository names as its own (`RepoSearch.implements`): another work's. Not an
        ablation or a variant of the authors' method ("w/o MSCA", "RIDE+Ours"), notation
        ("x + x"), a number, nor a value of what is not a method (a prompt, a path)."""
        if self.search is None:
            return False
        value = arm.value
        if ABLATED.match(value) or OURS.search(value) or numeric(value.split()[0]):
            return False
        head = cited_part(value)
        if not about_data(arm.variable) and citation_after(f"{task.question} {task.method}", head):
            return not self.search.implements(head)
        if not _METHOD_VARIABLE.search(arm.variable):
            return False
        words = [w for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", value) if len(w) >= 2]
        if not words or notation(value) or value.rstrip().endswith("."):
            return False  # "FED.": a name cut short, maybe FEDformer's
        # the start of a module's name ("FED" of models/FEDformer.py)
        if any(len(w) >= 3 and any(s.startswith(w.lower()) for s in self._stems) for w in words):
            return False
        # named only in prose (a README's table of the paper's results, a comment) is named
        # by no code of this repository
        return not self._named(value, code=True) and not any(
            self.search.in_code(w.lower()) for w in words
        )

    def _joined(self, arm: Arm, task: TaskDraft) -> tuple[str, str] | None:
        """Another work's method and the authors' that an arm runs together ("RIDE+Ours":
        RIDE, Ours; "GLMC + Ours"), when the first is another work's (`_elsewhere`) and the
        second is marked as the authors' own; None otherwise."""
        parts = [p.strip() for p in re.split(r"\s*[+&]\s*", arm.value) if p.strip()]
        if len(parts) != 2:
            return None
        ours = [p for p in parts if OURS.search(p)]
        others = [p for p in parts if not OURS.search(p)]
        if len(ours) != 1 or len(others) != 1:
            return None
        other = others[0]
        if not self._elsewhere(Arm(arm.variable, other, frozenset(terms(other))), task):
            return None
        return other, ours[0]

    def _named(self, name: str, code: bool = False) -> bool:
        """The repository holds the name, anywhere; with `code`, in its code proper."""
        search = self.search
        assert search is not None
        key = name.lower().replace("-", "_")
        held = search.in_code if code else (lambda t: search.document_frequency(t) > 0)
        return held(fold(name)) or held(key) or search.written(key, code=code)

    def data_option(self, entry: str | None, runs: list[Run]) -> str:
        """Where the entry point reads its data, as an instruction with a placeholder."""
        e = self.entries.get(entry or "")
        if e is None:
            return ""
        for f in e.flags:
            words = set(terms(f.name.replace("_", " ").replace("-", " ")))
            if (
                f.name.startswith("--")
                and (words & {"data", "dataset", "dataroot", "datadir"} or words <= _ROOT)
                and (words & _ROOT or words & {"dataroot", "datadir"})
                and not words & {"weight", "checkpoint", "ckpt", "model", "output", "result"}
                and self._reads(e.path, f.name)  # `--path` parsed and never read is no place
            ):
                passed = re.compile(rf"(?<!\S){re.escape(f.name)}[= ](\S+)")
                given = next(
                    (m.group(1) for r in runs if (m := passed.search(r.invocation or r.command))),
                    "",
                )
                if given:  # what the runs pass, not the parser's unused default
                    where = f" (the runs pass {given})"
                elif f.default and f.default != "None":
                    where = f" (default {f.default})"
                else:
                    where = ""
                return f"Put the data where {entry} reads it: {f.name} <DATA_PATH>{where}."
        return ""


def again_on(
    task: TaskDraft, plan: Plan, known: set[str], text: Callable[[str], str] = lambda p: ""
) -> list[str]:
    """The launch scripts that run the runs again on the other data sets the measures are
    taken on, where the repository names them as the runs' own (scripts/.../TimesNet_ETTh1.sh
    for ETTh1, TimesNet_ETTm1.sh for ETTm1), or puts them beside them reading that data set
    (`text` gives a script's text): one line per data set, with its scripts."""
    ran_on = {r.data for r in plan.runs if r.data and not r.missing}
    if task_datasets(task) or len(ran_on) != 1:
        return []
    on = ran_on.pop()
    scripts = list(dict.fromkeys(r.script for r in plan.runs if r.script and not r.missing))
    # an arm run as another arm's script with an option changed (`--model ETSformer` in
    # TimesNet_ETTh1.sh's command) is looked for as that script's name with the value
    # changed too: ETSformer_ETTh1.sh, ECL_script/ETSformer.sh on Electricity
    scripts += [named for r in plan.runs if r.data == on and (named := _named_for(r, plan.runs))]
    below: dict[str, list[str]] = {}  # the files two folders down from each folder
    for path in sorted(known) if scripts else []:
        below.setdefault(posixpath.dirname(posixpath.dirname(path)), []).append(path)
    lines: list[str] = []
    for other in (d for d in measured_on(task) if d != on):
        alike = [a for s in scripts if (a := _renamed(s, on, other, known, below, text))]
        if alike:
            run = ", ".join(f"`bash {shlex.quote(a)}`" for a in alike)
            rest = (
                " (the other runs with their data options set to it)"
                if len(alike) < len([r for r in plan.runs if not r.missing and r.arms])
                else ""
            )
            lines.append(f"Run them again on {other}: {run}{rest}.")
    return lines


def again_with(task: TaskDraft, plan: Plan, known: set[str]) -> list[str]:
    """The launch scripts that run the runs again for the other values of a variable the
    task varies, when one value is a folder of every run's script at one place
    (scripts/PDF/720/etth2.sh for a look-back window of 720) and the repository has the
    scripts with the other value there (scripts/PDF/336/etth2.sh for 336): one line per
    value, with its scripts."""
    scripts = list(dict.fromkeys(r.script for r in plan.runs if r.script and not r.missing))
    if not scripts:
        return []
    parts = [s.split("/") for s in scripts]
    by_variable: dict[str, list[str]] = {}
    for arm in task_arms(task):
        by_variable.setdefault(arm.variable, []).append(arm.value.strip())
    built_on = any(not r.script and not r.missing and r.arms for r in plan.runs)
    # the values a run's script goes through itself (`--pred_len {96,192,336,720}`)
    swept = [
        set(group.split(","))
        for r in plan.runs
        for group in re.findall(r"\{([^{}]*)\}", r.settings)
    ]
    lines: list[str] = []
    for variable, values in by_variable.items():
        if set(values) in swept:
            continue
        at = next(
            (
                (value, places.pop())
                for value in values
                if len(places := {_folder(p, value) for p in parts}) == 1 and -1 not in places
            ),
            None,
        )
        if at is None:
            continue
        ran, i = at
        for other in (v for v in values if v != ran and "/" not in v):
            alike = ["/".join([*p[:i], other, *p[i + 1 :]]) for p in parts]
            if not all(a in known for a in alike):
                continue
            run = ", ".join(f"`bash {shlex.quote(a)}`" for a in alike)
            rest = " (and the runs built on their commands likewise)" if built_on else ""
            lines.append(f"Run them again with {variable.replace('_', ' ')} {other}: {run}{rest}.")
    return lines


def _folder(path: list[str], value: str) -> int:
    """Where `value` is a folder of a path (its parts), -1 when it is none."""
    return next((i for i, part in enumerate(path[:-1]) if part == value), -1)


def _named_for(run: Run, runs: list[Run]) -> str:
    """The name a script of `run`'s own would have: for a run without a script that sets one
    option of a script's command (`--model ETSformer`), that script's name with the value it
    gives the option (`TimesNet` in TimesNet_ETTh1.sh) changed to the run's; "" otherwise."""
    if run.script or run.missing or not run.switch:
        return ""
    value = options_of(run.settings).get(run.switch, "")
    for base in runs:
        was = options_of(base.invocation).get(run.switch, "") if base.script else ""
        folder, name = posixpath.split(base.script)
        if value and len(was) >= 3 and was in name and base.data == run.data:
            return posixpath.join(folder, name.replace(was, value, 1))
    return ""


def _renamed(
    script: str,
    on: str,
    other: str,
    known: set[str],
    below: dict[str, list[str]],
    text: Callable[[str], str],
) -> str:
    """The script named as `script` with the data set `other` where it names `on`, if the
    repository has it (`TimesNet_ETTh1.sh` -> `TimesNet_ETTm1.sh`), else the script named as
    it is in a folder beside its own named for `other` (`below`: the files two folders down
    from each folder), else in one beside it whose script reads `other`'s data (ECL_script/
    TimesNet.sh passing `--data_path electricity.csv` for "Electricity"); "" otherwise."""
    folder, name = posixpath.split(script)
    for said, new in ((on, other), (fold(on), fold(other))):
        found = re.search(re.escape(said), name, re.I)
        if found is None or not said:
            continue
        for spelt in (new, new.lower(), new.upper()):
            path = posixpath.join(folder, name[: found.start()] + spelt + name[found.end() :])
            if path in known and path != script:
                return path
    # in the folder beside it named for the data set (scripts/imputation/ETT_script/
    # TimesNet_ETTh1.sh -> scripts/imputation/Weather_script/TimesNet.sh)
    own = fold(re.sub(re.escape(on), "", name, flags=re.I))
    above = posixpath.dirname(folder)
    for path in below.get(above, []):
        there, base = posixpath.split(path)
        if (
            there != folder
            and fold(other) in fold(posixpath.basename(there))
            and fold(re.sub(re.escape(other), "", base, flags=re.I)) == own
        ):
            return path
    if len(fold(other)) < 4:
        return ""
    for path in below.get(above, []):
        there, base = posixpath.split(path)
        if there != folder and fold(base) == own and fold(other) in _data_read(text(path)):
            return path
    return ""


_DATA_VALUE = re.compile(r"--(?:data_path|root_path|data_dir|dataset)[= ]+['\"]?([^\s'\"\\]+)")


def _data_read(script: str) -> str:
    """The data a launch script passes its program (`--data_path electricity.csv`), folded."""
    return " ".join(fold(v) for v in _DATA_VALUE.findall(script))


# an arm's value short enough to name in the comparison whatever its words ("w/o 7 × 7 Br,
# 21 × 21 Br"); a longer one of more than three words is a description
MAX_NAMED_CHARS = 32
_SHARED = ("elsewhere", "unselected")  # the kinds of unrun arms that share one line
MAX_OWN_LINES = 3  # unrun arms of one kind and variable that each keep a line of their own


def _computed_at(places: list[Computed]) -> str:
    """Where a measure is computed, as a usage says it: "as sim in InstanceLoss.forward
    (modules/contrastive_loss.py:30) and in ClusterLoss.forward (...:80)", "by SHD (...)"."""
    return _listed(
        [
            f"as {c.name} in {c.owner} ({c.step.path}:{c.step.start})"
            if c.owner
            else f"by {c.name} ({c.step.path}:{c.step.start})"
            for c in places
        ]
    )


def _listed(values: list[str]) -> str:
    """Names as a list in prose ("A, B and C"); with semicolons when a name has a comma."""
    return in_prose(values, "; " if any("," in v for v in values) else ", ")
