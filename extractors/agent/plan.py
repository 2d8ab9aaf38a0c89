"""One task's experiment laid out on the code: its arms, the runs, the steps, what to hide.

A task varies something (the design's independent variables: methods, backbones, datasets,
horizons) and measures something (its dependent variables). The repository runs it through
launch scripts or README commands that call an entry point, which loads data, builds the
method, trains and evaluates. The plan ties the two together:

- **arms**: one per value of a varied design variable ("MLP", "Linear", "ETTh2");
- **runs**: the launch scripts that cover the arms (a script whose path or settings name an
  arm beats one that only shares words with the task), else one command per arm built on the
  entry point's own parser, every flag one it defines;
- **steps**: the data loading, the method's own classes cut to their parts, the branches that
  switch between the arms, the training loop, each run's command lines, the metric, and the
  line that reports it, each citing the narrow range that does it, in execution order;
- **masked**: the runs' scripts and the method's own module, never the support libraries.

Everything is derived from the mined index and the files; no model, deterministic.
"""

from __future__ import annotations

import ast
import posixpath
import re
import shlex
from collections import Counter
from dataclasses import dataclass, field

from expcurate.records import CliFlag, EntryPoint, RepoIndex, TaskDraft
from extractors.repo import RepoPathError, RepoSearch, stem, terms
from extractors.repo.commands import (
    PathResolver,
    check_command,
    parse_command,
    python_entry,
    run_from,
)
from extractors.repo.pysource import OutlineItem, callee_name

from .arms import (
    ABLATED,
    DEFAULT_ARM,
    NO_VALUE,
    SETTING_FILLER,
    Arm,
    CodeSetting,
    about_data,
    arm_option,
    code_edits,
    content_words,
    form_words,
    listed,
    numeric,
    setting_flags,
    task_arms,
    task_datasets,
    task_metrics,
    task_settings,
    value_forms,
)
from .query import TaskQuery
from .steps import DATA_NAMES, Step, StepTracer, bare_run, humanize

MAX_STEPS = 15
MAX_RUNS = 8
NARROW = 40  # a definition longer than this is cited by its parts
RELEVANT = 0.6  # a launch script ranked this close to the best file can name the entry point
MAX_MISSING = 4  # arms no script or option selects, each shown as a line to fill in
_PUBLISHING = re.compile(
    r"git\s+push|gh-pages|ghp-import|sphinx-build|mkdocs|jupyter-book|twine\s+upload|"
    r"docker\s+(?:build|push)|npm\s+(?:run|publish)",
    re.I,
)
_DATA_WORDS = {"data", "dataset", "loader", "dataloader", "load", "read"}
_DATA_NAMES = DATA_NAMES | {"corpus"}
_TRAIN_NAMES = ("train", "fit", "train_epoch", "train_one_epoch", "training", "run_epoch")
_EVAL_NAMES = ("test", "evaluate", "eval", "inference", "validate", "validation", "vali", "val")
_RUN_LINE = re.compile(
    r"^\s*(?:[A-Za-z_]\w*=\S*\s+)*(?:nohup\s+)?(?:\S*/)?(?:python[\d.]*|torchrun|deepspeed|"
    r"accelerate\s+launch)\b"
)
_ASSIGN = re.compile(
    r"""^\s*(?:export\s+)?([A-Za-z_]\w*)=(?:'([^']*)'|"([^"$]*)"|([^\s;$`]*))\s*$"""
)
_FOR = re.compile(r"^\s*for\s+([A-Za-z_]\w*)\s+in\s+(.+?)\s*(?:;\s*do)?\s*$")
_VAR = re.compile(r"\$\{(\w+)\}|\$([A-Za-z_]\w*)")
_REDIRECTS = re.compile(r"\s+(?:\d?>>?|&>)\s*\S+|\s+2>&1|\s*&\s*$|\s*\|\s*tee\b.*$")
_EXPERIMENT_WORDS = frozenset(
    terms(
        "model net network train training fit epoch optimizer optim loss criterion backward "
        "step data dataset loader dataloader batch eval evaluate evaluation test predict "
        "inference metric metrics accuracy score result results forward"
    )
)
_CONFIG_WORDS = frozenset(terms("config cfg yaml hydra conf reload restore checkpoint_path"))
_COMMON_METRICS = frozenset(
    stem(w)
    for w in terms(
        "acc accuracy dice iou miou loss metric result mse mae rmse f1 auc bleu rouge psnr ssim "
        "reward return error precision recall score top1 pearson"
    )
)
_REPORT = re.compile(r"\b(print|log|logger|logging|write|writer|info|add_scalar|wandb)\b")


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
    sweep: bool = False  # one multirun over every combination of its arms
    warning: str = ""  # what would stop the command as written, for the reader
    # in-code settings to give before it runs, with their values for this run
    edits: list[tuple[CodeSetting, bool]] = field(default_factory=list)


@dataclass
class Plan:
    runs: list[Run] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    method_modules: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)


