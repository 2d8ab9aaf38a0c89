"""The runs of one task's experiment: the launch scripts or commands that run its arms.

A task varies something (methods, backbones, data sets, horizons); each value is an arm. The
repository's own launch scripts run them first: a script whose path or settings name an arm
beats one that only shares words with the task, and it runs once per data set of the task.
An arm the entry point selects by an option (`--wo_conv`, `--model_type mlp`) runs as the
script's own command with that option set; a hydra program's arms run as one multirun; an arm
its main block hard-codes (`args.use_zoom_in = True`) runs with those lines set. An arm nothing
selects is a line for the reviewer to fill in. Derived from the mined index and the files.

`RunPlanner` holds what is read once per repository and checks every task's runs; the
phases of one task's planning are `TaskRuns` (arm_runs.py), the launch scripts
`LaunchScripts` (launch_scripts.py).
"""

from __future__ import annotations

import ast
import functools
import posixpath
import re
from collections import Counter
from collections.abc import Callable

from expcurate.records import CliFlag, ConfigFile, EntryPoint, RepoIndex, TaskDraft
from extractors.repo import RepoPathError, RepoSearch, stem, terms
from extractors.repo.commands import Parsed, PathResolver, parse_command, python_entry, run_from
from extractors.repo.pysource import syntax_error

from .arm_calls import ArmCalls, CallingProgram
from .arm_options import (
    arm_option,
    data_options,
    declared_choices,
    fold,
    setting_flags,
)
from .arm_runs import BUILT_ON, TaskRuns
from .arms import (
    ABLATED,
    Arm,
    CodeSetting,
    about_data,
    content_words,
    form_words,
    in_prose,
    measured_on,
    measures_per_set,
    numeric,
    task_arms,
    task_datasets,
    task_metrics,
    value_forms,
)
from .config_runs import ConfigFiles, arm_words, built_arms, path_words
from .data_files import readme_links, unshipped
from .data_steps import DataSteps
from .derived import (
    crossed,
    on_each_data_set,
    through_loops,
    through_suites,
)
from .entry_args import EntryArgs, positional
from .launch import (
    with_held,
)
from .launch_scripts import LaunchScripts, other_data
from .library_calls import LibraryCall, compared_values, library_call, picked_values
from .methods import MethodModules
from .query import TaskQuery
from .registries import Registries
from .run import MAX_RUNS, Run, shared_heads, within_cap
from .run_notes import (
    MODEL_OPTION,
    OUTPUT_OPTION,
    apart,
    comparable,
    config_placeholders,
    folder_then_file,
    looked_up,
    misplaced,
    model_checks,
    multi_scale,
    names_llm,
    overridden,
    repeated,
    sized_model,
    uncompiled,
    unfetched,
    unopened,
)
from .stages import Stages, on_setting
from .step_filters import run_reaches
from .steps import Step, StepTracer, bare_run, imported
from .suite import Suite
from .suite_config import (
    HELD_OUT,
    ON_ITS_OWN,
    alone_note,
    benchmark_list,
    evaluated_mode,
    names_folder,
    unlisted_note,
)

