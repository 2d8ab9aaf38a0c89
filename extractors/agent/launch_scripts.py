"""The repository's launch scripts: which run an experiment, what each trains, its words.

A launch script (`scripts/ETTh1.sh`, `finetuning.sh`) is how the authors run their
experiments, so it outranks a program that only shares a task's words. Read once per
repository, for every task's runs (`TaskRuns`, arm_runs.py).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable

from expcurate.records import ConfigFile, EntryPoint, RepoIndex
from extractors.repo import RepoSearch, terms
from extractors.repo.commands import run_folder, run_from

from .arms import Arm
from .entry_args import EntryArgs
from .launch import (
    Block,
    blocks_of,
    blocks_on,
    invocation_of,
    options_of,
    placeholders,
    takes_arguments,
)
from .query import TaskQuery
from .run import Run
from .run_notes import MODEL_OPTION, config_placeholders, sized_model
from .run_notes import own_model as most_trained

_PUBLISHING = re.compile(
    r"git\s+push|gh-pages|ghp-import|sphinx-build|mkdocs|jupyter-book|twine\s+upload|"
    r"docker\s+(?:build|push)|npm\s+(?:run|publish)",
    re.I,
)
_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")
# the options a launch script names its run's data by
_DATA_OPTIONS = ("--data_path", "--dataset", "--data", "--data_name")


def other_data(lines: list[str], data: frozenset[str]) -> str:
    """What a reader must know of a script that runs its program on the task's data and
    then on other data (CycleNet's `STD/LDLinear.sh`: ETTh1, then ETTh2, ETTm1, ...): the
    other data sets, and the lines of the runs on the task's, the ones to keep; "" for a
    script on one data set, or when the task names none."""
    blocks = blocks_of(lines)
    if not data or len(blocks) < 2:
        return ""
    on = blocks_on(blocks, data)

    def named(block: Block) -> str:
        given = options_of(block.filled())
        return next((given[o] for o in _DATA_OPTIONS if given.get(o)), "")

    others = list(dict.fromkeys(n for b in blocks if b not in on and (n := named(b))))
    if not on or not others or any("$" in n or "{" in n for n in others):
        return ""
    first, last = on[0].first, on[-1].last
    listed = ", ".join(others[:6]) + (", ..." if len(others) > 6 else "")
    return (
        f"the script also runs it on {listed}: only its runs at lines {first}-{last} are "
        "on the task's data"
    )


class LaunchScripts:
    """The launch scripts of one repository and what they run, each read once."""

    def __init__(
        self,
        index: RepoIndex,
        search: RepoSearch,
        args: EntryArgs,
        known: set[str],
        configs: Callable[[str], list[ConfigFile]],
    ) -> None:
        self.index = index
        self.search = search
        self.args = args
        self.known = known
        self.configs = configs  # the config files a command passes
        self.entries = {e.path: e for e in index.entry_points}
        self._script_words: dict[str, frozenset[str]] = {}
        self._script_models: dict[str, list[frozenset[str]]] = {}  # --model values' words
        self.own: str | None = None  # the model the launch scripts train most, once asked
        self._launcher_list: list[EntryPoint] | None = None

    def own_model(self) -> str | None:
        """The model the repository's launch scripts train most, found once for all tasks."""
        if self.own is None:
            self.own = most_trained(self.search, self.launchers())
        return self.own

    def launchers(self) -> list[EntryPoint]:
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

    def trained_arms(
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

    def words_of(self, path: str) -> frozenset[str]:
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

    def run(
        self, e: EntryPoint, q: TaskQuery, arms: list[Arm], data: frozenset[str] = frozenset()
    ) -> Run:
        """The run of one launch script for these arms on this data: the command that runs
        it and the invocation inside it that runs this setting, with what a reader must know
        (placeholders to fill, config values to set, flags its program refuses)."""
        lines = self.search.lines(e.path)
        first, last, settings, invocation = invocation_of(lines, q, arms, data)
        command = f"bash {shlex.quote(e.path)}"
        documented = [c for c in self.index.commands if e.path in c.runs]
        if takes_arguments(lines) and documented:
            # a script reading its arguments (CONFIG=$1, GPUS=$2) runs as the README writes
            # it (`./tools/dist_train.sh /path/to/config 8`), never bare
            command = run_from(documented[0], self.known)
        elif (folder := self._folder(e.path, lines, invocation)) is not None:
            # its program is named from the script's folder: run it from there
            script = posixpath.relpath(e.path, folder)
            command = f"cd {shlex.quote(folder)} && bash {shlex.quote(script)}"
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

    def _folder(self, script: str, lines: list[str], invocation: str) -> str | None:
        """The folder a launch script must be run from: its own, or the nearest above it,
        when the program it runs is named from there (`python finetuning.py` in
        `alpaca_finetuning_v1/finetuning.sh`, `python run.py` in a sub-project's
        `FEDformer/scripts/LongForecasting.sh`), as mining resolves it (`run_folder`), and the
        script moves to no folder itself."""
        folder = posixpath.dirname(script)
        if not folder or any(re.match(r"\s*(?:cd|pushd)\s", x) for x in lines):
            return None
        try:
            words = shlex.split(invocation, comments=True)
        except ValueError:
            return None
        program = next((w for w in words if w.endswith(".py") and "$" not in w), None)
        return (run_folder(script, program, self.known) or None) if program else None
