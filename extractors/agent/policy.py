"""The heuristic setup agent: a fixed search policy over the read-only repository tools.

It works like a careful human: search the code with the task's words, look for the names the
task uses, rank what runs an experiment, open the chosen entry point, follow it into the
modules it imports, and write down what it found. Every tool call goes through `_Tools`, which
records it for the reviewer and stops at the step budget.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from expcurate.records import (
    REF_RE,
    STEP_RE,
    RepoIndex,
    Setup,
    StageError,
    TaskDraft,
    ToolCall,
    Usage,
)
from expcurate.records.refs import inside
from extractors.repo import RepoPathError, RepoSearch, stem, terms
from extractors.repo.commands import only_checks, python_entry, sets_up
from extractors.validate.repo_checks import reference_problems
from extractors.validate.tree import WorkTree

from .arm_calls import ArmDefinitions
from .arm_options import (
    as_data_variables,
    data_set_names,
    fold,
    listed_fit,
)
from .arms import (
    Arm,
    form_words,
    held_backbones,
    measured_on,
    task_arms,
    task_datasets,
    task_metrics,
)
from .gist import Gists
from .launch import invocation_of
from .methods import MethodModules
from .notebook_arms import NotebookArms
from .plan import (
    FEW_STEPS,
    MAX_STEPS,
    Plan,
    StepPlanner,
    by_mention,
    compares,
    mentioned_at,
)
from .query import TaskQuery, asks_how, asks_to_build, build_query
from .rank import Candidate, Ranker, preparing
from .run import Run
from .runs import RunPlanner
from .stages import experiment_beside
from .steps import Step, StepTracer
from .usage import RUNNABLE, UsageWriter, measured

MAX_SOURCE = 5
RELATIVE_CUTOFF = 0.6  # keep sources scoring at least this fraction of the best one
MEASURED_LOOKAHEAD = 8  # the best matches looked through for a script reaching the measures
MAX_CANDIDATES = 10
NOTEBOOK_CELLS = 12  # a notebook that is the experiment: its substantial cells, in order
MAX_UNRUN_STEPS = 2  # steps citing the code of arms no run runs
WIDE_DEFINITION = 40  # lines past which such a step cites the definition's first line
RELEVANCE = 1.05  # share of task names found in the repo + share of task words found
WORDS_ONLY_RELEVANCE = 0.85  # share of task words, for a task that names nothing
_NUMERIC = re.compile(r"[\d.,%]+")
_NUMBER_NAME = re.compile(r"\d[\d.]*(?:e_?\d*)?$")  # 1e_5, 3.5
HEURISTIC_VERSION = "setup-heuristic-315"  # bump when the policy's output changes


class _OutOfSteps(Exception):
    pass


class _Tools:
    """The agent's only access to the repository; every call is recorded."""

    def __init__(self, search: RepoSearch, max_steps: int) -> None:
        self.search = search
        self.max_steps = max_steps
        self.trace: list[ToolCall] = []

    def __call__(self, tool: str, **args: Any) -> Any:
        if len(self.trace) >= self.max_steps:
            raise _OutOfSteps
        try:
            result = getattr(self.search, tool)(**args)
        except (RepoPathError, OSError) as exc:
            self.trace.append(ToolCall(tool=tool, args=args, result=f"error: {exc}"))
            return None
        self.trace.append(ToolCall(tool=tool, args=args, result=_summary(result)))
        return result

    def note(self, tool: str, args: dict[str, Any], result: str) -> None:
        """Record a decision step (ranking) that used the tools' results, not the repo."""
        if len(self.trace) >= self.max_steps:
            raise _OutOfSteps
        self.trace.append(ToolCall(tool=tool, args=args, result=result[:600]))


def _summary(result: Any) -> str:
    if isinstance(result, str):
        return result[:300] + (" ..." if len(result) > 300 else "")
    if isinstance(result, list):
        shown = "; ".join(str(r) for r in result[:8])
        more = f" (+{len(result) - 8} more)" if len(result) > 8 else ""
        return f"{len(result)} result(s): {shown}{more}"[:600]
    return str(result)[:300]


