"""One task's runs, planned arm by arm: what runs each arm the task compares.

The order is the order of trust. An arm a launch script's path or settings name runs through
that script, once per data set of the task; then an arm an option of the entry point selects
(`--wo_conv`, `--model_type mlp`), a program of its own beside the entry point, a switch the
code hard-codes, a config file; the authors' own method is the run as the repository sets it
up. What is left is a line for the reviewer to fill in. `RunPlanner` (runs.py) holds what is
read once per repository; a `TaskRuns` lives for one task.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections import Counter
from collections.abc import Callable
from typing import Protocol

from expcurate.records import CliFlag, ConfigFile, EntryPoint, TaskDraft
from extractors.repo import RepoSearch, stem, terms, tokens
from extractors.repo.commands import python_entry

from .arm_calls import CallingProgram
from .arm_options import (
    NO_VALUE,
    arm_flag,
    arm_option,
    choices_of,
    data_options,
    fold,
    setting_flags,
    sweep_option,
)
from .arms import (
    ABLATED,
    DEFAULT_ARM,
    OURS,
    Arm,
    CodeSetting,
    about_data,
    code_edits,
    content_words,
    form_words,
    measured_on,
    number_value,
    numeric,
    task_arms,
    task_datasets,
    task_settings,
    unnoted,
    value_forms,
    whole_model,
)
from .derived import plain_backbones, sweeps_of, with_parameters
from .entry_args import EntryArgs, positional
from .launch import options_of, shell, with_held, with_setting, without_options
from .launch_scripts import LaunchScripts
from .methods import MethodModules
from .multirun import hydra_sweep
from .query import TaskQuery
from .registries import Listing, Registries, entry_note, missing_note, selecting
from .run import Run
from .run_notes import config_item, model_keys, names_llm, trains, variant_warning


class Planner(Protocol):
    """What a task's planning asks of the repository's planner (`runs.RunPlanner`), which
    reads each script, README and config once for every task."""

    args: EntryArgs
    scripts: LaunchScripts
    entries: dict[str, EntryPoint]
    methods: MethodModules
    search: RepoSearch

    @property
    def registries(self) -> Registries: ...
    def configs(self, command: str) -> list[ConfigFile]: ...
    def configs_read(self, command: str) -> list[ConfigFile]: ...
    def arm_setting(
        self, arm: Arm, options: list[CliFlag], entry: str | None
    ) -> list[str] | None: ...
    def model_module(self, arm: Arm, options: list[CliFlag]) -> list[str] | None: ...
    def by_its_note(self, arm: Arm, setting: list[str], arms: list[Arm]) -> bool: ...
    def titled(self, arm: Arm) -> bool: ...
    def arm_program(self, arm: Arm, entry: str | None) -> str | None: ...
    def program_run(self, task: TaskDraft, program: str, arm: Arm) -> Run: ...
    def calling_program(self, arms: list[Arm]) -> CallingProgram | None: ...
    def config_runs(
        self,
        task: TaskDraft,
        q: TaskQuery,
        entry: str | None,
        plain: list[Arm],
        datasets: list[str],
        add: Callable[[Run], Run],
    ) -> tuple[list[Arm], str | None]: ...
    def recipe(self, entry: str, setting: list[str], held: list[tuple[CliFlag, str]]) -> str: ...
    def default_run(
        self, task: TaskDraft, entry: str, options: list[CliFlag], e: EntryPoint | None
    ) -> Run: ...
    def twin_arms(self, plain: list[Arm], entry: str | None) -> list[tuple[Arm, str]]: ...
    def switched_off(self, arm: Arm, switch: CodeSetting) -> bool: ...


RELEVANT = 0.6  # a launch script ranked this close to the best file can name the entry point
MAX_MISSING = 10  # arms no script or option selects, each shown as a line to fill in
MAX_REPOINTED = 6  # options re-pointed to the task's data set in a script of other data


class TaskRuns:
    """The runs of one task's arms, before the checks every run gets (`RunPlanner.runs`).

    The phases share what they found so far: the runs chosen (`chosen`, merged by `add`),
    the arms still without a run (`plain`), and those an option selects (`by_flag`).
    """

    def __init__(
        self,
        planner: Planner,
        task: TaskDraft,
        q: TaskQuery,
        entry: str | None,
        scores: dict[str, float],
    ) -> None:
        self.p = planner
        self.task, self.q, self.scores = task, q, scores
        # numbers are swept inside; "10 for PDF" describes a value, it is no arm
        arms = [a for a in task_arms(task) if not numeric(a.value.split()[0])]
        self.names = task_datasets(task)
        self.datasets = [frozenset(content_words(d)) for d in self.names] or [frozenset()]
        self.label = dict(zip(self.datasets, self.names, strict=False))
        fixed = task_settings(task, q) - {w for a in arms for w in a.words}
        self.top = max(scores.values(), default=0.0) or 1.0
        launchers = planner.scripts.launchers()
        ran = [e for e in launchers if entry in e.calls] if entry else []
        if not ran and not self._selects_arms(planner, entry, arms):
            relevant = [e for e in launchers if scores.get(e.path, 0.0) >= RELEVANT * self.top]
            targets = Counter(c for e in relevant for c in e.calls if c.endswith(".py"))
            if targets:
                entry = targets.most_common(1)[0][0]
                ran = [e for e in launchers if entry in e.calls]
        self.launchers = ran if entry else launchers
        self._enter(entry)
        # a numeric variable every value of which names a folder or file of the launch
        # scripts (scripts/PDF/336/, scripts/PDF/720/) is run by those scripts, value by
        # value, when the numbers are what the task compares (no method is an arm)
        named = [a for a in arms if not about_data(a.variable)]
        parts = {p for x in self.launchers for p in path_parts(x.path)} if not named else set()
        self.numbers: dict[str, list[Arm]] = {}
        for a in task_arms(task):
            if numeric(unnoted(a.value)):
                self.numbers.setdefault(a.variable, []).append(a)
        for values in self.numbers.values():
            if len(values) >= 2 and all(v.value in parts for v in values):
                arms += values
        fixed -= {w for a in arms for w in a.words}
        # a kind of experiment the question names that the launch scripts are foldered by
        # ("Imputation task": scripts/imputation/): the scripts of that folder run this task
        folders = {
            w for e in self.launchers for w in terms(posixpath.dirname(e.path)) if len(w) >= 4
        }
        self.asked = {w for w in terms(task.question) if w in folders} - {
            w for a in arms for w in a.words
        }
        self.fixed = fixed | self.asked

        self.chosen: list[Run] = []
        sweep = hydra_sweep(planner.args, task, q, task_arms(task), entry, self.launchers)
        if sweep is not None:  # one multirun covers these arms
            self.chosen.append(sweep)
            arms = [a for a in arms if a not in sweep.arms]
        self.arms = arms
        self.distinct = distinct_words(arms)
        # the words of each arm none of its siblings has, written as names ("mlp" of
        # "CycleNet (with MLP backbone)" beside "CycleNet (with Linear backbone)"; not
        # "input" of "input and output dimensions")
        self._sibling_words: dict[int, frozenset[str]] = {}
        self.own_words = {
            id(a): a.words.difference(
                *(b.words for b in arms if b.variable == a.variable and b is not a)
            ).intersection(_name_terms(a.value))
            for a in arms
        }
        # the words of the model module each arm's name selects (`RunPlanner.model_module`),
        # found once for every script's fit
        self.modules = {
            (a.variable, a.value): frozenset(terms(m[1])) if m else None
            for a in arms
            for m in [planner.model_module(a, self.arm_options)]
        }
        self.taken: set[str] = set()  # the path parts of the scripts chosen so far
        self._trained: dict[str, list[Arm]] = {}  # the arms each launch script trains
        self.by_flag: list[tuple[Arm, list[str]]] = []  # the arm and what sets it on the command
        # what an arm no run runs needs said: another kind's script names it, or a registry
        # would define it beside its siblings
        self.other_kinds: dict[int, str] = {}
        self.plain: list[Arm] = []  # arms no run has yet
        self.sweeps: list[Arm] = []  # swept values an option sets, each run on its own
        self.per_value: list[tuple[str, str, list[str]]] = []  # variable, option, values
        self.program_runs: list[tuple[Run, str]] = []  # each with the program it runs
        self.coded: list[tuple[Arm, list[tuple[CodeSetting, bool]]]] = []
        self.defaults: list[Arm] = []
        self.taken_as_ours: list[Arm] = []
        self.taken_as_whole: list[Arm] = []
        self.said_default = False
        self.base: list[Run] = []
        self.flag_runs: list[tuple[Run, list[str]]] = []

    def _enter(self, entry: str | None) -> None:
        """Take `entry` as the program the task runs, and its options."""
        self.entry = entry
        self.e = self.p.entries.get(entry or "")
        self.options = [f for f in self.e.flags if f.name.startswith("--")] if self.e else []
        # an option that sets what the task holds fixed (`--dataset cifar10` for CIFAR10-LT)
        # selects no arm (CIFAR100 as an out-of-distribution set is not `--dataset cifar100`)
        self.held = setting_flags(self.task, self.options)
        self.arm_options = [f for f in self.options if all(f is not h for h, _ in self.held)]

    @staticmethod
    def _selects_arms(planner: Planner, entry: str | None, arms: list[Arm]) -> bool:
        """The entry point's own options list two of the compared arms among their values
        (`--model gpt-4`, `--model gemini-pro`, values its code tests): it runs the experiment
        itself, so a launch script of another program that ranks nearly as high does not
        replace it. An option that takes any value (`--model PDF`) lists none."""
        e = planner.entries.get(entry or "")
        if e is None:
            return False
        options = [f for f in e.flags if f.name.startswith("--")]
        listed = 0
        for arm in arms:
            found = arm_option(arm, options)
            if found is not None and found[1] and found[1] in choices_of(found[0]):
                listed += 1
        return listed >= 2

    def plan(self) -> list[Run]:
        """Every phase in turn; the runs, not yet checked or cut to `MAX_RUNS`."""
        self.by_flag += self._measured_sets()
        self._scripted_arms()
        self._swept_values()
        self._authors_script()
        self._own_programs()
        self._called_arms()
        in_code = self.p.args.code_settings(self.entry)
        for variable in dict.fromkeys(a.variable for a in self.plain):
            group = [a for a in self.plain if a.variable == variable]
            self.coded += [(group[i], ed) for i, ed in code_edits(group, in_code).items()]
        self.plain = [a for a in self.plain if all(a is not c for c, _ in self.coded)]
        # arms a config file selects, for a program that reads its experiment from one
        self.plain, self.entry = self.p.config_runs(
            self.task, self.q, self.entry, self.plain, self.names, self.add
        )
        self._bare_arms()
        self._base_runs()
        self._option_runs()
        if self.sweeps and not self.defaults and all(a in self.sweeps for a, _ in self.by_flag):
            # the script's own value of the swept option is none of the task's: no run
            self.chosen = [r for r in self.chosen if r.arms or all(r is not b for b in self.base)]
        if self.defaults or self.said_default:
            self._default_runs()
        self._coded_runs()
        if not self.chosen and self.entry is not None:
            self.chosen.append(self._default_run())
        self._twins()
        self._config_lists()
        self._model_arms()
        self.plain = plain_backbones(
            self.chosen, self.plain, self.p.scripts.own_model(), self.p.methods
        )
        if self.chosen:
            self._missing()
        self._each_value()
        return self.chosen

    def fit(self, e: EntryPoint, arm: Arm | None, data: frozenset[str]) -> tuple[float, ...]:
        """How well a launch script fits an arm on a data set: it names the arm, the data,
        the settings held fixed; then its likeness to the scripts chosen, then its rank."""
        path_words = _path_terms(e.path)
        words = self.p.scripts.words_of(e.path)

        def hit(want: frozenset[str]) -> float:
            if not want:  # an arm written in symbols ("x + x") names no script
                return 0.0
            return 2.0 if want <= path_words else 1.0 if want <= words else 0.0

        arm_hit = hit(arm.words) if arm is not None else 0.0
        trained = self._trained_by(e.path) if arm is not None else []
        if trained:  # alpaca_finetuning_v1/finetuning.sh --model Llama7B_adapter
            arm_hit = max(arm_hit, 1.0) if arm in trained else 0.0
        if arm is not None and arm_hit < 2:  # "LD (in LDLinear ...)": a script LDLinear.sh
            named = any(w <= path_words for w in form_words(arm)[1:])
            # "Sparse+Linear" beside "RCF+Linear": the word only it has starts a name of
            # the path (SparseTSF.sh)
            own = any(
                all(any(p.startswith(w) for p in path_words) for w in part)
                for part in self.distinct.get(id(arm), [])
            ) or bool(self.own_words.get(id(arm), frozenset()) & path_words)
            own = own and not self._siblings_named(arm, path_words)
            named = named or own
            # a path naming a short form of the arm, and a text holding all of it
            # ("PatchTST(336)": PatchTST/etth1.sh at 336, not PatchTST/illness.sh at 104)
            if named:
                # a word only this arm has names its script before a form its siblings share
                # ("Linear" of "CycleNet (with Linear backbone)", not "CycleNet")
                arm_hit = 1.75 if arm_hit else 1.6 if own else 1.5
        if arm is not None and arm_hit and self._siblings_named(arm, path_words):
            # a path naming a sibling's own word too is that one's first (ToolLLaMA's
            # `inference_toolllama_lora_pipeline.sh` is the "+LoRA" arm's)
            arm_hit -= 0.2
        data_hit = hit(data) if data else 0.0
        setting = len(self.fixed & path_words) + 0.5 * len(self.fixed & words)
        # of equal fits, the script whose path shares the most with the scripts already
        # chosen (MLP-Input-96 beside Linear-Input-96, not MLP-Input-336): one setting
        alike = len(path_parts(e.path.lower()) & self.taken - (arm.words if arm else set()))
        return arm_hit, data_hit, setting, alike, self.scores.get(e.path, 0.0) / self.top

    def _siblings_named(self, arm: Arm, path_words: frozenset[str]) -> bool:
        """A path names a word only a sibling arm of this one's variable has."""
        if id(arm) not in self._sibling_words:  # found once per arm, for every script's fit
            self._sibling_words[id(arm)] = frozenset().union(
                *(
                    self.own_words.get(id(b), frozenset())
                    for b in self.arms
                    if b.variable == arm.variable and b is not arm
                )
            )
        return bool(self._sibling_words[id(arm)] & path_words)

    def _trained_by(self, path: str) -> list[Arm]:
        """The task's arms a launch script trains (`LaunchScripts.trained_arms`), found once
        per script for all the fits of this task."""
        if path not in self._trained:
            self._trained[path] = self.p.scripts.trained_arms(path, self.arms, self.modules)
        return self._trained[path]

    def add(self, run: Run) -> Run:
        """Keep the run, or merge its arms into the same command kept before; the kept.
        A data set's run of a script another arm's run already runs (on that data) is
        that run, whatever the other arm's own parameters made of its command."""
        self.taken.update(path_parts(run.script.lower()) if run.script else ())
        data_only = bool(run.arms) and all(about_data(a.variable) for a in run.arms)
        same = next(
            (
                r
                for r in self.chosen
                if (r.command == run.command and r.edits == run.edits and r.warning == run.warning)
                or (data_only and run.script and r.script == run.script and not r.edits)
            ),
            None,
        )
        if same is None:
            self.chosen.append(run)
            return run
        same.arms += [a for a in run.arms if a not in same.arms]
        if same.elsewhere and run.elsewhere and run.data and run.data not in same.data:
            same.data = f"{same.data}, then {run.data}"  # one run per data set
        same.data = same.data or run.data
        return same

    def _default_run(self) -> Run:
        assert self.entry is not None
        return self.p.default_run(self.task, self.entry, self.options, self.e)

    def _measured_sets(self) -> list[tuple[Arm, list[str]]]:
        """Of data sets only the measures name ("ETTm1 MSE", "ETTh1 MSE"), the one most arms
        have a script for: every arm runs on it, so the runs compare one setting. When no
        script runs them but an option of the program selects each (`--dataset WC`,
        `--dataset 600`), they are the task's data sets, each arm run on each: those arms."""
        if self.names or not (measured := measured_on(self.task)):
            return []

        def scripted(name: str) -> int:
            data = frozenset(content_words(name))
            return sum(
                any(min(self.fit(e, a, data)[:2]) > 0 for e in self.launchers) for a in self.arms
            )

        best_set = max(measured, key=scripted)
        if scripted(best_set):
            self.names = [best_set]
            self.datasets = [frozenset(content_words(best_set))]
            self.label = {self.datasets[0]: best_set}
        elif not any(about_data(a.variable) for a in self.arms):
            sets = [Arm("dataset", m, frozenset(content_words(m))) for m in measured]
            options = data_options(self.arm_options)
            given = [self.p.arm_setting(a, options, self.entry) for a in sets]
            if all(g and len(g) == 2 for g in given) and len({*map(str, given)}) == len(sets):
                return [(a, g) for a, g in zip(sets, given, strict=True) if g]
        return []

    def _repointed(self, run: Run, arm: Arm, data: frozenset[str]) -> tuple[str, str]:
        """What to change in an arm's script that runs other data, for the task's data set:
        the options another arm's scripts set one way on the script's data and another way
        on the task's (`--data_path ETTh1.csv` and `ETTm1.csv`, `--enc_in 7` and `321`),
        where the arm's script gives the first: the data's, not a model's tuning. With the
        other arm's script for the task's data; ("", "") when no arm has both."""
        mine = options_of(run.invocation)
        for other in self.arms:
            if other is arm:
                continue
            fits = {e.path: self.fit(e, other, data) for e in self.launchers}
            theirs = [e for e in self.launchers if fits[e.path][0] > 0]  # the other arm's
            there = [e for e in theirs if fits[e.path][1] > 0]  # on the task's data
            here = [e for e in theirs if fits[e.path][1] == 0 and e.path != run.script]
            if not there or not here:
                continue
            target = max(there, key=lambda e: fits[e.path])
            to = options_of(self.p.scripts.run(target, self.q, [other], data).invocation)
            # the other arm's script most like this one: on the same data
            both = [options_of(self.p.scripts.run(e, self.q, [other]).invocation) for e in here]
            was = max(both, key=lambda o: sum(mine.get(k) == v for k, v in o.items()))
            changed = [
                f"{k} {to[k]}"
                for k, v in was.items()
                if k in to and to[k] != v and to[k] and mine.get(k) == v
            ]
            if changed:
                return " ".join(changed[:MAX_REPOINTED]), posixpath.basename(target.path)
        return "", ""

    def _scripted_arms(self) -> None:
        """Each arm a launch script names runs through it, once per data set; an arm an
        option selects waits for its command (`by_flag`); the rest are `plain`."""
        p, launchers, datasets = self.p, self.launchers, self.datasets
        for arm in self.arms:
            best = max(launchers, key=lambda e: self.fit(e, arm, datasets[0]), default=None)
            # an arm whose only scripts run another kind of experiment than the one asked
            # (ETSformer's forecasting scripts for an imputation table) is the asked kind's
            # script with the arm's option, when an option selects it
            setting = p.arm_setting(arm, self.arm_options, self.entry)
            if setting is not None and p.by_its_note(arm, setting, self.arms):
                setting = None  # "ST (MSP)": MSP scores the default model, it trains no ST
            other_kind = (
                best is not None
                and bool(self.asked)
                and not self.asked & set(terms(posixpath.dirname(best.path)))
            )
            if best is not None and self.fit(best, arm, datasets[0])[0] > 0 and not other_kind:
                is_data = arm.words in datasets  # the arm is a data set: no second one
                for data in [frozenset()] if is_data else datasets:
                    pick = max(launchers, key=lambda e: self.fit(e, arm, data))
                    run = p.scripts.run(pick, self.q, [arm], arm.words if is_data else data)
                    run.data = self.label.get(data, "")
                    run.elsewhere = bool(data) and not self.fit(pick, arm, data)[1]
                    if run.elsewhere:
                        run.repointed = self._repointed(run, arm, data)
                    variant, warning = variant_warning(run, arm, p.methods)
                    if warning and not self._trains_own(pick, arm):
                        run.say_first(warning)
                        run.variant = variant
                    called = python_entry(pick.path, p.entries) or ""
                    with_parameters(run, arm, p.entries.get(called))
                    self.add(run)
            elif (project := self._arm_project(arm)) is not None:
                # the arm's own project in the repository (`Formers/FEDformer/` beside the
                # authors' code) runs it with its own launch script, once per data set
                for data in datasets:
                    run = p.scripts.run(project, self.q, [arm], data)
                    run.data = self.label.get(data, "")
                    self.add(run)
            elif setting is not None:
                self.by_flag.append((arm, setting))
            else:
                self.plain.append(arm)
                if best is not None and other_kind and self.fit(best, arm, datasets[0])[0] > 0:
                    # the only script naming it (a forecasting script for a classification
                    # figure) runs another experiment: said, not run
                    kinds = " or ".join(
                        dict.fromkeys(
                            t for t in tokens(self.task.question) if stem(t) in self.asked
                        )
                    )
                    self.other_kinds[id(arm)] = (
                        f"{best.path} names it but runs no {kinds} experiment"
                    )

    def _arm_project(self, arm: Arm) -> EntryPoint | None:
        """The launch script of the arm's own project: a folder named as the arm is
        (`Formers/FEDformer/` for FEDformer) holding a script that runs a program of that
        folder; of several, the one fitting the task's data, then its question's words, best
        (`scripts/LongForecasting.sh` for a long-term forecasting table)."""
        wanted = fold(arm.value)
        if len(wanted) < 3:
            return None
        own: list[EntryPoint] = []
        for e in self.p.scripts.launchers():
            folders = e.path.split("/")[:-1]
            named = [i for i in range(len(folders), 0, -1) if fold(folders[i - 1]) == wanted]
            root = "/".join(folders[: named[0]]) + "/" if named else ""
            if root and any(c.startswith(root) for c in e.calls):
                own.append(e)
        asked = {stem(t) for t in terms(self.task.question)}

        def fit(e: EntryPoint) -> tuple[float | int | str, ...]:
            data_hit, setting = self.fit(e, None, self.datasets[0])[1:3]
            return data_hit, len(_path_terms(e.path) & asked), setting, e.path

        return max(own, key=fit, default=None)

    def _trains_own(self, pick: EntryPoint, arm: Arm) -> bool:
        """The script trains the module the arm's name selects (`--model
        Nonstationary_Transformer` for "Stationary"), and the rest of that name begins no
        other model's (CycleiTransformer: CycleNet's): no variant of it to warn of."""
        p = self.p
        own = arm in p.scripts.trained_arms(pick.path, [arm], self.modules)
        if own and (selects := p.model_module(arm, self.arm_options)) is not None:
            remainder = fold(selects[1]).replace(fold(arm.value), "", 1)
            others = {fold(p.scripts.own_model() or "")}
            others |= {fold(m) for m in p.methods.modules_by_stem()}
            others.discard(fold(selects[1]))
            own = not (len(remainder) >= 3 and any(o.startswith(remainder) for o in others))
        return own

    def _swept_values(self) -> None:
        """A number the task sweeps (epochs 15, 30, 60) that an option named like it sets: a
        run per value, the option set to it; beside compared arms ("MogaNet-T" and
        "MogaNet-XT" at 224 and 256 pixels), each arm's run once per value."""
        for variable, values in self.numbers.items():
            if len(values) < 2 or any(v in self.arms for v in values):
                continue
            if (swept := sweep_option(variable, self.arm_options)) is not None:
                # the compared arms' runs (by a script or an option) each go through them
                if any(r.arms for r in self.chosen) or self.by_flag:
                    numbers = [number_value(unnoted(v.value)) for v in values]
                    self.per_value.append((variable, swept.name, numbers))
                    continue
                self.by_flag += [(v, [swept.name, number_value(unnoted(v.value))]) for v in values]
                self.sweeps += values

    def _authors_script(self) -> None:
        """The one arm of a variable no script names, beside siblings run by the scripts of
        one folder (scripts/STD/LDLinear.sh for "LD"): that folder's script training the
        repository's own model (scripts/STD/CycleNet.sh for "RCF", the authors' method)."""
        for variable in dict.fromkeys(a.variable for a in self.plain):
            rest = [
                a
                for a in self.plain
                if a.variable == variable
                and not ABLATED.match(a.value)
                and not numeric(a.value.split()[0])
                and not about_data(a.variable)
                and a.value.lower() not in NO_VALUE
            ]
            folders = {
                posixpath.dirname(r.script)
                for r in self.chosen
                if r.script and any(a.variable == variable for a in r.arms)
            }
            if len(rest) != 1 or len(folders) != 1:
                continue
            authors = (
                self.p.scripts.own_model()
            )  # of the whole repository, whatever task asks first
            used = {r.script for r in self.chosen}
            picks = [
                e
                for e in self.launchers
                if posixpath.dirname(e.path) in folders
                and e.path not in used
                and trains(self.p.search, e) == authors
            ]
            if not authors or len(picks) != 1:
                continue
            for data in self.datasets:
                run = self.p.scripts.run(picks[0], self.q, rest, data)
                run.data = self.label.get(data, "")
                note = f"the script trains the repository's own model, {authors}, taken as this arm"
                run.say_first(note)
                self.add(run)
            self.plain.remove(rest[0])

    def _own_programs(self) -> None:
        """Arms run by their own program beside the entry point; beside them, the sibling the
        entry point itself is named after (FCI runs tests/TestFCI.py when PC runs
        tests/TestPC.py)."""
        by_program: set[str] = set()  # the variables some of whose arms did
        for arm in list(self.plain):
            program = self.p.arm_program(arm, self.entry)
            if program is not None:
                run = self.add(self.p.program_run(self.task, program, arm))
                self.program_runs.append((run, program))
                self.plain.remove(arm)
                by_program.add(arm.variable)
        if self.entry is None:
            return
        entry_words = set(terms(posixpath.basename(self.entry).rsplit(".", 1)[0]))
        for arm in list(self.plain):
            if arm.variable in by_program and any(w and w <= entry_words for w in form_words(arm)):
                run = self.add(self.p.program_run(self.task, self.entry, arm))
                self.program_runs.append((run, self.entry))
                self.plain.remove(arm)

    def _called_arms(self) -> None:
        """Arms no run has yet, each named by a definition one program's main block calls
        (examples/visualize.py calls draw_torchviz and draw_torchopt for TorchViz and
        TorchOpt): that program runs them, and is the task's entry point when no run so far
        runs the ranked one."""
        found = self.p.calling_program(self.plain)
        if found is None:
            return
        arms = [c.arm for c in found.calls]
        run = self.p.program_run(self.task, found.path, arms[0])
        run.arms = arms
        run.say_first(found.note())
        alone = not self.chosen
        self.program_runs.append((self.add(run), found.path))
        self.plain = [a for a in self.plain if all(a is not b for b in arms)]
        if alone and found.path != self.entry:
            self._enter(found.path)
            self.launchers = [e for e in self.p.scripts.launchers() if found.path in e.calls]

    def _bare_arms(self) -> None:
        """The arm that runs bare: one its value calls the default, or the one left of a
        variable whose other arms are each turned on by a switch (Par Conv beside
        --serial_conv and --wo_conv)."""
        switches = {f.name for f in self.options if f.switch}
        for variable in dict.fromkeys(a.variable for a in self.plain):
            rest = [a for a in self.plain if a.variable == variable]
            said = [a for a in rest if DEFAULT_ARM.search(a.value)]
            # the authors' own method ("EAT (Ours)") is what their program runs as it stands
            ours = [
                a
                for a in rest
                if (OURS.search(a.value) or self.p.titled(a)) and not ABLATED.match(a.value)
            ]
            # of several, the one the others extend ("PromptSub" of "PromptSub+"): the others
            # are its variants, and it is what the program runs as it stands
            ours = base_method(ours)
            switched = [a for a, st in self.by_flag if a.variable == variable and st[0] in switches]
            whole = [a for a in rest if whole_model(a, rest)]
            if said:  # "Ridge (default)" names the bare run; a bare "default" needs no label
                self.defaults.append(said[0])
            elif len(ours) == 1:
                self.defaults.append(ours[0])
                self.taken_as_ours.append(ours[0])
            elif len(whole) == 1:  # "w/ MSCA" beside "w/o MSCA": the model as it stands
                self.defaults.append(whole[0])
                self.taken_as_whole.append(whole[0])
            elif switched and len(rest) == 1 and not ABLATED.match(rest[0].value):
                self.defaults.append(rest[0])
        self.plain = [a for a in self.plain if a not in self.defaults]
        # unlabelled
        self.said_default = any(a.value.strip().lower() == "default" for a in self.defaults)
        self.defaults = [a for a in self.defaults if a.value.strip().lower() != "default"]

    def _base_runs(self) -> None:
        """The launch script run as it stands, per data set (at most two): the run the arms
        an option or a switch selects are built on, and the one the default arm takes."""
        ablations = bool(self.arms) and all(ABLATED.match(a.value) for a in self.arms)
        if not self.launchers or not (
            self.by_flag or self.coded or self.defaults or not self.chosen or ablations
        ):
            return
        # of equal fits, a script training the repository's own model (TimesNet_ETTh1.sh
        # beside Nonstationary_Transformer_ETTh1.sh): the settings the authors chose
        # (the repository's, else the one the task marks as the authors')
        authors = self.p.scripts.own_model()
        marked = [fold(a.value) for a in self.arms if OURS.search(a.value)]

        def base_fit(e: EntryPoint, data: frozenset[str]) -> tuple[float, ...]:
            found = self.fit(e, None, data)
            model = trains(self.p.search, e)
            own = bool(model) and (
                model == authors or any(fold(model) in m for m in marked if len(model) >= 3)
            )
            return (*found[:3], float(own), *found[3:])

        sets = self.datasets[:2]
        # a data set no launch script names (AMOS22 for a demo script reading a config's
        # case): the scripts run as they stand, the data being the user's to point them at
        if not any(self.fit(e, None, d)[1] for d in sets if d for e in self.launchers):
            sets = [frozenset()]
        for data in sets:
            best = max(self.launchers, key=lambda e: base_fit(e, data))
            _, data_hit, fixed_hit, _, score = self.fit(best, None, data)
            if (data and not data_hit) or (data_hit, fixed_hit + score) == (0, 0):
                continue
            run = self.p.scripts.run(best, self.q, [], data)
            run.data = self.label.get(data, "")
            self.base.append(self.add(run))

    def _option_runs(self) -> None:
        """Each arm an option selects: the base run's launch with it set, else the authors'
        documented command, else the entry point's bare run, with the option added."""
        base, entry = self.base, self.entry
        for arm, setting in self.by_flag:
            if base and base[0].invocation:
                # the base run may be a sibling's (a script passing --use_text_prompt): this
                # arm's run turns the sibling's switch off
                off = {
                    flag.name
                    for a in self.arms
                    if a.variable == arm.variable and a is not arm
                    if (flag := arm_flag(a, self.options)) is not None and flag.switch
                }
                command = with_setting(base[0].invocation, setting, off - set(setting))
            elif entry is not None and (recipe := self.p.recipe(entry, setting, self.held)):
                # the authors' documented command, with what the task holds fixed and this
                # arm's setting in it
                recipe = with_held(recipe, self.held)[0]
                command = self.p.args.complete(with_setting(recipe, setting), entry)
            elif entry is not None:
                unset = with_held(shell(["python", entry, *positional(self.e)]), self.held)[0]
                command = self.p.args.complete(with_setting(unset, setting), entry)
            else:
                continue
            flagged = Run(
                command,
                arms=[arm],
                settings=" ".join(setting),
                switch=setting[0] if setting[0].startswith("-") else "",
                data=base[0].data if base else "",
            )
            if base and base[0].invocation and base[0].script:
                # the command shown is the script's first run: the arm runs wherever it does
                flagged.warning = as_script_runs(base[0], setting, self.names)
            if note := self.p.args.else_note(entry, setting):
                flagged.say(note)
            self.flag_runs.append((self.add(flagged), setting))

    def _default_runs(self) -> None:
        """The bare arms' run: the base runs, else the other variable's runs when the arm is
        the whole model, else the entry point's documented run."""
        defaults, taken_as_ours = self.defaults, self.taken_as_ours
        note = (
            f"the run as the repository sets it up, taken as {taken_as_ours[0].value}, "
            "the authors' method: no option or script of the repository names it"
            if taken_as_ours
            else ""
        )
        if self.base:
            for run in self.base:
                # the authors' arm is a bare run, never one running another arm already
                adding = [a for a in defaults if a not in taken_as_ours or not run.arms]
                run.arms += [a for a in adding if a not in run.arms]
                if note and taken_as_ours[0] in run.arms:
                    run.say_first(note)
            # the same scripts as they stand on the task's other data sets (past the two
            # base runs) run the bare arms there too: "Par Conv on Traffic", not "the
            # default configuration on Traffic" beside "Par Conv on ETTh2"
            folders = {posixpath.dirname(r.script) for r in self.base if r.script}
            for run in self.chosen:
                if (
                    run.script
                    and posixpath.dirname(run.script) in folders
                    and all(run is not b for b in self.base)
                    and run.arms
                    and all(about_data(a.variable) for a in run.arms)
                    and not (run.missing or run.edits)
                ):
                    run.arms += [a for a in defaults if a not in taken_as_ours]
            # no bare run to take it: the reviewer writes it, as for any arm left
            self.plain += [a for a in taken_as_ours if all(a not in r.arms for r in self.base)]
        elif self.taken_as_whole and (
            runs_of_others := [
                r
                for r in self.chosen
                if r.arms
                and not r.missing
                and not r.edits
                and all(a.variable != d.variable for a in r.arms for d in defaults)
            ]
        ):  # the runs of the other variable's arms (SegNeXt-T, -S) are the whole model's
            what = ", ".join(a.value for a in self.taken_as_whole)
            cut = ", ".join(
                a.value
                for a in self.arms
                if a.variable in {d.variable for d in self.taken_as_whole} and a not in defaults
            )
            keep = (
                f"keep the model as the repository sets it up: that is {what} "
                f"({cut} takes parts of it away)"
            )
            for run in runs_of_others:
                run.arms += [a for a in self.taken_as_whole if a not in run.arms]
                run.say_first(keep)
        elif self.entry is not None:
            run = self._default_run()
            # a documented recipe's own choice of what the other arms set (`--enc exp`)
            # is no default: those options are left to the program
            chosen_by = {st[0] for _, st in self.by_flag if st[0].startswith("-")}
            run.command = without_options(run.command, chosen_by)
            run.arms = list(defaults)
            if note:
                run.say_first(note)
            self.add(run)

    def _coded_runs(self) -> None:
        """Each arm a hard-coded switch selects: the default run's command with the switch
        set; each arm's run states its settings, so the default run itself goes."""
        if not self.coded or self.entry is None:
            return
        base = self.base
        command = base[0].command if base else self._default_run().command
        for arm, edits in self.coded:
            run = Run(command, arms=[arm], edits=edits)
            if base:  # the same launch script as the default run, with the switches set
                same_launch(run, base[0]).data = base[0].data
            self.add(run)
        self.chosen = [r for r in self.chosen if r.arms or r.command != command]

    def _twins(self) -> None:
        """Arms told apart by the entry point and its twin (`RunPlanner.twin_arms`), each run
        by its program; the entry point's own joins its bare run."""
        for arm, program in self.p.twin_arms(self.plain, self.entry):
            if program == self.entry:  # the entry point's own run, as it already stands
                bare = next((r for r in self.chosen if not r.arms and not r.missing), None)
                (bare or self.add(self._default_run())).arms.append(arm)
            else:
                self.add(self.p.program_run(self.task, program, arm))
            self.plain.remove(arm)

    def _config_lists(self) -> None:
        """Arms a config list the runs pass names. Every value of a variable one list holds
        (`categories: [liver, kidney, spleen, pancreas]`): each run goes through them all in
        one pass. One arm a list holds (`encoders: [..., "resnet50_trunc", ...]` for
        "ResNet50"): the same command with the list cut to the arm's item."""
        configs = self.p.configs
        for variable in dict.fromkeys(a.variable for a in self.plain):
            group = [a for a in self.plain if a.variable == variable]
            found = [config_item(a, self.chosen, configs) for a in group]
            places = {(f[1], f[2]) for f in found if f is not None}
            if len(group) < 2 or None in found or len(places) != 1:
                continue
            path, key = places.pop()
            for run in self.chosen:
                passed = configs(run.invocation or run.command)
                if not run.missing and any(c.path == path for c in passed):
                    run.covers += group
                    run.covered_by = f"{key} in {path}"
            self.plain = [a for a in self.plain if a not in group]
        for arm in list(self.plain):
            listed_in = config_item(arm, self.chosen, configs)
            if listed_in is None:
                continue
            run, path, key, item = listed_in
            edit = f"set {key} in {path} to [{item}] first"
            self.add(Run(run.command, arms=[arm], data=run.data, warning=edit))
            self.plain.remove(arm)
        self._registry_entries()

    def _model_arms(self) -> None:
        """Arms that are language models ("Qwen3-4B Instruct", "DeepSeek-V3.2"), when a
        config file a run passes leaves its model names to fill (`generator:
        openrouter:MODEL_NAME`): that run once per model, the keys set to it."""
        llms = [a for a in self.plain if names_llm(a.value) and not about_data(a.variable)]
        for run in [] if not llms else self.chosen:
            if run.missing or not run.command:
                continue
            for config in self.p.configs(run.invocation or run.command):
                keys = model_keys(config)
                if not keys:
                    continue
                more = f" and {len(keys) - 4} more" if len(keys) > 4 else ""
                for arm in llms:
                    edit = (
                        f"set {', '.join(keys[:4])}{more} in {config.path} to {arm.value}, "
                        "as your provider names it, first"
                    )
                    self.add(Run(run.command, arms=[arm], data=run.data, warning=edit))
                    self.plain.remove(arm)
                return

    def _registry_entries(self) -> None:
        """Arms a registry folder defines, which a run's config selects by listing their
        entries (`agent: [gpt-3.5-turbo-0613]` in configs/assignments/default.yaml, each
        agent a top-level entry of configs/agents/*.yaml): the run with the list set to the
        arm's entry. An arm of the same variable the folder does not define runs so once its
        entry is added, as a sibling's is written. The run that only served as their base
        (the default list) is no run of the task."""
        registries = self.p.registries
        listed = registries.listed(self.chosen, self.p.configs_read)
        if listed is None:
            return
        found = {id(a): registries.listing(a, listed) for a in self.plain}
        siblings: dict[str, Listing] = {}  # by variable, a listing that found its arm's entry
        for arm in self.plain:
            if (listing := found[id(arm)]) is not None and listing.entry is not None:
                siblings.setdefault(arm.variable, listing)
        bases: list[Run] = []
        for arm in list(self.plain):
            listing = found[id(arm)]
            if listing is None or arm.variable not in siblings:
                continue
            run = listing.run
            if listing.entry is None:
                note = missing_note(listing, arm, siblings[arm.variable].entry or listing.like)
                selected = Run(run.command, arms=[arm], data=run.data, warning=note)
            else:
                selected = Run(run.command, arms=[arm], data=run.data, warning=entry_note(listing))
                selected.selects = selecting(listing)
            self.add(selected)
            self.plain.remove(arm)
            bases.append(run)
        self.chosen = [
            r
            for r in self.chosen
            if r.arms or r.covers or r.missing or all(r is not b for b in bases)
        ]

    def _missing(self) -> None:
        """Arms nothing selects (at most `MAX_MISSING`): a line each for the reviewer, with
        the switches that select their siblings; an arm that is what runs with a sibling's
        one switch off runs so."""
        unrun = [a for a in self.plain if not about_data(a.variable)]
        unrun = [a for a in unrun if not numeric(a.value.split()[0])]  # "0.1 for X"
        for arm in unrun[:MAX_MISSING]:
            if any(arm in r.arms for r in self.chosen):
                continue
            # the switches that select its siblings, shown for the reviewer to adapt
            near = [
                (c, c.value)
                for a, edits in self.coded
                if a.variable == arm.variable
                for c, _ in edits
            ]
            hard = list(dict.fromkeys(c for c, _ in near))
            sibling = next((r for r in self.chosen if r.edits and not r.missing), None)
            if len(hard) == 1 and sibling is not None and self.p.switched_off(arm, hard[0]):
                # "simple resize": what runs with the switch off
                bare = Run(sibling.command, arms=[arm], edits=[(hard[0], False)])
                self.chosen.append(same_launch(bare, sibling))
                continue
            self.chosen.append(
                Run(
                    "",
                    arms=[arm],
                    missing=True,
                    edits=list(dict.fromkeys(near)),
                    warning=self.other_kinds.get(id(arm), ""),
                )
            )

    def _each_value(self) -> None:
        """The compared arms' runs, each once per value the task sweeps (`per_value`)."""
        for swept_variable, option, numbers_said in self.per_value:
            for run in self.chosen:
                if run.missing or not run.arms or not run.command:
                    continue
                if run.command.startswith("python") or " python " in run.command:
                    run.command = with_setting(run.command, [option, numbers_said[0]])
                each = (
                    f"run it once per {swept_variable.replace('_', ' ')} ({option} "
                    f"{', then '.join(numbers_said)})"
                )
                run.say_first(each)


