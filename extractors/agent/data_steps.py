"""The data a task's experiment loads: the loader of its data sets, and the loaders of the
benchmarks it names that have a folder of code of their own.

A program's data is read by a class or function named for data (`Dataset_ETT`, `load_data`)
that names the task's data sets, or the one a name registry maps the runs' data option to
(`--data custom` and `{"custom": Dataset_Custom}`). A benchmark with its own folder among like
folders (`tasks/gpqa/`, `tasks/humaneval/`) is loaded by its folder's data module.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections import Counter

from expcurate.records import RepoIndex, TaskDraft
from extractors.repo import terms
from extractors.repo.pysource import OutlineItem

from .arm_options import (
    fold,
)
from .arms import (
    about_data,
    listed,
    measured_on,
    task_datasets,
)
from .methods import NARROW
from .run import Run
from .steps import DATA_NAMES, Step, StepTracer
from .suite_config import names_folder

_SCORES = ("compute_score", "compute", "score", "__call__", "forward")  # a metric's work
MAX_BENCHMARKS = 4  # benchmarks named by the task whose own folder's loader is a step
_DATA_WORDS = {"data", "dataset", "loader", "dataloader", "load", "read"}
_DATA_NAMES = DATA_NAMES | {"corpus"}
_DATA_OPTION = re.compile(r"(?<!\S)--(?:data|dataset|data_name)(?:=|\s+)(\S+)")


class DataSteps:
    """Finds the data steps of one repository's tasks, reading each file's registries once."""

    def __init__(self, index: RepoIndex, tracer: StepTracer) -> None:
        self.index = index
        self.tracer = tracer
        self._registries: dict[str, dict[str, str]] = {}
        self._folders: dict[str, str] | None = None

    def loader(self, task: TaskDraft, modules: list[str], runs: list[Run]) -> Step | None:
        """The loader of the task's data: a class or function about data, naming its sets;
        first of all the one a registry maps the runs' data option to (`--data custom` and
        `data_dict = {"custom": Dataset_Custom}`: Dataset_Custom, not the ETTh loader)."""
        # a data set's name or a long part of it: "net" of ImageNet names no ResNet loader
        datasets = {
            w for d in task_datasets(task) for w in terms(d) if len(w) >= 4 and not w.isdigit()
        }
        # the data sets the task names, its measures' first (ETTm1 of "ETTm1 / 96 MSE")
        sets_named = [*(measured_on(task) or []), *task_datasets(task)]
        chosen = self._registered_loaders(modules, runs, sets_named)
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
                # a registry's class is a loader whatever its name (`'UEA': UEAloader`)
                named = about_data or (own & _DATA_WORDS and module_words & _DATA_NAMES)
                if not named and item.name not in chosen:
                    continue
                if item.name not in chosen and not self._reads(module, item):
                    continue  # a record of results (`@dataclass DatasetEval`) loads nothing
                score: float = 2 * len(own & _DATA_WORDS) + 3 * len(own & datasets)
                score += len(module_words & _DATA_WORDS) + (0.5 if item.kind == "class" else 0)
                score += 10 * chosen.get(item.name, 0)
                if best is None or score > best[0]:
                    best = (score, module, item)
        if best is None or best[0] < 2:
            return None
        _, module, item = best
        prefer = ("read", "load", "get_data", "__getitem__", "__init__")
        item = narrow(self.tracer, module, item, prefer=prefer, opening=True)
        sets = task_datasets(task)
        # a registry mapping the task's data sets to loaders: this one's sets, and where the
        # others load (ETTm1 through Dataset_ETT_minute, not the ETTh loader cited)
        by = self._loaders_of(modules, sets, runs)
        mine = [d for d in sets if by.get(d) == best[2].name]
        others: dict[str, list[str]] = {}
        for d in sets:
            if by.get(d) not in (None, best[2].name):
                others.setdefault(by[d], []).append(d)
        if mine and others:
            sets = mine
        what = f"the {', '.join(sets)} data" if sets else "the data"
        rest = "".join(
            f"; {', '.join(ds)} load{'s' if len(ds) == 1 else ''} through {cls}"
            for cls, ds in others.items()
        )
        lines = self.tracer.search.lines(module)[item.start : item.end]  # past its `def`
        verb = "Load and split" if _SPLITTING.search("\n".join(lines)) else "Load"
        return Step(f"{verb} {what} ({item.name}{rest})", module, item.start, item.end)

    def _loaders_of(self, modules: list[str], sets: list[str], runs: list[Run]) -> dict[str, str]:
        """The loader class a registry of `modules` maps each data set to, by its name
        (`'ETTm1': Dataset_ETT_minute`), else by the value the data set's own run passes
        (`--data custom` for Electricity: Dataset_Custom); read from the registries
        `_registered_loaders` found, so only after it ran."""
        folded = {
            fold(label): loader
            for m in modules
            for label, loader in self._registries.get(m, {}).items()
        }
        passed: dict[str, str] = {}  # a data set, by the value its runs pass
        for r in runs:
            values = {
                m.group(1).strip("'\"") for m in _DATA_OPTION.finditer(r.invocation or r.command)
            }
            named = [r.data] if r.data else [a.value for a in r.arms if about_data(a.variable)]
            if len(named) == 1 and len(values) == 1:
                passed.setdefault(fold(named[0]), values.pop())
        out: dict[str, str] = {}
        for d in sets:
            if fold(d) in folded:
                out[d] = folded[fold(d)]
            elif (value := passed.get(fold(d))) is not None and fold(value) in folded:
                out[d] = folded[fold(value)]
        # a set the registry has no key of, run by no run of its own (the "likewise" ones),
        # loads as every such set a run passes does when they all go one way (Dataset_Custom)
        unkeyed = {out[d] for d in out if fold(d) not in folded}
        if len(unkeyed) == 1:
            out |= {d: next(iter(unkeyed)) for d in sets if d not in out}
        return out

    def benchmarks(self, task: TaskDraft) -> list[Step]:
        """The loaders of the benchmarks the task names (its data sets or measured columns)
        that have a folder of code of their own among like folders (`tasks/gpqa/` for "GPQA
        Diamond", `tasks/mmlu_pro/` for "MMLU-Pro", `pycocoevalcap/bleu/` for "BLEU-4"):
        each its data module's main definition, or the metric's code."""
        out: list[Step] = []
        for name, folder in self.benchmark_folders(task):
            step = self._folder_loader(folder, name)
            if step is not None:
                out.append(step)
            if len(out) >= MAX_BENCHMARKS:
                break
        return out

    def benchmark_folders(self, task: TaskDraft) -> list[tuple[str, str]]:
        """(name as the task says it, folder) of each benchmark the task names that has a
        folder of code of its own among like folders, in the task's order."""
        d = task.design_complexity
        names = [
            *task_datasets(task),
            *(str(m) for v in d.dependent_variables.values() for m in listed(v)),
        ]
        folders = self.code_folders()
        out: list[tuple[str, str]] = []
        for name in dict.fromkeys(names):
            said = fold(name)
            if len(said) < 4:
                continue
            folder = next((f for f, c in folders.items() if names_folder(said, c)), None)
            if folder is not None and all(folder != f for _, f in out):
                out.append((name, folder))
        return out

    def code_folders(self) -> dict[str, str]:
        """Folders of Python modules that sit beside two or more others like them (one per
        benchmark: `tasks/gpqa/`, `tasks/humaneval/`, ...), with their names folded
        (`mmlu_pro` -> mmlupro)."""
        if self._folders is None:
            code = {posixpath.dirname(f.path) for f in self.index.files if f.path.endswith(".py")}
            siblings = Counter(posixpath.dirname(c) for c in code if "/" in c)
            self._folders = {
                c: fold(posixpath.basename(c))
                for c in sorted(code)
                if "/" in c and siblings[posixpath.dirname(c)] >= 3
            }
        return self._folders

    def _folder_loader(self, folder: str, name: str) -> Step | None:
        """The main definition of a benchmark folder's data module (data_worker.py, dataset.py),
        narrowed to where it loads; of a metric's folder, its code (`bleu/bleu.py`)."""
        modules = sorted(
            (
                f.path
                for f in self.index.files
                if posixpath.dirname(f.path) == folder
                and f.path.endswith(".py")
                and not f.path.endswith("__init__.py")
            ),
            key=lambda p: (not set(terms(posixpath.basename(p))) & _DATA_WORDS, p),
        )
        for module in modules:
            items = [
                i
                for i in self.tracer.outline(module)
                if i.kind in ("class", "function") and i.end - i.start >= 3
            ]
            if not items:
                continue
            top = max(items, key=lambda i: i.end - i.start)
            # a benchmark's data module loads it; a metric's own code computes it (BLEU-4)
            data = set(terms(module)) & _DATA_WORDS
            # raw records turned into the benchmark's items (`process_task_data`) load it too
            prefer = ("load", "read", "__getitem__", "process", "__init__")
            top = narrow(self.tracer, module, top, prefer=prefer if data else _SCORES)
            verb = "Load" if data else "Compute"
            return Step(f"{verb} {name} ({top.name})", module, top.start, top.end)
        return None

    def _reads(self, module: str, item: OutlineItem, depth: int = 0) -> bool:
        """The definition reads or serves data: it opens, loads, reads or lists something,
        serves items by index (`__getitem__`), or is a class whose base does (a library's
        data set, or the repository's `CustomDataset` that lists the images). A record of
        results (`@dataclass DatasetEval`), a score computed from answers or a writer
        (`save_dataset_to_jsonl`) does none of it."""
        if _WRITER.match(item.name.rsplit(".", 1)[-1]):
            return False
        text = "\n".join(self.tracer.search.lines(module)[item.start - 1 : item.end])
        if _READING.search(text):
            return True
        tree = self.tracer.tree(module)
        cls = (
            next(
                (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == item.name), None
            )
            if tree is not None and item.kind == "class"
            else None
        )
        if cls is None or tree is None or depth >= 3:
            return False
        names = self.tracer.local_names(module, tree)
        for base in cls.bases:
            name = ast.unparse(base).rsplit(".", 1)[-1]
            if name not in names:  # a library's: a data set by its name
                if set(terms(name)) & DATA_NAMES:
                    return True
                continue
            path, qual = names[name]
            found = next((i for i in self.tracer.outline(path) if i.name == qual), None)
            if found is not None and self._reads(path, found, depth + 1):
                return True
        return False

    def _registered_loaders(
        self, modules: list[str], runs: list[Run], named: list[str] | None = None
    ) -> dict[str, int]:
        """How many runs pick each class through a name registry (`{"custom": Dataset_Custom}`
        indexed by the value a run passes to `--data` or `--dataset`). When some runs pass
        a data set the task `named` ("ETTm1 / 96 MSE"), only theirs count: the others run a
        launch script of other data the usage re-points (`ETSformer_ETTh1.sh` for ETTm1)."""
        values = [
            m.group(1).strip("'\"")
            for r in runs
            for m in _DATA_OPTION.finditer(r.invocation or r.command)
        ]
        wanted = {fold(n) for n in named or []}
        values = [v for v in values if fold(v) in wanted] or values
        if not values:
            return {}
        registry: dict[str, str] = {}
        for module in modules:
            if module not in self._registries:
                tree = self.tracer.tree(module)
                found: dict[str, str] = {}
                for node in ast.walk(tree) if tree else []:
                    if not isinstance(node, ast.Dict):
                        continue
                    for key, value in zip(node.keys, node.values, strict=False):
                        if (
                            isinstance(key, ast.Constant)
                            and isinstance(key.value, str)
                            and isinstance(value, ast.Name)
                        ):
                            found.setdefault(key.value, value.id)
                self._registries[module] = found
            for label, loader in self._registries[module].items():
                registry.setdefault(label, loader)
        return dict(Counter(registry[v] for v in values if v in registry))


_WRITER = re.compile(r"_*(?:save|write|dump|export|store)", re.I)
# what splits data: a split by its name as a string (`data_dict['train']`) or as what it
# binds (`self.val = ...`, `test_df = ...`), a split or fold by name, borders (`border1s`);
# not a string's `.split()`
_SPLITS = r"(?:train|val|valid|validation|dev|test)"
_SPLITTING = re.compile(
    rf"['\"]{_SPLITS}['\"]|\bself\.{_SPLITS}\b|\b{_SPLITS}_\w+\s*=[^=]"
    r"|(?<!\.)\b(?:split\w*|border\w*|k?folds?)\b",
    re.I,
)
# what reads data itself: opens, loads, reads, lists or fetches something
_READS = r"open|\w*load\w*|\w*read\w*|i?glob|listdir|scandir|iterdir|walk|fetch\w*"
_OPENING = re.compile(rf"\b(?:{_READS})\s*\(", re.I)
# what a loader does: that, or download something, or serve items by index
_READING = re.compile(rf"\b(?:{_READS}|download\w*|__getitem__|__iter__)\s*\(", re.I)


def narrow(
    tracer: StepTracer,
    module: str,
    item: OutlineItem,
    prefer: tuple[str, ...],
    opening: bool = False,
) -> OutlineItem:
    """A long class by its method of some length named first in `prefer` (`read`, `load`),
    else whole. With `opening`, first the first of them that opens or loads something
    itself: a loader's `__init__` reading the file (`json.load(open(dataset))`) over the
    `__getitem__` that returns one item of what it read."""
    if item.kind != "class" or item.end - item.start <= NARROW:
        return item
    methods = [
        m
        for m in tracer.outline(module)
        if m.kind == "method" and m.name.startswith(item.name + ".")
    ]
    # a method of one statement (`__init__` storing its task's name) does none of the work
    methods = [m for m in methods if m.end - m.start >= 2]
    lines = tracer.search.lines(module)
    for word in prefer if opening else ():
        for m in methods:
            if word in m.name.rsplit(".", 1)[-1].lower() and _OPENING.search(
                "\n".join(lines[m.start : m.end])  # its body, past its `def` line
            ):
                return m
    for word in prefer:
        found = next((m for m in methods if word in m.name.rsplit(".", 1)[-1].lower()), None)
        if found is not None:
            return found
    return item