class SetupAgent:
    """Recovers setups for many tasks of one repository, reusing its search index."""

    prompt_version = HEURISTIC_VERSION

    def __init__(self, index: RepoIndex, root: Path, search: RepoSearch | None = None) -> None:
        self.issues: list[StageError] = []  # none: the heuristic has no provider to fail
        self.index = index
        self.root = Path(root)
        self.search = search or RepoSearch(self.root, index)
        self.ranker = Ranker(index, self.search)
        self.tracer = StepTracer(index, self.search)
        self.methods = MethodModules(index, self.tracer)
        self.gists = Gists(self.tracer)
        self.run_planner = RunPlanner(index, self.search, self.tracer, self.methods)
        self.step_planner = StepPlanner(
            index,
            self.search,
            self.tracer,
            self.methods,
            self.run_planner.args,
            self.run_planner.config_files,
            self.run_planner.data,
            self.run_planner.programs,
        )
        self.arm_definitions = ArmDefinitions(self.search)
        self.usage_writer = UsageWriter(
            index,
            self.search,
            self.run_planner.data,
            self.run_planner.programs,
            self.arm_definitions,
            self.step_planner.analyses,
        )
        self.entries = {e.path: e for e in index.entry_points}
        self.options = [f for e in index.entry_points for f in e.flags]  # every program's
        self._sole: str | None = None  # the README's one program, "" when it has none or many

    @property
    def usage(self) -> Usage:
        """No model calls: the same interface as the LLM agent's, always zero."""
        return Usage()

    def recover(self, task: TaskDraft, *, max_steps: int = 40) -> Setup:
        tools = _Tools(self.search, max_steps)
        setup = Setup()
        try:
            self._run(task, tools, setup)
        except _OutOfSteps:
            if not setup.source and not setup.no_answer:
                setup.no_answer = (
                    f"step budget of {max_steps} tool calls ran out before a file was chosen"
                )
        setup.trace = tools.trace
        return setup

    # ------------------------------------------------------------ policy

    def _run(self, task: TaskDraft, tools: _Tools, setup: Setup) -> None:
        q = build_query(task)
        query = " ".join([*q.words, *q.names, *q.names])
        tools("search", query=query[:2000], k=10)
        text_scores = self.search.scores(query)
        found = [n for n in q.phrases if self.search.document_frequency(n.lower()) > 0]
        for phrase in sorted(found, key=lambda n: self.search.document_frequency(n.lower()))[:2]:
            tools("grep", pattern=f"(?i){re.escape(phrase)}", max_hits=10)
        ranked = self.ranker.rank(q, text_scores)
        reason = self._no_answer(q, ranked)
        tools.note(
            "rank",
            {"candidates": len(ranked)},
            "; ".join(f"{c.path} {c.score:.3f} [{c.why()}]" for c in ranked[:6]),
        )
        if reason:
            setup.no_answer = reason
            return
        # a variable of data sets ("group": CIFAR-10, ImageNet-10) is what each arm runs on
        planned = as_data_variables(task, self.options)
        chosen = self._fitting(planned, self._choose(ranked))
        chosen = self._on_the_data(planned, chosen, ranked)
        chosen = self._recipe_first(task, chosen, ranked)
        words_first = chosen[0]
        chosen = self._measured_first(planned, q, chosen, ranked)
        # the script reaching the measures leads the runs too, over the best word match
        lead = chosen[0].path if chosen[0] is not words_first else None
        setup.source = [c.path for c in chosen]
        setup.candidates = [
            c.path for c in ranked[: MAX_SOURCE + MAX_CANDIDATES] if c.path not in setup.source
        ][:MAX_CANDIDATES]
        entry = self._main_entry(chosen)
        if entry is None and chosen[0].kind in ("module", "config", "helper"):
            # the best match is a module or a config: run what runs it
            entry = next(
                (c.path for c in chosen if c.kind == "entry" and c.path.endswith(".py")), None
            )
        if entry is not None:
            tools("outline", path=entry)
            ep = self.entries.get(entry)
            if ep is not None and ep.line:
                tools("read", path=entry, start=ep.line, end=ep.line + 20)
        also: tuple[str, ...] = ()
        try:
            entry, plan, also = self._plan(planned, q, chosen, ranked, entry, lead)
            tools.note(
                "plan",
                {"runs": len(plan.runs), "steps": len(plan.steps)},
                "; ".join(r.command for r in plan.runs) or "no launch script or command fits",
            )
        except _OutOfSteps:
            raise
        except Exception as exc:  # a file the plan cannot read or parse: say so, trace instead
            plan = Plan()
            tools.note("plan", {}, f"no plan ({type(exc).__name__}: {exc}); steps traced instead")
        steps = self._steps(chosen, entry, q, tools, plan, task_arms(planned))
        steps = self._unrun_arms_code(steps, plan, q)
        steps = told_apart(steps, self.search.lines)
        worded = self.gists.worded(steps)
        setup.requirements = _render(worded)
        setup.usage_instructions = self.usage_writer.write(
            chosen, entry, q, planned, plan, steps, worded
        )
        setup.masked_source = self._masked(chosen, entry, ranked, plan, also)
        setup.masked_source += own_modules(steps, setup.masked_source, self.ranker.vendored)
        # the files of the experiment are what its runs run: the program, then the scripts
        # that run it (or the configs it is given), lead the sources; the best matches
        # follow. A task asking how to build something leads with the module that does it.
        scripts = [r.script for r in plan.runs if r.script]
        scripts += list(dict.fromkeys(r.config for r in plan.runs if r.config))[:2]
        build = asks_to_build(task.question) and chosen[0].kind == "module"
        order = [*setup.source[:build], *([entry] if entry else []), *scripts, *setup.source]
        # the experiment whose results an analysis the task leads with reads runs before it
        if not plan.runs and (experiment := experiment_beside(order[0], self.index.entry_points)):
            order.insert(1, experiment)
        setup.source = list(dict.fromkeys(order))[:MAX_SOURCE]
        setup.candidates = [
            c.path for c in ranked[: MAX_SOURCE + MAX_CANDIDATES] if c.path not in setup.source
        ][:MAX_CANDIDATES]
        setup.agent_instructions = agent_instructions(task, q, setup, self.index)

    def _plan(
        self,
        task: TaskDraft,
        q: TaskQuery,
        chosen: list[Candidate],
        ranked: list[Candidate],
        entry: str | None,
        lead: str | None = None,
    ) -> tuple[str | None, Plan, tuple[str, ...]]:
        """The runs, the steps and the other entry points of the task (`runs.py`, `plan.py`);
        `lead` is a launch script to run first whatever its words' score."""
        scores = {c.path: c.score for c in ranked}
        if lead is not None:
            scores[lead] = max(scores.values(), default=0.0) + 1e-6
        runs, entry = self.run_planner.runs(task, q, entry, scores)
        # the program of the arm the question asks about first leads the steps, when the
        # runs run another program too: Trace's run_prompt_bigbench_trace.py for "Can Trace
        # optimize ... more effectively than DSPy's COPRO", not the DSPy program its words
        # matched best, whose steps then follow as another program of the experiment
        beside: list[str] = []
        if (asked := self._asked_program(task, runs, entry)) is not None and entry is not None:
            beside, entry = [entry], asked
        # a multirun on the program the repository keeps for the runs' benchmark, in the
        # entry point's place (fine_tuned/vmas/vmas_run.py): that program is the entry point
        entry = self._swept_program(runs, entry) or entry
        top = chosen[0].path
        home = entry or (top if top.endswith(".py") else None)
        # the model the runs train (`--model CycleNet`) is the method, else the best match
        models = self.run_planner.run_models(runs, q, held_backbones(task))
        method = models[0] if models else None
        # when the compared methods each have their own module (algorithms/mappo.py, ...),
        # those are the method's steps; a best word match would only add plumbing
        own = self.methods.arm_steps(task_arms(task), set())
        if method is None and asks_to_build(task.question) and chosen[0].kind == "module":
            method = self.tracer.method_step(top, q)  # what to build is in the module asked of
        configured = any(r.config for r in runs)  # the configs' classes are the method
        if method is None and home and len(own) < 2 and not configured:
            method = self.tracer.method_step(home, q)
        others = beside + [
            c.path
            for c in chosen[1:]
            if c.kind == "entry" and c.path.endswith(".py") and c.path not in (entry, *beside)
        ]
        also = tuple(others[: 0 if chosen[0].kind == "notebook" else 1])  # a notebook: its own
        # another program is part of this experiment when a run runs it, when it sits beside
        # the entry point in its own folder (generate, fine-tune, evaluate), when it is the
        # entry point's twin (the same file name in another folder: a sequential and a
        # distributed version), when it is named after an arm, or when it is the comparing
        # stage (an evaluation, validation, plotting or analysis program); then its code is
        # cited and it is masked. A keyword neighbour is neither: its code would be a step of
        # some other experiment, and hiding it would hide what the task does not ask for.
        programs = {p for r in runs for p in self.run_planner.programs(r.command)}
        ran = {r.script for r in runs} | programs
        arms = [w for a in task_arms(task) for w in form_words(a)]
        folder = posixpath.dirname(entry or "")
        part = tuple(
            p
            for p in others
            if p in ran
            or (folder and posixpath.dirname(p) == folder)
            or (entry and self.run_planner.twins(p, entry))
            or any(w and w <= set(terms(posixpath.basename(p))) for w in arms)
            or compares(p)
        )[: len(also)]
        # the entry point's whole path under another folder (gorilla/alpaca_finetuning_v1/
        # finetuning.py beside alpaca_finetuning_v1/finetuning.py) is a copy no run runs
        part = tuple(p for p in part if p in ran or not _copy_of(p, entry))
        # the stages the runs chain to the entry point are this experiment's too: the
        # training documented before an evaluation (`stage1.py`, the method's training),
        # the evaluation documented after a training (`cluster.py`)
        chained = [p for r in runs for p in r.trained_by] + [
            p for r in runs if r.then for p in self.run_planner.programs(r.then)
        ]
        part = tuple(dict.fromkeys([*part, *(p for p in chained if p != entry)]))[:MAX_STAGES]
        if configured:  # a config program's evaluation is its own
            part = ()
        plan = self.step_planner.steps(task, q, entry, runs, method, part, rivals=models[1:])
        return entry, plan, part

    def _swept_program(self, runs: list[Run], entry: str | None) -> str | None:
        """The one program every run runs, when each is a multirun (`hydra_sweep`) and that
        program is not the entry point: the program the sweep runs in its place."""
        done = [r for r in runs if not r.missing and r.command]
        if not done or not all(r.sweep for r in done):
            return None
        programs = {
            p
            for r in done
            for p in self.run_planner.programs(r.command)
            if p.endswith(".py") and p in self.entries
        }
        if len(programs) != 1 or entry in programs:
            return None
        return programs.pop()

    def _asked_program(self, task: TaskDraft, runs: list[Run], entry: str | None) -> str | None:
        """The Python program the run of the arm the question names first runs, when it is
        not the entry point and the entry point runs arms named only after it; else None."""
        done = [r for r in runs if not r.missing and r.arms and r.command]
        if entry is None or len(done) < 2:
            return None
        asked = by_mention(done, task.question)[0]
        first = mentioned_at(asked, task.question)
        if first < 0:
            return None
        programs = [
            p
            for p in self.run_planner.programs(asked.command)
            if p.endswith(".py") and p in self.entries
        ]
        if not programs or entry in programs:
            return None
        # the entry point's own runs give arms the question names only later
        own = [r for r in done if entry in self.run_planner.programs(r.command)]
        if not own or any(0 <= mentioned_at(r, task.question) <= first for r in own):
            return None
        return programs[-1]

    def _no_answer(self, q: TaskQuery, ranked: list[Candidate]) -> str:
        """Nothing relevant: the repository lacks the task's names and much of its vocabulary.

        "Share of the task's names found in the repository + share of its content words found"
        must reach `RELEVANCE`. The values of a varied design variable (the methods compared,
        the data sets run) are alternatives: once one of them is found, the absent others do
        not count against the task (a comparison names baselines that its authors'
        repository need not contain); when none is found they count as one missing name.
        Numbers are not words: reported results are rarely in the code. The threshold was set
        on EXP-Bench's development split and held-out set A (docs/benchmarks.md).
        """
        if not ranked or ranked[0].score <= 0:
            return "no file of the repository matches the task's words"
        grouped = {n for group in q.alternatives for n in group}
        # a design variable's label the code does not use is the drafter's word, not missing
        units = [
            ([n], present)
            for n in q.names
            if n not in grouped and ((present := self._present(n, q.text)) or n not in q.keys)
        ]
        for group in q.alternatives:  # the absent alternatives of a found one are forgiven
            here = [([n], True) for n in group if self._present(n, q.text)]
            units += here or [(group, False)]
        found = [f for _, f in units]
        words = {w for w in q.words if len(w) > 3 and not _NUMERIC.fullmatch(w)}
        word_share = sum(self.search.document_frequency(w) > 0 for w in words) / max(len(words), 1)
        if units and sum(found) / len(units) + word_share >= RELEVANCE:
            return ""
        if not units and word_share >= WORDS_ONLY_RELEVANCE:
            return ""
        missing = [u[0] if len(u) == 1 else "/".join(u[:3]) for u, f in units if not f]
        return (
            "no implementation found: the repository lacks the task's names "
            f"({', '.join(missing[:6]) or 'none given'}) and {1 - word_share:.0%} of its words; "
            f"best weak match was {ranked[0].path}"
        )

    def _present(self, name: str, text: str = "") -> bool:
        """A task name occurs in the repository, as written or with its separators dropped.

        The query writes `2-WL` as `2_wl`, but the index splits words at hyphens, so a name
        the code spells `2WL` or `2wl` was never found (held-out check, issue 6), nor one it
        spells as the paper does, `ImageNet-10`.
        """
        if self.search.document_frequency(name) > 0:
            return True
        joined = name.replace("_", "")
        if joined != name and self.search.document_frequency(joined) > 0:
            return True
        # a name the task hyphenates (`ImageNet-10`), not a number (`1e-5`) nor an identifier
        # the task writes with underscores (`learning_rate`, common to all training code)
        hyphenated = name.replace("_", "-") in text.lower() and not _NUMBER_NAME.match(name)
        return hyphenated and self.search.written(name)

    @staticmethod
    def _choose(ranked: list[Candidate]) -> list[Candidate]:
        top = ranked[0].score
        chosen = [c for c in ranked[:MAX_SOURCE] if c.score >= RELATIVE_CUTOFF * top]
        return chosen or ranked[:1]

    def _fitting(self, task: TaskDraft, chosen: list[Candidate]) -> list[Candidate]:
        """The best match first, unless it is a program whose options list choices none of
        which is a value the task holds fixed while another chosen program lists more of them
        (test_imagenet.py, `--dataset {imagenet}`, for a task on CIFAR10-LT beside test.py,
        `--dataset {cifar10, cifar100}`): then that program leads."""
        fits: dict[str, int] = {}
        for c in chosen:
            e = self.entries.get(c.path)
            if c.kind == "entry" and e is not None and e.runnable and c.path.endswith(".py"):
                fit = listed_fit(task, [f for f in e.flags if f.name.startswith("--")])
                if fit is not None:
                    fits[c.path] = fit
        top = chosen[0].path
        if top not in fits:
            return chosen
        best = max(fits, key=lambda p: fits[p])  # the first of the best, in rank order
        if fits[best] <= fits[top]:
            return chosen
        return sorted(chosen, key=lambda c: c.path != best)

    def _on_the_data(
        self, task: TaskDraft, chosen: list[Candidate], ranked: list[Candidate]
    ) -> list[Candidate]:
        """The best match first, unless it is a program named after a data set and the task
        runs on others (train_STL10.py, STL-10 being a value of the repository's `--dataset`,
        for a task on CIFAR-10, or on CIFAR-10 and STL-10): then the program named as it is
        without the data set leads (train.py), else the next chosen program named after no
        other data set. The task's data sets are its variables', else those its measures are
        taken on ("CIFAR-10 NMI")."""
        sets = task_datasets(task) or measured_on(task)
        top = chosen[0]
        if not sets or top.kind != "entry":
            return chosen
        named = data_set_names(self.options)
        wanted = {fold(s) for s in sets}

        def said(c: Candidate) -> list[str]:
            base = fold(posixpath.basename(c.path).rsplit(".", 1)[0])
            return [n for n in named if n in base]

        other = said(top)
        if not other or wanted <= set(other):
            return chosen  # named after every data set the task runs on
        # the same name less the data set's: train_STL10.py -> train.py
        name = posixpath.basename(top.path)
        pattern = re.compile(r"[-_.]?".join(re.escape(ch) for ch in other[0]), re.I)
        bare = re.sub(r"[-_]+(?=\.)|^[-_]+", "", pattern.sub("", name, count=1))
        twin = posixpath.join(posixpath.dirname(top.path), bare)
        lead = next((c for c in ranked if c.path == twin and c.kind == "entry"), None)
        lead = lead or next(
            (c for c in chosen[1:] if c.kind == "entry" and (not said(c) or wanted & set(said(c)))),
            None,
        )
        if lead is None:
            return chosen
        return [lead, *(c for c in chosen if c.path != lead.path)][:MAX_SOURCE]

    def _recipe_first(
        self, task: TaskDraft, chosen: list[Candidate], ranked: list[Candidate]
    ) -> list[Candidate]:
        """The one program the top-level README runs leads, when a file it does not document
        matched the task's words best: how the authors run their experiment outranks a
        keyword neighbour (EEVEE's `main.py configs/demo.yaml` over a benchmark's helper).
        Not for a notebook, a task asking how to build something, or a program the README
        documents itself."""
        sole = self._sole_recipe()
        top = chosen[0]
        if (
            sole is None
            or top.path == sole
            or top.kind == "notebook"
            or asks_to_build(task.question)
            or any(top.path in c.runs for c in self.index.commands)
        ):
            return chosen
        lead = next((c for c in ranked if c.path == sole), None)
        if lead is None or lead.score <= 0:
            return chosen
        return [lead, *(c for c in chosen if c.path != sole)][:MAX_SOURCE]

    def _measured_first(
        self, task: TaskDraft, q: TaskQuery, chosen: list[Candidate], ranked: list[Candidate]
    ) -> list[Candidate]:
        """A launch script of the same program whose run reaches code that prints the task's
        measures leads, when the best match's run reaches none: the setup is looked for
        conditioned on what the paper reports. TimesNet's Figure 4 reports F1, which only
        exp/exp_anomaly_detection.py prints, and run.py imports it only for `--task_name
        anomaly_detection`: scripts/anomaly_detection/PSM/TimesNet.sh leads over the
        classification script that matched the task's words best. Only scripts scoring at
        least `RELATIVE_CUTOFF` of the best one, among the first `MEASURED_LOOKAHEAD`."""
        top = chosen[0]
        measures = task_metrics(task, q)
        entry = python_entry(top.path, self.entries) if top.kind == "script" else None
        if entry is None or not measures:
            return chosen

        def reports(script: str) -> bool:
            lines = self.search.lines(script)
            _, _, settings, command = invocation_of(lines, q, task_arms(task))
            run = Run(f"bash {script}", script=script, settings=settings, invocation=command)
            return len(self.step_planner.unreported_by(measures, entry, [run])) < len(measures)

        if reports(top.path):
            return chosen
        for c in ranked[:MEASURED_LOOKAHEAD]:
            if (
                c.kind == "script"
                and c.path != top.path
                and c.score >= RELATIVE_CUTOFF * top.score
                and python_entry(c.path, self.entries) == entry
                and reports(c.path)
            ):
                return [c, *(x for x in chosen if x.path != c.path)][:MAX_SOURCE]
        return chosen

    def _sole_recipe(self) -> str | None:
        """The program the top-level README's commands run, when they run exactly one (not
        counting installation and the programs that prepare inputs)."""
        if self._sole is None:
            programs: list[str] = []
            for c in self.index.commands:
                if c.doc != "README.md" or not c.runs or sets_up(c):
                    continue
                if only_checks(c, self.search.lines(c.doc)):  # a check of the set-up
                    continue
                for run in c.runs:
                    program = python_entry(run, self.entries) or run
                    if not preparing(program) and program not in programs:
                        programs.append(program)
            self._sole = programs[0] if len(programs) == 1 else ""
        return self._sole or None

    def _main_entry(self, chosen: list[Candidate]) -> str | None:
        """The Python file the best candidate runs: itself, what its script calls, or what
        loads its config. A notebook is its own program: it has no entry point."""
        top = chosen[0]
        if top.path.endswith(".py") and top.kind in ("entry", "test"):
            return top.path
        if top.kind == "script":
            program = python_entry(top.path, self.entries)
            if program is not None:
                return program
        if top.kind == "config":  # the program that loads it, not a config inheriting it
            for path, refs in self.index.file_refs.items():
                if top.path in refs and path.endswith(".py") and path in self.entries:
                    return path
        return None

    def _steps(
        self,
        chosen: list[Candidate],
        entry: str | None,
        q: TaskQuery,
        tools: _Tools,
        plan: Plan,
        arms: list[Arm] | None = None,
    ) -> list[Step]:
        """The plan's steps; where it found too few (a notebook, a config, a bare module),
        the steps traced through the entry point's calls fill in before its last step."""
        steps = [s for s in plan.steps if self._valid(s)]
        if chosen[0].kind == "notebook":  # its cells are the experiment, in their order
            cells = self.tracer.notebook_steps(chosen[0].path, limit=NOTEBOOK_CELLS)
            cells = [s for s in cells if self._valid(s)]
            # the program's code before the launch scripts the plan starts from: the
            # notebook is run by itself, not through them
            steps = sorted(steps, key=lambda s: s.path.endswith(".sh"))
            # run as it is, its lines that set the compared arms are steps of their own
            if not plan.runs and arms and not asks_how(q.text):
                set_at = NotebookArms(chosen[0].path, self.search).steps(arms)
                cells = sorted(cells + set_at, key=lambda s: (s.start, s.end - s.start))
            steps = (cells + steps)[:15] if cells else steps
        # a task asking how to build what a module holds: what its main class does, in the
        # order it runs, leads (AgentBench's OS task: the prompt, the actions, the judging)
        if asks_to_build(q.text) and chosen[0].kind == "module" and chosen[0].path != entry:
            walk = [s for s in self.tracer.class_walk(chosen[0].path) if self._valid(s)]
            have = {(s.path, s.start, s.end) for s in walk}
            steps = (walk + [s for s in steps if (s.path, s.start, s.end) not in have])[:15]
        if len(steps) < 4:
            traced = self.step_planner.reached(self._traced(chosen, entry, q), entry, plan)
            have = {(s.path, s.start, s.end) for s in steps}
            extra = [s for s in traced if (s.path, s.start, s.end) not in have]
            steps = _in_trace_order(steps[:-1], extra, traced) + steps[-1:] if steps else extra
            # a function traced whole beside the plan's narrower part of it goes
            steps = self.step_planner.named_parts_only(steps)
        steps = self.step_planner.opened(steps, q)
        # still few: the helpers of the program's own file each cited function calls, each
        # before the function it builds on
        cited = {(s.path, s.start) for s in steps}
        at = 0
        while at < len(steps) and len(steps) < FEW_STEPS:
            helpers = self.tracer.callees(steps[at], cited)[: FEW_STEPS - len(steps)]
            helpers = [h for h in helpers if self._valid(h)]
            steps[at:at] = helpers
            at += 1 + len(helpers)
        for s in steps[:4]:
            if s.path.endswith(".py") and s.path != entry:
                tools("read", path=s.path, start=s.start, end=min(s.end, s.start + 30))
                break
        return steps

    def _unrun_arms_code(self, steps: list[Step], plan: Plan, q: TaskQuery) -> list[Step]:
        """An arm no run runs whose own definition the repository holds (`arm_definition`:
        SegVol's `sliding_window_inference` for "sliding window") is a step before the last,
        the code its run is to be written around; at most `MAX_UNRUN_STEPS`, never one the
        steps cite already, nor past `MAX_STEPS`."""
        if asks_how(q.text) or not steps:
            return steps
        added: list[Step] = []
        for arm in [a for r in plan.runs if r.missing for a in r.arms]:
            found = self.arm_definitions(arm)
            if found is None or len(added) >= MAX_UNRUN_STEPS:
                continue
            path, line, name = found
            # the definition whole when narrow, else its first line (a 270-line function)
            item = next(
                (
                    i
                    for i in self.tracer.outline(path)
                    if i.start <= line <= i.end and i.name.split(".")[-1] == name
                ),
                None,
            )
            end = item.end if item is not None and item.end - line <= WIDE_DEFINITION else line
            step = Step(f"Implement {name}, which the {arm.value} run would use", path, line, end)
            cited = any(s.path == path and s.start <= line <= s.end for s in [*steps, *added])
            if not cited and self._valid(step):
                added.append(step)
        room = max(MAX_STEPS - len(steps), 0)
        return [*steps[:-1], *added[:room], steps[-1]] if added and room else steps

    def _traced(self, chosen: list[Candidate], entry: str | None, q: TaskQuery) -> list[Step]:
        steps: list[Step] = []
        top = chosen[0]
        if top.kind == "script":
            steps += self.tracer.shell_steps(top.path, self.entries.get(top.path))
        if entry is not None:
            steps += self.tracer.python_steps(entry, self.entries.get(entry), q)
        if not steps and top.kind == "notebook":
            steps += self.tracer.notebook_steps(top.path)
        if not steps and top.kind == "config":
            steps += self.tracer.config_steps(top.path)
        if not steps and top.path.endswith(".py"):
            step = self.tracer.method_step(top.path, q)
            steps += [step] if step else []
        if not steps and top.path.endswith(".py"):  # last resort: what the file defines
            steps += self.tracer.definition_steps(top.path)
        return [s for s in steps if self._valid(s) and not s.action.startswith("Parse command")]

    def _valid(self, step: Step) -> bool:
        try:
            n = len(self.search.text(step.path).splitlines())
        except (OSError, RepoPathError):
            return False
        return 1 <= step.start <= step.end <= n and " " not in step.path and "(" not in step.path

    def _masked(
        self,
        chosen: list[Candidate],
        entry: str | None,
        ranked: list[Candidate],
        plan: Plan,
        also: tuple[str, ...],
    ) -> list[str]:
        """The runs' launch scripts, the entry points, the method's own module, and the configs
        they name that would give the answer away; never a support library, never a script
        of another setting that merely ranked high."""
        top = chosen[0]
        own = [top.path] if top.kind in RUNNABLE or top.kind == "config" else []
        masked = list(
            dict.fromkeys(
                [r.script for r in plan.runs if r.script]
                + own
                + ([entry] if entry else [])
                + list(also)
                + plan.method_modules
            )
        ) or [c.path for c in chosen]
        # a baseline's own classes are not the method's: hidden, the agent would rebuild the
        # baseline too
        theirs = self._rivals_only(plan)
        masked = [p for p in masked if p not in theirs]
        scores = {c.path: c.score for c in ranked}
        best = top.score
        for path in list(masked):
            e = self.entries.get(path)
            for callee in e.calls if e and e.kind == "shell" else []:
                if callee == entry and callee not in masked:
                    masked.append(callee)
            refs = [
                r
                for r in self.index.file_refs.get(path, [])
                if r.endswith((".yaml", ".yml", ".json", ".toml", ".py"))
            ]
            for ref in refs:
                # its config: the only one it names, or one that matches the task itself
                if ref not in masked and (len(refs) == 1 or scores.get(ref, 0) >= 0.5 * best):
                    masked.append(ref)
        return masked

    def _rivals_only(self, plan: Plan) -> set[str]:
        """The code only the baselines' configs build (SegFormer's `mit.py` beside SegNeXt's
        `mscan.py`), when the repository's own method is among the arms, run or not (SegNeXt-L
        on Pascal VOC has no config; DANet's head is still no part of it). Their scripts and
        configs stay masked, as a run's entry does: the agent writes every run, but rebuilds
        only the method."""
        planner = self.run_planner
        if not any(planner.own_arm(a) for r in plan.runs for a in r.arms):
            return set()
        runs = [r for r in plan.runs if not r.missing and r.arms and r.config]
        own = [r for r in runs if any(planner.own_arm(a) for a in r.arms)]
        files = self.step_planner.config_files
        kept = {s.path for r in own for s in files.class_steps(r.config)}
        theirs = {s.path for r in runs if r not in own for s in files.class_steps(r.config)}
        return {p for p in theirs - kept if p.endswith(".py") and p not in {r.config for r in runs}}