class Planner:
    """Plans every task of one repository, sharing the tracer's parsed files."""

    def __init__(self, index: RepoIndex, search: RepoSearch, tracer: StepTracer) -> None:
        self.index = index
        self.search = search
        self.tracer = tracer
        self.entries = {e.path: e for e in index.entry_points}
        self._script_words: dict[str, frozenset[str]] = {}
        self._texts: dict[str, list[str]] = {}
        self._settings: dict[str, list[CodeSetting]] = {}
        self._stems: dict[str, list[str]] | None = None
        self._resolver: PathResolver | None = None

    def _lines(self, path: str) -> list[str]:
        """A file's lines, read once for all the tasks of the repository ([] if unreadable)."""
        if path not in self._texts:
            try:
                self._texts[path] = self.search.text(path).splitlines()
            except (OSError, RepoPathError):
                self._texts[path] = []
        return self._texts[path]

    def programs(self, command: str) -> list[str]:
        """The repository's programs a command runs: what it names, and the Python files
        the launch scripts it names run."""
        if self._resolver is None:
            self._resolver = PathResolver(f.path for f in self.index.files if not f.skipped)
        out: list[str] = []
        for path in parse_command(command, self._resolver, "").runs:
            out.append(path)
            if (program := python_entry(path, self.entries)) is not None:
                out.append(program)
        return out

    # ------------------------------------------------------------ runs

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
        launchers = [
            e
            for e in self.index.entry_points
            if e.kind == "shell"
            and e.calls
            and not self._aggregate(e)
            and not self._not_an_experiment(e.path)
        ]
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
        # a numeric variable every value of which names a folder or file of the launch
        # scripts (scripts/PDF/336/, scripts/PDF/720/) is run by those scripts, value by
        # value, when the numbers are what the task compares (no method is an arm)
        named = [a for a in arms if not about_data(a.variable)]
        parts = {p for x in launchers for p in re.split(r"[/_.\-]", x.path)} if not named else set()
        numbers: dict[str, list[Arm]] = {}
        for a in task_arms(task):
            if numeric(a.value):
                numbers.setdefault(a.variable, []).append(a)
        for values in numbers.values():
            if len(values) >= 2 and all(v.value in parts for v in values):
                arms += values
        fixed -= {w for a in arms for w in a.words}

        chosen: list[Run] = []
        sweep = self._hydra_sweep(task, q, task_arms(task), entry, launchers)
        if sweep is not None:  # one multirun covers these arms
            chosen.append(sweep)
            arms = [a for a in arms if a not in sweep.arms]

        def fit(e: EntryPoint, arm: Arm | None, data: frozenset[str]) -> tuple[float, ...]:
            path_words = set(terms(e.path.replace("/", " ").replace("-", " ")))
            words = self._words_of(e.path)

            def hit(want: frozenset[str]) -> float:
                return 2.0 if want <= path_words else 1.0 if want <= words else 0.0

            arm_hit = hit(arm.words) if arm is not None else 0.0
            if arm is not None and not arm_hit:  # "LD (in LDLinear ...)": a script LDLinear.sh
                named = any(w <= path_words for w in form_words(arm)[1:])
                arm_hit = 1.5 if named else 0.0
            data_hit = hit(data) if data else 0.0
            setting = len(fixed & path_words) + 0.5 * len(fixed & words)
            return arm_hit, data_hit, setting + scores.get(e.path, 0.0) / top

        def add(run: Run) -> Run:
            """Keep the run, or merge its arms into the same command kept before; the kept."""
            same = next(
                (r for r in chosen if r.command == run.command and r.edits == run.edits), None
            )
            if same is None:
                chosen.append(run)
                return run
            same.arms += [a for a in run.arms if a not in same.arms]
            if same.elsewhere and run.elsewhere and run.data and run.data not in same.data:
                same.data = f"{same.data}, then {run.data}"  # one run per data set
            same.data = same.data or run.data
            return same

        by_flag: list[tuple[Arm, list[str]]] = []  # the arm and what sets it on the command
        plain: list[Arm] = []
        for arm in arms:
            best = max(launchers, key=lambda e: fit(e, arm, datasets[0]), default=None)
            if best is not None and fit(best, arm, datasets[0])[0] > 0:
                is_data = arm.words in datasets  # the arm is a data set: no second one
                for data in [frozenset()] if is_data else datasets:
                    pick = max(launchers, key=lambda e: fit(e, arm, data))
                    run = self._script_run(pick, q, [arm], arm.words if is_data else data)
                    run.data = label.get(data, "")
                    run.elsewhere = bool(data) and not fit(pick, arm, data)[1]
                    if variant := self._variant(run, arm):
                        run.warning = "; ".join(w for w in (variant, run.warning) if w)
                    add(run)
            elif (setting := self._arm_setting(arm, options, entry)) is not None:
                by_flag.append((arm, setting))
            else:
                plain.append(arm)
        # arms run by their own program beside the entry point
        for arm in list(plain):
            program = self._arm_program(arm, entry)
            if program is not None:
                own = self.entries.get(program)
                flags = [f for f in own.flags if f.name.startswith("--")] if own else []
                run = self._default_run(task, program, flags, own)
                run.arms = [arm]
                add(run)
                plain.remove(arm)
        # arms the entry point selects by a switch it hard-codes (`args.use_zoom_in = True`)
        coded: list[tuple[Arm, list[tuple[CodeSetting, bool]]]] = []
        in_code = self.code_settings(entry)
        for variable in dict.fromkeys(a.variable for a in plain):
            group = [a for a in plain if a.variable == variable]
            coded += [(group[i], edits) for i, edits in code_edits(group, in_code).items()]
        plain = [a for a in plain if all(a is not c for c, _ in coded)]
        # the arm that runs bare: one its value calls the default, or the one left of a
        # variable whose other arms are each turned on by a switch (Par Conv beside
        # --serial_conv and --wo_conv)
        defaults: list[Arm] = []
        switches = {f.name for f in options if f.switch}
        for variable in dict.fromkeys(a.variable for a in plain):
            rest = [a for a in plain if a.variable == variable]
            said = [a for a in rest if DEFAULT_ARM.search(a.value)]
            switched = [a for a, st in by_flag if a.variable == variable and st[0] in switches]
            if said:  # "Ridge (default)" names the bare run; a bare "default" needs no label
                defaults.append(said[0])
            elif switched and len(rest) == 1 and not ABLATED.match(rest[0].value):
                defaults.append(rest[0])
        plain = [a for a in plain if a not in defaults]
        defaults = [a for a in defaults if a.value.strip().lower() != "default"]
        base: list[Run] = []
        ablations = bool(arms) and all(ABLATED.match(a.value) for a in arms)
        if launchers and (by_flag or coded or defaults or not chosen or ablations):
            for data in datasets[:2]:
                best = max(launchers, key=lambda e: fit(e, None, data))
                if (data and not fit(best, None, data)[1]) or fit(best, None, data)[1:] == (0, 0):
                    continue
                run = self._script_run(best, q, [], data)
                run.data = label.get(data, "")
                base.append(add(run))
        for arm, setting in by_flag:
            if base and base[0].invocation:
                command = _with_setting(base[0].invocation, setting)
            elif entry is not None:
                command = self.complete(shell(["python", entry, *_positional(e), *setting]), entry)
            else:
                continue
            add(
                Run(
                    command,
                    arms=[arm],
                    settings=" ".join(setting),
                    switch=setting[0] if setting[0].startswith("-") else "",
                    data=base[0].data if base else "",
                )
            )
        if defaults:
            if base:
                for run in base:
                    run.arms += [a for a in defaults if a not in run.arms]
            elif entry is not None:
                run = self._default_run(task, entry, options, e)
                run.arms = list(defaults)
                add(run)
        if coded and entry is not None:
            command = (
                base[0].command if base else self._default_run(task, entry, options, e).command
            )
            for arm, edits in coded:
                run = Run(command, arms=[arm], edits=edits)
                if base:  # the same launch script as the default run, with the switches set
                    run.script, run.lines, run.data = base[0].script, base[0].lines, base[0].data
                    run.invocation, run.warning = base[0].invocation, base[0].warning
                add(run)
            # each arm's run states its settings: the default run is one of them
            chosen = [r for r in chosen if r.arms or r.command != command]
        if not chosen and entry is not None:
            chosen.append(self._default_run(task, entry, options, e))
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
                    chosen.append(
                        Run("", arms=[arm], missing=True, edits=list(dict.fromkeys(near)))
                    )
        return chosen[:MAX_RUNS], entry

    def _default_run(
        self, task: TaskDraft, entry: str, options: list[CliFlag], e: EntryPoint | None
    ) -> Run:
        """The entry point run as the README documents it (else bare), with the options that
        set what the task holds fixed (`--dataset cifar100` for "CIFAR100-LT") added."""
        documented = [c for c in self.index.commands if entry in c.runs]
        if documented:
            command = run_from(documented[0], {f.path for f in self.index.files})
        else:
            command = " ".join([bare_run(entry, e), *_positional(e)])
        present = set(re.findall(r"(?<!\S)--?[\w-]+", command))
        added: list[str] = []
        names: list[str] = []
        for flag, value in setting_flags(task, options):
            if {flag.name, *flag.aliases} & present or flag.name in names:
                continue
            names.append(flag.name)
            added += [flag.name, value]
        if added:
            command += " " + shlex.join(added)
        return Run(self.complete(command, entry), settings=shlex.join(added))

    def _variant(self, run: Run, arm: Arm) -> str:
        """A warning when the arm's script trains a model whose name holds the arm's name but
        is not it (`--model CycleiTransformer` in scripts/iTransformer/ for "iTransformer"): a
        baseline run as the authors' variant of it, which a reviewer should know."""
        m = _MODEL_OPTION.search(run.invocation)
        if m is None:
            return ""
        model = m.group(1)
        names = [f for f in value_forms(arm.value) if re.fullmatch(r"[\w.-]+", f)]
        if any(model.lower() == n.lower() for n in names):
            return ""
        inside = [n for n in names if len(n) >= 3 and n.lower() in model.lower()]
        if not inside:
            return ""
        own = self._modules_by_stem().get(inside[0].lower())
        tail = "" if own else f"; the repository has no {inside[0]} model of its own"
        return f"the script trains --model {model}, a variant of {inside[0]}, not {inside[0]}{tail}"

    def _arm_program(self, arm: Arm, entry: str | None) -> str | None:
        """A program beside the entry point named after the arm where the entry point is not
        (`run_prompt_bigbench_trace.py` beside `run_prompt_bigbench_dspy.py` for "Trace"):
        the arm is run by its own program, not by the entry point's defaults."""
        if entry is None:
            return None
        folder = posixpath.dirname(entry)
        mine = set(terms(posixpath.basename(entry).rsplit(".", 1)[0]))
        for e in self.index.entry_points:
            if e.path == entry or posixpath.dirname(e.path) != folder:
                continue
            if e.kind == "shell" or not e.runnable or not e.path.endswith(".py"):
                continue
            name = set(terms(posixpath.basename(e.path).rsplit(".", 1)[0]))
            if any(w and w <= name and not w <= mine for w in form_words(arm)):
                return e.path
        return None

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
            if self._known_value(value, flag):
                return [flag.name, value]
            return None  # --model ParC-Net-S where the repository has no ParC-Net-S
        e = self.entries.get(entry or "")
        if e is None or e.kind != "hydra":
            return None
        choice = self._config_choice(arm.value)
        return [choice] if choice else None

    def _config_choice(self, value: str) -> str:
        """The hydra override that picks the config file named after `value`:
        conf/task/vmas/navigation.yaml is `task=vmas/navigation` for "navigation" (or "")."""
        for form in value_forms(value):
            name = re.sub(r"[\s-]+", "_", form.lower())
            for f in self.index.files:
                m = _CONFIG_GROUP.search(f.path)
                if not m:
                    continue
                group, _, inner = m.group("group").partition("/")
                choice = f"{inner + '/' if inner else ''}{m.group('stem')}"
                if name in (m.group("stem").lower(), choice.lower()):
                    return f"{group}={choice}"
        return ""

    def _hydra_sweep(
        self,
        task: TaskDraft,
        q: TaskQuery,
        arms: list[Arm],
        entry: str | None,
        launchers: list[EntryPoint],
    ) -> Run | None:
        """For a hydra program, one multirun over every arm that picks a config file and every
        numeric sweep of a config key (`-m algorithm=mappo,qmix task=vmas/balance
        experiment.max_n_frames=20000000,50000000`), built on the authors' own multirun when
        a launch script has one. None unless some variable is swept over two or more values."""
        e = self.entries.get(entry or "")
        if e is None or e.kind != "hydra" or entry is None:
            return None
        sweeps: dict[str, list[str]] = {}
        covered: list[Arm] = []
        for arm in arms:
            key, value = "", ""
            if numeric(arm.value) and self._config_key(arm.variable):
                key, value = arm.variable, _number(arm.value)
            elif not numeric(arm.value) and (choice := self._config_choice(arm.value)):
                key, value = choice.split("=", 1)
            if key:
                values = sweeps.setdefault(key, [])
                values += [value] if value not in values else []
                covered.append(arm)
        if not any(len(v) >= 2 for v in sweeps.values()):
            return None
        # what the task holds fixed, as the question and the constants name it ("on the
        # VMAS/balance task", "the Navigation task"): a config file of a group not swept
        fixed = " ".join(
            [task.question]
            + [
                str(v)
                for vs in task.design_complexity.constant_variables.values()
                for v in listed(vs)
            ]
        ).lower()
        named: dict[str, set[str]] = {}
        for f in self.index.files:
            m = _CONFIG_GROUP.search(f.path)
            if not m:
                continue
            group, _, inner = m.group("group").partition("/")
            stem_ = m.group("stem").lower()
            choice = f"{inner + '/' if inner else ''}{m.group('stem')}"
            full = bool(inner) and choice.lower() in fixed
            if group not in sweeps and (
                full or (len(stem_) >= 5 and re.search(rf"\b{re.escape(stem_)}\b", fixed))
            ):
                named.setdefault(group, set()).add(choice if full else f"?{choice}")
        for group, choices in named.items():
            exact = [c for c in choices if not c.startswith("?")]
            pick = exact if exact else [c[1:] for c in choices]
            if len(pick) == 1:  # "navigation" names one task file, else it is ambiguous
                sweeps[group] = pick
        own = [
            (x.path, first, last, inv)
            for x in launchers
            if entry in x.calls
            for first, last, _, inv in [_invocation(self._lines(x.path), q, [])]
            if re.search(r"\s(?:-m|--multirun)\b", inv)
        ]
        command = own[0][3] if own else f"python {entry} -m"
        for key, values in sweeps.items():
            command = _with_setting(command, [f"{key}={','.join(values)}"])
        settings = " ".join(f"{k}={','.join(v)}" for k, v in sweeps.items())
        run = Run(command, arms=covered, settings=settings, sweep=True)
        if own:  # the authors' multirun it is built on: cited as the step that runs it
            run.script, run.lines = own[0][0], (own[0][1], own[0][2])
        return run

    def _config_key(self, variable: str) -> bool:
        """A dotted design variable that is a key of the program's configs
        (`experiment.max_n_frames` where conf/experiment/*.yaml sets max_n_frames)."""
        variable = variable.strip()
        if not re.fullmatch(r"\w+(?:\.\w+)*", variable):
            return False
        group, last = variable.split(".", 1)[0], variable.rsplit(".", 1)[-1]
        key = re.compile(rf"^\s*{re.escape(last)}\s*:", re.M)
        # a dotted key in its group's folder; a plain one in the primary config beside it
        where = (
            (lambda p: f"/{group}/" in f"/{p}")
            if "." in variable
            else (lambda p: bool(re.search(r"(?:^|/)(?:conf|config|configs)/[^/]+\.ya?ml$", p)))
        )
        return any(
            key.search("\n".join(self._lines(f.path)))
            for f in self.index.files
            if f.path.endswith((".yaml", ".yml")) and where(f.path)
        )

    def required(self, entry: str | None) -> list[tuple[str, str]]:
        """The options a Python entry point cannot run without, with a value to give: those
        declared `required=True`, and those whose absence its code refuses (`if args.config
        is None: parser.error(...)`). A configuration gets the repository's config file
        that shares most words with the entry point, anything else a placeholder."""
        e = self.entries.get(entry or "")
        tree = self.tracer.tree(entry) if entry and entry.endswith(".py") else None
        if e is None or tree is None:
            return []
        names: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and callee_name(node.func) == "add_argument":
                if (
                    any(
                        k.arg == "required" and isinstance(k.value, ast.Constant) and k.value.value
                        for k in node.keywords
                    )
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                ):
                    names.append(str(node.args[0].value))
            elif isinstance(node, ast.If) and any(
                (isinstance(c, ast.Call) and callee_name(c.func) in ("error", "exit"))
                or isinstance(c, ast.Raise)
                for stmt in node.body
                for c in ast.walk(stmt)
            ):
                for c in ast.walk(node.test):
                    if isinstance(c, ast.Compare) and isinstance(c.ops[0], ast.Is):
                        left = c.left
                    elif isinstance(c, ast.UnaryOp) and isinstance(c.op, ast.Not):
                        left = c.operand
                    else:
                        continue
                    if isinstance(left, ast.Attribute) and isinstance(left.value, ast.Name):
                        names.append(f"--{left.attr}")
                        break  # the first one the test names: --config of "config or ..."
        out: list[tuple[int, str, str]] = []
        for name in dict.fromkeys(names):
            flag = next(
                (
                    f
                    for f in e.flags
                    if name in (f.name, *f.aliases)
                    or f.name.lstrip("-").replace("-", "_") == name.lstrip("-")
                ),
                None,
            )
            if flag is None or flag.switch or not flag.name.startswith("-"):
                continue
            out.append((flag.line, flag.name, self._value_for(flag.name, entry or "")))
        return [(name, value) for _, name, value in sorted(out)]  # in the parser's order

    def _value_for(self, name: str, entry: str) -> str:
        """A config file of the repository for a configuration option, else `<NAME>`."""
        words = set(terms(name))
        if words & {"config", "cfg", "yaml"}:
            near = set(content_words(entry.replace("/", " ").rsplit(".", 1)[0])) - {"src", "main"}
            best = max(
                (
                    (len(near & set(content_words(f.path.replace("/", " ")))), f.path)
                    for f in self.index.files
                    if f.path.endswith((".yaml", ".yml")) and "config" in f.path.lower()
                ),
                default=(0, ""),
            )
            if best[0]:
                return best[1]
        return "<" + name.lstrip("-").replace("-", "_").upper() + ">"

    def complete(self, command: str, entry: str | None) -> str:
        """The command with the entry point's required options it lacks."""
        given = set(re.findall(r"(?<!\S)--?[\w-]+", command))
        added = [
            w for name, value in self.required(entry) if name not in given for w in (name, value)
        ]
        return command + " " + shell(added) if added else command

    def code_settings(self, path: str | None) -> list[CodeSetting]:
        """The switches a Python entry point hard-codes outside its parser and its classes'
        state (`args.use_zoom_in = True`, `USE_TEXT = False`), the last assignment of each."""
        if not path or not path.endswith(".py"):
            return []
        if path not in self._settings:
            tree = self.tracer.tree(path)
            found: dict[str, CodeSetting] = {}
            for node in ast.walk(tree) if tree is not None else []:
                if not (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, bool)
                ):
                    continue
                target = node.targets[0]
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    owner, name = target.value.id, target.attr
                elif isinstance(target, ast.Name):
                    owner, name = "", target.id
                elif (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    owner, name = target.value.id, target.slice.value
                else:
                    continue
                words = frozenset(content_words(name.replace("_", " "))) - SETTING_FILLER
                if owner == "self" or not any(len(w) >= 3 for w in words):
                    continue
                text = ast.unparse(target)
                if text not in found or found[text].line < node.lineno:
                    found[text] = CodeSetting(path, node.lineno, text, node.value.value, words)
            self._settings[path] = sorted(found.values(), key=lambda c: c.line)
        return self._settings[path]

    def _known_value(self, value: str, flag: CliFlag) -> bool:
        """The repository knows the value: its parser's default or choices, or its code."""
        low = value.lower()
        if low == flag.default.strip("'\"").lower() or low in flag.help.lower() or numeric(value):
            return True
        return any(
            self.search.document_frequency(t) > 0
            for t in dict.fromkeys((low, low.replace("-", "_")))
        )

    def _not_an_experiment(self, path: str) -> bool:
        """Scripts that build or publish documentation, packages or images."""
        if path.split("/", 1)[0] in ("docs", "doc", ".github", "website"):
            return True
        lines = self._lines(path)
        return not lines or bool(_PUBLISHING.search("\n".join(lines)[:6000]))

    def _aggregate(self, e: EntryPoint) -> bool:
        """A script that only calls other launch scripts (run_all.sh) runs every experiment."""
        return sum(c.endswith(".sh") for c in e.calls) > 3

    def _words_of(self, path: str) -> frozenset[str]:
        if path not in self._script_words:
            text = "\n".join(self._lines(path))[:6000]
            self._script_words[path] = frozenset(terms(path + " " + text))
        return self._script_words[path]

    def _script_run(
        self, e: EntryPoint, q: TaskQuery, arms: list[Arm], data: frozenset[str] = frozenset()
    ) -> Run:
        first, last, settings, invocation = _invocation(self._lines(e.path), q, arms, data)
        return Run(
            invocation=invocation,
            command=f"bash {shlex.quote(e.path)}",
            arms=list(arms),
            script=e.path,
            lines=(first, last),
            settings=settings,
            warning="; ".join(
                w
                for w in (_placeholders(self._lines(e.path)), self._rejected(invocation, e.path))
                if w
            ),
        )

    def _rejected(self, invocation: str, script: str) -> str:
        """What the script passes, in any of its runs, that its entry point's parser does not
        define, as a warning for the reader ("" when every flag is known)."""
        if not invocation:
            return ""
        folder = posixpath.dirname(script)
        known = {f.path for f in self.index.files}
        bad: list[str] = []
        for command in [invocation, *(b.filled() for b in _blocks(self._lines(script)))]:
            for cwd in dict.fromkeys(["", folder]):
                line = f"cd {shlex.quote(cwd)} && {command}" if cwd else command
                missing, unknown = check_command(line, known, self.entries)
                if not missing:
                    break
            bad += [u.split(" is not a flag", 1)[0] for u in unknown]
        bad = list(dict.fromkeys(bad))
        if not bad:
            return ""
        flags = ", ".join(bad[:6]) + (", …" if len(bad) > 6 else "")
        them = "them" if len(bad) > 1 else "it"
        return f"the script passes {flags}, which its program does not define: drop {them}"

    # ------------------------------------------------------------ steps

    def steps(
        self,
        task: TaskDraft,
        q: TaskQuery,
        entry: str | None,
        runs: list[Run],
        method: Step | None,
        also: tuple[str, ...] = (),
    ) -> Plan:
        """The steps in execution order, at most `MAX_STEPS`, ending with the report.

        `also` are other entry points the task runs (the rival method's script beside the
        proposed one's); their inline blocks follow the main entry point's."""
        plan = Plan(runs=runs, metrics=task_metrics(task, q))
        arms = task_arms(task)
        modules = self._closure(entry) if entry else []
        data = self._data_step(q, task, modules)
        parts = self._method_steps(method, q) if method else []
        plan.method_modules = list(dict.fromkeys(s.path for s in parts))
        branches = self._branch_steps(arms, [entry, *modules] if entry else [], runs)
        own = self.arm_steps(arms, {method.path} if method else set())
        files: list[str | None] = [entry, *modules] if entry else []
        train = self._named_step(files, _TRAIN_NAMES)
        launches = [self._run_step(r) for r in runs if r.script and r.lines[0]]
        evaluate = self._named_step(files, _EVAL_NAMES)
        metric = self._metric_step(plan.metrics, modules)
        report = self._report_step(plan.metrics, arms, evaluate, entry)
        called: list[Step] = []
        blocks: list[Step] = []
        if entry is not None and entry.endswith(".py"):
            called = [
                self._constructor(s)
                for s in self.tracer.python_steps(entry, self.entries.get(entry), q)
                if not s.action.startswith(("Parse command", "Implement the method"))
            ]
            blocks = self.tracer.block_steps(entry, q)
        for other in also:
            blocks += self.tracer.block_steps(other, q, limit=4)
        blocks = [b for b in blocks if not self._unused_branch(b, entry, runs)]
        # what every run of the repository does (config loading, an experiment wrapper) says
        # nothing of this experiment: keep the blocks and calls about its data, model,
        # training, evaluation or the task's own names
        blocks = [b for b in blocks if self._about_experiment(b, q)]
        # a block that only calls what is cited by its definition (`exp.test(setting)` beside
        # the Evaluate step) says nothing new, and would put the test before the training
        defined = {
            m.group(1).rsplit(".", 1)[-1]
            for s in (train, evaluate)
            if s and (m := re.match(r"\w+ \(([\w.]+)\)", s.action))
        }
        blocks = [b for b in blocks if not self._only_calls(b, defined)]
        # the call site and the definition worded alike: the definition says more
        blocks = [b for b in blocks if all(b.action != c.action for c in called)]
        called = [c for c in called if self._about_experiment(c, q)]
        # In execution order: the data, the options, the method, the branches, what the main
        # block does inline and the functions it calls, the training loop, the runs, the evaluation. When there
        # are too many, inline blocks go first, then called functions, then extra branches.
        optional = [*called, *blocks, *branches[2:], *own[2:]]
        order = [
            data,
            self._options_step(entry, runs, arms),
            _code_step(runs),
            *parts,
            *own,
            *branches[:2],
            *blocks,
            *called,
            *branches[2:],
            train,
            *launches,
            evaluate,
            metric,
        ]
        # narrow, task-specific steps win over the definitions around them
        steps = _distinct(order, first=[*branches, *launches, metric, evaluate, train, data])
        cut = [s for s in reversed(steps) if s in blocks] + [
            s for s in reversed(steps) if s in optional and s not in blocks
        ]
        while len(steps) > MAX_STEPS - 1 and cut:
            steps.remove(cut.pop(0))
        plan.steps = steps[: MAX_STEPS - 1]
        if report is not None and all(
            (s.path, s.start, s.end) != (report.path, report.start, report.end) for s in plan.steps
        ):
            plan.steps.append(report)  # the comparison ends the steps, even inside one
        return plan

    def _about_experiment(self, step: Step, q: TaskQuery) -> bool:
        lines = self._lines(step.path)[step.start - 1 : step.end]
        if not lines:
            return False
        words = set(terms(step.action + " " + " ".join(lines[:40])))
        named = {stem(t) for t in q.names} | {stem(t) for t in q.focus}
        if words & _CONFIG_WORDS:  # loading configuration: only when it names the task's own
            return bool(words & named)
        return bool(words & (_EXPERIMENT_WORDS | named))

    def _only_calls(self, step: Step, names: set[str]) -> bool:
        """The step's lines call nothing but `names` (and printing)."""
        text = "\n".join(self._lines(step.path)[step.start - 1 : step.end])
        calls = set(re.findall(r"(\w+)\s*\(", text)) - {"print", "format", "str", "len"}
        return bool(calls) and calls <= names

    def _unused_branch(self, step: Step, entry: str | None, runs: list[Run]) -> bool:
        """A block under `if args.x:` where x is a switch off by default that no run turns
        on (`if args.do_predict:`): it does not run in this experiment."""
        m = re.match(r"If (?:not )?args\.(\w+)\b", step.action)
        e = self.entries.get(entry or "")
        if m is None or e is None or step.action.startswith("If not"):
            return False
        flag = next(
            (f for f in e.flags if f.name.lstrip("-").replace("-", "_") == m.group(1)), None
        )
        if flag is None or flag.default not in ("False", "0", "None", ""):
            return False
        used = {w.lstrip("-").replace("-", "_") for r in runs for w in r.command.split()}
        used |= {w.lstrip("-").replace("-", "_") for r in runs for w in r.settings.split()}
        return m.group(1) not in used

    def _constructor(self, step: Step) -> Step:
        """A class the main block instantiates is cited by its `__init__`, not its whole body,
        which would swallow the training and evaluation methods cited on their own."""
        items = self.tracer.outline(step.path)
        cls = next((i for i in items if i.kind == "class" and i.start == step.start), None)
        if cls is None:
            return step
        init = next((i for i in items if i.name == f"{cls.name}.__init__"), None)
        if init is None:
            return step
        return Step(f"Create the {cls.name} ({cls.name}.__init__)", step.path, init.start, init.end)

    def _closure(self, entry: str) -> list[str]:
        modules = list(self.index.imports.get(entry, []))
        for m in modules:  # grows while it is read: every module the entry point reaches
            if len(modules) >= 80:
                break
            modules.extend(x for x in self.index.imports.get(m, []) if x not in modules)
        return [m for m in modules if m.endswith(".py") and m != entry][:80]

    def _options_step(self, entry: str | None, runs: list[Run], arms: list[Arm]) -> Step | None:
        """The parser lines of the options that select the arms (`--wo_conv`,
        `--model_type`), not the whole parser; none when no option tells the arms apart."""
        e = self.entries.get(entry or "")
        if e is None or not e.flags:
            return None
        wanted = {r.switch for r in runs if r.switch}
        selected = [a for r in runs if r.switch for a in r.arms]
        options = [f for f in e.flags if f.name.startswith("--")]
        for arm in arms:
            found = arm_option(arm, options)
            if found is not None:
                wanted.add(found[0].name)
                selected.append(arm)
        lines = sorted(f.line for f in e.flags if f.name in wanted and f.line)
        if not lines:
            return None
        names = [f.name for f in e.flags if f.name in wanted][:6]
        start, end = _cluster(lines)
        chosen = ", ".join(
            dict.fromkeys(a.value for a in selected if not numeric(a.value.split()[0]))
        )[:80]
        return Step(
            f"Add the options that select {chosen or 'the compared settings'}: {', '.join(names)}",
            entry or "",
            start,
            end,
        )

    def _data_step(self, q: TaskQuery, task: TaskDraft, modules: list[str]) -> Step | None:
        """The loader of the task's data: a class or function about data, naming its sets."""
        datasets = {w for d in task_datasets(task) for w in terms(d)}
        best: tuple[float, str, OutlineItem] | None = None
        for module in modules:
            module_words = set(terms(module))
            for item in self.tracer.outline(module):
                if item.kind == "method" or item.end - item.start < 3:
                    continue
                own = set(terms(item.name))
                # a data set or loader by name ("MaskData" in a utilities module is not)
                about_data = own & (_DATA_NAMES - {"data"}) or own & datasets
                about_data = about_data or (own & {"data"} and module_words & _DATA_NAMES)
                if not about_data and not (own & _DATA_WORDS and module_words & _DATA_NAMES):
                    continue
                score: float = 2 * len(own & _DATA_WORDS) + 3 * len(own & datasets)
                score += len(module_words & _DATA_WORDS) + (0.5 if item.kind == "class" else 0)
                if best is None or score > best[0]:
                    best = (score, module, item)
        if best is None or best[0] < 2:
            return None
        _, module, item = best
        item = self._narrow(module, item, prefer=("read", "load", "__getitem__", "__init__"))
        sets = task_datasets(task)
        what = f"the {', '.join(sets)} data" if sets else "the data"
        return Step(f"Load and split {what} ({item.name})", module, item.start, item.end)

    def _method_steps(self, method: Step, q: TaskQuery) -> list[Step]:
        """The method's own definitions in its module, each cut to parts a step can cite."""
        module = method.path
        items = [i for i in self.tracer.outline(module) if i.kind != "method"]
        focus = {stem(t) for t in q.focus} | {stem(t) for t in q.names}
        chosen = [i for i in items if i.start == method.start]
        named = [
            i
            for i in items
            if i not in chosen and i.end - i.start >= 4 and not i.name.startswith("_")
        ]
        # the definitions named after what the task studies, then the module's largest
        named.sort(key=lambda i: (not set(terms(i.name)) & focus, -(i.end - i.start)))
        if set(terms(module)) & focus or any(set(terms(i.name)) & focus for i in named):
            chosen += named[: 3 - len(chosen)]
        chosen = sorted(chosen, key=lambda i: i.start)[:3]
        out: list[Step] = []
        for item in chosen:
            if item.end - item.start <= NARROW or item.kind != "class":
                out.append(Step(_define(item), module, item.start, item.end))
                continue
            methods = [
                m
                for m in self.tracer.outline(module)
                if m.kind == "method" and m.name.startswith(item.name + ".")
            ]
            init = next((m for m in methods if m.name.endswith(".__init__")), None)
            core = next(
                (m for m in methods if m.name.rsplit(".", 1)[-1] in ("forward", "__call__")),
                max(
                    (m for m in methods if m is not init),
                    key=lambda m: m.end - m.start,
                    default=None,
                ),
            )
            if init is not None:
                out.append(
                    Step(
                        f"Build the parts of {item.name} ({init.name})",
                        module,
                        init.start,
                        init.end,
                    )
                )
            if core is not None:
                out.append(
                    Step(
                        f"Compute {item.name}'s {core.name.rsplit('.', 1)[-1]} pass"
                        if core.name.endswith(("forward", "__call__"))
                        else _define(core),
                        module,
                        core.start,
                        core.end,
                    )
                )
            if init is None and core is None:
                out.append(Step(_define(item), module, item.start, item.end))
        return out

    def run_model(self, runs: list[Run], q: TaskQuery) -> Step | None:
        """The model the runs train, when a run names it by an option (`--model CycleNet`)
        and one module is named after it (models/CycleNet.py): its main definition. Of
        several, the one the task names, else the most run."""
        names: Counter[str] = Counter()
        for r in runs:
            for m in _MODEL_OPTION.finditer(r.invocation or r.command):
                names[m.group(1).strip("'\"")] += 1
        wanted = {stem(n) for n in q.names}
        ordered = sorted(names, key=lambda n: (stem(n) not in wanted, -names[n]))
        modules = self._modules_by_stem()
        for name in ordered:
            paths = modules.get(name.lower(), [])
            if len(paths) == 1:
                return self._main_definition(paths[0], name)
        return None

    def _modules_by_stem(self) -> dict[str, list[str]]:
        """Python modules by their lower-case file stem (models/PatchTST.py as "patchtst"),
        tests left out."""
        if self._stems is None:
            self._stems = {}
            for f in self.index.files:
                name = posixpath.basename(f.path)
                if name.endswith(".py") and not name.startswith("test") and "/test" not in f.path:
                    self._stems.setdefault(name[:-3].lower(), []).append(f.path)
        return self._stems

    def arm_steps(self, arms: list[Arm], skip: set[str]) -> list[Step]:
        """Each compared method's own module, when one is named after it (algorithms/mappo.py
        for "MAPPO", models/PatchTST.py for "PatchTST"): its main class by its core method."""
        by_stem = self._modules_by_stem()
        out: list[Step] = []
        for arm in arms:
            if numeric(arm.value.split()[0]) or about_data(arm.variable):
                continue
            forms = value_forms(arm.value)
            bare = re.sub(r"\s*\([^()]*\)", "", arm.value).strip()
            head = bare.split("/")[0] if "/" in bare else ""
            if by_stem.get(head.lower()):  # "CycleNet/Linear" is CycleNet's, not Linear's
                forms = [head]
            for form in forms:
                paths = by_stem.get(re.sub(r"[\s-]+", "_", form.lower()), [])
                if len(paths) != 1 or paths[0] in skip:
                    continue
                step = self._main_definition(paths[0], arm.value)
                if step is not None:
                    out.append(step)
                break
            if len(out) >= 3:
                break
        return out

    def _main_definition(self, module: str, what: str) -> Step | None:
        """A module's largest class, cited by its core method when it is long."""
        items = self.tracer.outline(module)
        classes = [i for i in items if i.kind == "class" and i.end - i.start >= 4]
        top = max(
            classes or [i for i in items if i.kind == "function"],
            key=lambda i: i.end - i.start,
            default=None,
        )
        if top is None:
            return None
        if top.kind == "class" and top.end - top.start > NARROW:
            methods = [
                m
                for m in items
                if m.kind == "method"
                and m.name.startswith(top.name + ".")
                and not m.name.endswith(".__init__")
            ]
            core = next(
                (
                    m
                    for want in _CORE_METHODS
                    for m in methods
                    if m.name.rsplit(".", 1)[-1].strip("_") == want
                ),
                max(methods, key=lambda m: m.end - m.start, default=None),
            )
            if core is not None:
                return Step(f"Implement {what}'s {core.name}", module, core.start, core.end)
        return Step(f"Implement {what} ({top.name})", module, top.start, top.end)

    def _branch_steps(
        self, arms: list[Arm], files: list[str | None], runs: list[Run]
    ) -> list[Step]:
        """Where the code switches between the arms: an `if` comparing with an arm's value or
        testing the option an arm sets (`if self.wo_conv:`)."""
        values = {a.value.lower(): a for a in arms if len(a.value) >= 2}
        switches: dict[str, Arm] = {}
        for r in runs:
            for a in r.arms if r.switch else []:
                given = r.settings.split()
                if len(given) == 1:  # `--wo_conv`: testing the option tests the arm
                    switches.setdefault(r.switch.lstrip("-").replace("-", "_"), a)
                else:  # `--algo trace`: the code tests the value
                    values.setdefault(given[-1].strip("'\"").lower(), a)
        for r in runs:  # `if args.use_zoom_in:` for the arm an in-code setting selects
            for setting, value in r.edits:
                if value and r.arms and not r.missing:
                    switches.setdefault(
                        re.split(r"[.\[]", setting.target)[-1].strip("'\"]"), r.arms[0]
                    )
        tests: set[str] = set()
        out: list[Step] = []
        for path in files:
            tree = self.tracer.tree(path) if path else None
            if tree is None or path is None:
                continue
            for node in ast.walk(tree):
                if not isinstance(node, ast.If):
                    continue
                hit: Arm | None = None
                for c in ast.walk(node.test):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str):
                        hit = hit or values.get(c.value.lower())
                    elif isinstance(c, ast.Attribute):
                        hit = hit or switches.get(c.attr)
                    elif isinstance(c, ast.Name):
                        hit = hit or switches.get(c.id)
                if hit is None:
                    continue
                test = ast.unparse(node.test)[:80]
                if test in tests:
                    continue
                tests.add(test)
                end = min(node.body[-1].end_lineno or node.lineno, node.lineno + 15)
                what = hit.variable.replace("_", " ")
                verb = "Leave" if isinstance(node.test, ast.UnaryOp) else "Take"
                out.append(
                    Step(
                        f"{verb} the {hit.value} path ({what}) where {test}", path, node.lineno, end
                    )
                )
                if len(out) >= 3:
                    return out
        return out

    def _named_step(self, files: list[str | None], names: tuple[str, ...]) -> Step | None:
        """The first definition named like `names` (in their order) in `files`, cut to its
        loop when it is long."""
        for wanted in names:
            for path in files:
                if path is None:
                    continue
                for item in self.tracer.outline(path):
                    if item.name.rsplit(".", 1)[-1].lower() != wanted or item.end - item.start < 3:
                        continue
                    start, end = item.start, item.end
                    if end - start > NARROW:
                        loop = self._loop(path, item)
                        if loop is not None:
                            start, end = loop
                    verb = "Train" if names is _TRAIN_NAMES else "Evaluate"
                    doc = item.doc.rstrip(".") if 8 <= len(item.doc) <= 120 else ""
                    action = f"{verb} ({item.name})" + (f": {doc}" if doc else "")
                    return Step(action, path, start, end)
        return None

    def _loop(self, path: str, item: OutlineItem) -> tuple[int, int] | None:
        node = self.tracer._def_node(path, item.name)
        if node is None:
            return None
        loops = [n for n in ast.walk(node) if isinstance(n, ast.For | ast.While)]
        if not loops:
            return None
        loop = (
            max(loops, key=lambda n: (n.end_lineno or n.lineno) - n.lineno)
            if len(loops) > 1
            else loops[0]
        )
        first = next(
            (
                n
                for n in loops
                if "epoch" in ast.unparse(n.target if isinstance(n, ast.For) else n.test)
            ),
            loop,
        )
        return first.lineno, min(first.end_lineno or first.lineno, first.lineno + NARROW)

    def _metric_step(self, metrics: list[str], modules: list[str]) -> Step | None:
        """The definitions of the measured quantities: `def MSE(...)`, `def MAE(...)`."""
        wanted = {stem(w) for m in metrics for w in terms(m)}
        helpers = {"metric", "metrics", "compute", "calc", "get", "score"}
        for module in modules:
            found = [
                item
                for item in self.tracer.outline(module)
                if item.kind != "method"
                and (own := set(terms(item.name)))
                and own & wanted
                and own <= wanted | helpers
            ]
            if not found:
                continue
            first = found[0]
            near = [first, *(i for i in found[1:] if i.end - first.start <= 30)]
            names = ", ".join(i.name for i in near[:4])
            return Step(f"Compute {names} as measured", module, first.start, near[-1].end)
        return None

    def _report_step(
        self, metrics: list[str], arms: list[Arm], evaluate: Step | None, entry: str | None
    ) -> Step | None:
        """The line that prints or writes the metric, where the arms are compared."""
        places = [(evaluate.path, evaluate.start, evaluate.end)] if evaluate else []
        places += [(evaluate.path, 1, 10**9)] if evaluate else []
        if entry:
            places.append((entry, 1, 10**9))
        named_arms = [
            a.value
            for a in arms
            if not numeric(a.value.split()[0])
            and not about_data(a.variable)
            and a.value.lower() not in NO_VALUE
        ][:4]
        compared = " and ".join(named_arms) or "the runs"
        named = ", ".join(metrics[:3]) or "the metric"
        # the task's own metric words first, then any common metric ("dice" for accuracy)
        for wanted in ({stem(w) for m in metrics for w in terms(m)}, _COMMON_METRICS):
            for path, start, end in places if wanted else []:
                lines = self._lines(path)
                for i in range(max(start, 1), min(end, len(lines)) + 1):
                    line = lines[i - 1]
                    if _REPORT.search(line) and set(terms(line)) & wanted:
                        return Step(f"Report {named} and compare {compared}", path, i, i)
        return None

    def _run_step(self, run: Run) -> Step:
        what = run_label(run)
        settings = f" with {run.settings}" if run.settings else ""
        if run.sweep:  # the cited line is the authors' multirun, over their own values
            return Step(
                f"{what}: start from the authors' multirun ({posixpath.basename(run.script)}) "
                f"and sweep {run.settings} instead",
                run.script,
                *run.lines,
            )
        return Step(f"{what} ({posixpath.basename(run.script)}){settings}", run.script, *run.lines)

    def _narrow(self, module: str, item: OutlineItem, prefer: tuple[str, ...]) -> OutlineItem:
        if item.kind != "class" or item.end - item.start <= NARROW:
            return item
        methods = [
            m
            for m in self.tracer.outline(module)
            if m.kind == "method" and m.name.startswith(item.name + ".")
        ]
        for word in prefer:
            found = next((m for m in methods if word in m.name.rsplit(".", 1)[-1].lower()), None)
            if found is not None:
                return found
        return item


