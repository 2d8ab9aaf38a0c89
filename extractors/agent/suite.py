"""A program's own list of items it goes through by a range of two options.

`run_tasks = tasks[args.task_start: args.task_end]` over `tasks = ['a', 'b', ...]` is a suite:
by default such a program runs one item (`--task`), and a question asked over several of them
("the 11 algorithmic tasks", "all 27 tasks") needs the whole range passed. Read from the
program's own syntax tree.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from expcurate.records import CliFlag

from .launch import with_setting


@dataclass(frozen=True)
class Suite:
    """A list a program goes through from one option to another."""

    name: str  # "tasks"
    start: str  # "--task_start"
    end: str  # "--task_end"
    size: int  # the items the list holds
    lines: tuple[int, int]  # where the list is written

    @property
    def range(self) -> list[str]:
        return [self.start, "0", self.end, str(self.size)]


def suite_of(tree: ast.Module, flags: list[CliFlag]) -> Suite | None:
    """The program's suite: a list of at least two literal items, sliced by two options."""
    lists: dict[str, ast.Assign] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.List)
            and len(node.value.elts) >= 2
            and all(isinstance(e, ast.Constant) for e in node.value.elts)
        ):
            lists[node.targets[0].id] = node
    options = {f.name.lstrip("-").replace("-", "_"): f.name for f in flags if f.name[:2] == "--"}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in lists
            and isinstance(node.slice, ast.Slice)
        ):
            continue
        bounds = [_option_of(b) for b in (node.slice.lower, node.slice.upper)]
        if None in bounds or any(b not in options for b in bounds):
            continue
        start, end = (options[b] for b in bounds if b is not None)
        listed = lists[node.value.id]
        assert isinstance(listed.value, ast.List)
        last = listed.end_lineno or listed.lineno
        return Suite(node.value.id, start, end, len(listed.value.elts), (listed.lineno, last))
    return None


def _option_of(bound: ast.expr | None) -> str | None:
    """`args.task_start` as "task_start"; anything else is no option."""
    if isinstance(bound, ast.Attribute) and isinstance(bound.value, ast.Name):
        return bound.attr
    return None


def asks_for_several(text: str, suite: Suite, program: str = "") -> bool:
    """Whether the task's text asks about several of the suite's items: "all 27 tasks", "the
    11 algorithmic tasks", "every task" (the list's name, as a plural, after a count), or
    about the benchmark the program is named after, whole ("on the Big-Bench Hard dataset"
    for examples/bbh/run_prompt_bigbench_trace.py)."""
    if program and _names_benchmark(text, program):
        return True
    nouns = {w if w.endswith("s") else w + "s" for w in suite.name.lower().split("_") if len(w) > 2}
    for noun in nouns:
        every = rf"\b(?:all|every|each)\b(?:\W+\w+){{0,3}}?\W+{noun[:-1]}s?\b"
        if re.search(every, text, re.I):
            return True
        for m in re.finditer(rf"\b(\d+)\b(?:\W+[A-Za-z]\w*){{0,2}}?\W+{noun}\b", text, re.I):
            if int(m.group(1)) >= 2:
                return True
    return False


_BENCHMARK = re.compile(
    r"\b(?:on|over|across)\s+(?:the\s+)?((?:[A-Z][\w-]*\s+){0,3}[A-Z][\w-]*)\s+"
    r"(?:dataset|benchmark|suite)\b"
)


def _names_benchmark(text: str, program: str) -> bool:
    """The text runs "on the X dataset/benchmark" where X is what the program's path is named
    after: a word of the path that X spells without its spaces and hyphens ("bigbench" of
    Big-Bench Hard) or by its initials ("bbh")."""
    words = {w for w in re.split(r"[^a-z0-9]+", program.lower()) if len(w) >= 3}
    for m in _BENCHMARK.finditer(text):
        parts = [p for p in re.split(r"[\s-]+", m.group(1).lower()) if p]
        joined = "".join(parts)
        initials = "".join(p[0] for p in parts) if len(parts) >= 2 else ""
        if any(len(w) >= 5 and joined.startswith(w) for w in words) or initials in words:
            return True
    return False


def through_suite(command: str, suite: Suite) -> str:
    """The command running the whole suite: its range set, the option naming one item of it
    (`--task`, the list's name in the singular) dropped, since the range replaces it."""
    single = "--" + suite.name.rstrip("s")
    words = command.split()
    if single in words and single not in (suite.start, suite.end):
        k = words.index(single)
        del words[k : k + 2]
        command = " ".join(words)
    for option, value in zip(suite.range[::2], suite.range[1::2], strict=True):
        command = with_setting(command, [option, value])
    return command