MAX_LOOKUP_MODULES = 30  # the modules of a program read for the tables its options index
# the share of their words two programs of one file name hold in common to be twins (the same
# program written twice); the 23 repositories' twins share 0.3 to 0.99, unrelated namesakes 0.13
TWIN_LIKENESS = 0.3


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
        self._opened: dict[str, list[str]] = {}  # files each program opens by a literal name
        self._read: dict[str, list[tuple[int, str]]] = {}  # data files each reads, by line
        self._links: dict[str, str] | None = None  # the READMEs' links, by file name
        # each module's tables its options index (`eval_dict[args.task]`), read once
        self._lookup_tables: dict[str, dict[str, tuple[str, list[str], int]]] = {}
        self._resolver: PathResolver | None = None
        self._suites: dict[str, Suite | None] = {}
        self._title: str | None = None  # the top-level README's title name, folded
        self.known = {f.path for f in index.files}  # the repository's file paths, once
        self._made_dirs: dict[str, frozenset[str]] = {}  # options a program makes folders of
        self.stages = Stages(index, search, self.known, self.args, self.programs, self._paths)
        self.data = DataSteps(index, tracer)  # the benchmarks' folders, read once
        self.scripts = LaunchScripts(index, search, self.args, self.known, self.configs)
        self.arm_calls = ArmCalls(index.entry_points, tracer.tree)

    def _parsed(self, command: str) -> Parsed:
        return parse_command(command, self._paths(), "")

    def _paths(self) -> PathResolver:
        """The repository's files as commands and imports name them, mapped once."""
        if self._resolver is None:
            self._resolver = PathResolver(f.path for f in self.index.files if not f.skipped)
        return self._resolver

    def configs(self, command: str) -> list[ConfigFile]:
        """The repository's config files a command passes (`--demo_config ./config/x.json`,
        read from the folder a `cd` of the command moves to)."""
        known = self._configs_by_path
        return [known[p] for p in self._parsed(command).mentions if p in known]

    def configs_read(self, command: str) -> list[ConfigFile]:
        """The config files a command passes, and those its programs read by default through
        an option it leaves unset (`--config` defaulting to configs/assignments/default.yaml
        for `python -m src.assigner`)."""
        known = self._configs_by_path
        out = self.configs(command)
        words = command.split()
        for program in self.programs(command):
            e = self.entries.get(program)
            for f in e.flags if e else []:
                default = f.default.strip("'\"")
                if f.switch or not f.name.startswith("-") or f.name in words:
                    continue
                beside = posixpath.normpath(posixpath.join(posixpath.dirname(program), default))
                path = default if default in known else beside if beside in known else ""
                if path and all(c.path != path for c in out):
                    out.append(known[path])
        return out

    @functools.cached_property
    def registries(self) -> Registries:
        return Registries(self.search, self.index.configs)

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

    def _reaches(self, program: str, run: Run, line: int) -> bool:
        """Whether the run's options reach `line` of `program` (else unknown: it does)."""
        e, tree = self.entries.get(program), self.args.tracer.tree(program)
        return e is None or tree is None or run_reaches(e, tree, run, line)

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
        planned = TaskRuns(self, task, q, entry, scores)
        planned.plan()
        return self._checked(planned), planned.entry

    def _checked(self, planned: TaskRuns) -> list[Run]:
        """The runs of one task, each crossed with the others it needs and checked against
        the repository: what a reader must know before running them is said on each."""
        task, q, entry, held = planned.task, planned.q, planned.entry, planned.held
        chosen = planned.chosen
        chosen = crossed(
            chosen,
            planned.program_runs,
            planned.flag_runs,
            self.entries,
            self._accepts,
            self.args.else_note,
        )
        chosen = on_each_data_set(chosen, planned.flag_runs)
        chosen = within_cap(through_loops(chosen))
        comparable(chosen, self.entries, self.programs)
        through_suites(chosen, q, self.programs, self.entries, self.args.tracer, self._suites)
        self.stages.then_evaluate(chosen, entry, held)
        for run in chosen:  # evaluated as the entry point's runs are, trained by their own
            self._data_program(run)
        # "ADE20K mIoU (MS)", "Cityscapes mIoU (MS)": the measure, once ("mIoU (MS)")
        multi_scale(chosen, measures_per_set(task) or task_metrics(task, q), self._flags_of)
        self.stages.trained_first(chosen, entry, held, self._unset_outputs)
        self.stages.analysed_first(chosen, entry)
        self.stages.past_checks(chosen, entry)
        # a task on one data set: a script running it on others too says which runs to keep
        named = {*task_datasets(task), *(measured_on(task) or [])}
        on = {r.data for r in chosen if r.data and not r.missing}
        if len(on) == 1 and len(named) <= 1:
            words = frozenset(content_words(on.pop()))
            for run in chosen[:MAX_RUNS]:
                if run.script and run.data and not run.missing:
                    run.say(other_data(self.search.lines(run.script), words))
        unopened(chosen[:MAX_RUNS], self.entries, self.programs, self.known)
        misplaced(chosen[:MAX_RUNS], self.programs, self.args.tracer.tree, self.known, self._opened)
        if self._links is None:
            self._links = readme_links(self.known, self.search.text)
        unshipped(
            chosen[:MAX_RUNS],
            self.programs,
            self.args.tracer.tree,
            self.known,
            self._reaches,
            self._links,
            self._read,
        )
        uncompiled(chosen[:MAX_RUNS], self.programs, self._compile_error)
        folder_then_file(chosen[:MAX_RUNS], self.programs, self.args.tracer.tree)
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
        calls = []
        for run in chosen[:MAX_RUNS]:
            self._unsplit(run)
            calls.append(self._library_call(run))
        if call := next((c for c in calls if c is not None), None):
            self._library_arms(call, chosen[:MAX_RUNS])
        looked_up(
            chosen[:MAX_RUNS],
            self.programs,
            self.search.text,
            lambda p: imported(self.index, p, limit=MAX_LOOKUP_MODULES),
            self._lookup_tables,
        )
        # an arm nothing runs is a line to fill in, never cut with the runs past the cap
        return [*chosen[:MAX_RUNS], *(r for r in chosen[MAX_RUNS:] if r.missing)]

    def _library_call(self, run: Run) -> LibraryCall | None:
        """A run of a test module through pytest checks the library on the test's own data:
        it says the call the test makes of what it is named after, to make on the task's
        (`library_calls`), and gives that call."""
        m = re.fullmatch(r"python -m pytest (\S+\.py)", run.command.strip())
        tree = self.args.tracer.tree(m.group(1)) if m else None
        if m is None or tree is None:
            return None
        found = library_call(m.group(1), tree, self._repository_module)
        if found is not None:
            run.say_first(found.note())
        return found

    def _library_arms(self, call: LibraryCall, runs: list[Run]) -> None:
        """An arm no run runs whose words pick out strings the called function tests one of
        its parameters for ("Generalized score functions": ges's `score_func ==
        "local_score_CV_general"`) says to make the test's call with those values."""
        path = self._paths().module(call.module, [""])
        tree = self.args.tracer.tree(path) if path else None
        compared = compared_values(tree, call.name) if path and tree else {}
        if not path or not compared:
            return
        for run in runs:
            if not run.missing:
                continue
            for arm in run.arms:
                if picked := picked_values(arm.value, compared):
                    run.say(call.arm_note(*picked, path))

    def _repository_module(self, dotted: str) -> bool:
        """A dotted module name is one of the repository's own files, from its root or
        `src/` (`PathResolver.module`)."""
        return self._paths().module(dotted, [""]) is not None

    def _unsplit(self, run: Run) -> None:
        """A run giving several arms told apart by a word no code of the repository names
        ("Exp Others" and "Exp Units", and nothing splits results by units) says its results
        are to be split by hand, and which document names the word."""
        for shared, values in shared_heads(run):
            parts = [v[len(shared) :].strip() for v in values]
            # words on both sides ("Exp" and "Units"), not a model's size ("-13b") nor a
            # note in brackets ("(with MLP backbone)"): those are arms of their own runs
            if not all(re.fullmatch(r"[A-Za-z]+(?: [A-Za-z]+)*", x) for x in [shared, *parts]):
                continue
            unnamed = [p for p in parts if not self._names(p, code=True)]
            if not unnamed:
                continue
            docs = [hit for p in unnamed if (hit := self._names(p, code=False))]
            said = f", only {docs[0]} does" if docs else ""
            run.say_first(
                f"one run gives {in_prose(values)}, but no code of the repository names "
                f"{in_prose(unnamed, ' or ')}{said}: split this run's outputs by "
                f"{in_prose(parts)} yourself"
            )

    def _names(self, part: str, code: bool) -> str:
        """Where the repository's code (`code`), else its documents, name every word of a
        part of an arm's value ("Units": `unit` or `units`, not `n_units`, nor in a comment):
        the first place, as `path:line`; "" for none."""
        words = [w.lower().removesuffix("s") for w in content_words(part) if len(w) >= 3]
        if not words:
            return "code" if code else ""  # nothing to look for: taken as named
        pattern = r"(?i)(?<![\w])" + re.escape(words[0]) + r"s?(?![\w])"
        try:
            hits = self.search.grep(pattern, max_hits=200)
        except RepoPathError:
            return "code" if code else ""
        for path, line, text in hits:
            is_code = path.endswith(".py")
            if code != is_code:
                continue
            text = text.split("#", 1)[0] if is_code else text
            low = text.lower()
            if all(re.search(r"(?<![\w])" + re.escape(w) + r"s?(?![\w])", low) for w in words):
                return f"{path}:{line}"
        return ""

    def _accepts(self, program: str, setting: list[str], arm: str) -> bool:
        """The program takes the setting's value: its option is not held to a closed list
        of values (its parser's choices, an `assert args.algo in [...]`), or the list has
        it."""
        e = self.entries.get(program)
        flag = next((f for f in e.flags if f.name == setting[0]), None) if e else None
        if flag is None or len(setting) < 2:
            return flag is not None
        closed = {*declared_choices(flag), *self.args.asserted_values(program, flag)}
        return not closed or setting[1] in closed

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
        said = " ".join(f"{task.question}\n{task.method}".split())
        alone = max(ON_ITS_OWN.finditer(said), key=lambda m: len(m.group(0)), default=None)
        if not wanted and not alone:
            return
        for run in runs:
            if run.missing or not run.command:
                continue
            for config in self.configs(run.invocation or run.command):
                found = benchmark_list(config, folders)
                if found is None:
                    continue
                key, items = found
                if alone:  # "learning on each benchmark independently": one run each
                    run.say(alone_note(config, key, items, alone.group(0)))
                    continue
                suite = {
                    posixpath.dirname(f)
                    for f, c in folders.items()
                    if any(names_folder(fold(i), c) for i in items)
                }
                names = [posixpath.basename(f) for _, f in wanted if posixpath.dirname(f) in suite]
                evaluated = ""
                if HELD_OUT.search(f"{task.question}\n{task.method}"):
                    code = "\n".join(
                        self.search.text(m)
                        for p in self.programs(run.command)
                        if p.endswith(".py") and p in self.known
                        for m in imported(self.index, p, limit=MAX_LOOKUP_MODULES)
                    )
                    evaluated = evaluated_mode(config, key, len(items), code)
                if note := unlisted_note(config, key, items, names, evaluated):
                    run.say(note)

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

    def by_its_note(self, arm: Arm, setting: list[str], arms: list[Arm]) -> bool:
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
        return not shared and not self.titled(Arm(arm.variable, forms[1], arm.words))

    def titled(self, arm: Arm) -> bool:
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

    def own_arm(self, arm: Arm) -> bool:
        """The arm is the repository's own method: marked as the authors' ("CC (Ours)"), or
        named after the top-level README's title ("SegNeXt-L" under `# SegNeXt: ...`)."""
        if re.search(r"\bours\b", arm.value, re.I) or self.titled(arm):
            return True
        title = self._title or ""
        return len(title) >= 3 and any(fold(f).startswith(title) for f in value_forms(arm.value))

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

    def config_runs(
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
        # the repository's own method written with its encoder ("SegNeXt-L / MSCAN-L"), which
        # no config path names: the config of the method's name ("SegNeXt-L"), when the task
        # holds a data set its config can be checked against (else a config on any data
        # would pass for the task's); a baseline's ("PSPNet / ResNet101") only with the
        # backbone its path names
        for i, arm in enumerate(runnable):
            if i in configs or " / " not in arm.value or not prefer or not self.own_arm(arm):
                continue
            head = arm.value.split(" / ")[0]
            model = Arm(arm.variable, head, frozenset(terms(head)))
            if config := files.config_for(program, model, prefer, (), q.words):
                configs[i] = config
        # the data the question names, when the task holds none ("... on the remote sensing
        # dataset iSAID"): what a config on other data is to be adapted to
        on_data = prefer or files.data_named(q.words)
        for i, config in configs.items():
            made = files.run(program, config)
            run = Run(made.command, arms=[runnable[i]], config=config, then=made.evaluation)
            if other := files.other_data(config, on_data):  # its only config is elsewhere
                said = [v for v in [*datasets, *held] if any(w in fold(v) for w in other)]
                # else as the question writes it ("iSAID" for `isaid`)
                spelled = [
                    m.group(0)
                    for w in other
                    if (m := re.search(rf"\b{re.escape(w)}\b", task.question, re.I))
                ]
                held_data = ", ".join(said[:2]) or ", ".join(spelled or other)
                run.warning = f"its config trains on other data than {held_data}: adapt its data"
                run.elsewhere = True
            add(run)
        # arms one config stands for (SegNeXt-T's (a), (b) and (c) decoders), and arms adding
        # parts to one model ("SegNeXt-B w/ CC", "... w/ Ham"): that config, once, as where
        # each starts from; the one whose part it builds by name is the config as it stands
        shared = files.shared_configs(program, runnable, prefer, q.words)
        headed = files.headed_configs(program, runnable, prefer, q.words)
        for config, idx, parts in [
            *((c, idx, False) for c, idx in shared.items()),
            *((c, idx, True) for c, idx in headed.items()),
        ]:
            if any(i in configs for i in idx):
                continue
            made = files.run(program, config)
            group = [runnable[i] for i in idx]
            run = Run(made.command, arms=group, config=config, then=made.evaluation)
            if parts:
                _headed(run, files.built(config), posixpath.basename(config), files.part_class)
            else:
                run.warning = _one_config(group)
            add(run)
            configs.update({i: config for i in idx})
        done = [runnable[i] for i in configs]
        if not done:
            return plain, entry
        return [a for a in plain if all(a is not d for d in done)], program

    def default_run(
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
        # the task's one model, unless it compares models (a group of two or more)
        models = [a for a in task_arms(task) if names_llm(a.value)]
        model = sized_model(f"{task.question}\n{task.method}") if len(models) < 2 else ""
        warning = config_placeholders(self.configs(command), model)
        return Run(command, settings=settings, warning=warning)

    def calling_program(self, arms: list[Arm]) -> CallingProgram | None:
        """The program whose main block calls each of several arms' own definitions."""
        return self.arm_calls.program(arms)

    def program_run(self, task: TaskDraft, program: str, arm: Arm) -> Run:
        """Another program than the entry point, run as documented, for this arm."""
        own = self.entries.get(program)
        flags = [f for f in own.flags if f.name.startswith("--")] if own else []
        run = self.default_run(task, program, flags, own)
        run.arms = [arm]
        return run

    def recipe(self, entry: str, setting: list[str], held: list[tuple[CliFlag, str]]) -> str:
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

    def arm_program(self, arm: Arm, entry: str | None) -> str | None:
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

    def twins(self, a: str, b: str) -> bool:
        """Two programs of one file name are the same program written twice (a sequential
        script and its distributed version): most of their words are each other's. Two that
        share a common name (`train.py`) and little else are not: ToolBench's retriever
        training and its model training share an eighth of theirs."""
        if a == b or posixpath.basename(a) != posixpath.basename(b):
            return False
        mine, theirs = self.scripts.words_of(a), self.scripts.words_of(b)
        return len(mine & theirs) >= TWIN_LIKENESS * len(mine | theirs)

    def twin_arms(self, plain: list[Arm], entry: str | None) -> list[tuple[Arm, str]]:
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
        if len(twins) != 1 or not self.twins(entry, twins[0]):
            return []
        mine, theirs = self.scripts.words_of(entry), self.scripts.words_of(twins[0])
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

    def switched_off(self, arm: Arm, switch: CodeSetting) -> bool:
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

    def arm_setting(self, arm: Arm, options: list[CliFlag], entry: str | None) -> list[str] | None:
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
            default = flag.default.strip("'\"")
            if (
                names_llm(arm.value)
                and names_llm(default)
                and MODEL_OPTION.match(f"{flag.name} x")
                and not declared_choices(flag)
            ):  # `--model gpt-3.5-turbo`: an option taking any model's name, spelled like it
                return [flag.name, value.lower() if default.islower() else value]
            return None  # --model ParC-Net-S where the repository has no ParC-Net-S
        e = self.entries.get(entry or "")
        if e is not None and (named := self.model_module(arm, options)) is not None:
            return named
        # the branch of an option's test that makes the arm (`else: OptoPrime(...)`)
        for flag in options if not ABLATED.match(arm.value) else []:
            if value := self.args.branch_value(entry, flag, arm.value):
                return [flag.name, value]
        if e is None or e.kind != "hydra":
            return None
        choice = self.args.config_choice(arm.value)
        return [choice] if choice else None

    def model_module(self, arm: Arm, options: list[CliFlag]) -> list[str] | None:
        """`--model Pyraformer` for "Pyraformer": the program's one model option (`--model`,
        `--arch`, ...), when the repository has a module of models named as the arm is
        (models/Pyraformer.py), spelled as the file is."""
        chooses = [f for f in options if not f.switch and MODEL_OPTION.match(f"{f.name} x")]
        if len(chooses) != 1 or ABLATED.match(arm.value):
            return None
        wanted = fold(arm.value)
        declared = declared_choices(chooses[0])
        if declared and wanted not in {fold(c) for c in declared}:
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
        a baseline beside it is not the method), else the one the task names first, else the
        most run; then the models the other arms' runs train (the baselines compared with it).

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
        own = self.scripts.own_model() if len(names) > 1 else self.scripts.own
        # of the models the task names, the one it names first (the question's "does PDF
        # outperform PatchTST", not the baseline that more runs train)
        first = {n: i for i, n in reversed(list(enumerate(stem(n) for n in q.names)))}
        ordered = sorted(
            names,
            key=lambda n: (n != own, first.get(stem(n.lower()), len(first)), -names[n]),
        )
        modules = self.methods.modules_by_stem()
        out: list[Step] = []
        programs = list(dict.fromkeys(p for r in runs for p in self.programs(r.command)))
        for name in ordered:
            if out and name not in compared:
                continue
            paths = modules.get(name.lower(), [])
            if len(paths) == 1:
                # the first is the method, cited by its parts; another through its wrapper
                step = self.methods.main_definition(paths[0], name, through=bool(out))
            elif not paths:  # a definition of that name the program looks up
                step = self.methods.defined_model(name, programs)
            else:
                step = None
            if step is not None:
                out.append(step)
        return out[:3]


def without_bases(runs: list[Run]) -> list[Run]:
    """The runs without a launch script's run that names no arm and only served as the base
    of an arm's command (`Formers/Transformer.sh`, from which FEDformer's command is built):
    it is no run of the task."""
    based = {
        w.split(BUILT_ON, 1)[0]
        for r in runs
        if r.arms
        for w in r.warning.split("; ")
        if BUILT_ON in w
    }
    return [r for r in runs if r.arms or r.covers or r.missing or r.script not in based]


def _test_module(path: str) -> bool:
    """A Python test module by its name (`tests/TestPC.py`, `test_pc.py`, `pc_test.py`)."""
    name = posixpath.basename(path)
    return name.endswith(".py") and (name.startswith(("test", "Test")) or name.endswith("_test.py"))


def _one_config(group: list[Arm]) -> str:
    """What a reader must know about one config run for several arms it does not tell
    apart."""
    names = ", ".join(a.value for a in group)
    return (
        f"the repository has this one config for {names}: start each from it and set what "
        "tells them apart"
    )


def _headed(
    run: Run,
    built: list[tuple[str, str]],
    name: str,
    part_class: Callable[[str, str], tuple[str, str, int, int] | None],
) -> None:
    """What a reader must know about one model's config run for arms adding parts to it:
    which arm it is as it stands (the part it builds is named by that arm's own words:
    `LightHamHead` for "w/ Ham"), and that the others start from it, each with the class of
    that kind its own word names (`CCHead` for "w/ CC") where the repository has one, whose
    work is then a step of the run."""
    group = run.arms
    shared = frozenset.intersection(*(a.words for a in group))
    same = [
        (a, key, kind)
        for a in group
        for key, kind in built
        if (own := a.words - shared) and own <= set(terms(kind))
    ]
    if len({id(a) for a, _, _ in same}) != 1:
        run.warning = _one_config(group)
        return
    arm, key, kind = same[0]
    part = key.rsplit(".", 1)[-1]
    others: list[str] = []
    for a in group:
        if a is arm:
            continue
        words = sorted(a.words - shared)
        found = part_class(words[0], kind) if len(words) == 1 else None
        if found is None:
            others.append(f"{a.value} by the {part} it names")
            continue
        cls, path, first, last = found
        others.append(f"{a.value} by {cls} ({path})")
        run.selects.append((f"Implement {a.value}'s {part} ({cls})", path, first, last))
    run.warning = (
        f"{name} builds {kind} as its {part}: that is {arm.value}; start the others from it "
        f"with its {part} replaced: {'; '.join(others)}"
    )