def _code_step(runs: list[Run]) -> Step | None:
    """The lines that hard-code the switches selecting the arms, as one step."""
    settings = list(dict.fromkeys(c for r in runs if not r.missing for c, _ in r.edits))
    if not settings:
        return None
    path = settings[0].path
    start, end = _cluster(sorted(c.line for c in settings if c.path == path))
    names = ", ".join(c.target for c in settings if start <= c.line <= end)
    chosen = ", ".join(a.value for r in runs if r.edits and not r.missing for a in r.arms)[:80]
    return Step(f"Set the in-code switches that select {chosen}: {names}", path, start, end)


def _number(text: str) -> str:
    """A design value as a config takes it: "2e7" and "20,000,000" as 20000000."""
    plain = text.replace(",", "").replace(" ", "")
    try:
        value = float(plain)
    except ValueError:
        return plain
    return (
        str(int(value)) if value.is_integer() and ("e" in plain.lower() or "," in text) else plain
    )


def shell(words: list[str]) -> str:
    """Words as a shell command, `<PLACEHOLDER>`s left bare for the reader to replace."""
    return " ".join(w if _PLACEHOLDER.fullmatch(w) else shlex.quote(w) for w in words)


_PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]*>")


def _positional(e: EntryPoint | None) -> list[str]:
    """Placeholders for the entry point's positional arguments: `<CONFIG>`."""
    return [f"<{f.name.upper()}>" for f in (e.flags if e else []) if not f.name.startswith("-")]


