"""The stages a task's runs are chained to, as the repository's documents give them.

A training program's runs are each followed by the evaluation documented after it; an
evaluation program's runs are preceded by the trainings documented before it, and by what
writes the evaluation's input (`prerequisites.py`); an evaluation loading the checkpoint an
option numbers reads the one the training saved last (`checkpoints.py`). Split from the run
planner (`runs.py`), which calls `Stages` once its runs are chosen.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from itertools import pairwise

from expcurate.records import CliFlag, DocCommand, EntryPoint, RepoIndex
from extractors.repo import RepoSearch
from extractors.repo.commands import (
    PathResolver,
    doc_order,
    only_checks,
    python_entry,
    run_from,
    sets_up,
)

from .arms import value_forms
from .checkpoints import last_epoch, saved_by_number
from .entry_args import EntryArgs
from .launch import appended, with_held, with_setting
from .prerequisites import producers
from .run import Run
from .run_notes import own_output, run_data, run_slug

MAX_AFTER_CHECK = 3  # the commands a document gives after a check of the set-up, at most
_TRAINS = re.compile(r"train|finetun|fine_tun|pretrain|stage_?\d", re.I)  # a training program
_EVALUATION = re.compile(r"^(?:test|eval(?:uate)?|validate|inference)(?:[_.-]|$)", re.I)
# a checkpoint option given a file of the document's own run (`--ckpt checkpoints/x.ckpt`)
_CHECKPOINT = re.compile(
    r"(--(?:ckpt|checkpoint|ckpt_path|checkpoint_path|load_path|weights|resume)[\w-]*)[ =]"
    r"(?![<$])\S*[/.]\S*"
)
# how a document introduces the evaluation of what was trained
_EVALUATES_PROSE = re.compile(r"\b(?:test|evaluat\w*|inference|validat\w*)\b", re.I)


def program_mode(path: str | None) -> str:
    """How a program uses a model, by its name: "test" for an evaluation (`test.py`,
    `inference_demo.py`), "train" for a training (`train.py`, `stage1.py`), else ""."""
    name = posixpath.basename(path or "")
    if _EVALUATION.search(name):
        return "test"
    return "train" if name.endswith(".py") and _TRAINS.search(name) else ""


# a program or notebook reading what runs wrote (`pe_analysis.ipynb`, `plot_results.py`)
_ANALYSES = re.compile(
    r"(?:^|[_-])(?:analy[sz]\w*|plot\w*|visuali[sz]\w*|figures?|results?)(?:[_.-]|$)", re.I
)
# what runs an experiment, by its name, beside such an analysis (`klr_experiment.py`)
_EXPERIMENT = re.compile(r"(?:^|[_-])(?:experiments?|exp|run|main|train)(?:[_.-]|$)", re.I)


def _absent_program(text: str, known: set[str], paths: PathResolver) -> str:
    """The program a documented Python command runs (`python -m src.start_task -a`, `python
    tools/x.py`) when the repository has it nowhere: its path as a module or file, else ""."""
    m = re.match(r"\s*python3?\s+(?:-m\s+([\w.]+)|([\w./-]+\.py))\b", text)
    if m is None:
        return ""
    if module := m.group(1):
        # an installed package's module (`python -m pytest`) is not the repository's
        if not paths.ours(module) or paths.module(module, [""]) is not None:
            return ""
        return module.replace(".", "/") + ".py"
    path = posixpath.normpath(m.group(2))
    return "" if any(k == path or k.endswith("/" + path) for k in known) else path


def _varying(settings: list[str]) -> set[str]:
    """The options every run sets, to two values at least among them."""
    seen: list[dict[str, str]] = []
    for text in settings:
        words = text.split()
        seen.append({w: words[k + 1] for k, w in enumerate(words[:-1]) if w.startswith("--")})
    common = set.intersection(*(set(d) for d in seen)) if seen else set()
    return {o for o in common if len({d[o] for d in seen}) >= 2}


def on_setting(command: str, values: set[str]) -> int:
    """How many of the values the task holds fixed a documented command already gives."""
    return len(values & set(re.split(r"[\s=]", command)))


class Stages:
    """Chains a task's runs to the stages documented before and after them."""

    def __init__(
        self,
        index: RepoIndex,
        search: RepoSearch,
        known: set[str],
        args: EntryArgs,
        programs: Callable[[str], list[str]],
        paths: Callable[[], PathResolver],
    ) -> None:
        self.index = index
        self.paths = paths  # the repository's files as commands name them, mapped once
        self.search = search
        self.known = known
        self.args = args
        self.programs = programs  # the repository's programs a command runs
        self.entries = {e.path: e for e in index.entry_points}

    def first_documented(self, program: str) -> DocCommand | None:
        """The first command the documents give for the program, the nearest document first:
        one in the program's folder (toolbench/tooleval/README.md for its `eval_pass_rate.py`),
        then in each folder above it, then any other; among equals in reading order, the
        README before its translation (`README_ZH.md`)."""
        own = [c for c in self.index.commands if program in c.runs]
        folder = posixpath.dirname(program)

        def nearness(c: DocCommand) -> int:
            home = posixpath.dirname(c.doc)
            if home and folder != home and not folder.startswith(home + "/"):
                return 10_000  # a document beside, not above
            return folder.count("/") + 1 - (home.count("/") + 1 if home else 0)

        return min(own, key=lambda c: (nearness(c), doc_order(c))) if own else None

    def past_checks(self, runs: list[Run], entry: str | None) -> None:
        """A run of a program its document offers only as a check of the set-up ("You can
        try `python -m src.client.agent_test` to check if your agent is configured
        correctly"): it is said to be one, with the commands the document runs after it
        (starting the task server, then the assigner), which run the experiment."""
        if entry is None or (first := self.first_documented(entry)) is None:
            return
        lines = self.search.lines(first.doc)
        if not only_checks(first, lines):
            return
        later: list[tuple[str, str]] = []  # each command, and the program it lacks
        for c in sorted(self.index.commands, key=lambda c: c.line):
            if c.doc != first.doc or c.line <= first.line or entry in c.runs:
                continue
            absent = "" if c.runs else _absent_program(c.text, self.known, self.paths())
            if (c.runs or absent) and not sets_up(c) and not only_checks(c, lines):
                later.append((run_from(c, self.known), absent))
        later = later[:MAX_AFTER_CHECK]
        if not later:
            return
        # a step the document gives whose program the repository lacks (README's `python -m
        # src.start_task -a`, no src/start_task.py at the commit): as written it stops there
        after = ", then ".join(
            f"`{c}`"
            + (f" (it names {absent}, which the repository does not have)" if absent else "")
            for c, absent in later
        )
        for run in runs:
            if not run.missing and entry in self.programs(run.command):
                run.say_first(
                    f"{first.doc}:{first.line} offers it only as a check of the set-up; "
                    f"the experiment runs as the document goes on: {after}"
                )

    def options_of(self, program: str) -> set[str]:
        e = self.entries.get(program)
        return {f.name for f in e.flags} if e else set()

    def analysed_first(self, runs: list[Run], entry: str | None) -> None:
        """An analysis's runs (`plot_results.py`, which plots the results its folder holds),
        preceded by the experiment beside it that writes those results (`run_experiment.py`):
        running the analysis alone redraws the authors' numbers, it does not reproduce them."""
        experiment = experiment_beside(entry, self.index.entry_points)
        if experiment is None:
            return
        for run in runs:
            if run.missing or experiment in self.programs(run.command):
                continue
            run.say_first(
                f"it reads what {experiment} writes: to reproduce the results rather than "
                f"redraw the stored ones, run `python {experiment}` first"
            )
            run.trained_by = [*run.trained_by, experiment]

    def trained_first(
        self,
        runs: list[Run],
        entry: str | None,
        held: list[tuple[CliFlag, str]],
        unset: Callable[[str], dict[str, str]] | None = None,
    ) -> None:
        """An evaluation program's runs, preceded by the training its document gives before
        it: each training program documented earlier in the same document (`stage1.py`, then
        `stage2.py`), by the command on most of what the task holds fixed. An evaluation is
        named as one (`test.py`) or introduced as one ("To test the trained model, run
        `python cluster.py`")."""
        if entry is None or (first := self.first_documented(entry)) is None:
            return
        if _TRAINS.search(posixpath.basename(entry)):  # "training ... on the test split"
            return
        if not _EVALUATION.search(posixpath.basename(entry)):
            before = [c.line for c in self.index.commands if c.doc == first.doc]
            start = max((n for n in before if n < first.line), default=0)
            prose = " ".join(self.search.lines(first.doc)[start : first.line - 1])
            if not _EVALUATES_PROSE.search(prose):
                return
        wanted = {v for _, v in held}
        by_program: dict[str, list[DocCommand]] = {}
        for c in self.index.commands:
            if c.doc != first.doc or c.line >= first.line or entry in c.runs:
                continue
            # the program it runs, itself or through its script (`bash finetune.sh`)
            program = next((p for r in c.runs if (p := python_entry(r, self.entries))), "")
            named = [posixpath.basename(p) for p in (program, *c.runs) if p]
            if program and any(_TRAINS.search(n) for n in named):
                by_program.setdefault(program, []).append(c)
        # a twin named after other data (train_STL10.py beside train.py) is no stage; one in
        # another folder (toolbench/train/train_lora.py, toolbench/retrieval/train.py) is no twin
        said = {re.sub(r"[^a-z0-9]+", "", v.lower()) for _, v in held}  # cifar10, imagenet10
        stems = {p: posixpath.basename(p).rsplit(".", 1)[0].lower() for p in by_program}
        for p, name in stems.items():
            beside = [q for q in stems if posixpath.dirname(q) == posixpath.dirname(p)]
            twin = next((q for q in beside if q != p and name.startswith(stems[q] + "_")), None)
            suffix = re.sub(r"[^a-z0-9]+", "", name[len(stems[twin]) :]) if twin else ""
            if twin is not None and suffix not in said:
                by_program.pop(p)
        # what writes the evaluation's input (`generate.py --output_path x.json` for
        # `evaluate.py --data_path x.json`), run after the training
        trained = {id(c) for cands in by_program.values() for c in cands}
        inputs = producers(
            [
                c
                for c in self.index.commands
                if c.doc == first.doc
                and c.line < first.line
                and entry not in c.runs
                and id(c) not in trained
            ],
            first,
        )
        if not (by_program or inputs) or len(by_program) > 3:
            return
        commands = []
        for program, cands in by_program.items():  # in the document's order
            best = max(cands, key=lambda c: on_setting(c.text, wanted))
            takes = self.options_of(program)
            command = run_from(best, self.known)
            # an option the documented command gives is one its program takes, read or not
            # (stage2.py does not compile, and still takes the `--rho` its README gives it)
            given = set(command.split())
            mine = [(f, v) for f, v in held if f.name in takes or given & {f.name, *f.aliases}]
            commands.append(self.args.dashed(with_held(command, mine)[0], program))
        # the checkpoint an option numbers, as the training saves it last
        numbered = saved_by_number(self.search, entry)
        trainer = self.entries.get(next(reversed(by_program))) if by_program else None
        last = last_epoch(commands[-1], trainer.flags) if numbered and trainer else None
        made = [run_from(c, self.known) for c in inputs]
        mine_runs = [r for r in runs if not r.missing and entry in self.programs(r.command)]
        values: dict[str, list[str]] = {}  # each variable's values, of every run of the task
        for a in (a for r in runs for a in r.arms):
            values.setdefault(a.variable, [])
            if a.value not in values[a.variable]:
                values[a.variable].append(a.value)
        varying = _varying([r.settings for r in mine_runs])
        slugs = [run_slug(r) for r in mine_runs]
        data = [run_data(r) for r in mine_runs]  # what tells the runs' output places apart
        apart = unset is not None and len(set(slugs)) == len(slugs) > 1 and bool(varying)
        for run, slug in zip(mine_runs, slugs, strict=True):
            # each run's training on what tells the runs apart that the training takes
            # too (`--dataset ImageNet-10`): one training when nothing does
            trainings = [
                self._with_run_settings(c, run.settings, program, varying)
                for c, program in zip(commands, by_program, strict=True)
            ]
            trainings = self._carried(trainings, list(by_program))
            if apart and unset is not None:
                # where the trainings write by default (`--model_path save/CIFAR-10`) and
                # the evaluation reads: each run's own, or the last training overwrites all
                for k, training in enumerate(list(trainings)):
                    for option, value in unset(training).items():
                        if not value or "$" in value or option not in self.options_of(entry):
                            continue
                        own = own_output(value, slug, run_data(run), data)
                        trainings[k] = with_setting(trainings[k], [option, own])
                        run.command = with_setting(run.command, [option, own])
            first_run = ", then ".join(f"`{c}`" for c in [*trainings, *made])
            note = ("train first" if trainings else "first") + f" as documented: {first_run}"
            run.say_first(note)
            if mismatch := _trained_for_another(run, [*trainings, *made], values):
                run.say(mismatch)
            run.trained_by = list(by_program)
            if numbered and last is not None and f"--{numbered[2]}" in self.options_of(entry):
                run.command = with_setting(run.command, [f"--{numbered[2]}", last])

    def _carried(self, commands: list[str], programs: list[str]) -> list[str]:
        """Each stage's command given the places of the user's an earlier stage's passes (a
        `<...>` value), for an option its own program takes and its command leaves unset:
        stage2.py reads stage 1's checkpoint under the `--srp <where_to_save_the_ckpt>`
        stage1.py saved it under, and defaults to the authors' own disk."""
        out = list(commands)
        for k in range(1, len(out)):
            spellings = self._option_spellings(programs[k])
            for before in out[:k]:
                words = before.split()
                for option, value in pairwise(words):
                    if not option.startswith("-") or not re.fullmatch(r"<[^<>\s]+>", value):
                        continue
                    same = next((names for names in spellings if option in names), None)
                    if same is not None and not set(out[k].split()) & same:
                        out[k] = appended(out[k], f"{option} {value}")  # as the user's place
        return out

    def _option_spellings(self, program: str) -> list[set[str]]:
        """Each option of the program with its other spellings (`--save_root_path`,
        `--srp`): from its parser as mined, else from its `add_argument` lines as written,
        for a program that does not compile (EAT's stage2.py)."""
        e = self.entries.get(program)
        if e is not None:
            return [{f.name, *f.aliases} for f in e.flags]
        try:
            text = self.search.text(program)
        except (OSError, ValueError):
            return []
        return [
            set(re.findall(r"['\"](-{1,2}[\w-]+)['\"]", m.group(1)))
            for m in re.finditer(r"add_argument\(([^()]*)", text)
        ]

    def _with_run_settings(
        self, command: str, settings: str, program: str, only: set[str] | None = None
    ) -> str:
        """The command with the options a run sets that `program` also takes (of `only`,
        when given)."""
        takes = self.options_of(program) & (only if only is not None else set(settings.split()))
        words = settings.split()
        for k, w in enumerate(words[:-1]):
            if w in takes and not words[k + 1].startswith("-") and "{" not in words[k + 1]:
                command = with_setting(command, [w, words[k + 1]])
        return command

    def then_evaluate(
        self, runs: list[Run], entry: str | None, held: list[tuple[CliFlag, str]]
    ) -> None:
        """A training program's runs, each followed by the evaluation its document gives
        next: the first command after the program's own, in the same document, that runs
        another program and is introduced as a test or an evaluation ("To test the trained
        model, run python cluster.py") or is named as one (`eval.py`), with the run's settings
        that program also takes."""
        if entry is None or not _TRAINS.search(posixpath.basename(entry)):
            return
        if (first := self.first_documented(entry)) is None:
            return
        lines = self.search.lines(first.doc)
        later = sorted(
            (
                c
                for c in self.index.commands
                if c.doc == first.doc and c.line > first.line and c.runs and entry not in c.runs
            ),
            key=lambda c: c.line,
        )
        evaluation = None
        previous = first.line
        for c in later:
            prose = " ".join(lines[previous : c.line - 1])
            programs = [r for r in c.runs if r.endswith(".py")]
            named = bool(programs) and bool(_EVALUATION.match(posixpath.basename(programs[0])))
            if (
                programs
                and _TRAINS.search(posixpath.basename(programs[0]))
                and posixpath.dirname(programs[0]) != posixpath.dirname(entry)
            ):
                # another project's training (ToolBench's model training after its
                # retriever's): what follows evaluates that one. A training beside this one
                # (`train_STL10.py`, `train_stage2.py`) is of the same pipeline
                break
            if (
                (_EVALUATES_PROSE.search(prose) or named)  # or the program is `eval.py`
                and programs
                and not _TRAINS.search(posixpath.basename(programs[0]))  # another training
                and not re.search(r"\{[^}]*,", c.text)  # a synopsis of choices, no command
            ):
                evaluation = c
                break
            previous = c.line
        if evaluation is None:
            return
        program = next(r for r in evaluation.runs if r.endswith(".py"))
        takes = self.options_of(program)
        base = with_held(
            run_from(evaluation, self.known),
            [(f, v) for f, v in held if f.name in takes],
        )[0]
        # the document's own checkpoint is one run's: each evaluates what it trained
        base = _CHECKPOINT.sub(r"\1 <TRAINED_CHECKPOINT>", base)
        between = [c for c in later if first.line < c.line < evaluation.line]
        made = [run_from(c, self.known) for c in producers(between, evaluation)]
        # an evaluation loading the checkpoint an option numbers (`checkpoint_{start_epoch}`),
        # named as the training saves them by epoch, reads the training's last
        numbered = saved_by_number(self.search, program)
        trainer = self.entries.get(entry)
        for run in runs:
            if run.missing or run.then or entry not in self.programs(run.command):
                continue
            then = self._with_run_settings(base, run.settings, program)
            if numbered and f"--{numbered[2]}" in takes and trainer is not None:
                last = last_epoch(run.command, trainer.flags)
                if last is not None:
                    then = with_setting(then, [f"--{numbered[2]}", last])
            run.then = then
            run.then_after = list(made)