# how a command built on a launch script's run names that script (`as_script_runs`); the
# runs are rebuilt from one another with their warnings, so the note is what carries it
BUILT_ON = "'s command with"


def base_method(ours: list[Arm]) -> list[Arm]:
    """The authors' arms, or, of several, the one whose name every other's extends
    ("PromptSub (ours)" beside "PromptSub+ (ours)"; "EAT" beside "EAT-large"), alone; all of
    them when no one name is so shared."""
    if len(ours) < 2:
        return ours
    # the name less its mark, written as it is: "PromptSub" and "PromptSub+" stay apart
    names = [re.sub(r"\(\s*\)|\s+", "", OURS.sub("", a.value)).lower() for a in ours]
    base = [
        a
        for i, (a, name) in enumerate(zip(ours, names, strict=True))
        if len(name) >= 3
        and all(o.startswith(name) and o != name for j, o in enumerate(names) if j != i)
    ]
    return base if len(base) == 1 else ours


def _name_terms(value: str) -> frozenset[str]:
    """The words of a value's tokens written as names, with a capital letter ("MLP",
    "Linear"), as `terms` spells them."""
    named = [t for t in re.findall(r"[A-Za-z][\w-]*", value) if any(c.isupper() for c in t)]
    return frozenset(w for t in named for w in terms(t))