MAX_STAGES = 3  # other programs of the experiment whose code is cited and masked
MAX_OWN_MODULES = 2  # modules of the method's own code the steps cite, masked beside the entry
# what a repository's support code is called: data loading, helpers, measures, logging,
# configs, plots, tools and tests (`tasks/gpqa/data_worker.py`, `utils/metrics.py`), and the
# drivers every compared method shares: training loops, engines, experiment runners
# (`exp/exp_main.py`, `benchmarl/experiment/experiment.py`, `engine_finetuning.py`)
_SUPPORT = re.compile(
    r"(?:^|[/_])(?:data|datasets?|loaders?|data_worker|dataloader|utils?|helpers?|common|"
    r"metrics?|eval\w*|logs?|logger|logging|configs?|visuali[sz]\w*|plot\w*|"
    r"io|download\w*|tools?|scripts?|tests?|examples?|docs?|"
    r"train\w*|engines?|experiments?|exp|apis?|runners?|base)(?:[/_.]|$)",
    re.I,
)


def own_modules(steps: list[Step], masked: list[str], vendored: frozenset[str]) -> list[str]:
    """The method's own modules the steps cite, to mask beside the entry point: Python files
    two steps or more cite (the losses of modules/contrastive_loss.py, EEVEE's
    evolve/pipeline.py), most cited first, never a support module, another work's vendored
    code or a runnable script already masked."""
    counts = Counter(
        s.path
        for s in steps
        if s.path.endswith(".py")
        and s.path not in masked
        and s.path not in vendored
        and not _SUPPORT.search(s.path.rsplit(".", 1)[0])
    )
    return [p for p, n in counts.most_common() if n >= 2][:MAX_OWN_MODULES]