def experiment_beside(analysis: str | None, entries: list[EntryPoint]) -> str | None:
    """The experiment whose results an analysis reads (`klr_experiment.py` beside
    `pe_analysis.ipynb`): the one runnable program in the analysis's folder named as an
    experiment (not a test, not another analysis); None for a program that is no analysis,
    or when the folder holds none or several."""
    if analysis is None or not _ANALYSES.search(posixpath.basename(analysis).rsplit(".", 1)[0]):
        return None
    folder = posixpath.dirname(analysis)
    beside = [
        e.path
        for e in entries
        if e.runnable
        and e.path.endswith(".py")
        and posixpath.dirname(e.path) == folder
        and (name := posixpath.basename(e.path)[:-3])
        and _EXPERIMENT.search(name)
        and not _ANALYSES.search(name)
        and not name.startswith("test")
    ]
    return beside[0] if len(beside) == 1 else None


def _trained_for_another(run: Run, first: list[str], values: dict[str, list[str]]) -> str:
    """What to say when the documented training names another arm of the run's variable and
    not the run's own (`--base_model ../PLMs/vicuna-7b`, then `--lora_weights vicuna-lora/...`
    in the Alpaca run's evaluation): as written, the run evaluates that arm's model; "" when
    the training names the run's own, or no arm."""
    trained = " ".join(first).lower()
    text = " ".join([*first, run.command]).lower()
    for arm in run.arms:
        own = [f.lower() for f in value_forms(arm.value)]
        if any(_names(trained, f) for f in own):
            continue
        others = [v for v in values.get(arm.variable, []) if v != arm.value]
        named = [v for v in others if any(_names(text, f.lower()) for f in value_forms(v))]
        if named:
            return (
                f"the documented training and this command are {named[0]}'s, not "
                f"{arm.value}'s: train {arm.value}'s own, with what names {named[0]} in them "
                "changed"
            )
    return ""


def _names(text: str, word: str) -> bool:
    """The text holds the word whole (`vicuna` in `../PLMs/vicuna-7b`)."""
    return len(word) >= 3 and bool(re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])", text))
