"""One task's experiment laid out on the code: its arms, the runs, the steps, what to hide.

A task varies something (the design's independent variables: methods, backbones, datasets,
horizons) and measures something (its dependent variables). The repository runs it through
launch scripts or README commands that call an entry point, which loads data, builds the
method, trains and evaluates. The plan ties the two together:

- **arms**: one per value of a varied design variable ("MLP", "Linear", "ETTh2"; `arms.py`);
- **runs**: the launch scripts that cover the arms (a script whose path or settings name an
  arm beats one that only shares words with the task), else one command per arm built on the
  entry point's own parser, every flag one it defines (`runs.py`);
- **steps**: the data loading, the method's own classes cut to their parts (`methods.py`), the
  branches that switch between the arms, the training loop, each run's command lines, the
  metric, and the line that reports it, each citing the narrow range that does it, in
  execution order (this module);
- **masked**: the runs' scripts and the method's own module, never the support libraries.

Everything is derived from the mined index and the files; no model, deterministic.
"""

from __future__ import annotations

import ast
import keyword
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise

from expcurate.records import CliFlag, EntryPoint, RepoIndex, TaskDraft
from extractors.repo import RepoSearch, stem, terms
from extractors.repo.pysource import OutlineItem, callee_name

from .arm_code import MAX_PER_ARM, ArmCode
from .arms import (
    Arm,
    about_data,
    arm_name,
    arm_option,
    fold,
    measures_per_set,
    numeric,
    setting_flags,
    task_arms,
    task_metrics,
)
from .branches import ArmBranches
from .config_runs import ConfigFiles
from .data_steps import DataSteps
from .entry_args import EntryArgs
from .inline import doc_wording, function_blocks
from .launch import flag_groups
from .measures import MAX_READ, MeasureSteps, ReportedWords
from .methods import NARROW, MethodModules
from .multirun import hydra_config_steps
from .option_use import OptionUses
from .query import TaskQuery
from .run import Run, run_label
from .steps import Step, StepTracer, imported

MAX_STEPS = 15
FEW_STEPS = 8  # fewer steps than this and a long function among them is opened
WIDE_STEP = 60  # lines of a step citing a whole function that is read through its body
MAX_CONFIGS = 3  # the configs of one task's runs whose model lines are steps
_CONFIG_NAME = re.compile(r"(?:^|_)(?:cfg|conf|config)(?:$|_)", re.I)  # cfg, test_loader_cfg
SETTINGS_RUNS = 2  # script runs whose settings are cut into steps
MAX_LOSSES = 3  # the repository's own loss definitions cited; more are a framework's
_LOSS = re.compile(r"loss$|^loss|Loss", re.I)
MAX_CODED = 5  # arms selected by in-code switches that each get a step of their own
# a step making one object ("Create the DataLoader as loader (in train)", "Compute counts
# with np.array"), after the condition it is taken under ("If use_lora: ...")
_MADE = re.compile(
    r"(?:^|: )(?:Create the (\w+)(?: as \w+)?|Compute \w+ with (\w+)(?:\.[\w.]+)?)"
    r"(?: \(in \w+\))?$"
)
# the steps a Lightning module takes when the framework trains, validates, tests and predicts
_HOOKS = (
    ("training_step", "Compute the training loss"),
    ("validation_step", "Validate"),
    ("test_step", "Test"),
    ("predict_step", "Predict"),
)
_HOOK_NAMES = frozenset(hook for hook, _ in _HOOKS)
MAX_HOOKS = 5
PLUMBING_LINES = 10  # a library's object made in more lines is set up with care: a step
_TRAIN_NAMES = ("train", "fit", "train_epoch", "train_one_epoch", "training", "run_epoch")
_TRAIN_PREFIX = re.compile(r"train(?:ing)?(?:_|$)")  # train_model, training_loop; not trainable
_EVAL_PREFIX = re.compile(r"eval(?:uate|uation)?(?:_|$)")  # evaluation_loop, eval_epoch
_EVAL_NAMES = (
    "test",
    "evaluate",
    "eval",
    "inference",
    "validate",
    "validation",
    "vali",
    "val",
    "evaluator",
)
_EXPERIMENT_WORDS = frozenset(
    terms(
        "model net network train training fit epoch optimizer optim loss criterion backward "
        "step data dataset loader dataloader batch eval evaluate evaluation test predict "
        "inference metric metrics accuracy score result results forward"
    )
)
_CONFIG_WORDS = frozenset(terms("config cfg yaml hydra conf reload restore checkpoint_path"))


@dataclass
class Plan:
    runs: list[Run] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    method_modules: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    # measures nothing the runs run prints or writes by name: their code is to write
    unreported: list[str] = field(default_factory=list)