def recover_setup(task: TaskDraft, index: RepoIndex, root: Path, *, max_steps: int = 40) -> Setup:
    """Recover one task's setup; see `SetupAgent` to reuse the index across tasks."""
    return SetupAgent(index, root).recover(task, max_steps=max_steps)


# ---------------------------------------------------------------- instructions


def _render(steps: list[Step]) -> list[str]:
    """`Step k: ... (path:a-b)` lines, the last one the `Final Step`."""
    if not steps:
        return []
    # one wording for steps in two programs (Trace's and DSPy's "Go through all 27 items of
    # `tasks`"): each says whose it is, by as much of its path as tells them apart
    # (`distributed/few-shot/maml_omniglot.py` and `examples/few-shot/maml_omniglot.py`)
    paths: dict[str, set[str]] = {}
    for s in steps:
        paths.setdefault(s.action, set()).add(s.path)
    steps = [
        replace(s, action=f"{s.action} in {_apart(s.path, paths[s.action])}")
        if len(paths[s.action]) > 1
        else s
        for s in steps
    ]
    lines = [s.render(f"Step {i}") for i, s in enumerate(steps[:-1], start=1)]
    lines.append(steps[-1].render("Final Step"))
    assert all(STEP_RE.match(x) and REF_RE.search(x) for x in lines), lines
    return lines


