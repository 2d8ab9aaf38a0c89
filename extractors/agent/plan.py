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

Everything is derived from the mined index and the files; no model, deterministic. Where
the programs train and evaluate is found by `TrainingSteps` (training_steps.py); which
candidate steps belong to this experiment is `StepFilters`' call (step_filters.py).
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from expcurate.records import CliFlag, EntryPoint, RepoIndex, TaskDraft
from expcurate.records.names import squash
from extractors.repo import RepoSearch

from .analysis import AnalysisPrograms
from .arm_code import MAX_PER_ARM, ArmCode
from .arm_options import (
    arm_option,
    fold,
    setting_flags,
)
from .arms import (
    Arm,
    about_data,
    arm_name,
    in_prose,
    measured_on,
    measures_per_set,
    numeric,
    repeated_within,
    task_arms,
    task_datasets,
    task_metrics,
)
from .branches import ArmBranches
from .config_runs import ConfigFiles
from .data_steps import DataSteps
from .entry_args import EntryArgs
from .execution import ExecutionOrder
from .inline import function_blocks, has_main, main_body
from .launch import flag_groups
from .measures import MAX_READ, Computed, MeasureSteps, ReportedWords
from .methods import MethodModules
from .multirun import hydra_config_steps, primary_key_line
from .option_use import OptionUses
from .query import TaskQuery
from .rank import counting_docs, names_cost
from .run import Run, given_values, run_label, shared_heads
from .stages import program_mode
from .step_filters import StepFilters
from .steps import Step, StepTracer, imported
from .training_steps import TrainingSteps

MAX_STEPS = 15
FEW_STEPS = 8  # fewer steps than this and a long function among them is opened
WIDE_STEP = 60  # lines of a step citing a whole function that is read through its body
MAX_CONFIGS = 3  # the configs of one task's runs whose model lines are steps
SETTINGS_RUNS = 2  # script runs whose settings are cut into steps
MAX_CODED = 5  # arms selected by in-code switches that each get a step of their own
MAX_COUNTER_LINES = 20  # a cost counter's main block, cited up to this many lines on
# an option that only names which model or method runs (`--model`, `--model_type`): its
# parser line is no action of the experiment; a switch of the method's own (`--wo_conv`) is
_SELECTOR = re.compile(r"(?i)(?:model|method|algo|algorithm|arch|backbone)(?:[_-](?:type|name))?")
# a block of the main program that only shows or keeps what was computed: it runs last
_PRINTS = re.compile(r"(?:Print|Log|Save|Write|Dump|Show|Plot)\b")