class StepPlanner:
    """Plans the steps of every task of one repository, sharing the tracer's parsed files."""

    def __init__(
        self,
        index: RepoIndex,
        search: RepoSearch,
        tracer: StepTracer,
        methods: MethodModules,
        args: EntryArgs | None = None,
        config_files: ConfigFiles | None = None,
        data: DataSteps | None = None,
    ) -> None:
        self.index = index
        self.search = search
        self.tracer = tracer
        self.methods = methods
        self.arm_code = ArmCode(tracer, methods)
        self.measures = MeasureSteps(search, tracer)
        self.reported = ReportedWords(search, tracer)
        self.known = {f.path for f in index.files}
        # the words of every path: a benchmark's folder, a data file
        self.path_words = frozenset(
            fold(part) for p in self.known for part in re.split(r"[/.]", p) if part
        )
        self.args = args or EntryArgs(index, search, tracer)
        self.config_files = config_files or ConfigFiles(index, search, tracer)
        self.entries = {e.path: e for e in index.entry_points}
        self.branches = ArmBranches(tracer, search, self.entries, self.arm_code)
        self.option_uses = OptionUses(tracer)
        self.data = data or DataSteps(index, tracer)
        # per file, read once for all the repository's tasks: the names its code refers to
        self._names: dict[str, dict[str, frozenset[int]]] = {}  # name -> lines, per file

    def steps(
        self,
        task: TaskDraft,
        q: TaskQuery,
        entry: str | None,
        runs: list[Run],
        method: Step | None,
        also: tuple[str, ...] = (),
        rivals: list[Step] | None = None,
    ) -> Plan:
        """The steps in execution order, at most `MAX_STEPS`, ending with the report.

        `also` are other entry points the task runs (the rival method's script beside the
        proposed one's); their inline blocks follow the main entry point's. `rivals` are the
        main definitions of the models the other arms' runs train (the baselines)."""
        plan = Plan(runs=runs, metrics=task_metrics(task, q))
        arms = task_arms(task)
        modules = self._closure(entry) if entry else []
        # the config of the arm the question asks about first ("How does SegNeXt-L compare
        # with Segformer-B2 ...") leads: its classes are the method's, its data the task's
        configs = list(
            dict.fromkeys(r.config for r in _by_mention(runs, task.question) if r.config)
        )
        # a program given its experiment as a config: the config sets the data and the
        # optimizer, and the closure of a framework's training program is the framework
        # (every model's `train`), so only the program's own definitions name the stages
        judge = self.config_files.evaluator(entry) if configs and entry else None
        if configs:
            modules = []
        data = (
            self.config_files.assigned(configs[0], "data", "Set the data sets and their pipeline")
            if configs
            else None
        ) or self.data.loader(task, modules, runs)
        benchmarks = self.data.benchmarks(task)
        optimizer = (
            self.config_files.assigned(configs[0], "optimizer", "Set the optimizer")
            if configs
            else None
        )
        parts = self.methods.method_steps(method, q) if method else []
        plan.method_modules = list(dict.fromkeys(s.path for s in parts))
        e = self.entries.get(entry or "")
        options = [f for f in e.flags if f.name.startswith("--")] if e else []
        held = setting_flags(task, options)
        branches, extra, code = self.branches.steps(
            arms, [entry, *modules] if entry else [], runs, held
        )
        # a program reading its experiment from a config: the configs the runs give, and
        # the classes they build (the backbone, the head), are the method's own code
        configured = self._config_steps(configs)
        plan.method_modules += [s.path for s in configured]
        baselines = self._rival_classes(configs)  # the other configs' classes, cut first
        own = self.methods.arm_steps(arms, {method.path} if method else set())
        # a component an arm adds or removes by its acronym, by the classes implementing it
        text = f"{task.question}\n{task.method}"
        own += self.methods.component_steps(text, task_arms(task), plan.method_modules)
        # what the question studies by a common name ("data augmentations"), as code names it
        own += self.methods.topic_steps(task.question, [*plan.method_modules, *modules])
        own += [r for r in rivals or [] if all(r.path != o.path for o in own)]
        files: list[str | None] = [entry, *modules] if entry else []
        picked = self._picked(entry, runs)
        train = self._named_step(files, _TRAIN_NAMES, picked)
        hooks = self._framework_hooks(files)
        plan.method_modules += [h.path for h in hooks]  # the module is the method's own
        # the loss the program trains with, when it is the repository's own (a few loss
        # definitions it uses, not a framework's catalogue): the method's objective
        trainers = list(dict.fromkeys(p for r in runs for p in r.trained_by))
        # an evaluation chained after its training (`cluster.py` after `train.py`) imports
        # none of the losses: they are in what the training program imports
        trained = [m for t in trainers if t.endswith(".py") for m in self._closure(t)]
        losses = (
            self._loss_steps(
                [*files, *trainers, *trained], [entry, train.path if train else "", *trainers]
            )
            if train or trainers
            else []
        )
        # the training an evaluation's runs are chained after (`stage1.py`), by its loop
        stages: list[Step] = []
        for stage in trainers:
            name = posixpath.basename(stage)
            if (loop := self._named_step([stage], _TRAIN_NAMES)) is not None:
                stages.append(replace(loop, action=f"Train first with {name}: {loop.action}"))
        launched = [r for r in runs if r.script and r.lines[0]]
        launches = [self._run_step(r) for r in launched]
        repeats = _repeated_runs(launched, launches)
        # what the first script run sets, group by group, at its own lines (the data and
        # horizons, the architecture, the regularization, the schedule): this experiment's
        # settings, narrower than the run and the program every task of the paper shares
        by_run = self._script_settings(runs)
        settings = [x for group in by_run for x in group]
        evaluate = self._named_step(files, _EVAL_NAMES, picked)
        # measures named with their data set ("Wiki-Convert PPL", "Numeracy600K Hit@1") are
        # looked for by the measure: the code computes `ppl`, never "Wiki-Convert"
        measures = measures_per_set(task) or plan.metrics
        metric = self.measures.metric_step(measures, modules)
        # what one run goes through (SegVol's organs) is compared only when nothing else is
        covered = [a for a in arms if any(a in r.covers for r in runs)]
        compared = [a for a in arms if a not in covered] or arms
        # the evaluation a training run is followed by (`then evaluate it: python eval.py`)
        evaluated = {w for r in runs if r.then for w in re.findall(r"[\w./-]+\.py\b", r.then)}
        chained = [
            o for o in also if any(o == w or o.endswith("/" + w.lstrip("./")) for w in evaluated)
        ]
        # the test the paper reports is printed there, not by the training's validation logs
        report = self.measures.report_step(
            measures, compared, evaluate, judge or entry, also=also, first=chained
        )
        if plan.metrics and entry is not None:
            programs = [entry, *also, *trainers, *([judge] if judge else [])]
            programs += [w for r in runs for w in re.findall(r"[\w./-]+\.py\b", r.then)]
            read = list(
                dict.fromkeys(
                    m
                    for p in dict.fromkeys(posixpath.normpath(x) for x in programs)
                    if p in self.known
                    for m in imported(self.index, p, MAX_READ)
                )
            )
            plan.unreported = self.reported.unreported(measures, read, self.path_words)
        if metric is None:  # a function assigning the measures by name (`auroc = ...`)
            metric = self.measures.computed_metric(
                measures, [*([entry] if entry else []), *modules]
            )
        if metric is None and report is not None:
            metric = self.measures.printed_metric(report, modules)
        called: list[Step] = []
        blocks: list[Step] = []
        if entry is not None and entry.endswith(".py"):
            called = [
                s
                for s in self.tracer.python_steps(entry, self.entries.get(entry), q)
                if not s.action.startswith(("Parse command", "Implement the method"))
            ]
            blocks = self.tracer.block_steps(entry, q)
        # the evaluation a training run is followed by (`then evaluate it: python cluster.py`)
        # comes after the training, as a config program's evaluation does
        later: list[Step] = []
        for other in also:
            # a program run with the entry point's data (`train.py` before `cluster.py
            # --dataset ImageNet-10`) takes the same branches of the options they share
            others_dead = self._dead_branches(other, runs)
            found = [
                b
                for b in self.tracer.block_steps(other, q, limit=4)
                if not self._unused_branch(b, other, runs, others_dead)
                and not self._library_object(b, q)
            ]
            if other in chained:
                later += found
            else:
                blocks += found
        # the evaluation of what a config program trained comes after the training
        # (read past what only builds from the config, which is no step: see below)
        judged = self.tracer.block_steps(judge, q, limit=12) if judge else []
        judged = [
            b
            for b in judged
            if not self._builds_from_config(b) and self._about_experiment(b, q, True)
        ]
        judged = judged[:3] + judged[-1:] if len(judged) > 4 else judged  # it ends reporting
        judged += [b for b in later if self._about_experiment(b, q, True)]
        # the `if args.x == 'v':` bodies no run takes: every run gives x another value
        dead = self._dead_branches(entry, runs)
        blocks = [b for b in blocks if not self._unused_branch(b, entry, runs, dead)]
        # what every run of the repository does (config loading, an experiment wrapper) says
        # nothing of this experiment: keep the blocks and calls about its data, model,
        # training, evaluation or the task's own names
        blocks = [b for b in blocks if self._about_experiment(b, q, bool(configs))]
        # a library's object made in a few lines (`DataLoader(...)`, `np.array(...)`) is the
        # plumbing around the experiment, unless the task names it (LoRA's `LoraConfig`)
        blocks = [b for b in blocks if not self._library_object(b, q)]
        # a framework's program building what the configs set (`build_segmentor(cfg.model)`,
        # `build_dataset(cfg.data.train)`): the configs' own steps say what it builds
        if configs:
            blocks = [b for b in blocks if not self._builds_from_config(b)]
        # a block that only calls what is cited by its definition (`exp.test(setting)` beside
        # the Evaluate step) says nothing new, and would put the test before the training
        defined = {
            m.group(1).rsplit(".", 1)[-1]
            for s in (train, evaluate)
            if s and (m := re.match(r"\w+ \(([\w.]+)\)", s.action))
        }
        blocks = [b for b in blocks if not self._only_calls(b, defined)]
        # the call site and the definition worded alike, or a block that only calls what
        # other steps cite by their definitions (`print("accuracy", score(x))`): the
        # definition says more
        blocks = [b for b in blocks if all(b.action != c.action for c in called)]
        cited = self._defined([*called, *(s for s in (train, evaluate, metric) if s)])
        blocks = [b for b in blocks if not self._only_calls(b, cited)]
        called = [
            c
            for c in called
            if self._about_experiment(c, q, bool(configs)) and not self._library_object(c, q)
        ]
        if configs:
            called = [c for c in called if not self._builds_from_config(c)]
        # what the main block calls only on a path no run takes (`ResNet34(...)` under
        # `elif args.model == 'ResNet34':` when every run gives ResNet18) is no step
        spans = [(first, last) for _, first, last in dead]
        called = [c for c in called if not self._called_only_in(c, entry, spans)]
        # a branch the main block's own steps cite from its `if` on says it in execution order
        branches = [
            b for b in branches if all((x.path, x.start) != (b.path, b.start) for x in blocks)
        ]
        # In execution order: the data, the options, the method, the branches, what the main
        # block does inline and the functions it calls, the training loop, the runs, the evaluation. When there
        # are too many, inline blocks go first, then called functions, then extra branches.
        coded = _code_steps(runs)
        # a hydra program's runs: the configs they compose, each chosen file by its keys
        composed = hydra_config_steps(self.args, entry, runs) if entry else []
        options_step = self._options_step(entry, runs, arms, held)
        # a key the runs override is cited beside the chosen file that sets it
        keys = [options_step] if composed else []
        # where the options selecting the arms or sweeping a number take effect, past their
        # `if`s (`self.layers[-1 * self.adapter_layer:]` for `--adapter_layer`)
        uses = self._option_uses(entry, modules, runs)
        optional = [
            *baselines,
            *called,
            *blocks,
            *judged[2:],
            *extra,
            *own[2:],
            *code[MAX_PER_ARM:],
            *uses,  # cut before the arms' own code
            *hooks[1:],  # the framework's steps past the training loss
        ]
        order = [
            data,
            *benchmarks,
            *composed,
            options_step,
            *_suite_steps(runs),
            coded[0] if coded else None,
            *parts,
            *configured,
            *baselines,
            optimizer,
            *own,
            *branches,
            *stages,
            *losses,
            *code,
            *uses,
            *blocks,
            *called,
            train,
            *hooks,
            *launches,
            *judged,
            evaluate,
            metric,
        ]
        # narrow, task-specific steps win over the definitions around them
        steps = _distinct(order, first=[*branches, *launches, metric, evaluate, train, data, *keys])
        for group in by_run:  # inside a run's lines: after its step, not covered by it
            at = next(
                (i + 1 for i, s in enumerate(steps) if s.path == group[0].path),
                next((i for i, s in enumerate(steps) if s in (evaluate, metric)), len(steps)),
            )
            steps[at:at] = group
        if coded and any(s is coded[0] for s in steps):  # each arm's switches, the same lines
            at = next(i for i, s in enumerate(steps) if s is coded[0])
            steps[at : at + 1] = coded
        cut = [s for s in reversed(steps) if s in blocks] + [
            s for s in reversed(steps) if s in optional and s not in blocks
        ]
        cut += [s for s in reversed(steps) if s in settings]  # then the script's settings
        cut += [s for s in reversed(steps) if s in composed]  # then the configs chosen
        cut += [s for s in reversed(steps) if s in repeats]  # then runs on more data sets
        cut += [s for s in reversed(steps) if any(s is c for c in code)]  # then arms' code
        while len(steps) > MAX_STEPS - 1 and cut:
            drop = cut.pop(0)
            steps = [s for s in steps if s is not drop]  # a step listed twice goes once
        plan.steps = steps[: MAX_STEPS - 1]
        plan.method_modules += [
            s.path for s in plan.steps if any(s is c for c in code) and self.arm_code.of_a_class(s)
        ]
        if report is not None and all(
            (s.path, s.start, s.end) != (report.path, report.start, report.end) for s in plan.steps
        ):
            plan.steps.append(report)  # the comparison ends the steps, even inside one
        return plan

    def opened(self, steps: list[Step], q: TaskQuery | None = None) -> list[Step]:
        """Few steps, one of them a whole long function ("Train (train)" at 28-294): the
        function's blocks in its place, the longest first, until there are enough; with the
        task's query `q`, not a block that only makes a library's object."""
        tried: set[tuple[str, int]] = set()
        while len(steps) < FEW_STEPS:
            wide = [
                s
                for s in steps
                if s.path.endswith(".py")
                and s.end - s.start > WIDE_STEP
                and (s.path, s.start) not in tried
            ]
            if not wide:
                break
            step = max(wide, key=lambda s: s.end - s.start)
            tried.add((step.path, step.start))
            tree = self.tracer.tree(step.path)
            room = MAX_STEPS - len(steps)
            lines = self.search.lines(step.path)
            parts = function_blocks(tree, lines, step.start, step.end, room) if tree else []
            if q is not None:
                parts = [
                    (a, b, e)
                    for a, b, e in parts
                    if not self._library_object(Step(a, step.path, b, e), q)
                ]
            if len(parts) >= 2:
                at = next(i for i, s in enumerate(steps) if s is step)
                steps[at : at + 1] = [Step(a, step.path, b, e) for a, b, e in parts]
        return steps

    def _config_steps(self, configs: list[str]) -> list[Step]:
        """Each config the runs give (its model's lines), then the classes the first builds."""
        if not configs:
            return []
        files = self.config_files
        steps = [s for c in configs[:MAX_CONFIGS] for s in files.class_steps(c)[:1]]
        return steps + files.class_steps(configs[0])[1:]

    def _rival_classes(self, configs: list[str]) -> list[Step]:
        """The classes the other configs build that the first does not (a baseline's
        backbone and head beside the method's): what the comparison sets against it."""
        files = self.config_files
        seen = {(s.path, s.start) for s in files.class_steps(configs[0])} if configs else set()
        out: list[Step] = []
        for config in configs[1:MAX_CONFIGS]:
            for step in files.class_steps(config)[1:]:
                if (step.path, step.start) not in seen:
                    seen.add((step.path, step.start))
                    out.append(step)
        return out

    def _builds_from_config(self, step: Step) -> bool:
        """The block's first statement builds from the config (`model = build_segmentor(
        cfg.model, ...)`, `datasets = [build_dataset(cfg.data.train)]`, `data_loader =
        build_dataloader(dataset, **test_loader_cfg)`)."""
        tree = self.tracer.tree(step.path)
        first = next(
            (
                n
                for n in (ast.walk(tree) if tree else [])
                if isinstance(n, ast.Assign | ast.Expr) and n.lineno == step.start
            ),
            None,
        )
        if first is None:
            return False
        calls = [
            c
            for c in ast.walk(first.value)
            if isinstance(c, ast.Call)
            and (callee_name(c.func) or "").rsplit(".", 1)[-1] not in ("get", "deepcopy")
        ]
        return bool(calls) and all(
            (callee_name(c.func) or "").rsplit(".", 1)[-1].startswith("build")
            and any(
                isinstance(x, ast.Name) and _CONFIG_NAME.search(x.id)
                for arg in [*c.args, *(k.value for k in c.keywords)]
                for x in ast.walk(arg)
            )
            for c in calls
        )

    def _about_experiment(self, step: Step, q: TaskQuery, configured: bool = False) -> bool:
        """The step is about the data, model, training, evaluation or the task's names; one
        loading configuration only when it names the task's own, unless the runs give the
        experiment as a config (`build_segmentor(cfg.model)` builds this experiment's model)."""
        lines = self.search.lines(step.path)[step.start - 1 : step.end]
        if not lines:
            return False
        words = set(terms(step.action + " " + " ".join(lines[:40])))
        named = {stem(t) for t in q.names} | {stem(t) for t in q.focus}
        if words & _CONFIG_WORDS and not configured:  # only when it names the task's own
            return bool(words & named)
        return bool(words & (_EXPERIMENT_WORDS | named))

    def _library_object(self, step: Step, q: TaskQuery) -> bool:
        """The step only makes a library's object in a few lines ("Create the DataLoader as
        loader", "Compute counts with np.array", "If x: Create the LoraConfig"), and the task
        names nothing of it: plumbing, no action of this experiment."""
        m = _MADE.search(step.action)
        if m is None or step.end - step.start + 1 > PLUMBING_LINES:
            return False
        name = m.group(1) or m.group(2)
        named = {stem(t) for t in q.names} | {stem(t) for t in q.focus}
        if {stem(t) for t in terms(name)} & named:
            return False
        if self.tracer.from_library(step.path, name):
            return True
        # made through its module (`torch.utils.data.DataLoader(...)`): the module's origin
        text = "\n".join(self.search.lines(step.path)[step.start - 1 : step.end])
        root = re.search(rf"\b(\w+)(?:\.\w+)*\.{re.escape(name)}\s*\(", text)
        return root is not None and self.tracer.from_library(step.path, root.group(1))

    def _defined(self, steps: list[Step]) -> set[str]:
        """The functions whose definitions the steps cite from their `def` line."""
        out: set[str] = set()
        for s in steps:
            first = self.search.lines(s.path)[s.start - 1 : s.start]
            if first and (m := re.match(r"\s*(?:async\s+)?def\s+(\w+)", first[0])):
                out.add(m.group(1))
        return out

    def _only_calls(self, step: Step, names: set[str]) -> bool:
        """The step's lines call nothing but `names` (and printing)."""
        text = "\n".join(self.search.lines(step.path)[step.start - 1 : step.end])
        calls = set(re.findall(r"(\w+)\s*\(", text)) - {"print", "format", "str", "len"}
        calls = {c for c in calls if not keyword.iskeyword(c)}  # `in (...)` is no call
        return bool(calls) and calls <= names

    def _unused_branch(
        self, step: Step, entry: str | None, runs: list[Run], dead: list[tuple[int, int, int]]
    ) -> bool:
        """A block under `if args.x:` where x is a switch off by default that no run turns
        on (`if args.do_predict:`), or under one of the `dead` branches (`_dead_branches`:
        `--model ResNet34` against `if args.model == 'ResNet18':`): it does not run in this
        experiment."""
        if step.path == entry and any(first <= step.start <= last for _, first, last in dead):
            return True  # `Create the CIFAR10` inside `if args.dataset == 'CIFAR-10':`
        m = re.match(r"If (?:not )?args\.(\w+)\b", step.action)
        e = self.entries.get(entry or "")
        if m is None or e is None or step.action.startswith("If not"):
            return False
        if re.match(r"If args\.\w+ == ", step.action):
            return step.path == entry and any(step.start == line for line, _, _ in dead)
        flag = next(
            (f for f in e.flags if f.name.lstrip("-").replace("-", "_") == m.group(1)), None
        )
        if flag is None or flag.default not in ("False", "0", "None", ""):
            return False
        used = {w.lstrip("-").replace("-", "_") for r in runs for w in r.command.split()}
        used |= {w.lstrip("-").replace("-", "_") for r in runs for w in r.settings.split()}
        return m.group(1) not in used

    def _dead_branches(self, entry: str | None, runs: list[Run]) -> list[tuple[int, int, int]]:
        """The entry point's `if args.x == 'v':` branches that no run takes, every run giving
        x another value: the `if`'s line and its body's first and last lines."""
        e = self.entries.get(entry or "")
        tree = self.tracer.tree(entry) if entry and e else None
        if tree is None or e is None:
            return []
        given = _given_values(e, runs)
        out: list[tuple[int, int, int]] = []
        for node in ast.walk(tree):
            if not isinstance(node, ast.If):
                continue
            test = node.test
            if not (
                isinstance(test, ast.Compare)
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.left, ast.Attribute)
                and isinstance(test.left.value, ast.Name)
                and test.left.value.id == "args"
                and isinstance(test.comparators[0], ast.Constant)
            ):
                continue
            values = given.get(test.left.attr)
            if values and str(test.comparators[0].value) not in values:
                last = node.body[-1]
                out.append((node.lineno, node.body[0].lineno, last.end_lineno or last.lineno))
        return out

    def _called_only_in(self, step: Step, entry: str | None, spans: list[tuple[int, int]]) -> bool:
        """The step cites a definition the entry point calls only inside `spans`."""
        if not spans or entry is None or step.path == entry:
            return False
        item = next((i for i in self.tracer.outline(step.path) if i.start == step.start), None)
        tree = self.tracer.tree(entry)
        if item is None or tree is None:
            return False
        name = item.name.split(".")[0] if item.kind == "method" else item.name
        lines = [
            n.lineno
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and (n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", None))
            == name
        ]
        return bool(lines) and all(any(a <= ln <= b for a, b in spans) for ln in lines)

    def _closure(self, entry: str) -> list[str]:
        """The repository modules the entry point reaches through its imports."""
        return [m for m in imported(self.index, entry, 81) if m.endswith(".py") and m != entry][:80]

    def _option_uses(self, entry: str | None, modules: list[str], runs: list[Run]) -> list[Step]:
        """The definitions reading the value of each option a run sets to select its arm
        (`OptionUses`), the options in the runs' order."""
        if entry is None or not entry.endswith(".py"):
            return []
        options = dict.fromkeys(
            r.switch for r in runs if r.switch.startswith("--") and r.arms and not r.missing
        )
        found: list[Step] = []
        for option in options:
            for step in self.option_uses.steps(option, [entry, *modules], entry):
                if all((step.path, step.start) != (f.path, f.start) for f in found):
                    found.append(step)
        return found

    def _options_step(
        self, entry: str | None, runs: list[Run], arms: list[Arm], held: list[tuple[CliFlag, str]]
    ) -> Step | None:
        """The parser lines of the options that select the arms (`--wo_conv`,
        `--model_type`), not the whole parser, nor those that set what the task holds fixed;
        none when no option tells the arms apart."""
        e = self.entries.get(entry or "")
        if e is not None and e.kind == "hydra":
            return self._config_keys_step(runs)
        if e is None or not e.flags:
            return None
        wanted = {r.switch for r in runs if r.switch}
        options = [
            f for f in e.flags if f.name.startswith("--") and all(f is not h for h, _ in held)
        ]
        # the arms a run's own option selects (a data set, a swept number, a value), not
        # one it runs as the repository sets it up ("ICH + CCH" beside `--dataset`)
        selected = [
            a
            for r in runs
            if r.switch
            for a in r.arms
            if about_data(a.variable) or numeric(a.value) or arm_option(a, options) is not None
        ]
        by_config = {(a.variable, a.value) for r in runs if r.config for a in r.arms}
        for arm in arms:  # an arm a config selects has no option to cite
            by_file = (arm.variable, arm.value) in by_config
            found = arm_option(arm, options) if not by_file else None
            if found is not None:
                wanted.add(found[0].name)
                selected.append(arm)
        lines = sorted(f.line for f in e.flags if f.name in wanted and f.line)
        if not lines:
            return None
        names = [f.name for f in e.flags if f.name in wanted][:6]
        start, end = _cluster(lines)
        chosen = ", ".join(  # a value swept ("Epoch 15"), not one described ("0.1 for X")
            dict.fromkeys(
                arm_name(a) for a in selected if numeric(a.value) or not numeric(a.value.split()[0])
            )
        )[:80]
        return Step(
            f"Add the options that select {chosen or 'the compared settings'}: {', '.join(names)}",
            e.parser or entry or "",
            start,
            end,
        )

    def _config_keys_step(self, runs: list[Run]) -> Step | None:
        """For a hydra program, where the config keys the runs override are set
        (`experiment.max_n_frames` in conf/experiment/base_experiment.yaml, `seed` in
        conf/config.yaml), cited at the file of the first; a config group the runs choose
        (`algorithm=mappo`, a folder of configs) is no key."""
        groups = {
            part
            for f in self.index.files
            if f.path.endswith((".yaml", ".yml"))
            for part in f.path.split("/")[:-1]
        }
        keys = [
            key
            for r in runs
            for word in r.settings.split()
            if "=" in word and (key := word.split("=", 1)[0].lstrip("+")) not in groups
        ]
        found = [(k, at) for k in dict.fromkeys(keys) if (at := self.args.config_key_line(k))]
        if not found:
            return None
        path = found[0][1][0]
        lines = [line for _, (p, line) in found if p == path]
        names = [k for k, (p, _) in found if p == path]
        start, end = _cluster(lines)
        return Step(f"Set the overridden config values: {', '.join(names)}", path, start, end)

    def _named_step(
        self,
        files: list[str | None],
        names: tuple[str, ...],
        picked: Sequence[tuple[str, str]] = (),
    ) -> Step | None:
        """The first definition named like `names` (in their order) in `files` that the code
        of `files` uses (an `evaluate` nothing calls is not this run's evaluation), cut to its
        loop when it is long; the methods of the `picked` classes first (the experiment class
        the runs' settings choose: `Exp_Classification.train` for `--task_name
        classification`)."""
        used = self._used_names(files)
        # the names themselves, then names that start like the kind of step (`_evaluation_loop`;
        # never `test_*`, which is a unit test or a helper as often as an evaluation)
        kind = _EVAL_PREFIX if names is _EVAL_NAMES else _TRAIN_PREFIX
        wanted_names = [*((n, True) for n in names), ("", False)]
        # the picked classes' methods by each name, then every file's definitions by each name
        places = [(w, path, owner) for path, owner in picked for w in wanted_names]
        places += [(w, path, "") for w in wanted_names for path in files if path is not None]
        for (wanted, whole), path, owner in places:
            for item in self.tracer.outline(path):
                if owner and not item.name.startswith(owner + "."):
                    continue
                short = item.name.rsplit(".", 1)[-1]
                name = short.lower() if whole else short.lower().strip("_")
                hit = name == wanted if whole else bool(kind.match(name))
                if not hit or item.end - item.start < 3 or short not in used:
                    continue
                if not self._used_elsewhere(files, path, item):
                    continue  # only its own body names it (`self.trainer.validate(...)`)
                if "config" in item.name.lower():  # ExperimentConfig.validate checks a config
                    continue
                if self._mode_switch(path, item):  # `BEiT.train(self, mode=True)`
                    continue
                if names is _TRAIN_NAMES and self._without_gradients(path, item):
                    continue  # `@torch.no_grad() def train_index`: it trains no model
                start, end = item.start, item.end
                if end - start > NARROW:
                    loop = self._loop(path, item)
                    if loop is not None:
                        start, end = loop
                verb = "Train" if names is _TRAIN_NAMES else "Evaluate"
                doc = doc_wording(item.doc, longest=120)
                action = f"{verb} ({item.name})" + (f": {doc}" if doc else "")
                return Step(action, path, start, end)
        return None

    def _framework_hooks(self, files: list[str | None]) -> list[Step]:
        """What a Lightning module does when the framework trains and evaluates it: its
        `training_step`, `validation_step`, `test_step` and `predict_step`, which no code of
        the repository calls by name, and the methods of its own they call (`self.generate`),
        for the one or two such modules `files` define."""
        out: list[Step] = []
        modules = 0
        for path in dict.fromkeys(p for p in files if p and p.endswith(".py")):
            tree = self.tracer.tree(path)
            for cls in tree.body if tree else []:
                if not isinstance(cls, ast.ClassDef) or not any(
                    ast.unparse(b).endswith("LightningModule") for b in cls.bases
                ):
                    continue
                modules += 1
                methods = {
                    f.name: f
                    for f in cls.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                }
                helpers: list[str] = []
                for hook, verb in _HOOKS:
                    node = methods.get(hook)
                    if node is None or (node.end_lineno or node.lineno) - node.lineno < 2:
                        continue
                    out.append(
                        Step(f"{verb} ({cls.name}.{hook})", path, node.lineno, node.end_lineno or 0)
                    )
                    helpers += [
                        c.func.attr
                        for c in ast.walk(node)
                        if isinstance(c, ast.Call)
                        and isinstance(c.func, ast.Attribute)
                        and isinstance(c.func.value, ast.Name)
                        and c.func.value.id == "self"
                        and c.func.attr in methods
                        and c.func.attr not in _HOOK_NAMES
                    ]
                for name in dict.fromkeys(helpers):
                    node = methods[name]
                    if (node.end_lineno or node.lineno) - node.lineno >= 3:
                        action = f"Implement {cls.name}.{name}"
                        out.append(Step(action, path, node.lineno, node.end_lineno or 0))
        return out[:MAX_HOOKS] if modules <= 2 else []

    def _without_gradients(self, path: str, item: OutlineItem) -> bool:
        """The definition runs without gradients (`@torch.no_grad()`,
        `@torch.inference_mode()`): whatever its name, it trains no model."""
        node = self.tracer.def_node(path, item.name)
        if node is None:
            return False
        marks = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
        return any(m.rsplit(".", 1)[-1] in ("no_grad", "inference_mode") for m in marks)

    def _mode_switch(self, path: str, item: OutlineItem) -> bool:
        """A method `train(self, mode=True)`: a module switching itself, and its layers,
        between training and evaluation, as torch's modules do. It trains nothing."""
        if item.kind != "method":
            return False
        node = self.tracer.def_node(path, item.name)
        if node is None:
            return False
        return [a.arg for a in [*node.args.posonlyargs, *node.args.args]] == ["self", "mode"]

    def _loss_steps(self, files: list[str | None], training: list[str | None]) -> list[Step]:
        """The loss classes and functions `files` define that the `training` code (the entry
        point, the training loop's module, the chained training) uses (`InstanceLoss`,
        `ClusterLoss` of modules/contrastive_loss.py), each by the method doing its work;
        none when they are more than `MAX_LOSSES` (a framework's catalogue of losses)."""
        used = self._used_names([p for p in training if p])
        found: list[Step] = []
        for path in dict.fromkeys(p for p in files if p):
            for item in self.tracer.outline(path):
                if "." in item.name or item.name not in used or item.end - item.start < 3:
                    continue
                if not _LOSS.search(item.name):
                    continue
                core = self.methods.class_core(path, item) if item.kind == "class" else None
                where = core or item
                found.append(Step(f"Compute the loss ({where.name})", path, where.start, where.end))
        return found if len(found) <= MAX_LOSSES else []

    def _picked(self, entry: str | None, runs: list[Run]) -> list[tuple[str, str]]:
        """The classes the entry point picks by a value the runs give it (`if args.task_name
        == 'classification': Exp = Exp_Classification` for `--task_name classification`), as
        (module, class): the experiment whose training and evaluation these runs go through."""
        tree = self.tracer.tree(entry) if entry and entry.endswith(".py") else None
        e = self.entries.get(entry or "")
        if tree is None or entry is None or e is None:
            return []
        given = _given_values(e, [r for r in runs if not r.missing])
        if not given:
            return []
        names = self.tracer.local_names(entry, tree)
        out: list[tuple[str, str]] = []
        for node in ast.walk(tree):
            test = node.test if isinstance(node, ast.If) else None
            if not (
                isinstance(test, ast.Compare)
                and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.left, ast.Attribute)
                and isinstance(test.comparators[0], ast.Constant)
                and str(test.comparators[0].value) in given.get(test.left.attr, set())
            ):
                continue
            for stmt in node.body if isinstance(node, ast.If) else []:
                picks = stmt.value if isinstance(stmt, ast.Assign) else None
                if isinstance(picks, ast.Name) and picks.id in names:
                    target, qual = names[picks.id]
                    if any(
                        i.name == qual and i.kind == "class" for i in self.tracer.outline(target)
                    ):
                        out.append((target, qual))
        return list(dict.fromkeys(out))

    def _used_names(self, files: list[str | None]) -> set[str]:
        """Every name the code of `files` refers to: called, read as an attribute, or given
        to a call as a string (`getattr(exp, "test")`)."""
        return {name for path in files for name in self._name_lines(path)}

    def _name_lines(self, path: str | None) -> dict[str, frozenset[int]]:
        """The names a file's code refers to, each with the lines it is referred to on."""
        if path is None:
            return {}
        if path not in self._names:
            tree = self.tracer.tree(path)
            names: dict[str, set[int]] = {}
            # a string names code only given to a call (`getattr(exp, "test")`), not when a
            # value is matched against it (`case 'validate':`, a Lightning stage's name)
            given = {
                id(a)
                for node in (ast.walk(tree) if tree else [])
                if isinstance(node, ast.Call)
                for a in [*node.args, *(k.value for k in node.keywords)]
            }
            for node in ast.walk(tree) if tree else []:
                if isinstance(node, ast.Name):
                    name = node.id
                elif isinstance(node, ast.Attribute):
                    name = node.attr
                elif (
                    isinstance(node, ast.Constant)
                    and str(node.value).isidentifier()
                    and id(node) in given
                ):
                    name = str(node.value)
                else:
                    continue
                names.setdefault(name, set()).add(node.lineno)
            self._names[path] = {n: frozenset(lines) for n, lines in names.items()}
        return self._names[path]

    def _used_elsewhere(self, files: list[str | None], path: str, item: OutlineItem) -> bool:
        """The definition's name is referred to outside its own body: `LSPTrainer.validate`,
        whose only mention is the framework's `self.trainer.validate(...)` inside it, is
        called by nothing."""
        short = item.name.rsplit(".", 1)[-1]
        for where in dict.fromkeys(files):
            lines = self._name_lines(where).get(short, frozenset())
            if where != path and lines:
                return True
            if any(not item.start <= n <= item.end for n in lines):
                return True
        return False

    def _loop(self, path: str, item: OutlineItem) -> tuple[int, int] | None:
        node = self.tracer.def_node(path, item.name)
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
        end = first.end_lineno or first.lineno
        if end - first.lineno <= NARROW:
            return first.lineno, end
        # a loop longer than a step: the part that computes the loss and steps on it (the
        # first `loss` assignment before the first `backward()`), where the method trains
        backward = min(
            (
                n.lineno
                for n in ast.walk(first)
                if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr == "backward"
            ),
            default=0,
        )
        losses = [
            n.lineno
            for n in ast.walk(first)
            if isinstance(n, ast.Assign | ast.AugAssign)
            and "loss" in ast.unparse(n.targets[0] if isinstance(n, ast.Assign) else n.target)
            and n.lineno <= backward
        ]
        if backward and losses:
            start = max(min(losses), backward - NARROW)
            return start, backward
        return first.lineno, first.lineno + NARROW

    def _script_settings(self, runs: list[Run]) -> list[list[Step]]:
        """What the first `SETTINGS_RUNS` launch script runs (of different scripts) pass, for
        each run a step per group of flags."""
        out: list[list[Step]] = []
        seen: set[str] = set()
        for run in runs:
            if not run.script or not run.lines[0] or run.sweep or run.script in seen:
                continue
            seen.add(run.script)
            lines = self.search.lines(run.script)
            label = run_label(run).removeprefix("Run ")
            groups = flag_groups(lines, *run.lines)
            if groups:
                out.append(
                    [
                        Step(f"Set {g} for {label}: {', '.join(flags[:6])}", run.script, a, b)
                        for g, flags, a, b in groups
                    ]
                )
            if len(out) >= SETTINGS_RUNS:
                break
        return out

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


