"""The program that turns the runs' results into the measures a task reports.

A benchmark's aggregate measures ("performance profile", "aggregate scores") are often not
printed by the program that trains: a separate program of the repository reads the folder the
runs wrote and computes them (BenchMARL's `benchmarl/eval_results.py`, whose `Plotting` defines
`performance_profile_figure` and `aggregate_scores`). A setup that runs the experiment and then
says "compare the performance profile" leaves the reader to find it; the usage names it, and
where it is told which results to read.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from expcurate.records import EntryPoint
from extractors.repo import RepoPathError, RepoSearch, stem, terms

from .inline import has_main, main_body
from .query import STOPWORDS

# a measure named by one word ("accuracy", "loss") is defined by most evaluation code: only a
# measure of two words or more names one program's definition
MIN_MEASURE_WORDS = 2
MAX_CALL_LINES = 20  # the analysis's calls cited in one step span fewer lines than this
# what a variable holding the results' location is called (`multirun_folder`, `log_dir`)
_PLACE_WORDS = frozenset(terms("folder dir directory path root logdir results"))


@dataclass(frozen=True)
class Analysis:
    """A program computing some of the task's measures, and where it reads the results."""

    path: str
    measures: list[str]
    reads: str = ""  # "multirun_folder (benchmarl/eval_results.py:253)": set it to the runs'

    def line(self) -> str:
        told = f" (set {self.reads} to the folder the runs wrote)" if self.reads else ""
        return (
            f"Compute {', '.join(self.measures)} from the runs' results with the repository's "
            f"program: `python {self.path}`{told}."
        )


class AnalysisPrograms:
    """The repository's programs, read once, by the measures their definitions are named for."""

    def __init__(self, search: RepoSearch, entries: dict[str, EntryPoint]) -> None:
        self.search = search
        self.entries = entries
        self._read: dict[str, tuple[list[list[str]], str]] = {}
        self._trees: dict[str, ast.Module | None] = {}

    def find(self, measures: list[str], preferred: list[str], ran: str) -> Analysis | None:
        """The first Python program (it has a main block), of `preferred` (the setup's
        sources) then of the others by path, that no run runs (its path is not in `ran`, the
        runs' commands and program) and that defines a public function or method named for a
        measure of the task, the measure's words first (`def performance_profile_figure` for
        "performance profile"). A program calling what another defines is not one: the
        definition's is. Nor is a program whose path names the measure
        (`tasks/mmlu_pro/data_worker.py` for "MMLU-Pro"): it serves that benchmark."""
        wanted = {m: words for m in measures if len(words := _words(m)) >= MIN_MEASURE_WORDS}
        if not wanted:
            return None
        # only programs holding a measure's words are read: the index says which
        holding = set(self.search.scores(" ".join(w for ws in wanted.values() for w in ws)))
        rest = sorted(p for p in self.entries if p not in preferred and p in holding)
        for path in [*preferred, *rest]:
            if not path.endswith(".py") or path not in self.entries or path in ran:
                continue
            defined, place = self._definitions(path)
            named = set(_words(path))
            found = [
                m
                for m, words in wanted.items()
                if not set(words) <= named and any(_begins(d, words) for d in defined)
            ]
            if found:
                return Analysis(path, found, place)
        return None

    def calls(self, found: Analysis) -> tuple[int, int, str] | None:
        """Where the program's main block calls the definitions named for the measures it
        computes (`Plotting.performance_profile_figure(...)`): the first and last lines of
        those statements, at most `MAX_CALL_LINES` apart, and the first one's name."""
        tree = self._tree(found.path)
        if tree is None or not has_main(tree):
            return None
        wanted = [w for m in found.measures if (w := _words(m))]
        at: list[tuple[int, int, str]] = []
        for stmt in main_body(tree):
            for node in ast.walk(stmt):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                if name and any(_begins(_words(name), w) for w in wanted):
                    at.append((stmt.lineno, stmt.end_lineno or stmt.lineno, ast.unparse(func)))
                    break
        if not at:
            return None
        first, last = at[0][0], max(b for a, b, _ in at if b - at[0][0] < MAX_CALL_LINES)
        return first, last, at[0][2]

    def _tree(self, path: str) -> ast.Module | None:
        """The program's syntax tree, parsed once for all the repository's tasks; None when
        it cannot be read or parsed."""
        if path not in self._trees:
            try:
                self._trees[path] = ast.parse(self.search.text(path))
            except (OSError, RepoPathError, SyntaxError, ValueError):
                self._trees[path] = None
        return self._trees[path]

    def _definitions(self, path: str) -> tuple[list[list[str]], str]:
        """The words of the program's public definitions, and where it is told what to read."""
        if path not in self._read:
            tree = self._tree(path)
            if tree is None:
                self._read[path] = ([], "")
                return self._read[path]
            defined = [
                _words(n.name)
                for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                and not n.name.startswith("_")
            ]
            self._read[path] = (defined, _results_place(tree, path))
        return self._read[path]


def _begins(name: list[str], words: list[str]) -> bool:
    """A definition's words begin with the measure's, one word's stem the other's start
    ("profil" of "profiles" and "profile")."""
    return len(name) >= len(words) and all(
        a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))
        for a, b in zip(name, words, strict=False)
    )


def _words(text: str) -> list[str]:
    """The words of a name or a measure, in order, stemmed: "performance_profile_figure" and
    "Performance profile" begin alike."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return [stem(w) for w in re.findall(r"[a-z]+", spaced.lower()) if w not in STOPWORDS]


def _results_place(tree: ast.Module, path: str) -> str:
    """The name given a literal path in the program's main block, where it is told which
    results to read (`multirun_folder="/Users/.../multirun/2023-09-22/17-21-34"`)."""
    if not has_main(tree):
        return ""
    for node in (n for stmt in main_body(tree) for n in ast.walk(stmt)):
        pairs: list[tuple[str, ast.expr]] = []
        if isinstance(node, ast.Call):
            pairs = [(k.arg, k.value) for k in node.keywords if k.arg]
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            pairs = [(node.targets[0].id, node.value)]
        for name, value in pairs:
            if (
                isinstance(value, ast.Constant)
                and isinstance(value.value, str)
                and "/" in value.value
                and set(terms(name)) & _PLACE_WORDS
            ):
                return f"{name} ({path}:{value.lineno})"
    return ""