@dataclass
class Plan:
    runs: list[Run] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    method_modules: list[str] = field(default_factory=list)
    metrics: list[str] = field(default_factory=list)
    # the common measure the report line prints, when the task names none ("AUC")
    printed: str = ""
    # measures nothing the runs run prints or writes by name: their code is to write
    unreported: list[str] = field(default_factory=list)
    # where the code computes one of them under a short name (`sim`, `SHD`), unprinted
    computed_as: dict[str, list[Computed]] = field(default_factory=dict)
    # of those, the ones only a training the runs are chained after computes: its program
    recorded_in: dict[str, str] = field(default_factory=dict)
    # the entry point's lines no run reaches (its path, first and last line)
    unreached: list[tuple[str, int, int]] = field(default_factory=list)


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
        programs: Callable[[str], list[str]] | None = None,
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
        self.analyses = AnalysisPrograms(search, self.entries)
        # the programs a command runs, as the run planner resolves them (else none)
        self.branches = ArmBranches(
            tracer, search, self.entries, self.arm_code, programs or (lambda _: [])
        )
        self.option_uses = OptionUses(tracer)
        self.data = data or DataSteps(index, tracer)
        self.stages = TrainingSteps(tracer, methods, self.entries)
        self.filters = StepFilters(search, tracer, self.entries)
        self.execution = ExecutionOrder(tracer)

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
        # the lines of the entry point no run reaches (`if args.only_id:`, a switch no run
        # passes, and the function only it calls), and so the modules it imports only there
        untaken = self.filters.untaken(entry, runs)
        modules = self._closure(entry, untaken) if entry else []
        # the config of the arm the question asks about first ("How does SegNeXt-L compare
        # with Segformer-B2 ...") leads: its classes are the method's, its data the task's
        mentioned = by_mention(runs, task.question)
        configs = list(dict.fromkeys(r.config for r in mentioned if r.config))
        # ... but the data is that of the first config on the task's data (SegNeXt-L's only
        # config is COCO-Stuff's; DANet's is Pascal VOC's, the task's)
        on_data = next((r.config for r in mentioned if r.config and not r.elsewhere), "")
        # a program given its experiment as a config: the config sets the data and the
        # optimizer, and the closure of a framework's training program is the framework
        # (every model's `train`), so only the program's own definitions name the stages
        judge = self.config_files.evaluator(entry) if configs and entry else None
        if configs:
            modules = []
        data = (
            self.config_files.assigned(
                on_data or configs[0], "data", "Set the data sets and their pipeline"
            )
            if configs
            else None
        ) or self.data.loader(task, modules, runs)
        benchmarks = self.data.benchmarks(task)
        optimizer = (
            self.config_files.assigned(configs[0], "optimizer", "Set the optimizer")
            if configs
            else None
        )
        parts = self.methods.method_steps(method, q, program_mode(entry)) if method else []
        # a wrapper's module (models/PDF.py) is the method's too, though its parts are cited
        # in the module it wraps (layers/PDF_backbone.py)
        plan.method_modules = list(
            dict.fromkeys([*(s.path for s in parts), *([method.path] if parts and method else [])])
        )
        e = self.entries.get(entry or "")
        options = [f for f in e.flags if f.name.startswith("--")] if e else []
        held = setting_flags(task, options)
        # the other programs the task runs take their arms' paths too (DSPy's program beside
        # Trace's: `if args.copro:`)
        read = list(dict.fromkeys([entry, *modules])) if entry else []
        branches, extra, code = self.branches.steps(
            arms,
            [*read, *(o for o in also if o not in read)] if entry else [],
            runs,
            held,
            arms_only=[o for o in also if o not in read],
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
        # ... first in the modules the question names ("the design of MSCA": mscan.py)
        named = self.methods.named_modules(task.question)
        own += self.methods.topic_steps(task.question, named) or self.methods.topic_steps(
            task.question, [*plan.method_modules, *modules]
        )
        # where the arms' inputs (text, box and point prompts) enter the method's own model
        own += self.methods.input_steps(arms, plan.method_modules)
        own += [r for r in rivals or [] if all(r.path != o.path for o in own)]
        files: list[str | None] = [entry, *modules] if entry else []
        picked = self.stages.picked(entry, runs)
        # a config program hands its training to the framework by name (`train_segmentor(...)`
        # of mmseg/apis/train.py): that function's file is where the training is
        stages_of = self.stages.handed_to(entry) if configs and entry else []
        train = self.stages.training([*files, *stages_of], picked)
        hooks = self.stages.hooks(files)
        plan.method_modules += [h.path for h in hooks]  # the module is the method's own
        # the loss the program trains with, when it is the repository's own (a few loss
        # definitions it uses, not a framework's catalogue): the method's objective
        trainers = list(dict.fromkeys(p for r in runs for p in r.trained_by))
        # an evaluation chained after its training (`cluster.py` after `train.py`) imports
        # none of the losses: they are in what the training program imports
        trained = [m for t in trainers if t.endswith(".py") for m in self._closure(t)]
        losses = (
            self.stages.losses(
                [*files, *trainers, *trained], [entry, train.path if train else "", *trainers]
            )
            if train or trainers
            else []
        )
        # the training an evaluation's runs are chained after (`stage1.py`), by its loop
        stages: list[Step] = []
        for stage in trainers:
            name = posixpath.basename(stage)
            loop = self.stages.training([stage]) or self.stages.handoff(stage)
            if loop is not None:
                stages.append(replace(loop, action=f"Train first with {name}: {loop.action}"))
        launched = [r for r in runs if r.script and r.lines[0]]
        launches = _shared_launches([self._run_step(r) for r in launched], launched)
        repeats = _repeated_runs(launched, launches)
        # what the first script run sets, group by group, at its own lines (the data and
        # horizons, the architecture, the regularization, the schedule): this experiment's
        # settings, narrower than the run and the program every task of the paper shares
        by_run = self._script_settings(runs)
        settings = [x for group in by_run for x in group]
        evaluate = self.stages.evaluation(files, picked, _data_names(task))
        # measures named with their data set ("Wiki-Convert PPL", "Numeracy600K Hit@1") are
        # looked for by the measure: the code computes `ppl`, never "Wiki-Convert"
        measures = measures_per_set(task) or plan.metrics
        # the definitions of the measures, in the modules the entry point imports, then in
        # the entry point itself (SegVol's `dice_score` in inference_demo.py)
        metric = self.measures.metric_step(measures, [*modules, *([entry] if entry else [])])
        # what one run goes through (SegVol's organs) is compared only when nothing else is
        covered = [a for a in arms if any(a in r.covers for r in runs)]
        # nor what the question compares "within each of" (TRICE's backbones)
        compared = [
            a for a in arms if a not in covered and not repeated_within(task.question, a.value)
        ] or arms
        # the evaluation a training run is followed by (`then evaluate it: python eval.py`)
        evaluated = {w for r in runs if r.then for w in re.findall(r"[\w./-]+\.py\b", r.then)}
        chained = [
            o for o in also if any(o == w or o.endswith("/" + w.lstrip("./")) for w in evaluated)
        ]
        # a program comparing the runs' results (`analysis.py`) reads what they wrote: after
        chained += [o for o in also if o not in chained and compares(o)]
        # the test the paper reports is printed there, not by the training's validation logs
        # the lines of the entry point no run reaches (`if args.only_id:`, a switch no run
        # passes, and the function only it calls) are no step, nor where the report is
        unreached = [(entry or "", a, b) for a, b in untaken]
        plan.unreached = unreached
        reported = self.measures.report_step(
            measures, compared, evaluate, judge or entry, also=also, first=chained, avoid=unreached
        )
        report, plan.printed = reported or (None, "")
        # measures a program of the repository computes from what the runs wrote, which the
        # report line does not print (BenchMARL's `eval_results.py` draws the performance
        # profiles of the runs' returns): the comparison is made where it computes them
        if report is not None and measures:
            report = self._analysed(report, measures, entry, also, runs)
        if plan.metrics and entry is not None:
            programs = [entry, *also, *trainers, *([judge] if judge else [])]
            programs += [w for r in runs for w in re.findall(r"[\w./-]+\.py\b", r.then)]
            # not what the entry point imports only on lines no run reaches (run.py's
            # `from exp.exp_anomaly_detection import ...` under another `--task_name`)
            aside = self._imported_aside(entry, untaken)
            read = list(
                dict.fromkeys(
                    m
                    for p in dict.fromkeys(posixpath.normpath(x) for x in programs)
                    if p in self.known
                    for m in imported(self.index, p, MAX_READ, aside if p == entry else frozenset())
                )
            )
            plan.unreported = self.reported.unreported(measures, read, self.path_words)
            plan.computed_as = {
                m: places for m in plan.unreported if (places := self.measures.computed_as(m, read))
            }
            # computed only where the training reaches (its loss), not the run's program
            evaluated = set(imported(self.index, entry, MAX_READ, aside)) if trainers else set()
            for measure, places in plan.computed_as.items():
                paths = {c.step.path for c in places}
                if paths & evaluated:
                    continue
                plan.recorded_in[measure] = next(
                    (t for t in trainers if paths <= set(imported(self.index, t, MAX_READ))), ""
                )
            plan.recorded_in = {m: t for m, t in plan.recorded_in.items() if t}
            if report is not None:
                report = self._recorded(report, measures, plan.computed_as)
        if metric is None:  # a function assigning the measures by name (`auroc = ...`)
            metric = self.measures.computed_metric(
                measures, [*([entry] if entry else []), *modules]
            )
        if metric is None:  # a table of the measures by name, in a program the runs chain
            metric = self.measures.keyed_metric(
                measures, [*([entry] if entry else []), *also, *modules]
            )
        if metric is None and report is not None:
            metric = self.measures.printed_metric(report, modules)
        if metric is None and plan.computed_as:  # a measure no line prints, computed unsaid
            metric = next(iter(plan.computed_as.values()))[0].step
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
            others_dead = self.filters.dead_branches(other, runs)
            found = [
                b
                for b in self.tracer.block_steps(other, q, limit=4)
                if not self.filters.unused_branch(b, other, runs, others_dead)
                and not self.filters.library_object(b, q)
            ]
            if other in chained:
                later += found
            else:
                blocks += found
        # the evaluation of what a config program trained comes after the training
        # (read past what only builds from the config, which is no step: see below)
        judged = self.tracer.block_steps(judge, q, limit=12) if judge else []
        # nor what lies in its lines no run reaches (`single_gpu_test` under `if not
        # distributed:`, every run launched distributed)
        spans = self.filters.untaken(judge, runs) if judged else []
        judged = [
            b
            for b in judged
            if not self.filters.builds_from_config(b)
            and self.filters.about_experiment(b, q, True)
            and not self.filters.not_taken(b, judge, runs)
            and not any(a <= b.start and b.end <= z for a, z in spans)
        ]
        judged = judged[:3] + judged[-1:] if len(judged) > 4 else judged  # it ends reporting
        judged += [b for b in later if self.filters.about_experiment(b, q, True)]
        # the `if args.x == 'v':` bodies no run takes: every run gives x another value
        dead = self.filters.dead_branches(entry, runs)
        blocks = [b for b in blocks if not self.filters.unused_branch(b, entry, runs, dead)]
        # what every run of the repository does (config loading, an experiment wrapper) says
        # nothing of this experiment: keep the blocks and calls about its data, model,
        # training, evaluation or the task's own names
        blocks = [b for b in blocks if self.filters.about_experiment(b, q, bool(configs))]
        # a library's object made in a few lines (`DataLoader(...)`, `np.array(...)`) is the
        # plumbing around the experiment, unless the task names it (LoRA's `LoraConfig`)
        blocks = [b for b in blocks if not self.filters.library_object(b, q)]
        # a framework's program building what the configs set (`build_segmentor(cfg.model)`,
        # `build_dataset(cfg.data.train)`): the configs' own steps say what it builds
        if configs:
            blocks = [b for b in blocks if not self.filters.builds_from_config(b)]
        # a block that only calls what is cited by its definition (`exp.test(setting)` beside
        # the Evaluate step) says nothing new, and would put the test before the training
        defined = {
            m.group(1).rsplit(".", 1)[-1]
            for s in (train, evaluate)
            if s and (m := re.match(r"\w+ \(([\w.]+)\)", s.action))
        }
        blocks = [b for b in blocks if not self.filters.only_calls(b, defined)]
        # the call site and the definition worded alike, or a block that only calls what
        # other steps cite by their definitions (`print("accuracy", score(x))`): the
        # definition says more
        blocks = [b for b in blocks if all(b.action != c.action for c in called)]
        cited = self.filters.defined([*called, *(s for s in (train, evaluate, metric) if s)])
        blocks = [b for b in blocks if not self.filters.only_calls(b, cited)]
        # what the main block hands the whole run to last (`pipeline.run()`, a long method of
        # the repository's own) is the experiment, whatever config it reads first
        handed = called[-1] if called and called[-1].end - called[-1].start > WIDE_STEP else None
        called = [
            c
            for c in called
            if (c is handed or self.filters.about_experiment(c, q, bool(configs)))
            and not self.filters.library_object(c, q)
        ]
        if configs:
            called = [c for c in called if not self.filters.builds_from_config(c)]
        # what the main block calls only on a path no run takes (`ResNet34(...)` under
        # `elif args.model == 'ResNet34':` when every run gives ResNet18) is no step
        spans = [(first, last) for _, first, last in dead] + untaken
        called = [
            c
            for c in called
            if not self.filters.called_only_in(c, entry, spans) and not self.filters.factory(c)
        ]
        # a branch the main block's own steps cite from its `if` on says it in execution order
        branches = [
            b for b in branches if all((x.path, x.start) != (b.path, b.start) for x in blocks)
        ]
        # When there are too many steps, inline blocks go first, then called functions, then
        # extra branches.
        coded = _code_steps(runs)
        # a hydra program's runs: the configs they compose, each chosen file by its keys
        composed = hydra_config_steps(self.args, entry, runs) if entry else []
        options_step = self._options_step(entry, runs, arms, held)
        # a key the runs override is cited beside the chosen file that sets it
        keys = [options_step] if composed else []
        # where the options selecting the arms or sweeping a number take effect, past their
        # `if`s (`self.layers[-1 * self.adapter_layer:]` for `--adapter_layer`)
        used = self._option_uses(entry, modules, runs)
        uses = [u for u, _ in used]
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
        # In execution order: the runs launched with their settings, the data, the options,
        # the method, the training the runs are chained after, the entry point's branches,
        # what its main block does inline and the functions it calls, the training loop,
        # the evaluation, and last what only prints or saves the results
        printed = [b for b in blocks if _PRINTS.match(b.action)]
        before = [b for b in blocks if b not in printed]
        plotted = [c for c in called if _PRINTS.match(c.action)]  # `Plot` after `Train`
        calls = [c for c in called if c not in plotted]
        setting, starting = _launch_order(launches, launched)
        # an evaluation chained after its training takes its branches after that training
        ahead, behind = ([], branches) if stages else (branches, [])
        order = [
            *setting,
            data,
            *benchmarks,
            *composed,
            *_selection_steps(runs),
            options_step,
            *_suite_steps(runs),
            coded[0] if coded else None,
            *parts,
            *configured,
            *baselines,
            optimizer,
            *own,
            *ahead,
            *stages,
            *losses,
            *behind,
            *code,
            *uses,
            *before,
            *calls,
            train,
            *hooks,
            *starting,
            self._cost_counter(plan.metrics, runs),
            *judged,
            evaluate,
            metric,
            *printed,
            *plotted,
        ]
        # narrow, task-specific steps win over the definitions around them
        steps = _distinct(order, first=[*branches, *launches, metric, evaluate, train, data, *keys])
        steps = self.named_parts_only(steps)
        # a definition cited as the method's part where an arm's option takes effect says
        # so ("Compute Transformer's forward pass, where --adapter_layer takes effect"); an
        # arm's own path keeps its wording ("On the Value path: ...")
        pathed = [*branches, *extra, *code]
        steps = [s if any(s is p for p in pathed) else _where_used(s, used) for s in steps]
        steps = self.reached(steps, entry, plan)
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
        # then the other arms' launches, which the usage gives command by command: they lead
        # the steps, and would otherwise crowd out the method's own code at the end
        cut += [s for s in reversed(steps) if any(s is x for x in launches[1:])]
        cut += [s for s in reversed(steps) if any(s is c for c in code)]  # then arms' code
        while len(steps) > MAX_STEPS - 1 and cut:
            drop = cut.pop(0)
            steps = [s for s in steps if s is not drop]  # a step listed twice goes once
        plan.steps = _apart_from_settings(steps[: MAX_STEPS - 1], settings, self.search.lines)
        if e is not None:  # a method handing over by a setting: the branch the runs take
            given = given_values(e, [r for r in runs if not r.missing])
            plan.steps = [self.filters.dispatched(s, given) for s in plan.steps]
        # the entry point's steps, and what it calls, in the order the run reaches them
        # ... after the training they are chained to (its loop, its losses), which runs first
        trained_first = [*stages, *losses]
        ahead = [
            s
            for s in plan.steps
            if trainers
            and s.path != entry
            and (s.path in trainers or any(s is t for t in trained_first))
        ]
        plan.steps = self.execution.ordered(plan.steps, entry, starting, ahead)
        plan.method_modules += [
            s.path for s in plan.steps if any(s is c for c in code) and self.arm_code.of_a_class(s)
        ]
        if report is not None:
            # the comparison ends the steps, even inside one, in a step of its own lines'
            # place (2-WL's "Print the results" at the summary it reports from); a step
            # ending on its lines (Contrastive Clustering's "Evaluate" at cluster.py:148-149,
            # the report at :149) ends before; one beginning on its first line is its own
            # (BenchMARL's "Call Plotting.performance_profile_figure" at eval_results.py:261)
            plan.steps = [
                replace(s, end=report.start - 1)
                if s.path == report.path and s.start < report.start <= s.end <= report.end
                else s
                for s in plan.steps
                if (s.path, s.start) != (report.path, report.start)
            ]
            plan.steps.append(report)
        plan.steps = _shared_paths(plan.steps, runs)
        return plan

    def _analysed(
        self,
        report: Step,
        measures: list[str],
        entry: str | None,
        also: Sequence[str],
        runs: list[Run],
    ) -> Step:
        """The report at the repository's analysis program, when it computes measures from
        what the runs wrote that the report line does not print (BenchMARL's
        `eval_results.py` draws the performance profiles of the runs' returns): the
        comparison is made where it computes them. Else the report as it is."""
        ran = " ".join([entry or "", *(f"{r.command} {r.then}" for r in runs)])
        found = self.analyses.find(measures, [p for p in [entry, *also] if p], ran)
        if found is None or any(self.measures.step_prints(report, m) for m in found.measures):
            return report
        if (called := self.analyses.calls(found)) is None:
            return report
        first, last, name = called
        head = report.action.split("; ")[0]
        what = in_prose(found.measures)
        return Step(
            f"{head}, {what} computed from the runs' results by {name}", found.path, first, last
        )

    def _recorded(
        self, report: Step, measures: list[str], computed_as: dict[str, list[Computed]]
    ) -> Step:
        """The report where the code computes the task's measures, when no line of the runs
        prints any of its first three and the code computes each (Contrastive Clustering's
        similarity of positive pairs, `sim`): a report line printing others (NMI, ACC) is
        not where they are taken. Cited where the first is computed; else the report."""
        first = list(measures[:3])
        if not first or any(m not in computed_as for m in first):
            return report
        if any(self.measures.step_prints(report, m) for m in first):
            return report
        place = computed_as[first[0]][0]
        head = report.action.split("; ")[0].replace("Report ", "Record ", 1)
        it = "them" if len(first) > 1 else "it"
        where = f"{place.name} in {place.owner}" if place.owner else place.name
        return replace(place.step, action=f"{head}; the code computes {it}: {where}")

    def named_parts_only(self, steps: list[Step]) -> list[Step]:
        """Without a step citing a whole function that another step cites a part of by the
        function's name: MogaNet's "Train (train_one_epoch)" at train.py:732-752 says what
        "Train one epoch" at 688-806, the whole `train_one_epoch`, does, and more narrowly.
        A part is three lines or more: one line calling a method of that name
        (`trainer.train()` inside `def train`) is no part of that kind."""

        def whole(s: Step) -> str:  # the function the step cites whole, else ""
            if not s.path.endswith(".py"):
                return ""
            return next(
                (
                    i.name.rsplit(".", 1)[-1]
                    for i in self.tracer.outline(s.path)
                    if i.kind in ("function", "method") and (i.start, i.end) == (s.start, s.end)
                ),
                "",
            )

        def named_inside(s: Step, name: str) -> bool:
            said = re.compile(rf"\((?:\w+\.)?{re.escape(name)}\)")
            return any(
                o is not s
                and o.path == s.path
                and s.start <= o.start <= o.end - 2 <= s.end - 2  # a part, not its call
                and (o.start, o.end) != (s.start, s.end)
                and said.search(o.action)
                for o in steps
            )

        return [s for s in steps if not ((name := whole(s)) and named_inside(s, name))]

    def unreported_by(self, measures: list[str], entry: str, runs: list[Run]) -> list[str]:
        """Of the measures, those no module the runs of `entry` reach names in a string or
        report statement: not what the entry point imports only on lines no run reaches
        (run.py's `from exp.exp_anomaly_detection import ...` under another `--task_name`)."""
        aside = self._imported_aside(entry, self.filters.untaken(entry, runs))
        read = imported(self.index, entry, MAX_READ, aside)
        return self.reported.unreported(measures, read, self.path_words)

    def reached(self, steps: list[Step], entry: str | None, plan: Plan) -> list[Step]:
        """The steps the runs reach: none within the entry point's lines no run reaches, nor
        a function it calls only from them, nor a factory that only returns one call's
        object. The plan's own steps pass through it, and so do steps traced outside it."""
        spans = [(a, b) for p, a, b in plan.unreached if p == entry]
        return [
            s
            for s in steps
            if not _inside(s, plan.unreached)
            and not self.filters.called_only_in(s, entry, spans)
            and not self.filters.factory(s)
        ]

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
                    if not self.filters.library_object(Step(a, step.path, b, e), q)
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

    def _imported_aside(self, entry: str, untaken: list[tuple[int, int]]) -> frozenset[str]:
        """The repository modules the entry point imports only on lines no run reaches."""
        tree = self.tracer.tree(entry)
        if tree is None or not untaken:
            return frozenset()
        direct = self.index.imports.get(entry, [])
        aside: set[str] = set()
        taken: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            where = [
                p
                for name in names
                for p in direct
                if p.endswith(
                    (name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py")
                )
            ]
            off = any(a <= node.lineno <= b for a, b in untaken)
            (aside if off else taken).update(where)
        return frozenset(aside - taken)

    def _closure(self, entry: str, untaken: list[tuple[int, int]] | None = None) -> list[str]:
        """The repository modules the entry point reaches through its imports; not through
        an import only on its `untaken` lines, which no run reaches (run.py's `from
        exp.exp_classification import ...` under another `--task_name`)."""
        aside = self._imported_aside(entry, untaken) if untaken else frozenset()
        found = imported(self.index, entry, 81, aside)
        return [m for m in found if m.endswith(".py") and m != entry][:80]

    def _option_uses(
        self, entry: str | None, modules: list[str], runs: list[Run]
    ) -> list[tuple[Step, str]]:
        """The definitions reading the value of each option a run sets to select its arm
        (`OptionUses`), each with its option, the options in the runs' order."""
        if entry is None or not entry.endswith(".py"):
            return []
        options = dict.fromkeys(
            r.switch for r in runs if r.switch.startswith("--") and r.arms and not r.missing
        )
        found: list[tuple[Step, str]] = []
        for option in options:
            for step in self.option_uses.steps(option, [entry, *modules], entry):
                if all((step.path, step.start) != (f.path, f.start) for f, _ in found):
                    found.append((step, option))
        return found

    def _options_step(
        self, entry: str | None, runs: list[Run], arms: list[Arm], held: list[tuple[CliFlag, str]]
    ) -> Step | None:
        """The parser lines of the options that select the arms (`--wo_conv`,
        `--model_type`), not the whole parser, nor those that set what the task holds fixed;
        none when no option tells the arms apart."""
        e = self.entries.get(entry or "")
        if e is not None and e.kind == "hydra":
            return self._config_keys_step(runs, e)
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
        start, end = _cluster(lines)
        # the options the cited lines define, not one far from them the step cannot cite
        names = [f.name for f in e.flags if f.name in wanted and start <= f.line <= end][:6]
        if all(_SELECTOR.fullmatch(n.lstrip("-")) for n in names):
            return None  # `--model`: the runs name each model, whose own code is cited
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

    def _cost_counter(self, metrics: list[str], runs: list[Run]) -> Step | None:
        """Where the repository's counter (`get_flops.py`, documented) measures the cost the
        task compares ("parameter efficiency", "GFLOPs"), when no run runs it: its main
        block, which the usage's counting line runs, or the function that block calls."""
        costs = [m for m in metrics if names_cost(m)]
        if not costs:
            return None
        ran = " ".join(r.command for r in runs)
        for _, counters in counting_docs(self.index.commands):
            counter = next((r for r in counters if r.endswith(".py")), None)
            if counter is None or counter in ran or counter not in self.known:
                continue
            tree = self.tracer.tree(counter)
            body = main_body(tree) if tree is not None and has_main(tree) else []
            if not body:
                continue
            # `if __name__ == '__main__': main()`: the function it calls does the counting
            called = {
                n.func.id
                for st in body
                for n in ast.walk(st)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            }
            own = [
                n
                for n in (tree.body if tree is not None and len(body) <= 2 else [])
                if isinstance(n, ast.FunctionDef) and n.name in called
            ]
            first = own[0].body if own else body
            # from the first statement naming what it counts (`get_model_complexity_info`,
            # `flops, params = ...`) to the last (`print(f'GFLOPs {macs}.')`), past the
            # arguments and the model it builds first
            counting = [st for st in first if _counts(st)] or first
            start = counting[0].lineno
            end = min(counting[-1].end_lineno or start, start + MAX_COUNTER_LINES)
            what = in_prose(costs[:3])
            return Step(f"Count {what} with the repository's counter", counter, start, end)
        return None

    def _config_keys_step(self, runs: list[Run], e: EntryPoint | None = None) -> Step | None:
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
        # where the program's own config sets it (a tuned `experiment:` block), else its group's
        found = [
            (k, at)
            for k in dict.fromkeys(keys)
            if (at := primary_key_line(self.args, e, k) or self.args.config_key_line(k))
        ]
        if not found:
            return None
        path = found[0][1][0]
        lines = [line for _, (p, line) in found if p == path]
        names = [k for k, (p, _) in found if p == path]
        start, end = _cluster(lines)
        return Step(f"Set the overridden config values: {', '.join(names)}", path, start, end)

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
        # a script training another model in the arm's place says so where it is cited
        script = posixpath.basename(run.script) + (
            f"; it trains {run.variant}" if run.variant else ""
        )
        if run.script and settings:  # with the loop header just above the invocation
            lines = self.search.lines(run.script)
            settings = _swept_within(settings, lines[max(0, run.lines[0] - 4) : run.lines[1]])
        return Step(f"{what} ({script}){settings}", run.script, *run.lines)


# a program that compares what the runs produced: eval_results.py, validate.py, plot_x.py
_COMPARE_STAGE = re.compile(r"(?:eval|valid|plot|analy)", re.I)


def compares(program: str) -> bool:
    """The program is the comparing stage of an experiment: an evaluation, validation,
    plotting or analysis program (`analysis.py`, `eval_ood.py`)."""
    return bool(_COMPARE_STAGE.match(posixpath.basename(program)))


def _where_used(step: Step, used: list[tuple[Step, str]]) -> Step:
    """The step, saying which option takes effect in its lines when a use of one cites the
    same lines."""
    for use, option in used:
        if (use.path, use.start, use.end) == (step.path, step.start, step.end) and use is not step:
            return replace(step, action=f"{step.action}, where {option} takes effect")
    return step


def _shared_launches(launches: list[Step], launched: list[Run]) -> list[Step]:
    """One script line every arm runs, each after its own in-code switches (SegVol's
    `inference_demo.sh` for text, box and point): its step names them all, where it named
    the first run's arm alone."""
    out: list[Step] = []
    for step, run in zip(launches, launched, strict=True):
        same = [
            r
            for s, r in zip(launches, launched, strict=True)
            if (s.path, s.start, s.end) == (step.path, step.start, step.end) and r.edits
        ]
        if len(same) >= 2 and run.edits:
            what = in_prose([arm_name(a) for r in same for a in r.arms])
            script = posixpath.basename(step.path)
            step = replace(step, action=f"Run {what} ({script}), each after setting its switches")
        out.append(step)
    return out


def _launch_order(launches: list[Step], launched: list[Run]) -> tuple[list[Step], list[Step]]:
    """The launches read first and those read last. A launch that sets the run's options is
    its configuration, read first; one that only starts the program (`python
    inference_demo.py --demo_config x`) runs it, last. Beside launches that set options,
    another launch script of the runs is read with them (PDF's ETTh1 script, whose run
    sets the arm's own settings on its command), not after the training."""
    setting = [s for s, r in zip(launches, launched, strict=True) if r.settings.strip()]
    setting = [s for s in launches if s in setting or (setting and s.path.endswith(".sh"))]
    return setting, [s for s in launches if s not in setting]


def _code_steps(runs: list[Run]) -> list[Step]:
    """The lines that hard-code the switches selecting the arms: a step per arm's run, what
    it sets them to (two to `MAX_CODED` runs; one step saying each, when they all set the
    same lines), else one step for them all."""
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
        if len({(o.path, o.start, o.end) for o in out}) == 1:  # the same lines for every arm
            each = "; ".join(o.action.removeprefix("Select ") for o in out)
            return [Step(f"Select each arm at these lines: {each}", out[0].path, start, end)]
        return out
    path = settings[0].path
    start, end = _cluster(sorted(c.line for c in settings if c.path == path))
    names = ", ".join(c.target for c in settings if start <= c.line <= end)
    chosen = ", ".join(a.value for r in coded for a in r.arms)[:80]
    return [Step(f"Set the in-code switches that select {chosen}: {names}", path, start, end)]


def _selection_steps(runs: list[Run]) -> list[Step]:
    """The config lines selecting the runs' arms (a registry's entry, the list naming it),
    each once."""
    out: dict[tuple[str, int, int], Step] = {}
    for r in runs:
        for action, path, start, end in r.selects:
            out.setdefault((path, start, end), Step(action, path, start, end))
    return list(out.values())


def _apart_from_settings(
    steps: list[Step], settings: list[Step], lines_of: Callable[[str], list[str]]
) -> list[Step]:
    """A launch's step cites the lines of its invocation its settings' steps do not (the
    program and what comes before the first group of flags): cited whole as well, the same
    lines would be cited twice, which a reader takes for padding. A launch whose settings
    were all cut keeps its whole range. A cut launch's wording lists no flag: its settings'
    steps say them."""
    kept = [s for s in steps if any(s is x for x in settings)]
    out: list[Step] = []
    for s in steps:
        inner = [
            x.start
            for x in kept
            if x is not s and x.path == s.path and s.start < x.start and x.end <= s.end
        ]
        if inner and not any(s is x for x in settings):
            end = min(inner) - 1
            s = Step(
                _flags_within(s.action, lines_of(s.path)[s.start - 1 : end]), s.path, s.start, end
            )
        out.append(s)
    return out


_LOOP = re.compile(r"^\s*for\s+(\w+)\s+in\s+([^;#\n]+?)\s*(?:;|$)")


def _swept_within(settings: str, lines: list[str]) -> str:
    """The run's settings as its cited lines give them: a value set the script sweeps over
    several loops or invocations (`--pred_len {96,192,336,720}`) cut to the values of the
    loop the lines hold (`for pred_len in 96 192 336`) or that they write (`--pred_len 96`),
    the others said to follow ("--pred_len 96; its later lines run --pred_len 192, 336,
    720")."""
    loops = {m[1]: m[2].split() for line in lines if (m := _LOOP.match(line))}
    text = " ".join(lines)

    def cut(m: re.Match[str]) -> str:
        # the loop's values, else those the lines write after the flag (`--pred_len 96`)
        values = loops.get(m[1].replace("-", "_")) or re.findall(
            rf"(?<![\w-])--{re.escape(m[1])}[ =]+([^\s\\$]+)", text
        )
        if not values:
            return m[0]
        every = m[2].split(",")
        kept = [v for v in every if v in values]
        if not kept or len(kept) == len(every):
            return m[0]
        here = kept[0] if len(kept) == 1 else f"{{{','.join(kept)}}}"
        later.append(f"--{m[1]} {', '.join(v for v in every if v not in kept)}")
        return f"--{m[1]} {here}"

    later: list[str] = []
    said = re.sub(r"--([\w-]+) \{([^{}]+)\}", cut, settings)
    return said + (f"; its later lines run {'; '.join(later)}" if later else "")


def _flags_within(action: str, lines: list[str]) -> str:
    """A launch's wording for its cut lines: the flags it names that those lines give, the
    rest said to be the next steps' ("Run MLP (etth1.sh) with --model_type mlp, and the
    settings the next steps give")."""
    head, _, flags = action.partition(" with --")
    if not flags:
        return action
    pairs = re.findall(r"(--[\w.-]+)((?:\s+(?!--)\S+)*)", "--" + flags)
    text = " ".join(lines)
    kept = [f"{f}{v}" for f, v in pairs if re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", text)]
    if len(kept) == len(pairs):
        return action
    if kept:
        return f"{head} with {' '.join(kept)}, and the settings the next steps give"
    return f"{head}, with the settings the next steps give"


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


def mentioned_at(run: Run, question: str) -> int:
    """Where the question first names one of the run's arms; -1 when it names none. An arm
    of a method and its backbone ("SegNeXt-L∗ / MSCAN-L") is named by its method too, its
    table marks (∗, †, $) left out."""
    text = question.lower()
    found = [text.find(a.value.lower()) for a in run.arms if a.value.strip()]
    for a in run.arms:
        head = _MARKS.sub("", a.value.split(" / ")[0]).strip().lower()
        if " / " in a.value and len(head) >= 3:
            hit = re.search(rf"(?<![\w-]){re.escape(head)}(?![\w-])", text)
            found.append(hit.start() if hit else -1)
    return min((i for i in found if i >= 0), default=-1)


_MARKS = re.compile(r"[∗*†‡$§¶]+")


def by_mention(runs: list[Run], question: str) -> list[Run]:
    """The runs in the order the question first names one of their arms; those it names
    none of after, in their own order."""
    after = len(question) + 1
    return sorted(runs, key=lambda r: at if (at := mentioned_at(r, question)) >= 0 else after)


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


def _data_names(task: TaskDraft) -> frozenset[str]:
    """The data sets the task runs or is measured on, folded ("ade20k", "imagenet")."""
    held = task.design_complexity.constant_variables
    named = [
        *task_datasets(task),
        *measured_on(task),
        *(str(v) for k, v in held.items() if str(k).endswith("measured on") or k == "setting"),
    ]
    return frozenset(f for n in named if len(f := squash(n)) >= 3)


def _shared_paths(steps: list[Step], runs: list[Run]) -> list[Step]:
    """A path one run takes for several arms of one variable ("Exp Others" and "Exp Units",
    told apart only by what their results are reported by) is named by the words they
    share: "Take the Exp path", not "Take the Exp Others path"."""
    said: dict[str, str] = {}
    for run in runs:
        for shared, values in shared_heads(run):
            said.update({value: shared for value in values})
    if not said:
        return steps
    pattern = re.compile(r"\bthe (" + "|".join(map(re.escape, said)) + r") path\b")

    def named(action: str) -> str:
        action = pattern.sub(lambda m: f"the {said[m[1]]} path", action)
        # the options select what the runs share ("Exp, Default: --enc"), not the kinds
        # their results are told apart by
        if (m := _SELECTING.match(action)) is not None:
            listed = dict.fromkeys(said.get(x, x) for x in m[2].split(", "))
            action = f"{m[1]}{', '.join(listed)}{m[3]}"
        return action

    return [replace(s, action=named(s.action)) for s in steps]


_SELECTING = re.compile(r"(Add the options that select )(.+?)(: --.*)$")


def _distinct(steps: list[Step | None], first: list[Step | None] | None = None) -> list[Step]:
    """The steps in their order without gaps or repeats. `first` are the steps that win when
    two cite the same lines (the narrower, more specific ones), chosen before the rest."""
    chosen: list[Step] = []
    for s in [*(first or []), *steps]:
        if s is not None and not any(s is c for c in chosen) and not _covered(s, chosen):
            chosen.append(s)
    return [s for s in steps if s is not None and any(s is c for c in chosen)]


_COUNTED = re.compile(r"flop|param|macs?\b|complexity|profile|count|throughput|latency", re.I)


def _counts(statement: ast.stmt) -> bool:
    """The statement names what a cost counter counts: a name, attribute or function of
    FLOPs, MACs, parameters, complexity, throughput or latency."""
    return any(
        (isinstance(n, ast.Name) and _COUNTED.search(n.id))
        or (isinstance(n, ast.Attribute) and _COUNTED.search(n.attr))
        for n in ast.walk(statement)
    )


def _cluster(lines: list[int], span: int = 25) -> tuple[int, int]:
    """The window of at most `span` lines holding the most of `lines` (sorted): options
    defined far apart are not cited as one range of the whole parser."""
    best = (lines[0], lines[0], 1)
    for i, first in enumerate(lines):
        inside = [x for x in lines[i:] if x - first <= span]
        if len(inside) > best[2]:
            best = (first, inside[-1], len(inside))
    return best[0], best[1]


def _inside(step: Step, spans: list[tuple[str, int, int]]) -> bool:
    """The step's lines lie within one of the spans (a path, its first and last line)."""
    return any(p == step.path and a <= step.start and step.end <= b for p, a, b in spans)