def _given_values(entry: EntryPoint, runs: list[Run]) -> dict[str, set[str]]:
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


def _code_steps(runs: list[Run]) -> list[Step]:
    """The lines that hard-code the switches selecting the arms: a step per arm's run, what
    it sets them to (two to `MAX_CODED` runs), else one step for them all."""
    coded = [r for r in runs if r.edits and not r.missing]
    settings = list(dict.fromkeys(c for r in coded for c, _ in r.edits))
    if not settings:
        return []
    if 2 <= len(coded) <= MAX_CODED:
        out: list[Step] = []
        for r in coded:
            path = r.edits[0][0].path
            start, end = _cluster(sorted(c.line for c, _ in r.edits if c.path == path))
            values = ", ".join(
                f"{c.target} = {v}" for c, v in r.edits if c.path == path and start <= c.line <= end
            )
            arms = ", ".join(a.value for a in r.arms)[:60]
            out.append(Step(f"Select {arms}: set {values}", path, start, end))
        return out
    path = settings[0].path
    start, end = _cluster(sorted(c.line for c in settings if c.path == path))
    names = ", ".join(c.target for c in settings if start <= c.line <= end)
    chosen = ", ".join(a.value for r in coded for a in r.arms)[:80]
    return [Step(f"Set the in-code switches that select {chosen}: {names}", path, start, end)]


