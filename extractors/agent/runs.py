"""The runs of one task's experiment: the launch scripts or commands that run its arms.

A task varies something (methods, backbones, data sets, horizons); each value is an arm. The
repository's own launch scripts run them first: a script whose path or settings name an arm
beats one that only shares words with the task, and it runs once per data set of the task.
An arm the entry point selects by an option (`--wo_conv`, `--model_type mlp`) runs as the
script's own command with that option set; a hydra program's arms run as one multirun; an arm
its main block hard-codes (`args.use_zoom_in = True`) runs with those lines set. An arm nothing
selects is a line for the reviewer to fill in. Derived from the mined index and the files.
"""

from __future__ import annotations

import ast
import functools
import posixpath
import re
import shlex
from collections import Counter
from collections.abc import Callable

from expcurate.records import CliFlag, ConfigFile, EntryPoint, RepoIndex, TaskDraft
from extractors.repo import RepoSearch, stem, terms, tokens
from extractors.repo.commands import Parsed, PathResolver, parse_command, python_entry, run_from
from extractors.repo.pysource import syntax_error

from .arms import (
    ABLATED,
    DEFAULT_ARM,
    NO_VALUE,
    OURS,
    Arm,
    CodeSetting,
    about_data,
    arm_flag,
    arm_option,
    code_edits,
    content_words,
    data_options,
    fold,
    form_words,
    measured_on,
    measures_per_set,
    number_value,
    numeric,
    setting_flags,
    sweep_option,
    task_arms,
    task_datasets,
    task_metrics,
    task_settings,
    value_forms,
    whole_model,
)
from .config_runs import ConfigFiles, arm_words, built_arms, path_words
from .data_steps import DataSteps
from .derived import (
    crossed,
    on_each_data_set,
    plain_backbones,
    sweeps_of,
    through_loops,
    through_suites,
    with_parameters,
)
from .entry_args import EntryArgs, positional
from .launch import (
    blocks_of,
    invocation_of,
    placeholders,
    shell,
    takes_arguments,
    with_held,
    with_setting,
    without_options,
)
from .methods import MethodModules
from .multirun import hydra_sweep
from .query import TaskQuery
from .run import MAX_RUNS, Run
from .run_notes import (
    MODEL_OPTION,
    OUTPUT_OPTION,
    apart,
    comparable,
    config_item,
    config_placeholders,
    looked_up,
    misplaced,
    model_checks,
    multi_scale,
    overridden,
    own_model,
    repeated,
    sized_model,
    trains,
    uncompiled,
    unfetched,
    unopened,
    variant_warning,
)
from .stages import Stages, on_setting
from .steps import Step, StepTracer, bare_run, imported
from .suite import Suite
from .suite_config import benchmark_list, names_folder, unlisted_note

RELEVANT = 0.6  # a launch script ranked this close to the best file can name the entry point
MAX_MISSING = 4  # arms no script or option selects, each shown as a line to fill in
MAX_LOOKUP_MODULES = 30  # the modules of a program read for the tables its options index
_PUBLISHING = re.compile(
    r"git\s+push|gh-pages|ghp-import|sphinx-build|mkdocs|jupyter-book|twine\s+upload|"
    r"docker\s+(?:build|push)|npm\s+(?:run|publish)",
    re.I,
)


_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")