def _covered(step: Step, steps: list[Step]) -> bool:
    """Most of the step's own lines are already cited by another step: a loop inside a cited
    function says nothing new (while a function around a cited branch still does)."""
    for s in steps:
        if s.path != step.path:
            continue
        overlap = min(s.end, step.end) - max(s.start, step.start) + 1
        if overlap > 0.5 * (step.end - step.start + 1):
            return True
    return False


def _distinct(steps: list[Step | None], first: list[Step | None] | None = None) -> list[Step]:
    """The steps in their order without gaps or repeats. `first` are the steps that win when
    two cite the same lines (the narrower, more specific ones), chosen before the rest."""
    chosen: list[Step] = []
    for s in [*(first or []), *steps]:
        if s is not None and not any(s is c for c in chosen) and not _covered(s, chosen):
            chosen.append(s)
    return [s for s in steps if s is not None and any(s is c for c in chosen)]


def run_label(run: Run) -> str:
    """ "Run CycleNet/MLP on ETTh1", "Run w/o Conv", "Run the default configuration on ETTh2"."""
    arms = ", ".join(a.value for a in run.arms)
    if run.sweep:  # "algorithm MAPPO, QMIX × seed 0, 1"
        by: dict[str, list[str]] = {}
        for a in run.arms:
            by.setdefault(a.variable.replace("_", " "), []).append(a.value)
        grid = " × ".join(f"{k} {', '.join(v)}" for k, v in by.items())
        return f"Run every combination of {grid} in one multirun"
    what = f"Run {arms}" if arms else "Run the default configuration"
    if run.elsewhere and run.data:  # say so rather than pass another data set off as this one
        return f"{what} (its script runs other data: set its data options to {run.data})"
    return what + (f" on {run.data}" if run.data and run.data not in arms else "")