# a literal a step's lines give: a short string, a number, True or False; a value, not a
# notebook's line of source (`"from hest import VisiumReader\n"`) or a comment's words
_VALUE = re.compile(r"[\w./@:+-]*\w")
_LITERAL = re.compile(r"""(['"])([^'"\n]{1,40})\1|(?<![\w.])(True|False|\d+(?:\.\d+)?)(?![\w.])""")


def told_apart(steps: list[Step], lines: Callable[[str], list[str]]) -> list[Step]:
    """Steps of one file worded alike (a notebook's seven "Compute df_raw with pd.read_csv",
    one cell a data set) each with the first literal its lines give that none of the others'
    do: "... (ETTh2.csv)". Unchanged when one of them has none."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(steps):
        groups.setdefault((s.path, s.action), []).append(i)
    out = list(steps)
    for members in groups.values():
        if len(members) < 2:
            continue
        try:
            text = lines(steps[members[0]].path)
        except (OSError, ValueError):
            continue
        found = [
            [
                v
                for m in _LITERAL.finditer("\n".join(text[s.start - 1 : s.end]))
                if _VALUE.fullmatch(v := m.group(2) or m.group(3))
            ]
            for s in (steps[i] for i in members)
        ]
        own = [
            next(
                (v for v in mine if not any(v in theirs for theirs in found if theirs is not mine)),
                "",
            )
            for mine in found
        ]
        if all(own) and len(set(own)) == len(own):
            for i, value in zip(members, own, strict=True):
                out[i] = replace(steps[i], action=f"{steps[i].action} ({value})")
    return out


def _apart(path: str, paths: set[str]) -> str:
    """The shortest end of `path` (its file name, then its folder and file name, ...) that
    no other of `paths` ends with."""
    parts = path.split("/")
    for k in range(1, len(parts) + 1):
        end = "/".join(parts[-k:])
        if not any(p != path and (p == end or p.endswith("/" + end)) for p in paths):
            return end
    return path


def agent_instructions(task: TaskDraft, q: TaskQuery, setup: Setup, index: RepoIndex) -> str:
    """What to build, in the task's words, naming no masked file (path, name or stem)."""
    hidden = {posixpath.basename(p) for p in setup.masked_source}
    reuse = [
        p
        for p in _support_modules(setup, index)
        if p not in setup.masked_source and posixpath.basename(p) not in hidden
    ][:5]  # a module sharing a masked file's name would name it
    wanted = {stem(t) for t in q.terms}
    flags: list[str] = []
    for e in index.entry_points:
        if e.path in setup.masked_source:
            for f in e.flags:
                if f.name.startswith("--") and set(terms(f.name)) & wanted and f.name not in flags:
                    flags.append(f.name)
    flags = flags[:10]
    parts = [
        "Implement the experiment below in this repository; the code that ran it has been removed.",
        f"Question: {task.question.strip()}",
    ]
    if task.method.strip():
        parts.append(f"What to build: {task.method.strip()}")
    if flags:
        parts.append(
            "Accept the experiment's settings as command-line options such as "
            + ", ".join(flags)
            + "."
        )
    parts.append(f"Report {measured(q)} so the result can be compared with the expected outcome.")
    if reuse:
        parts.append("You may reuse the existing modules " + ", ".join(reuse) + ".")
    return scrub(" \n".join(parts), setup.masked_source)


