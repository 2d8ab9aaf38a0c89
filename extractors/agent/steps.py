"""Requirements (`Step k: ... (path:a-b)`) and usage commands, derived from the code itself.

The steps follow the chosen entry point the way a reader would: its argument parser, then the
functions its main block calls in order (resolved into the repo modules it imports), with
each step's wording taken from the function's docstring or name. Every reference is checked
against the file before it is emitted, so a step can never point at lines that do not exist.
"""

from __future__ import annotations

import ast
import math
import posixpath
import re
import shlex
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from expcurate.records import DocCommand, EntryPoint, RepoIndex
from extractors.repo import RepoSearch, stem, terms
from extractors.repo.commands import run_from
from extractors.repo.pysource import OutlineItem, outline, parse

from .inline import (
    INCIDENTAL,
    doc_wording,
    function_blocks,
    has_main,
    humanize,
    inline_blocks,
    main_body,
    notebook_cells,
)
from .query import TaskQuery

MAX_STEPS = 8
FOCUS_WEIGHT = 3.0
LONG_INIT = 15  # lines of a constructor that sets up more than its arguments


DATA_NAMES = {"data", "dataset", "datasets", "dataloader", "loader"}
_BORING = re.compile(r"(Error|Exception|Warning|Test|Mixin|Config|Args)$|^(test_|get_|set_)")


@dataclass
class Step:
    action: str
    path: str
    start: int
    end: int

    def render(self, label: str) -> str:
        ref = f"{self.path}:{self.start}" + (f"-{self.end}" if self.end > self.start else "")
        return f"{label}: {self.action} ({ref})"


# a helper making a file's or folder's path (`get_path`, `make_out_dir`): plumbing
_PATHS = re.compile(r"path|dir\b|dirs\b|_dir|folder|filename", re.I)


def _action(item: OutlineItem) -> str:
    doc = doc_wording(item.doc)
    if doc:
        return doc[0].upper() + doc[1:]
    if item.kind == "class":
        return f"Create the {item.name}"
    name = item.name.rsplit(".", 1)
    action = humanize(name[-1], name[0] if len(name) == 2 and item.kind == "method" else "")
    # a definition cited whole is what it does, not a call of it ("Call interaction" for
    # `def interaction(...)`): a name no verb begins is implemented
    own = item.name if item.kind == "method" else name[-1]  # `tokenize`, not `train.tokenize`
    return f"Implement {own}" if action.startswith("Call ") else action