def _define(item: OutlineItem) -> str:
    doc = item.doc.strip().rstrip(".:")
    short = item.name.rsplit(".", 1)[-1]
    if 8 <= len(doc) <= 140 and not doc.lower().startswith(("args", "returns", "todo")):
        return f"Implement {item.name}: {doc[0].lower() + doc[1:]}"
    if item.kind == "class":
        return f"Implement the {item.name} class"
    return humanize(short) if humanize(short) != f"Call {short}" else f"Implement {item.name}"


def _cluster(lines: list[int], span: int = 25) -> tuple[int, int]:
    """The window of at most `span` lines holding the most of `lines` (sorted): options
    defined far apart are not cited as one range of the whole parser."""
    best = (lines[0], lines[0], 1)
    for i, first in enumerate(lines):
        inside = [x for x in lines[i:] if x - first <= span]
        if len(inside) > best[2]:
            best = (first, inside[-1], len(inside))
    return best[0], best[1]


_CONFIG_GROUP = re.compile(
    r"(?:^|/)(?:conf|config|configs)/(?P<group>[\w/-]+)/(?P<stem>[\w.-]+)\.ya?ml$"
)
_MODEL_OPTION = re.compile(r"(?<!\S)--(?:model|model_name|arch|backbone)(?:=|\s+)([A-Za-z][\w.-]*)")
# what a method's class is about, in order: its pass, its objective, its update
_CORE_METHODS = ("forward", "call", "get_loss", "loss", "compute_loss", "update", "learn", "step")