def as_script_runs(base: Run, setting: list[str], datasets: list[str]) -> str:
    """What a command built on one run of a launch script stands for: the script's command
    with the arm's setting added, for every value the script sweeps and every data set the
    task runs on (the command shows the first)."""
    swept = sweeps_of(base.settings)
    again = f", once per value it sweeps ({', '.join(swept)})" if swept else ""
    given = len(setting) == 2 and re.search(rf"(?<!\S){re.escape(setting[0])}[= ]", base.invocation)
    done = f"{setting[0]} set to {setting[1]}" if given else f"{' '.join(setting)} added"
    if len(setting) == 1 and setting[0] in base.invocation.split():
        done = f"{setting[0]}, which it gives itself"
    note = f"{base.script}{BUILT_ON} {done}{again}"
    others = [d for d in datasets if d and d != base.data]
    if others:
        note += f"; likewise on {', '.join(others)}, with their scripts' commands"
    return note


def distinct_words(arms: list[Arm]) -> dict[int, list[frozenset[str]]]:
    """By arm (its id), the words of each short form of its value and of each part of one
    ("Sparse" of "Slinear (Sparse+Linear)") less the words its sibling arms have, kept where
    each is long enough to start a name (four letters or more): what a script must name to
    run this arm and not its sibling."""
    out: dict[int, list[frozenset[str]]] = {}
    for arm in arms:
        siblings = [a for a in arms if a.variable == arm.variable and a is not arm]
        if not siblings:
            continue
        theirs = {w for a in siblings for form in form_words(a) for w in form}
        parts = [
            frozenset(content_words(p)) - theirs
            for form in value_forms(arm.value)[1:]
            for p in form.split("+")
        ]
        out[id(arm)] = [ws for ws in dict.fromkeys(parts) if ws and min(map(len, ws)) >= 4]
    return out


@functools.lru_cache(maxsize=1 << 14)
def _path_terms(path: str) -> frozenset[str]:
    """The words of a script's path (`scripts/STD/LDLinear.sh`), read once per path."""
    return frozenset(terms(path.replace("/", " ").replace("-", " ")))


def path_parts(path: str) -> set[str]:
    """A path's parts between slashes, dots, dashes and underscores (`MLP-Input-96`)."""
    return set(re.split(r"[/_.\-]", path))


def same_launch(run: Run, like: Run) -> Run:
    """`run` through the same launch script invocation as `like` (its lines, the command it
    fills, what a reader must know about it); the run."""
    run.script, run.lines = like.script, like.lines
    run.invocation, run.warning = like.invocation, like.warning
    return run