class StepTracer:
    """Follows an entry point's main block into the modules it imports."""

    def __init__(self, index: RepoIndex, search: RepoSearch) -> None:
        self.index = index
        self.search = search
        self._outlines: dict[str, list[OutlineItem]] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._ours: frozenset[str] | None = None  # the repository's module names
        self._imports: dict[str, dict[str, str]] = {}  # per file: name -> its top module

    def tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            try:
                self._trees[path] = parse(self.search.text(path))
            except (OSError, ValueError):
                self._trees[path] = None
        return self._trees[path]

    def outline(self, path: str) -> list[OutlineItem]:
        if path not in self._outlines:
            tree = self.tree(path)
            self._outlines[path] = outline(tree) if tree else []
        return self._outlines[path]

    # ------------------------------------------------------------ python entry

    def python_steps(self, path: str, entry: EntryPoint | None, q: TaskQuery) -> list[Step]:
        tree = self.tree(path)
        if tree is None:
            return []
        steps: list[Step] = []
        if entry and entry.flags:
            lines = [f.line for f in entry.flags if f.line]
            if lines:
                where = entry.parser or path
                steps.append(Step("Parse command-line arguments", where, min(lines), max(lines)))
        names = self.local_names(path, tree)
        if not has_main(tree):
            steps += self._test_steps(path, q)
        seen: set[tuple[str, int]] = set()  # the definitions cited, a class by its start
        for qual, target, item in self._called(path, tree, names):
            if len(steps) >= MAX_STEPS - 2:
                break
            if (target, item.start) in seen:
                continue
            if INCIDENTAL.search(qual.rsplit(".", 1)[-1]) or qual.endswith("__init__"):
                continue
            seen.add((target, item.start))
            steps.append(
                self._created(target, item) or Step(_action(item), target, item.start, item.end)
            )
        seen |= {(s.path, s.start) for s in steps}
        method = self.method_step(path, q, exclude=seen)
        if method:
            steps.insert(1 if steps and steps[0].action.startswith("Parse") else 0, method)
        return steps

    def callees(self, step: Step, cited: set[tuple[str, int]]) -> list[Step]:
        """The functions and classes of the step's own file that the function it cites
        whole calls, in the order it calls them, none of those `cited` (a file and a first
        line): the helpers of a short program run whole (`generate_synthetic_data` and
        `compare_results` of `run_pc_algorithm_test`), which are its experiment too."""
        if not step.path.endswith(".py"):
            return []
        item = next(
            (
                i
                for i in self.outline(step.path)
                if i.kind in ("function", "method") and (i.start, i.end) == (step.start, step.end)
            ),
            None,
        )
        node = self.def_node(step.path, item.name) if item is not None else None
        if node is None:
            return []
        top = {i.name: i for i in self.outline(step.path) if "." not in i.name}
        # the plain names it calls (`make_data(n)`), in the order it calls them
        named = sorted(
            (c.lineno, c.col_offset, c.func.id)
            for c in ast.walk(node)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
        )
        out: list[Step] = []
        for _, _, name in named:
            found = top.get(name)
            if (
                found is None
                or found.name == node.name
                or (step.path, found.start) in cited
                or INCIDENTAL.search(found.name)
                or _PATHS.search(found.name)
                or found.end - found.start < 3
            ):
                continue
            cited.add((step.path, found.start))
            out.append(
                self._created(step.path, found)
                or Step(_action(found), step.path, found.start, found.end)
            )
        return out

    def _created(self, path: str, cls: OutlineItem) -> Step | None:
        """A class the main block instantiates, cited by its `__init__`, not its whole body,
        which would swallow the training and evaluation methods cited on their own."""
        if cls.kind != "class":
            return None
        init = next((i for i in self.outline(path) if i.name == f"{cls.name}.__init__"), None)
        if init is None:
            return None
        return Step(f"Create the {cls.name} ({cls.name}.__init__)", path, init.start, init.end)

    def _test_steps(self, path: str, q: TaskQuery) -> list[Step]:
        """For a test module: the test functions closest to the task, in file order."""
        wanted = {stem(t) for t in q.terms}
        tests = [i for i in self.outline(path) if i.name.rsplit(".", 1)[-1].startswith("test")]
        scored = sorted(tests, key=lambda i: (-len(set(terms(i.name)) & wanted), i.start))[
            : MAX_STEPS // 2
        ]
        return [
            Step(_action(i), path, i.start, i.end) for i in sorted(scored, key=lambda i: i.start)
        ]

    def local_names(
        self, path: str, tree: ast.Module, packages: bool = False
    ) -> dict[str, tuple[str, str]]:
        """Name in this file -> (repo file, qualified name) for its defs and repo imports;
        with `packages`, a name a package's `__init__.py` re-exports too, at its module."""
        names: dict[str, tuple[str, str]] = {}
        for item in self.outline(path):
            if "." not in item.name:
                names[item.name] = (path, item.name)
        imported = self.index.imports.get(path, [])
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    for target in imported:
                        if any(
                            i.name == alias.name for i in self.outline(target) if "." not in i.name
                        ):
                            names[alias.asname or alias.name] = (target, alias.name)
                            break
                        # a package re-exporting it (`from .model import Transformer` in
                        # llama/__init__.py): where the package takes it from
                        if packages and target.endswith("__init__.py") and target != path:
                            package = self.tree(target)
                            again = self.local_names(target, package, False) if package else {}
                            if alias.name in again and again[alias.name][0] != target:
                                names[alias.asname or alias.name] = again[alias.name]
                                break
        return names

    def from_library(self, path: str, name: str) -> bool:
        """`name`, as the file `path` uses it, comes from outside the repository: a library's
        (`DataLoader` of `from torch.utils.data import DataLoader`, `np` of `import numpy as
        np`). A name the file defines, imports from the repository, or whose origin is not
        plain is not."""
        origin = self._origins(path).get(name, "")
        return bool(origin) and origin not in self._module_names()

    def _origins(self, path: str) -> dict[str, str]:
        """The names the file's imports bind, each to the top module it comes from ("" for a
        relative import, or a name the file defines or takes from the repository), read once
        per file."""
        if path not in self._imports:
            tree = self.tree(path)
            origins: dict[str, str] = {}
            if tree is not None:
                for node in ast.walk(tree):
                    if isinstance(node, ast.ImportFrom):
                        top = (node.module or "").split(".")[0] if node.level == 0 else ""
                        for a in node.names:
                            origins.setdefault(a.asname or a.name, top)
                    elif isinstance(node, ast.Import):
                        for a in node.names:
                            top = a.name.split(".")[0]
                            origins.setdefault(a.asname or top, top)
                for local in self.local_names(path, tree):
                    origins[local] = ""
            self._imports[path] = origins
        return self._imports[path]

    def _module_names(self) -> frozenset[str]:
        """Every folder and module name of the repository's Python files: an import of one of
        them may be the repository's own, wherever it is run from."""
        if self._ours is None:
            self._ours = frozenset(
                part.removesuffix(".py")
                for f in self.index.files
                if f.path.endswith(".py")
                for part in f.path.split("/")
            )
        return self._ours

    def _called(
        self, path: str, tree: ast.Module, names: dict[str, tuple[str, str]]
    ) -> list[tuple[str, str, OutlineItem]]:
        """Functions/methods the main block (and the `main` it calls) invokes, in order."""
        body = main_body(tree)
        out: list[tuple[str, str, OutlineItem]] = []
        seen: set[tuple[str, str]] = set()
        instances: dict[str, tuple[str, str]] = {}

        def visit(nodes: list[ast.stmt], depth: int) -> None:
            for node in nodes:
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call):
                        fn = sub.value.func
                        if isinstance(fn, ast.Name) and fn.id in names:
                            for t in sub.targets:
                                if isinstance(t, ast.Name):
                                    instances[t.id] = names[fn.id]
                # the calls in the order they run: one's arguments, and the object a method
                # is called on (`Assigner(config).start()`), before it
                calls = sorted(
                    (sub for sub in ast.walk(node) if isinstance(sub, ast.Call)),
                    key=lambda c: (c.end_lineno or c.lineno, c.end_col_offset or 0),
                )
                for sub in calls:
                    hit = self.resolve_call(sub.func, names, instances)
                    if hit is None or hit in seen:
                        continue
                    seen.add(hit)
                    target, qual = hit
                    item = next((i for i in self.outline(target) if i.name == qual), None)
                    if item is None:
                        continue
                    fn_node = self.def_node(target, qual)
                    if qual.split(".")[-1] == "main" and depth < 1 and fn_node is not None:
                        visit(fn_node.body, depth + 1)  # expand main() into its own calls
                        continue
                    out.append((qual, target, item))

        visit(body, 0)
        return out

    @staticmethod
    def resolve_call(
        func: ast.expr, names: dict[str, tuple[str, str]], instances: dict[str, tuple[str, str]]
    ) -> tuple[str, str] | None:
        """Where the function a call calls is defined (file, qualified name): a name the file
        has, a method of an object bound to a name, or of the object just made."""
        if isinstance(func, ast.Name) and func.id in names:
            return names[func.id]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = instances.get(func.value.id)
            if owner is not None:
                return owner[0], f"{owner[1]}.{func.attr}"
        # a method called on the object just made (`Assigner(config).start()`)
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Call)
            and isinstance(func.value.func, ast.Name)
            and func.value.func.id in names
        ):
            path, qual = names[func.value.func.id]
            return path, f"{qual}.{func.attr}"
        return None

    def def_node(self, path: str, qual: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        tree = self.tree(path)
        if tree is None:
            return None
        nodes: list[ast.stmt] = list(tree.body)
        found: ast.AST | None = None
        for part in qual.split("."):
            node = next(
                (
                    n
                    for n in nodes
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                    and n.name == part
                ),
                None,
            )
            if node is None:
                return None
            nodes = list(node.body)
            found = node
        return found if isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef) else None

    def method_step(
        self, path: str, q: TaskQuery, exclude: set[tuple[str, int]] | None = None
    ) -> Step | None:
        """The class or function, among the modules this entry imports, that best fits the task.

        Matches in the item's own name count double those in its docstring; rarer words count
        more; larger definitions win ties, so the model class beats a helper that shares a word.
        """
        # The question's own names (the method, the dataset) are common in their repository,
        # so they get a flat weight; other names and plain words count by rarity.
        weight: dict[str, float] = {stem(t): 0.2 for t in q.words}
        weight.update({stem(t): 1.0 for t in q.names})
        focus = {stem(t) for t in q.focus}
        modules = list(self.index.imports.get(path, []))
        for m in list(modules):
            modules.extend(x for x in self.index.imports.get(m, []) if x not in modules)

        def value(words: set[str]) -> float:
            rare = math.fsum(weight[t] * self._idf(t) for t in words - focus if t in weight)
            return rare + FOCUS_WEIGHT * len(words & focus)

        best: tuple[float, str, OutlineItem] | None = None
        for module in [path, *modules[:40]]:
            if not module.endswith(".py"):
                continue
            module_score = value(set(terms(module)))
            for item in self.outline(module):
                short = item.name.rsplit(".", 1)[-1]
                if item.end - item.start < 4 or short.startswith("_") or _BORING.search(short):
                    continue
                if set(terms(short)) & DATA_NAMES:  # the data's loader is not the method
                    continue
                if exclude and (module, item.start) in exclude:
                    continue
                own = set(terms(item.name))
                score = 2 * value(own) + value(set(terms(item.doc)) - own)
                if item.kind != "method":
                    score += module_score
                if score < 2.0:
                    continue
                score += 0.3 * math.log(item.end - item.start + 1)
                if item.kind == "class":
                    score += 0.5
                if best is None or score > best[0]:
                    best = (score, module, item)
        if best is None:
            return None
        _, module, item = best
        action = doc_wording(item.doc) or f"{item.name} ({item.kind})"
        return Step(f"Implement the method: {action}", module, item.start, item.end)

    def _idf(self, term: str) -> float:
        n = max(len(self.search.readable), 1)
        return math.log(1 + n / (self.search.document_frequency(term) + 1))

    def class_walk(self, path: str, limit: int = 10) -> list[Step]:
        """What a module's main class does, in the order it runs: from its longest public
        method (the one the framework calls: `start_sample`) through the methods it calls on
        `self`, each once, depth first (`_inject_initial_messages`, `_handle_agent_action`,
        `_extract_action`, `_judge`). Empty for a module whose largest class has fewer than
        three methods: its definitions say more. A walk of one long method gives that
        method's blocks."""
        items = self.outline(path)
        classes = [i for i in items if i.kind == "class" and "." not in i.name]
        if not classes:
            return []
        cls = max(classes, key=lambda c: c.end - c.start)
        methods = {
            i.name.rsplit(".", 1)[-1]: i
            for i in items
            if i.kind == "method" and i.name.count(".") == 1 and i.name.startswith(cls.name + ".")
        }
        public = [m for n, m in methods.items() if not n.startswith("_")]
        if len(methods) < 3 or not public:
            return []
        start = max(public, key=lambda m: m.end - m.start)
        out: list[Step] = []
        seen: set[str] = set()
        # a constructor that does more than keep its arguments (the task's prompt and its
        # one-shot example, its configs) is where what the methods use is set up: first
        init = methods.get("__init__")
        if init is not None and init.end - init.start >= LONG_INIT:
            out.append(Step(_action(init), path, init.start, init.end))
            seen.add("__init__")

        def visit(item: OutlineItem) -> None:
            name = item.name.rsplit(".", 1)[-1]
            if name in seen or len(out) >= limit:
                return
            seen.add(name)
            out.append(Step(_action(item), path, item.start, item.end))
            node = self.def_node(path, item.name)
            if node is None:
                return
            calls = sorted(
                (c for c in ast.walk(node) if isinstance(c, ast.Call)),
                key=lambda c: (c.lineno, c.col_offset),
            )
            for call in calls:
                fn = call.func
                if (
                    isinstance(fn, ast.Attribute)
                    and isinstance(fn.value, ast.Name)
                    and fn.value.id == "self"
                    and fn.attr in methods
                ):
                    visit(methods[fn.attr])

        visit(start)
        walked = len(out) - ("__init__" in seen)  # the methods the walk went through
        if walked < 3 and (tree := self.tree(path)) is not None:
            # the class does its work in one long method (`start_sample`, 175 lines): its
            # blocks in its place
            lines = self.search.lines(path)
            parts = function_blocks(tree, lines, start.start, start.end, limit)
            at = next((k for k, s in enumerate(out) if s.start == start.start), None)
            if len(parts) >= 2 and at is not None:
                out[at : at + 1] = [Step(action, path, a, b) for action, a, b in parts]
        return out if len(out) >= 3 else []

    def definition_steps(self, path: str, limit: int = 6) -> list[Step]:
        """The file's own definitions in order, a long class by its methods: the steps of a
        module that nothing else explains (no main block, no call graph)."""
        items = self.outline(path)
        out: list[Step] = []
        for item in items:
            short = item.name.rsplit(".", 1)[-1]
            if item.end - item.start < 4 or (
                short.startswith("_") and short not in ("__init__", "__call__")
            ):
                continue
            inside_long_class = any(
                c.kind == "class" and c.end - c.start > 40 and item.name.startswith(c.name + ".")
                for c in items
            )
            long_class = item.kind == "class" and item.end - item.start > 40
            if (item.kind == "method" and not inside_long_class) or long_class:
                continue  # a short class is cited whole; a long one by its methods
            out.append(Step(_action(item), path, item.start, item.end))
            if len(out) >= limit:
                break
        return out

    # ------------------------------------------------------------ inline code

    def block_steps(self, path: str, q: TaskQuery, limit: int = 8) -> list[Step]:
        """Steps for code written inline in a script's main block (or in the `main()` it
        calls), as `inline.inline_blocks` cuts and words them."""
        tree = self.tree(path)
        if tree is None:
            return []
        try:
            lines = self.search.text(path).splitlines()
        except (OSError, ValueError):
            return []
        blocks = inline_blocks(tree, lines, {stem(t) for t in q.terms}, limit)
        return [Step(action, path, start, end) for action, start, end in blocks]

    # ------------------------------------------------------------ other kinds

    def shell_steps(self, path: str, entry: EntryPoint | None) -> list[Step]:
        lines = self.search.text(path).splitlines()
        first = entry.line if entry else 1
        setting = [
            i
            for i, ln in enumerate(lines[: max(first - 1, 0)], start=1)
            if re.match(r"^\s*(?:export\s+)?\w+=", ln)
        ]
        steps: list[Step] = []
        if setting:
            steps.append(Step("Set the experiment's variables", path, min(setting), max(setting)))
        end = len(lines)
        while end > first and not lines[end - 1].strip():
            end -= 1
        called = ", ".join(posixpath.basename(c) for c in (entry.calls if entry else [])[:3])
        action = f"Launch the runs ({called})" if called else "Launch the runs"
        steps.append(Step(action, path, max(first, 1), max(end, first, 1)))
        return steps

    def notebook_steps(self, path: str, limit: int = MAX_STEPS - 1) -> list[Step]:
        """One step per substantial code cell, at most `limit`, cited by the cell's lines in
        the .ipynb file (`inline.notebook_cells`)."""
        cells = notebook_cells(self.search.text(path), limit)
        return [Step(action, path, start, end) for action, start, end in cells]

    def config_steps(self, path: str) -> list[Step]:
        n = len(self.search.text(path).splitlines())
        return [Step("Set the configuration values", path, 1, max(n, 1))]