def _with_setting(command: str, setting: list[str]) -> str:
    """The command with an arm's setting: a config override (`algorithm=iql`) replaces the
    one the command already gives for that key (a sweep over several included); an option
    is added at the end."""
    key = setting[0].split("=", 1)[0] + "=" if "=" in setting[0] else ""
    if key and not key.startswith("-"):
        words = command.split()
        if any(w.startswith(key) for w in words):
            group = key[:-1] + "."  # algorithm.lr=... belongs to the algorithm replaced
            kept = [w for w in words if not w.startswith(group)]
            return " ".join(setting[0] if w.startswith(key) else w for w in kept)
    return command + " " + shlex.join(setting)


_PLACEHOLDER_VALUE = re.compile(r"(?:^|/)path/to/|^/?your[_-]|^<[^>]+>$|^/path/", re.I)


def _placeholders(lines: list[str]) -> str:
    """The script's settings its authors left for the user (`segvol_ckpt="path/to/x.pth"`), as
    an instruction: a run that skips a missing checkpoint would otherwise go on silently."""
    found: list[str] = []
    for line in lines:
        m = _ASSIGN.match(line)
        if m is None:
            continue
        value = next((g for g in m.groups()[1:] if g is not None), "")
        if _PLACEHOLDER_VALUE.search(value) and m.group(1) not in found:
            found.append(m.group(1))
    if not found:
        return ""
    return f"set the script's {', '.join(found[:4])} to your own paths first"