def _support_modules(setup: Setup, index: RepoIndex) -> list[str]:
    out: list[str] = []
    for path in setup.source:
        for m in index.imports.get(path, []):
            if m not in out and not m.endswith("__init__.py"):
                out.append(m)
    return out


def masked_names(masked: list[str]) -> list[str]:
    """Strings that would reveal a masked file: its path, its file name, a snake_case stem.

    Other stems stay allowed: `etth2.sh` or `CycleNet.py` are named after the dataset or the
    method, which the task itself must be free to name.
    """
    names: set[str] = set()
    for path in masked:
        base = posixpath.basename(path)
        stem = base.rsplit(".", 1)[0]
        names |= {path, base}
        if "_" in stem.strip("_") and len(stem) >= 6:
            names.add(stem)
    return sorted(names, key=len, reverse=True)


def scrub(text: str, masked: list[str]) -> str:
    for name in masked_names(masked):
        text = re.sub(
            rf"(?<![\w/.-]){re.escape(name)}(?![\w-])", "the removed file", text, flags=re.I
        )
    return text


def leaked_names(text: str, masked: list[str]) -> list[str]:
    low = text.lower()
    return [n for n in masked_names(masked) if n.lower() in low]


# ---------------------------------------------------------------- validation


def validate_references(setup: Setup, root: Path) -> list[str]:
    """Problems with a setup's file references: steps' path:a-b, sources, masked files."""
    search_root = Path(root).resolve()
    problems: list[str] = []

    def lines_of(path: str) -> int | None:
        full = inside(search_root, path)
        if full is None or not full.is_file():
            return None
        with full.open("rb") as fh:
            data = fh.read()
        return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)

    reqs = setup.requirements
    for p in reference_problems(reqs, WorkTree(search_root), final_needs_reference=True):
        req = reqs[p.step - 1][:80]
        if p.kind == "not_a_step":
            problems.append(
                f"requirement {p.step} does not start with 'Step k:' or 'Final Step:': {req}"
            )
        elif p.kind == "no_reference":
            problems.append(f"requirement {p.step} has no (path:line) reference: {req}")
        elif p.kind == "outside":
            problems.append(
                f"requirement {p.step} cites lines {p.first}-{p.last} of {p.path}, "
                f"which has {p.lines} lines"
            )
        else:  # leaves, absent, unread: not a file the agent can show
            problems.append(
                f"requirement {p.step} cites {p.path}, which is not a file in the repository"
            )
    for field_name in ("source", "masked_source"):
        for path in getattr(setup, field_name):
            if lines_of(path) is None:
                problems.append(f"{field_name} lists {path}, which is not a file in the repository")
    for name in leaked_names(setup.agent_instructions, setup.masked_source):
        problems.append(f"agent_instructions name the masked file {name!r}")
    return problems


def _copy_of(path: str, entry: str | None) -> bool:
    """One program's whole path is the other's under another folder: a vendored copy."""
    if not entry or entry == path:
        return False
    return path.endswith("/" + entry) or entry.endswith("/" + path)


def _in_trace_order(steps: list[Step], extra: list[Step], traced: list[Step]) -> list[Step]:
    """`steps` with the traced `extra` ones added where the trace runs them: each before the
    first of `steps` the trace reaches after it (the pipeline's constructor before its
    `run`), else before the evaluation or the measure, which read what the run did, else at
    the end."""
    at = {(s.path, s.start, s.end): i for i, s in enumerate(traced)}
    out = list(steps)
    for step in extra:
        mine = at[(step.path, step.start, step.end)]
        later = next(
            (i for i, s in enumerate(out) if at.get((s.path, s.start, s.end), -1) > mine), None
        )
        if later is None:
            later = next((i for i, s in enumerate(out) if _MEASURING.search(s.action)), None)
        out.insert(len(out) if later is None else later, step)
    return out


# the plan's evaluation and measure steps ("Evaluate (test)", "Compute mse as measured")
_MEASURING = re.compile(r"^Evaluate\b|\bas measured$")