def self_calls(node: ast.AST) -> list[ast.Call]:
    """The calls in `node` of a method or part of the object itself (`self.model(x)`,
    `self._init_exp_encoder()`), in the order `ast.walk` meets them."""
    return [
        c
        for c in ast.walk(node)
        if isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and isinstance(c.func.value, ast.Name)
        and c.func.value.id == "self"
    ]


def imported(
    index: RepoIndex, start: str, limit: int = 80, skip: frozenset[str] = frozenset()
) -> list[str]:
    """`start`, then the repository modules it reaches through its imports, breadth first,
    at most `limit` in all, never through those in `skip`."""
    return list(islice(reached(index, [start], skip=skip), limit))


def reached(
    index: RepoIndex,
    starts: list[str],
    depth_first: bool = False,
    skip: frozenset[str] = frozenset(),
) -> Iterator[str]:
    """The `starts`, then the repository modules they reach through their imports, each
    once, found as they are read (a caller may stop at the first it needs): breadth first,
    or depth first, the last import first (to reach the modules doing the work soonest);
    never the modules in `skip`."""
    seen: set[str] = set(skip)
    todo = deque(starts)
    while todo:
        path = todo.pop() if depth_first else todo.popleft()
        if path in seen:
            continue
        seen.add(path)
        yield path
        todo.extend(x for x in index.imports.get(path, []) if x not in seen)