def _invocation(
    lines: list[str], q: TaskQuery, arms: list[Arm], data: frozenset[str] = frozenset()
) -> tuple[int, int, str, str]:
    """The lines of the entry point's invocation in a launch script (with its continuation
    lines), its experiment-defining flags as set (with the script's variables filled in),
    and the command itself with one value of each sweep.

    A script that runs its program once per data set (`data_path_name=ETTh1.csv`, a run,
    `data_path_name=ETTh2.csv`, a run, ...) is read at the run on the task's data, with the
    variables as they stand there; else at its first run. A sweep the script splits over
    several runs (`for pred_len in 96`, then `for pred_len in 192 336`) shows all its values.
    """
    blocks = _blocks(lines)
    on_data = [b for b in blocks if data and data <= set(terms(b.filled()))]
    if not blocks:
        return 0, 0, "", ""
    block = (on_data or blocks)[0]
    loops: dict[str, list[str]] = {}
    for b in on_data or blocks:
        for name, values in b.loops.items():
            loops[name] = list(dict.fromkeys([*loops.get(name, []), *values]))
    command = block.filled({n: v for n, v in loops.items() if n in block.loops})
    single = re.sub(r"\{([^,{}]+)(?:,[^{}]*)?\}", r"\1", command)  # one value of each sweep
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    wanted = q.terms | {w for a in arms for w in a.words}
    shown: list[str] = []
    for k, word in enumerate(words):
        if not word.startswith("--"):
            continue
        if k + 1 >= len(words) or words[k + 1].startswith("--"):  # a switch: --no_gate
            if set(terms(word.lstrip("-"))) & wanted:
                shown.append(word)
            continue
        value = words[k + 1]
        named = set(terms(word.lstrip("-"))) & wanted or set(terms(value)) & wanted
        if named or "{" in value:  # what the task names, and a sweep the script loops over
            shown.append(f"{word} {value}")
    return block.first, block.last, " ".join(shown[:6]), single