class RunPlanner:
    """Plans the runs of every task of one repository, reading each script once."""

    def __init__(
        self, index: RepoIndex, search: RepoSearch, tracer: StepTracer, methods: MethodModules
    ) -> None:
        self.index = index
        self.search = search
        self.entries = {e.path: e for e in index.entry_points}
        self.args = EntryArgs(index, search, tracer)
        self.config_files = ConfigFiles(index, search, tracer)
        self.methods = methods
        self._script_words: dict[str, frozenset[str]] = {}
        self._script_models: dict[str, list[frozenset[str]]] = {}  # --model values' words
        self._opened: dict[str, list[str]] = {}  # files each program opens by a literal name
        # each module's tables its options index (`eval_dict[args.task]`), read once
        self._lookup_tables: dict[str, dict[str, tuple[str, list[str], int]]] = {}
        self._resolver: PathResolver | None = None
        self._own: str | None = None  # the model the launch scripts train most
        self._launcher_list: list[EntryPoint] | None = None
        self._suites: dict[str, Suite | None] = {}
        self._title: str | None = None  # the top-level README's title name, folded
        self.known = {f.path for f in index.files}  # the repository's file paths, once
        self._made_dirs: dict[str, frozenset[str]] = {}  # options a program makes folders of
        self.stages = Stages(index, search, self.known, self.args, self.programs)
        self.data = DataSteps(index, tracer)  # the benchmarks' folders, read once

    def _parsed(self, command: str) -> Parsed:
        if self._resolver is None:
            self._resolver = PathResolver(f.path for f in self.index.files if not f.skipped)
        return parse_command(command, self._resolver, "")

    def configs(self, command: str) -> list[ConfigFile]:
        """The repository's config files a command passes (`--demo_config ./config/x.json`,
        read from the folder a `cd` of the command moves to)."""
        known = self._configs_by_path
        return [known[p] for p in self._parsed(command).mentions if p in known]

    @functools.cached_property
    def _configs_by_path(self) -> dict[str, ConfigFile]:
        return {c.path: c for c in self.index.configs}

    def _run_configs(self, run: Run) -> list[ConfigFile]:
        """The config files a run gives its program, as the index read them."""
        known = self._configs_by_path
        return [known[p] for p in self._config_files(run) if p in known]

    def _config_files(self, run: Run) -> list[str]:
        """The config files a run gives its program: the one selecting its arm, those named."""
        named = [c.path for c in self.configs(run.invocation or run.command)]
        return list(dict.fromkeys([run.config, *named] if run.config else named))

    def programs(self, command: str) -> list[str]:
        """The repository's programs a command runs: what it names, and the Python files
        the launch scripts it names run."""
        out: list[str] = []
        for path in self._parsed(command).runs:
            out.append(path)
            if (program := python_entry(path, self.entries)) is not None:
                out.append(program)
        return out

    def runs(
        self, task: TaskDraft, q: TaskQuery, entry: str | None, scores: dict[str, float]
    ) -> tuple[list[Run], str | None]:
        """The runs of this task's arms (at most `MAX_RUNS`), and the entry point they run.

        The repository's own launch scripts come first: an arm a script's path or settings
        name runs through that script, once per data set of the task. An arm that is an option
        of the entry point (`--wo_conv`, `--model_type mlp`) runs as the script's own command
        with that option set. When the ranked entry point is run by no launch script but the
        task's launch scripts run another one, that one is the entry point: how the authors
        run an experiment outranks a file that shares its words.
        """
        # numbers are swept inside; "10 for PDF" describes a value, it is no arm
        arms = [a for a in task_arms(task) if not numeric(a.value.split()[0])]
        names = task_datasets(task)
        datasets = [frozenset(content_words(d)) for d in names] or [frozenset()]
        label = dict(zip(datasets, names, strict=False))
        fixed = task_settings(task, q) - {w for a in arms for w in a.words}
        top = max(scores.values(), default=0.0) or 1.0
        launchers = self._launchers()
        ran = [e for e in launchers if entry in e.calls] if entry else []
        if not ran:
            relevant = [e for e in launchers if scores.get(e.path, 0.0) >= RELEVANT * top]
            targets = Counter(c for e in relevant for c in e.calls if c.endswith(".py"))
            if targets:
                entry = targets.most_common(1)[0][0]
                ran = [e for e in launchers if entry in e.calls]
        launchers = ran if entry else launchers
        e = self.entries.get(entry or "")
        options = [f for f in e.flags if f.name.startswith("--")] if e else []
        # an option that sets what the task holds fixed (`--dataset cifar10` for CIFAR10-LT)
        # selects no arm (CIFAR100 as an out-of-distribution set is not `--dataset cifar100`)
        held = setting_flags(task, options)
        arm_options = [f for f in options if all(f is not h for h, _ in held)]
        # a numeric variable every value of which names a folder or file of the launch
        # scripts (scripts/PDF/336/, scripts/PDF/720/) is run by those scripts, value by
        # value, when the numbers are what the task compares (no method is an arm)
        named = [a for a in arms if not about_data(a.variable)]
        parts = {p for x in launchers for p in path_parts(x.path)} if not named else set()
        numbers: dict[str, list[Arm]] = {}
        for a in task_arms(task):
            if numeric(a.value):
                numbers.setdefault(a.variable, []).append(a)
        for values in numbers.values():
            if len(values) >= 2 and all(v.value in parts for v in values):
                arms += values
        fixed -= {w for a in arms for w in a.words}
        # a kind of experiment the question names that the launch scripts are foldered by
        # ("Imputation task": scripts/imputation/): the scripts of that folder run this task
        folders = {w for e in launchers for w in terms(posixpath.dirname(e.path)) if len(w) >= 4}
        asked = {w for w in terms(task.question) if w in folders} - {
            w for a in arms for w in a.words
        }
        fixed |= asked

        chosen: list[Run] = []
        sweep = hydra_sweep(self.args, task, q, task_arms(task), entry, launchers)
        if sweep is not None:  # one multirun covers these arms
            chosen.append(sweep)
            arms = [a for a in arms if a not in sweep.arms]

        distinct = distinct_words(arms)
        # the words of the model module each arm's name selects (`_model_module`), found once
        # for every script's fit
        modules = {
            (a.variable, a.value): frozenset(terms(m[1])) if m else None
            for a in arms
            for m in [self._model_module(a, arm_options)]
        }

        def fit(e: EntryPoint, arm: Arm | None, data: frozenset[str]) -> tuple[float, ...]:
            path_words = set(terms(e.path.replace("/", " ").replace("-", " ")))
            words = self._words_of(e.path)

            def hit(want: frozenset[str]) -> float:
                if not want:  # an arm written in symbols ("x + x") names no script
                    return 0.0
                return 2.0 if want <= path_words else 1.0 if want <= words else 0.0

            arm_hit = hit(arm.words) if arm is not None else 0.0
            trained = self._trained_arms(e.path, arms, modules) if arm is not None else []
            if trained:  # alpaca_finetuning_v1/finetuning.sh --model Llama7B_adapter
                arm_hit = max(arm_hit, 1.0) if arm in trained else 0.0
            if arm is not None and arm_hit < 2:  # "LD (in LDLinear ...)": a script LDLinear.sh
                named = any(w <= path_words for w in form_words(arm)[1:])
                # "Sparse+Linear" beside "RCF+Linear": the word only it has starts a name of
                # the path (SparseTSF.sh)
                named = named or any(
                    all(any(p.startswith(w) for p in path_words) for w in part)
                    for part in distinct.get(id(arm), [])
                )
                # a path naming a short form of the arm, and a text holding all of it
                # ("PatchTST(336)": PatchTST/etth1.sh at 336, not PatchTST/illness.sh at 104)
                if named:
                    arm_hit = 1.75 if arm_hit else 1.5
            data_hit = hit(data) if data else 0.0
            setting = len(fixed & path_words) + 0.5 * len(fixed & words)
            # of equal fits, the script whose path shares the most with the scripts already
            # chosen (MLP-Input-96 beside Linear-Input-96, not MLP-Input-336): one setting
            alike = len(path_parts(e.path.lower()) & taken - (arm.words if arm else set()))
            return arm_hit, data_hit, setting, alike, scores.get(e.path, 0.0) / top

        taken: set[str] = set()  # the path parts of the scripts chosen so far

        def add(run: Run) -> Run:
            """Keep the run, or merge its arms into the same command kept before; the kept.
            A data set's run of a script another arm's run already runs (on that data) is
            that run, whatever the other arm's own parameters made of its command."""
            taken.update(path_parts(run.script.lower()) if run.script else ())
            data_only = bool(run.arms) and all(about_data(a.variable) for a in run.arms)
            same = next(
                (
                    r
                    for r in chosen
                    if (
                        r.command == run.command
                        and r.edits == run.edits
                        and r.warning == run.warning
                    )
                    or (data_only and run.script and r.script == run.script and not r.edits)
                ),
                None,
            )
            if same is None:
                chosen.append(run)
                return run
            same.arms += [a for a in run.arms if a not in same.arms]
            if same.elsewhere and run.elsewhere and run.data and run.data not in same.data:
                same.data = f"{same.data}, then {run.data}"  # one run per data set
            same.data = same.data or run.data
            return same

        measured_sets: list[tuple[Arm, list[str]]] = []
        # of data sets only the measures name ("ETTm1 MSE", "ETTh1 MSE"), the one most arms
        # have a script for: every arm runs on it, so the runs compare one setting
        if not names and (measured := measured_on(task)):

            def scripted(name: str) -> int:
                data = frozenset(content_words(name))
                return sum(any(min(fit(e, a, data)[:2]) > 0 for e in launchers) for a in arms)

            best_set = max(measured, key=scripted)
            if scripted(best_set):
                names = [best_set]
                datasets = [frozenset(content_words(best_set))]
                label = {datasets[0]: best_set}
            elif not any(about_data(a.variable) for a in arms):
                # no script runs them, but an option of the program selects each (`--dataset
                # WC`, `--dataset 600`): they are the task's data sets, each arm run on each
                sets = [Arm("dataset", m, frozenset(content_words(m))) for m in measured]
                given = [self._arm_setting(a, data_options(arm_options), entry) for a in sets]
                if all(g and len(g) == 2 for g in given) and len({*map(str, given)}) == len(sets):
                    measured_sets = [(a, g) for a, g in zip(sets, given, strict=True) if g]

        by_flag: list[tuple[Arm, list[str]]] = []  # the arm and what sets it on the command
        other_kinds: dict[int, str] = {}  # arms only another kind's script names, with it
        by_flag += measured_sets
        plain: list[Arm] = []
        for arm in arms:
            best = max(launchers, key=lambda e: fit(e, arm, datasets[0]), default=None)
            # an arm whose only scripts run another kind of experiment than the one asked
            # (ETSformer's forecasting scripts for an imputation table) is the asked kind's
            # script with the arm's option, when an option selects it
            setting = self._arm_setting(arm, arm_options, entry)
            if setting is not None and self._by_its_note(arm, setting, arms):
                setting = None  # "ST (MSP)": MSP scores the default model, it trains no ST
            other_kind = (
                best is not None
                and bool(asked)
                and not asked & set(terms(posixpath.dirname(best.path)))
            )
            if best is not None and fit(best, arm, datasets[0])[0] > 0 and not other_kind:
                is_data = arm.words in datasets  # the arm is a data set: no second one
                for data in [frozenset()] if is_data else datasets:
                    pick = max(launchers, key=lambda e: fit(e, arm, data))
                    run = self._script_run(pick, q, [arm], arm.words if is_data else data)
                    run.data = label.get(data, "")
                    run.elsewhere = bool(data) and not fit(pick, arm, data)[1]
                    # no variant when the module the arm's name selects is the one it trains
                    # (`--model Nonstationary_Transformer` for "Stationary"), unless the rest
                    # of its name begins another model's (CycleiTransformer: CycleNet's)
                    own = arm in self._trained_arms(pick.path, [arm], modules)
                    if own and (selects := self._model_module(arm, arm_options)) is not None:
                        remainder = fold(selects[1]).replace(fold(arm.value), "", 1)
                        others = {fold(self._own_model() or "")}
                        others |= {fold(m) for m in self.methods.modules_by_stem()}
                        others.discard(fold(selects[1]))
                        own = not (
                            len(remainder) >= 3 and any(o.startswith(remainder) for o in others)
                        )
                    if not own and (variant := variant_warning(run, arm, self.methods)):
                        run.warning = "; ".join(w for w in (variant, run.warning) if w)
                    called = python_entry(pick.path, self.entries) or ""
                    with_parameters(run, arm, self.entries.get(called))
                    add(run)
            elif setting is not None:
                by_flag.append((arm, setting))
            else:
                plain.append(arm)
                if best is not None and other_kind and fit(best, arm, datasets[0])[0] > 0:
                    # the only script naming it (a forecasting script for a classification
                    # figure) runs another experiment: said, not run
                    kinds = " or ".join(
                        dict.fromkeys(t for t in tokens(task.question) if stem(t) in asked)
                    )
                    other_kinds[id(arm)] = f"{best.path} names it but runs no {kinds} experiment"
        sweeps: list[Arm] = []
        # a number the task sweeps (epochs 15, 30, 60) that an option named like it sets:
        # a run per value, the option set to it; beside compared arms ("MogaNet-T" and
        # "MogaNet-XT" at 224 and 256 pixels), each arm's run once per value
        per_value: list[tuple[str, str, list[str]]] = []  # variable, option, values
        for variable, values in numbers.items():
            if len(values) < 2 or any(v in arms for v in values):
                continue
            if (swept := sweep_option(variable, arm_options)) is not None:
                # the compared arms' runs (by a script or an option) each go through them
                if any(r.arms for r in chosen) or by_flag:
                    per_value.append(
                        (variable, swept.name, [number_value(v.value) for v in values])
                    )
                    continue
                by_flag += [(v, [swept.name, number_value(v.value)]) for v in values]
                sweeps += values
        # the one arm of a variable no script names, beside siblings run by the scripts of
        # one folder (scripts/STD/LDLinear.sh for "LD"): that folder's script training the
        # repository's own model (scripts/STD/CycleNet.sh for "RCF", the authors' method)
        for variable in dict.fromkeys(a.variable for a in plain):
            rest = [
                a
                for a in plain
                if a.variable == variable
                and not ABLATED.match(a.value)
                and not numeric(a.value.split()[0])
                and not about_data(a.variable)
                and a.value.lower() not in NO_VALUE
            ]
            folders = {
                posixpath.dirname(r.script)
                for r in chosen
                if r.script and any(a.variable == variable for a in r.arms)
            }
            if len(rest) != 1 or len(folders) != 1:
                continue
            authors = self._own_model()  # of the whole repository, whatever task asks first
            used = {r.script for r in chosen}
            picks = [
                e
                for e in launchers
                if posixpath.dirname(e.path) in folders
                and e.path not in used
                and trains(self.search, e) == authors
            ]
            if not authors or len(picks) != 1:
                continue
            for data in datasets:
                run = self._script_run(picks[0], q, rest, data)
                run.data = label.get(data, "")
                note = f"the script trains the repository's own model, {authors}, taken as this arm"
                run.warning = "; ".join(w for w in (note, run.warning) if w)
                add(run)
            plain.remove(rest[0])
        # arms run by their own program beside the entry point
        by_program: set[str] = set()  # the variables some of whose arms did
        program_runs: list[tuple[Run, str]] = []  # each with the program it runs
        for arm in list(plain):
            program = self._arm_program(arm, entry)
            if program is not None:
                program_runs.append((add(self._program_run(task, program, arm)), program))
                plain.remove(arm)
                by_program.add(arm.variable)
        # beside them, the sibling the entry point itself is named after (FCI runs
        # tests/TestFCI.py when PC runs tests/TestPC.py)
        if entry is not None:
            entry_words = set(terms(posixpath.basename(entry).rsplit(".", 1)[0]))
            for arm in list(plain):
                if arm.variable in by_program and any(
                    w and w <= entry_words for w in form_words(arm)
                ):
                    program_runs.append((add(self._program_run(task, entry, arm)), entry))
                    plain.remove(arm)
        # arms the entry point selects by a switch it hard-codes (`args.use_zoom_in = True`)
        coded: list[tuple[Arm, list[tuple[CodeSetting, bool]]]] = []
        in_code = self.args.code_settings(entry)
        for variable in dict.fromkeys(a.variable for a in plain):
            group = [a for a in plain if a.variable == variable]
            coded += [(group[i], edits) for i, edits in code_edits(group, in_code).items()]
        plain = [a for a in plain if all(a is not c for c, _ in coded)]
        # arms a config file selects, for a program that reads its experiment from one
        plain, entry = self._config_runs(task, q, entry, plain, names, add)
        # the arm that runs bare: one its value calls the default, or the one left of a
        # variable whose other arms are each turned on by a switch (Par Conv beside
        # --serial_conv and --wo_conv)
        defaults: list[Arm] = []
        taken_as_ours: list[Arm] = []
        taken_as_whole: list[Arm] = []
        switches = {f.name for f in options if f.switch}
        for variable in dict.fromkeys(a.variable for a in plain):
            rest = [a for a in plain if a.variable == variable]
            said = [a for a in rest if DEFAULT_ARM.search(a.value)]
            # the authors' own method ("EAT (Ours)") is what their program runs as it stands
            ours = [
                a
                for a in rest
                if (OURS.search(a.value) or self._titled(a)) and not ABLATED.match(a.value)
            ]
            switched = [a for a, st in by_flag if a.variable == variable and st[0] in switches]
            whole = [a for a in rest if whole_model(a, rest)]
            if said:  # "Ridge (default)" names the bare run; a bare "default" needs no label
                defaults.append(said[0])
            elif len(ours) == 1:
                defaults.append(ours[0])
                taken_as_ours.append(ours[0])
            elif len(whole) == 1:  # "w/ MSCA" beside "w/o MSCA": the model as it stands
                defaults.append(whole[0])
                taken_as_whole.append(whole[0])
            elif switched and len(rest) == 1 and not ABLATED.match(rest[0].value):
                defaults.append(rest[0])
        plain = [a for a in plain if a not in defaults]
        said_default = any(a.value.strip().lower() == "default" for a in defaults)  # unlabelled
        defaults = [a for a in defaults if a.value.strip().lower() != "default"]
        base: list[Run] = []
        ablations = bool(arms) and all(ABLATED.match(a.value) for a in arms)
        if launchers and (by_flag or coded or defaults or not chosen or ablations):
            # of equal fits, a script training the repository's own model (TimesNet_ETTh1.sh
            # beside Nonstationary_Transformer_ETTh1.sh): the settings the authors chose
            # (the repository's, else the one the task marks as the authors')
            authors = self._own_model()
            marked = [fold(a.value) for a in arms if OURS.search(a.value)]

            def base_fit(e: EntryPoint, data: frozenset[str]) -> tuple[float, ...]:
                found = fit(e, None, data)
                model = trains(self.search, e)
                own = bool(model) and (
                    model == authors or any(fold(model) in m for m in marked if len(model) >= 3)
                )
                return (*found[:3], float(own), *found[3:])

            for data in datasets[:2]:
                best = max(launchers, key=lambda e: base_fit(e, data))
                _, data_hit, fixed_hit, _, score = fit(best, None, data)
                if (data and not data_hit) or (data_hit, fixed_hit + score) == (0, 0):
                    continue
                run = self._script_run(best, q, [], data)
                run.data = label.get(data, "")
                base.append(add(run))
        flag_runs: list[tuple[Run, list[str]]] = []
        for arm, setting in by_flag:
            if base and base[0].invocation:
                # the base run may be a sibling's (a script passing --use_text_prompt): this
                # arm's run turns the sibling's switch off
                off = {
                    flag.name
                    for a in arms
                    if a.variable == arm.variable and a is not arm
                    if (flag := arm_flag(a, options)) is not None and flag.switch
                }
                command = with_setting(base[0].invocation, setting, off - set(setting))
            elif entry is not None and (recipe := self._recipe(entry, setting, held)):
                # the authors' documented command, with what the task holds fixed and this
                # arm's setting in it
                recipe = with_held(recipe, held)[0]
                command = self.args.complete(with_setting(recipe, setting), entry)
            elif entry is not None:
                unset = with_held(shell(["python", entry, *positional(e)]), held)[0]
                command = self.args.complete(with_setting(unset, setting), entry)
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
                flagged.warning = _as_script_runs(base[0], setting, names)
            flag_runs.append((add(flagged), setting))
        if sweeps and not defaults and all(a in sweeps for a, _ in by_flag):
            # the script's own value of the swept option is none of the task's: no run
            chosen = [r for r in chosen if r.arms or all(r is not b for b in base)]
        if defaults or said_default:
            note = (
                f"the run as the repository sets it up, taken as {taken_as_ours[0].value}, "
                "the authors' method: no option or script of the repository names it"
                if taken_as_ours
                else ""
            )
            if base:
                for run in base:
                    # the authors' arm is a bare run, never one running another arm already
                    adding = [a for a in defaults if a not in taken_as_ours or not run.arms]
                    run.arms += [a for a in adding if a not in run.arms]
                    if note and taken_as_ours[0] in run.arms:
                        run.warning = "; ".join(w for w in (note, run.warning) if w)
                # no bare run to take it: the reviewer writes it, as for any arm left
                plain += [a for a in taken_as_ours if all(a not in r.arms for r in base)]
            elif taken_as_whole and (
                runs_of_others := [
                    r
                    for r in chosen
                    if r.arms
                    and not r.missing
                    and not r.edits
                    and all(a.variable != d.variable for a in r.arms for d in defaults)
                ]
            ):  # the runs of the other variable's arms (SegNeXt-T, -S) are the whole model's
                what = ", ".join(a.value for a in taken_as_whole)
                cut = ", ".join(
                    a.value
                    for a in arms
                    if a.variable in {d.variable for d in taken_as_whole} and a not in defaults
                )
                keep = (
                    f"keep the model as the repository sets it up: that is {what} "
                    f"({cut} takes parts of it away)"
                )
                for run in runs_of_others:
                    run.arms += [a for a in taken_as_whole if a not in run.arms]
                    run.warning = "; ".join(w for w in (keep, run.warning) if w)
            elif entry is not None:
                run = self._default_run(task, entry, options, e)
                # a documented recipe's own choice of what the other arms set (`--enc exp`)
                # is no default: those options are left to the program
                chosen_by = {st[0] for _, st in by_flag if st[0].startswith("-")}
                run.command = without_options(run.command, chosen_by)
                run.arms = list(defaults)
                if note:
                    run.warning = "; ".join(w for w in (note, run.warning) if w)
                add(run)
        if coded and entry is not None:
            command = (
                base[0].command if base else self._default_run(task, entry, options, e).command
            )
            for arm, edits in coded:
                run = Run(command, arms=[arm], edits=edits)
                if base:  # the same launch script as the default run, with the switches set
                    same_launch(run, base[0]).data = base[0].data
                add(run)
            # each arm's run states its settings: the default run is one of them
            chosen = [r for r in chosen if r.arms or r.command != command]
        if not chosen and entry is not None:
            chosen.append(self._default_run(task, entry, options, e))
        for arm, program in self._twin_arms(plain, entry):
            if program == entry:  # the entry point's own run, as it already stands
                bare = next((r for r in chosen if not r.arms and not r.missing), None)
                (bare or add(self._default_run(task, entry, options, e))).arms.append(arm)
            else:
                add(self._program_run(task, program, arm))
            plain.remove(arm)
        # every value of a variable listed by one config list the runs pass (`categories:
        # [liver, kidney, spleen, pancreas]`): each run goes through them all in one pass
        for variable in dict.fromkeys(a.variable for a in plain):
            group = [a for a in plain if a.variable == variable]
            found = [config_item(a, chosen, self.configs) for a in group]
            places = {(f[1], f[2]) for f in found if f is not None}
            if len(group) < 2 or None in found or len(places) != 1:
                continue
            path, key = places.pop()
            for run in chosen:
                passed = self.configs(run.invocation or run.command)
                if not run.missing and any(c.path == path for c in passed):
                    run.covers += group
                    run.covered_by = f"{key} in {path}"
            plain = [a for a in plain if a not in group]
        # arms a config file the runs pass lists (`encoders: [..., "resnet50_trunc", ...]` for
        # "ResNet50"): the same command with the list cut to the arm's item
        for arm in list(plain):
            listed_in = config_item(arm, chosen, self.configs)
            if listed_in is None:
                continue
            run, path, key, item = listed_in
            edit = f"set {key} in {path} to [{item}] first"
            add(Run(run.command, arms=[arm], data=run.data, warning=edit))
            plain.remove(arm)
        plain = plain_backbones(chosen, plain, self._own_model(), self.methods)
        if chosen:
            unrun = [a for a in plain if not about_data(a.variable)]
            unrun = [a for a in unrun if not numeric(a.value.split()[0])]  # "0.1 for X"
            for arm in unrun[:MAX_MISSING]:
                if not any(arm in r.arms for r in chosen):
                    # the switches that select its siblings, shown for the reviewer to adapt
                    near = [
                        (c, c.value)
                        for a, edits in coded
                        if a.variable == arm.variable
                        for c, _ in edits
                    ]
                    hard = list(dict.fromkeys(c for c, _ in near))
                    sibling = next((r for r in chosen if r.edits and not r.missing), None)
                    if (
                        len(hard) == 1 and sibling is not None and self._switched_off(arm, hard[0])
                    ):  # "simple resize": what runs with the switch off
                        bare = Run(sibling.command, arms=[arm], edits=[(hard[0], False)])
                        chosen.append(same_launch(bare, sibling))
                        continue
                    chosen.append(
                        Run(
                            "",
                            arms=[arm],
                            missing=True,
                            edits=list(dict.fromkeys(near)),
                            warning=other_kinds.get(id(arm), ""),
                        )
                    )
        for swept_variable, option, numbers_said in per_value:
            for run in chosen:
                if run.missing or not run.arms or not run.command:
                    continue
                if run.command.startswith("python") or " python " in run.command:
                    run.command = with_setting(run.command, [option, numbers_said[0]])
                each = (
                    f"run it once per {swept_variable.replace('_', ' ')} ({option} "
                    f"{', then '.join(numbers_said)})"
                )
                run.warning = "; ".join(w for w in (each, run.warning) if w)
        chosen = crossed(chosen, program_runs, flag_runs, self.entries)
        chosen = on_each_data_set(chosen, flag_runs)
        chosen = through_loops(chosen)
        comparable(chosen, self.entries, self.programs)
        through_suites(chosen, q, self.programs, self.entries, self.args.tracer, self._suites)
        self.stages.then_evaluate(chosen, entry, held)
        for run in chosen:  # evaluated as the entry point's runs are, trained by their own
            self._data_program(run)
        # "ADE20K mIoU (MS)", "Cityscapes mIoU (MS)": the measure, once ("mIoU (MS)")
        multi_scale(chosen, measures_per_set(task) or task_metrics(task, q), self._flags_of)
        self.stages.trained_first(chosen, entry, held, self._unset_outputs)
        unopened(chosen[:MAX_RUNS], self.entries, self.programs, self.known)
        misplaced(chosen[:MAX_RUNS], self.programs, self.args.tracer.tree, self.known, self._opened)
        uncompiled(chosen[:MAX_RUNS], self.programs, self._compile_error)
        unfetched(chosen[:MAX_RUNS], self._config_files, self.search.text, self.known)
        repeated(chosen[:MAX_RUNS], f"{task.question}\n{task.method}", self._flags_of)
        apart(
            chosen[:MAX_RUNS],
            self._unset_outputs,
            lambda c: {o for p in self.programs(c) for o in self.stages.options_of(p)},
        )
        chosen = without_bases(chosen)
        chosen = built_arms(chosen, self._run_configs)
        model_checks(chosen[:MAX_RUNS], self._model_path, self.search.text)
        self._suite_benchmarks(chosen[:MAX_RUNS], task)
        overridden(chosen[:MAX_RUNS], self.programs, self.configs, self.search.text)
        looked_up(
            chosen[:MAX_RUNS],
            self.programs,
            self.search.text,
            lambda p: imported(self.index, p, limit=MAX_LOOKUP_MODULES),
            self._lookup_tables,
        )
        return chosen[:MAX_RUNS], entry

    def _model_path(self, name: str) -> str | None:
        """The one module named after a model (models/ETSformer.py for `ETSformer`)."""
        paths = self.methods.modules_by_stem().get(name.lower(), [])
        return paths[0] if len(paths) == 1 else None

    def _suite_benchmarks(self, runs: list[Run], task: TaskDraft) -> None:
        """A run whose config lists a suite's benchmarks (`tasks:` naming `tasks/gpqa/`,
        `tasks/humaneval/`, ...) other than those the task measures (MBPP and MMLU-Pro, of
        `tasks/mbpp/` and `tasks/mmlu_pro/`) is told to list the task's."""
        wanted = self.data.benchmark_folders(task)
        folders = self.data.code_folders()
        if not wanted:
            return
        for run in runs:
            if run.missing or not run.command:
                continue
            for config in self.configs(run.invocation or run.command):
                found = benchmark_list(config, folders)
                if found is None:
                    continue
                key, items = found
                suite = {
                    posixpath.dirname(f)
                    for f, c in folders.items()
                    if any(names_folder(fold(i), c) for i in items)
                }
                names = [posixpath.basename(f) for _, f in wanted if posixpath.dirname(f) in suite]
                if note := unlisted_note(config, key, items, names):
                    run.warning = "; ".join(w for w in (run.warning, note) if w)

    def _data_program(self, run: Run) -> None:
        """A run on a data set its program has no path for (`train.py --dataset STL-10`,
        where train.py tests CIFAR-10, CIFAR-100, ...) goes through the one program beside it
        that has (train_STL10.py), of several the one named after the data set."""
        if run.missing or run.script or len([a for a in run.arms if about_data(a.variable)]) != 1:
            return
        words = run.command.split()
        program = next((p for p in self.programs(run.command) if p.endswith(".py")), None)
        e = self.entries.get(program or "")
        if e is None or program is None:
            return
        for option in data_options([f for f in e.flags if f.name.startswith("--")]):
            if option.name not in words[:-1]:
                continue
            value = words[words.index(option.name) + 1].strip("'\"")
            tested = self.args.tested_values(program, option.name)
            if not tested or value in tested:
                return
            folder = posixpath.dirname(program)
            others = [
                x.path
                for x in self.index.entry_points
                if x.path != program
                and x.runnable
                and x.path.endswith(".py")
                and posixpath.dirname(x.path) == folder
                and any(f.name == option.name for f in x.flags)
                and value in self.args.tested_values(x.path, option.name)
            ]
            # of several (cluster.py evaluates STL-10 too), the one named after the data set
            named = [x for x in others if fold(value) in fold(posixpath.basename(x))]
            others = named if len(others) > 1 else others
            if len(others) == 1:
                run.command = re.sub(
                    rf"(?<![\w/.-]){re.escape(program)}(?![\w/.-])", others[0], run.command, count=1
                )
            return

    def _by_its_note(self, arm: Arm, setting: list[str], arms: list[Arm]) -> bool:
        """The value selecting the arm is only its note in brackets ("ST (MSP)": `--metric
        msp`), while its name is another method than the repository's own and than the other
        arms' (not "Vicuna" of "Vicuna (TRICE-MIX)" beside "Vicuna (Zero-Shot)"): the option
        sets the note on the repository's own model, which is not the arm."""
        forms = value_forms(arm.value)
        if len(forms) < 3 or len(setting) < 2:
            return False
        value = fold(setting[-1])
        if value in (fold(forms[0]), fold(forms[1])) or value not in map(fold, forms[2:]):
            return False
        head = fold(forms[1])
        shared = sum(fold(f) == head for a in arms for f in value_forms(a.value)[1:2]) > 1
        return not shared and not self._titled(Arm(arm.variable, forms[1], arm.words))

    def _titled(self, arm: Arm) -> bool:
        """The arm is what the top-level README is titled after (`# EEVEE` for "Eevee", `#
        EAT: Towards ...` for "EAT"): the repository's own method."""
        if self._title is None:
            self._title = ""
            for name in ("README.md", "readme.md", "README.rst", "README"):
                if name in self.known:
                    head = next((x for x in self.search.lines(name) if x.startswith("#")), "")
                    m = re.match(r"#+\s*([A-Za-z][\w.+-]*)\s*(?::|\(|$)", head.strip())
                    self._title = fold(m.group(1)) if m else ""
                    break
        return bool(self._title) and any(fold(f) == self._title for f in value_forms(arm.value))

    def _flags_of(self, command: str) -> list[CliFlag]:
        """The options of the repository's programs a command runs."""
        return [
            f for p in self.programs(command) if p in self.entries for f in self.entries[p].flags
        ]

    def _unset_outputs(self, command: str) -> dict[str, str]:
        """The options naming where the command's program writes (`--output_dir`, or one
        whose directory the program makes: `os.makedirs(args.model_path)`) that the command
        leaves at their defaults, with those defaults."""
        out: dict[str, str] = {}
        for program in self.programs(command):
            e = self.entries.get(program)
            if e is None:
                continue
            if program not in self._made_dirs:  # read once per program, not per run
                text = "\n".join(self.search.lines(program))
                self._made_dirs[program] = frozenset(
                    re.findall(r"(?:makedirs|mkdir)\(\s*(?:args|opt|cfg)\.(\w+)", text)
                )
            made = self._made_dirs[program]
            for f in e.flags:
                if not f.name.startswith("--") or f.switch or f.name in command:
                    continue
                if OUTPUT_OPTION.fullmatch(f.name) or f.name[2:] in made:
                    out[f.name] = f.default.strip("'\"")
        return out

    def _config_runs(
        self,
        task: TaskDraft,
        q: TaskQuery,
        entry: str | None,
        plain: list[Arm],
        datasets: list[str],
        add: Callable[[Run], Run],
    ) -> tuple[list[Arm], str | None]:
        """Runs of the arms a config file of the program's project names (`SegNeXt-T`:
        `.../segnext.tiny.512x512.ade.160k.py`), the data set and settings the task holds
        fixed choosing among several; the arms left, and the entry point (the program the
        configs are given, when any arm ran)."""
        files = self.config_files
        program = files.program(entry, task_metrics(task, q))
        runnable = [a for a in plain if not about_data(a.variable) and not numeric(a.value)]
        held = [str(v) for v in task.design_complexity.constant_variables.values()]
        if program is None and runnable:
            # an entry point reading no config, while a documented training program has
            # configs naming two or more arms and a setting the task holds fixed ("COCO"): how
            # the authors run this experiment outranks the file that matched its words
            asked = {w for x in [*datasets, *held] for w in path_words(x)} - {
                w for a in runnable for w in arm_words(a.value)
            }
            for trainer in files.trainers():
                named = files.configs_for(trainer, runnable, sorted(asked))
                if len(named) >= 2 and all(files.says(c, asked) for c in named.values()):
                    program = trainer
                    break
        if program is None:
            return plain, entry
        prefer = [w for x in [*datasets, *held] for w in arm_words(x)]
        configs = files.configs_for(program, runnable, prefer, q.words)
        for i, config in configs.items():
            made = files.run(program, config)
            run = Run(made.command, arms=[runnable[i]], config=config, then=made.evaluation)
            if other := files.other_data(config, prefer):  # the arm's only config is elsewhere
                said = [v for v in [*datasets, *held] if any(w in fold(v) for w in other)]
                held_data = ", ".join(said[:2]) or ", ".join(other)
                run.warning = f"its config trains on other data than {held_data}: adapt its data"
            add(run)
        # arms one config stands for (SegNeXt-T's (a), (b) and (c) decoders): that config,
        # once, as where each starts from
        for config, idx in files.shared_configs(program, runnable, prefer, q.words).items():
            made = files.run(program, config)
            names = ", ".join(runnable[i].value for i in idx)
            run = Run(made.command, arms=[runnable[i] for i in idx], config=config)
            run.warning = (
                f"the repository has this one config for {names}: start each from it and "
                "set what tells them apart"
            )
            run.then = made.evaluation
            add(run)
            configs.update({i: config for i in idx})
        done = [runnable[i] for i in configs]
        if not done:
            return plain, entry
        return [a for a in plain if all(a is not d for d in done)], program

    def _default_run(
        self, task: TaskDraft, entry: str, options: list[CliFlag], e: EntryPoint | None
    ) -> Run:
        """The entry point run as the README documents it (else bare), with the options that
        set what the task holds fixed (`--dataset cifar100` for "CIFAR100-LT") added."""
        documented = [c for c in self.index.commands if entry in c.runs]
        held = setting_flags(task, options)
        if documented:
            # the recipe already on the task's setting (`--ds cifar100 --odc 30`), else the first
            wanted = {value for _, value in held}
            best = max(documented, key=lambda c: on_setting(c.text, wanted))
            command = run_from(best, self.known)
        else:
            command = " ".join([bare_run(entry, e), *positional(e)])
        command, settings = with_held(command, held)
        command = self.args.complete(command, entry)
        model = sized_model(f"{task.question}\n{task.method}")
        warning = config_placeholders(self.configs(command), model)
        return Run(command, settings=settings, warning=warning)

    def _program_run(self, task: TaskDraft, program: str, arm: Arm) -> Run:
        """Another program than the entry point, run as documented, for this arm."""
        own = self.entries.get(program)
        flags = [f for f in own.flags if f.name.startswith("--")] if own else []
        run = self._default_run(task, program, flags, own)
        run.arms = [arm]
        return run

    def _recipe(self, entry: str, setting: list[str], held: list[tuple[CliFlag, str]]) -> str:
        """The README's command running the entry point that fits this setting best: one that
        already names its value (a per-model recipe), else one that sets its option, of those
        the one on most of what the task holds fixed (`--ds cifar100 --odc 30`), else the
        first; "" when none is documented."""
        documented = [c for c in self.index.commands if entry in c.runs]
        if not documented:
            return ""
        value = setting[-1] if len(setting) == 2 else ""
        wanted = {v for _, v in held}

        def fit(text: str) -> tuple[bool, bool, int]:
            words = text.split()
            return (
                bool(value) and value in words,
                setting[0].split("=")[0] in text,
                on_setting(text, wanted),
            )

        best = max(documented, key=lambda c: fit(c.text))  # max keeps the first of equals
        return run_from(best, self.known)

    def _arm_program(self, arm: Arm, entry: str | None) -> str | None:
        """A program beside the entry point named after the arm where the entry point is not
        (`run_prompt_bigbench_trace.py` beside `run_prompt_bigbench_dspy.py` for "Trace"):
        the arm is run by its own program, not by the entry point's defaults."""
        if entry is None:
            return None
        folder = posixpath.dirname(entry)
        mine = set(terms(posixpath.basename(entry).rsplit(".", 1)[0]))
        programs = [
            e.path
            for e in self.index.entry_points
            if e.kind != "shell" and e.runnable and e.path.endswith(".py")
        ]
        if _test_module(entry):  # a test module runs through pytest: so do its siblings
            programs += [f.path for f in self.index.files if _test_module(f.path)]
        for path in dict.fromkeys(programs):
            if path == entry or posixpath.dirname(path) != folder:
                continue
            name = set(terms(posixpath.basename(path).rsplit(".", 1)[0]))
            if any(w and w <= name and not w <= mine for w in form_words(arm)):
                return path
        return None

    def _twin_arms(self, plain: list[Arm], entry: str | None) -> list[tuple[Arm, str]]:
        """The entry point and its one twin (the same file name in another folder: a
        sequential script and its distributed version), and a variable of two arms nothing
        else selects: each arm runs the program whose words it shares more ("Multi-GPU with
        RPC coordination" the script that uses RPC, "Single GPU" the other); none when the
        words do not tell them apart."""
        if entry is None or not entry.endswith(".py"):
            return []
        name = posixpath.basename(entry)
        twins = [
            e.path
            for e in self.index.entry_points
            if e.path != entry and posixpath.basename(e.path) == name and e.runnable
        ]
        if len(twins) != 1:
            return []
        mine, theirs = self._words_of(entry), self._words_of(twins[0])
        out: list[tuple[Arm, str]] = []
        for variable in dict.fromkeys(a.variable for a in plain):
            pair = [a for a in plain if a.variable == variable]
            if len(pair) != 2 or about_data(variable) or any(numeric(a.value) for a in pair):
                continue
            lean = [len(a.words & mine) - len(a.words & theirs) for a in pair]
            if lean[0] == lean[1]:
                continue
            first = 0 if lean[0] > lean[1] else 1
            out += [(pair[first], entry), (pair[1 - first], twins[0])]
        return out

    def _switched_off(self, arm: Arm, switch: CodeSetting) -> bool:
        """The arm is what runs with a hard-coded switch off: the code has a branch that
        leaves the switch's path (`if not args.use_zoom_in: continue`), and the arm's words
        are in its function before that branch (the zoom-out's resizing, for "simple resize")
        and not after it (the zoom-in's sliding window is the switch's own)."""
        tree = self.args.tracer.tree(switch.path)
        if tree is None:
            return False
        name = switch.target.rsplit(".", 1)[-1]
        lines = self.search.lines(switch.path)
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if not (
                    isinstance(node, ast.If)
                    and isinstance(node.test, ast.UnaryOp)
                    and isinstance(node.test.op, ast.Not)
                    and name in ast.unparse(node.test.operand)
                    and len(node.body) == 1
                    and isinstance(node.body[0], ast.Continue | ast.Return | ast.Break)
                ):
                    continue
                before = set(terms(" ".join(lines[fn.lineno - 1 : node.lineno - 1])))
                after = set(terms(" ".join(lines[node.end_lineno or node.lineno : fn.end_lineno])))
                own = {stem(w) for w in arm.words}
                return bool(own & {stem(w) for w in before}) and not own & {stem(w) for w in after}
        return False

    def _arm_setting(self, arm: Arm, options: list[CliFlag], entry: str | None) -> list[str] | None:
        """What selects the arm on the entry point's command line: an option with the value
        in the form its parser knows (`--model moganet_xtiny` for "moganet_xtiny
        (MogaNet-XT)"), a switch (`--wo_conv`), or for a hydra program the config group
        whose file is named after the arm (`algorithm=qmix` for benchmarl/conf/algorithm/
        qmix.yaml)."""
        found = arm_option(arm, options)
        if found is not None:
            flag, value = found
            if flag.switch:
                return [flag.name]
            # the value the code tests under a comment naming the arm (`elif args.dataset ==
            # '600': # Numeracy600k`) is how the program spells it
            if labelled := self.args.labelled_value(entry, flag, arm.value):
                return [flag.name, labelled]
            if self.args.known_value(value, flag):
                return [flag.name, value]
            return None  # --model ParC-Net-S where the repository has no ParC-Net-S
        e = self.entries.get(entry or "")
        if e is not None and (named := self._model_module(arm, options)) is not None:
            return named
        if e is None or e.kind != "hydra":
            return None
        choice = self.args.config_choice(arm.value)
        return [choice] if choice else None

    def _model_module(self, arm: Arm, options: list[CliFlag]) -> list[str] | None:
        """`--model Pyraformer` for "Pyraformer": the program's one model option (`--model`,
        `--arch`, ...), when the repository has a module of models named as the arm is
        (models/Pyraformer.py), spelled as the file is."""
        chooses = [f for f in options if not f.switch and MODEL_OPTION.match(f"{f.name} x")]
        if len(chooses) != 1 or ABLATED.match(arm.value):
            return None
        wanted = fold(arm.value)
        declared = re.search(r"\(choices: \[([^\]]*)\]\)", chooses[0].help)
        if declared and wanted not in {fold(c) for c in declared.group(1).split(",")}:
            return None  # the parser would refuse it
        models = [
            path
            for paths in self.methods.modules_by_stem().values()
            for path in paths
            if "model" in posixpath.dirname(path).lower()
        ]
        for path in models:
            if fold(posixpath.basename(path)[:-3]) == wanted and len(wanted) >= 3:
                return [chooses[0].name, posixpath.basename(path)[:-3]]
        # a table's short name inside the one module's longer one ("Stationary" for
        # models/Nonstationary_Transformer.py), when no other module's name holds it
        holding = [p for p in models if len(wanted) >= 6 and wanted in fold(posixpath.basename(p))]
        if len(holding) == 1 and not declared:
            return [chooses[0].name, posixpath.basename(holding[0])[:-3]]
        return None

    def _own_model(self) -> str | None:
        """The model the repository's launch scripts train most, found once for all tasks."""
        if self._own is None:
            self._own = own_model(self.search, self._launchers())
        return self._own

    def _launchers(self) -> list[EntryPoint]:
        """The repository's launch scripts that run an experiment, found once for all tasks:
        not documentation or publishing scripts, not a script that runs every other one."""
        if self._launcher_list is None:
            self._launcher_list = [
                e
                for e in self.index.entry_points
                if e.kind == "shell"
                and e.calls
                and not self._aggregate(e)
                and not self._not_an_experiment(e.path)
            ]
        return self._launcher_list

    def _not_an_experiment(self, path: str) -> bool:
        """Scripts that build or publish documentation, packages or images."""
        if path.split("/", 1)[0] in ("docs", "doc", ".github", "website"):
            return True
        lines = self.search.lines(path)
        return not lines or bool(_PUBLISHING.search("\n".join(lines)[:6000]))

    def _aggregate(self, e: EntryPoint) -> bool:
        """A script that only calls other launch scripts (run_all.sh) runs every experiment."""
        return sum(c.endswith(".sh") for c in e.calls) > 3

    def _trained_arms(
        self,
        path: str,
        arms: list[Arm],
        modules: dict[tuple[str, str], frozenset[str] | None] | None = None,
    ) -> list[Arm]:
        """The arms the script's model option names (`--model Llama7B_adapter`: LLaMA-Adapter),
        whatever its folder is named after (`alpaca_finetuning_v1/`: Alpaca's data), or
        names by the model module that selects the arm (`--model Nonstationary_Transformer`
        for "Stationary"; `modules` holds each arm's module's words)."""
        if path not in self._script_models:  # read once per script, not per arm and fit
            lines = self.search.lines(path)[:400]
            # the runs with the script's variables filled: `--model $model_name` after
            # `model_name=Nonstationary_Transformer`
            texts = [*lines, *(b.filled() for b in blocks_of(lines))]
            self._script_models[path] = [
                frozenset(terms(m.group(1))) for t in texts for m in MODEL_OPTION.finditer(t)
            ]
        models = self._script_models[path]

        def names(a: Arm, model: frozenset[str]) -> bool:
            main = {w for w in a.words if len(w) >= 3}  # not "la", "ma" of LLaMA
            if bool(main) and main <= model:
                return True
            return bool(modules and modules.get((a.variable, a.value)) == model)

        return [a for a in arms if any(names(a, m) for m in models)]

    def _words_of(self, path: str) -> frozenset[str]:
        """The words of a launch script or a program, less the flags its programs do not
        define (`--period_mean` passed to a parser without it selects nothing)."""
        if path not in self._script_words:
            text = "\n".join(self.search.lines(path))[:6000]
            e = self.entries.get(path)
            defined = {
                f.name
                for c in (e.calls if e else [])
                if (called := self.entries.get(c)) is not None
                for f in called.flags
            }
            if defined:
                text = _FLAG.sub(lambda m: m.group(0) if m.group(0) in defined else " ", text)
            self._script_words[path] = frozenset(terms(path + " " + text))
        return self._script_words[path]

    def _script_run(
        self, e: EntryPoint, q: TaskQuery, arms: list[Arm], data: frozenset[str] = frozenset()
    ) -> Run:
        lines = self.search.lines(e.path)
        first, last, settings, invocation = invocation_of(lines, q, arms, data)
        command = f"bash {shlex.quote(e.path)}"
        documented = [c for c in self.index.commands if e.path in c.runs]
        if takes_arguments(lines) and documented:
            # a script reading its arguments (CONFIG=$1, GPUS=$2) runs as the README writes
            # it (`./tools/dist_train.sh /path/to/config 8`), never bare
            command = run_from(documented[0], self.known)
        elif (folder := self._script_folder(e.path, lines, invocation)) is not None:
            # its program is named from the script's folder: run it from there
            command = f"cd {shlex.quote(folder)} && bash {shlex.quote(posixpath.basename(e.path))}"
            invocation = f"cd {shlex.quote(folder)} && {invocation}"
        return Run(
            invocation=invocation,
            command=command,
            arms=list(arms),
            script=e.path,
            lines=(first, last),
            settings=settings,
            warning="; ".join(
                w
                for w in (
                    placeholders(self.search.lines(e.path)),
                    config_placeholders(self.configs(invocation), sized_model(q.text)),
                    self.args.rejected(invocation, e.path),
                )
                if w
            ),
        )

    def _script_folder(self, script: str, lines: list[str], invocation: str) -> str | None:
        """The folder a launch script must be run from: its own, when the program it runs is
        named from there (`python finetuning.py` in `alpaca_finetuning_v1/finetuning.sh`) and
        not from the repository's top, and the script moves to no folder itself."""
        folder = posixpath.dirname(script)
        if not folder or any(re.match(r"\s*(?:cd|pushd)\s", x) for x in lines):
            return None
        try:
            words = shlex.split(invocation, comments=True)
        except ValueError:
            return None
        program = next((w for w in words if w.endswith(".py") and "$" not in w), None)
        if program is None or posixpath.normpath(program) in self.known:
            return None
        inside = posixpath.normpath(posixpath.join(folder, program))
        return folder if inside in self.known else None

    def _compile_error(self, program: str) -> tuple[int, str] | None:
        """Where Python stops compiling one of the repository's programs, if it does."""
        if program not in self.known or self.args.tracer.tree(program) is not None:
            return None
        try:
            return syntax_error(self.search.text(program))
        except (OSError, ValueError):
            return None  # unreadable or too large: not a mistake of the program's

    def run_models(
        self, runs: list[Run], q: TaskQuery, held: frozenset[str] = frozenset()
    ) -> list[Step]:
        """The models the runs train, when a run names one by an option (`--model CycleNet`)
        and one module is named after it (models/CycleNet.py): each one's main definition.
        First the method: the repository's own model (what its authors' scripts train most;
        a baseline beside it is not the method), else the one the task names, else the most
        run; then the models the other arms' runs train (the baselines compared with it).

        A model the task holds fixed as its backbone (`held`, "using ResNet18"), which no
        arm names, is what every method is built on: neither the method nor a rival."""
        names: Counter[str] = Counter()
        compared: set[str] = set()
        for r in runs:
            for m in MODEL_OPTION.finditer(r.invocation or r.command):
                if stem(m.group(1).strip("'\"")) in held:
                    continue
                names[m.group(1).strip("'\"")] += 1
                if r.arms:
                    compared.add(m.group(1).strip("'\""))
        wanted = {stem(n) for n in q.names}
        own = self._own_model() if len(names) > 1 else self._own
        ordered = sorted(names, key=lambda n: (n != own, stem(n) not in wanted, -names[n]))
        modules = self.methods.modules_by_stem()
        out: list[Step] = []
        programs = list(dict.fromkeys(p for r in runs for p in self.programs(r.command)))
        for name in ordered:
            if out and name not in compared:
                continue
            paths = modules.get(name.lower(), [])
            if len(paths) == 1:
                step = self.methods.main_definition(paths[0], name)
            elif not paths:  # a definition of that name the program looks up
                step = self.methods.defined_model(name, programs)
            else:
                step = None
            if step is not None:
                out.append(step)
        return out[:3]