def bare_run(path: str, entry: EntryPoint | None) -> str:
    """How a Python file runs with no arguments: `python path`, or for a test module with no
    main block of its own, through pytest (`python tests/TestFCI.py` would run nothing)."""
    name = posixpath.basename(path)
    is_test = name.startswith(("test", "Test")) or name.endswith("_test.py")
    if entry is None and is_test:
        return f"python -m pytest {shlex.quote(path)}"
    return f"python {shlex.quote(path)}"


def usage_for(
    path: str,
    kind: str,
    entry: EntryPoint | None,
    index: RepoIndex,
    q: TaskQuery,
) -> str:
    """A runnable command for one source file: the README's own if it has one."""
    if kind == "script":
        return f"bash {shlex.quote(path)}"
    if kind == "notebook":
        return f"jupyter nbconvert --to notebook --execute {shlex.quote(path)}"
    if kind == "config":
        return ""
    wanted = {stem(t) for t in q.terms}
    names = {stem(t) for t in q.names}
    documented = [c for c in index.commands if path in c.runs]
    if documented:

        def fit(c: DocCommand) -> tuple[int, int]:
            words = set(terms(c.text))
            return 2 * len(words & names) + len(words & wanted), -c.line

        return run_from(max(documented, key=fit), {f.path for f in index.files})
    parts = [bare_run(path, entry)]
    for flag in (entry.flags if entry else [])[:60]:
        if not flag.name.startswith("-"):
            parts.append(f"<{flag.name}>")
            continue
        if set(terms(flag.name)) & wanted and flag.default and flag.default not in ("None", ""):
            if flag.switch:
                if flag.default == "False":
                    parts.append(flag.name)
            else:
                parts.append(f"{flag.name} {shlex.quote(flag.default)}")
    return " ".join(parts)