@dataclass
class _Block:
    """One program run of a launch script, with the script's variables as they stand there."""

    first: int
    last: int
    command: str  # as written, continuation lines joined
    variables: dict[str, str]
    loops: dict[str, list[str]]  # the enclosing loops' values: {"pred_len": ["96", "192"]}

    def filled(self, loops: dict[str, list[str]] | None = None) -> str:
        """The command with its variables filled in, a loop's values as `{a,b}`."""
        values = {**self.loops, **(loops or {})}

        def fill(m: re.Match[str]) -> str:
            name = m.group(1) or m.group(2)
            if name in values:
                return "{" + ",".join(values[name][:8]) + "}"
            return self.variables.get(name) or m.group(0)

        command = _VAR.sub(fill, self.command).replace("'_'", "_")
        return _REDIRECTS.sub("", command).strip()


def _blocks(lines: list[str]) -> list[_Block]:
    """Each program run of a launch script (at most 20)."""
    variables: dict[str, str] = {}
    loops: dict[str, list[str]] = {}
    out: list[_Block] = []
    k = 0
    while k < len(lines) and len(out) < 20:
        line = lines[k]
        k += 1
        if m := _ASSIGN.match(line):
            variables[m.group(1)] = next(g for g in m.groups()[1:] if g is not None)
        elif m := _FOR.match(line):
            loops[m.group(1)] = m.group(2).split()
        elif _RUN_LINE.match(line):
            first = k
            while k < len(lines) and lines[k - 1].rstrip().endswith("\\"):
                k += 1
            command = " ".join(ln.rstrip("\\ ").strip() for ln in lines[first - 1 : k])
            out.append(_Block(first, k, command, dict(variables), dict(loops)))
    return out