def _suite_steps(runs: list[Run]) -> list[Step]:
    """The lists the runs go through whole, one step per program listing one."""
    out: dict[str, Step] = {}
    for r in runs:
        if r.suite is not None and r.suite_program not in out:
            s = r.suite
            out[r.suite_program] = Step(
                f"Go through all {s.size} items of `{s.name}` ({s.start} 0 {s.end} {s.size})",
                r.suite_program,
                *s.lines,
            )
    return list(out.values())


def _repeated_runs(runs: list[Run], steps: list[Step]) -> list[Step]:
    """The steps of runs that repeat an earlier run's arms on another data set (the usage has
    them all): cut before the training, evaluation or metric when steps are too many."""
    seen: set[tuple[str, ...]] = set()
    out: list[Step] = []
    for r, step in zip(runs, steps, strict=True):
        arms = tuple(sorted(a.value for a in r.arms if not about_data(a.variable)))
        if arms and arms in seen and r.data:
            out.append(step)
        seen.add(arms)
    return out


def _by_mention(runs: list[Run], question: str) -> list[Run]:
    """The runs in the order the question first names one of their arms; those it names
    none of after, in their own order."""
    text = question.lower()

    def first(run: Run) -> int:
        found = [text.find(a.value.lower()) for a in run.arms if a.value.strip()]
        return min((i for i in found if i >= 0), default=len(text) + 1)

    return sorted(runs, key=first)


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


def _cluster(lines: list[int], span: int = 25) -> tuple[int, int]:
    """The window of at most `span` lines holding the most of `lines` (sorted): options
    defined far apart are not cited as one range of the whole parser."""
    best = (lines[0], lines[0], 1)
    for i, first in enumerate(lines):
        inside = [x for x in lines[i:] if x - first <= span]
        if len(inside) > best[2]:
            best = (first, inside[-1], len(inside))
    return best[0], best[1]