# how a command built on a launch script's run names that script (`_as_script_runs`); the
# runs are rebuilt from one another with their warnings, so the note is what carries it
_BUILT_ON = "'s command with"


def without_bases(runs: list[Run]) -> list[Run]:
    """The runs without a launch script's run that names no arm and only served as the base
    of an arm's command (`Formers/Transformer.sh`, from which FEDformer's command is built):
    it is no run of the task."""
    based = {
        w.split(_BUILT_ON, 1)[0]
        for r in runs
        if r.arms
        for w in r.warning.split("; ")
        if _BUILT_ON in w
    }
    return [r for r in runs if r.arms or r.covers or r.missing or r.script not in based]


def _as_script_runs(base: Run, setting: list[str], datasets: list[str]) -> str:
    """What a command built on one run of a launch script stands for: the script's command
    with the arm's setting added, for every value the script sweeps and every data set the
    task runs on (the command shows the first)."""
    swept = sweeps_of(base.settings)
    again = f", once per value it sweeps ({', '.join(swept)})" if swept else ""
    given = len(setting) == 2 and re.search(rf"(?<!\S){re.escape(setting[0])}[= ]", base.invocation)
    done = f"{setting[0]} set to {setting[1]}" if given else f"{' '.join(setting)} added"
    note = f"{base.script}{_BUILT_ON} {done}{again}"
    others = [d for d in datasets if d and d != base.data]
    if others:
        note += f"; likewise on {', '.join(others)}, with their scripts' commands"
    return note


def _test_module(path: str) -> bool:
    """A Python test module by its name (`tests/TestPC.py`, `test_pc.py`, `pc_test.py`)."""
    name = posixpath.basename(path)
    return name.endswith(".py") and (name.startswith(("test", "Test")) or name.endswith("_test.py"))


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


def path_parts(path: str) -> set[str]:
    """A path's parts between slashes, dots, dashes and underscores (`MLP-Input-96`)."""
    return set(re.split(r"[/_.\-]", path))


def same_launch(run: Run, like: Run) -> Run:
    """`run` through the same launch script invocation as `like` (its lines, the command it
    fills, what a reader must know about it); the run."""
    run.script, run.lines = like.script, like.lines
    run.invocation, run.warning = like.invocation, like.warning
    return run
