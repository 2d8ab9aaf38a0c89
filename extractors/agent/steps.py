"""Requirements (`Step k: ... (path:a-b)`) and usage commands, derived from the code itself.

The steps follow the chosen entry point the way a reader would: its argument parser, then the
functions its main block calls in order (resolved into the repo modules it imports), with
each step's wording taken from the function's docstring or name. Every reference is checked
against the file before it is emitted, so a step can never point at lines that do not exist.
"""

from __future__ import annotations

import ast
import json
import math
import posixpath
import re
import shlex
from dataclasses import dataclass

from expcurate.records import DocCommand, EntryPoint, RepoIndex
from extractors.repo import RepoSearch, stem, terms
from extractors.repo.commands import run_from
from extractors.repo.pysource import OutlineItem, callee_name, outline, parse

from .query import TaskQuery

MAX_STEPS = 8
FOCUS_WEIGHT = 3.0
_VERB_FIRST = {
    "build", "load", "train", "test", "evaluate", "eval", "run", "parse", "get", "make",
    "create", "compute", "init", "setup", "prepare", "save", "plot", "predict", "validate",
    "fit", "generate", "main", "process", "preprocess", "update", "sample", "collect",
}  # fmt: skip


# Calls every script makes that say nothing about the experiment.
_INCIDENTAL = re.compile(r"parse|debug|seed|logg|print|wandb|set_?up_?log|get_?args", re.I)
DATA_NAMES = {"data", "dataset", "datasets", "dataloader", "loader"}
_INTERFACE = re.compile(r"button|widget|click|api_?key|env_?var", re.I)
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


def humanize(name: str, cls: str = "") -> str:
    """`build_model` -> "Build model"; `Exp.train` -> "Train (Exp.train)"; else "Call x"."""
    words = [w.lower() for w in re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)]
    qual = f"{cls}.{name}" if cls else name
    if not words or words[0] not in _VERB_FIRST:
        return f"Call {qual}"
    text = " ".join(words)
    text = text[0].upper() + text[1:]
    return f"{text} ({qual})" if cls else text


def _action(item: OutlineItem) -> str:
    if item.doc:
        doc = item.doc.strip().rstrip(".:")
        if 8 <= len(doc) <= 140 and not doc.lower().startswith(("args", "returns", "todo")):
            return doc[0].upper() + doc[1:]
    if item.kind == "class":
        return f"Create the {item.name}"
    name = item.name.rsplit(".", 1)
    return humanize(name[-1], name[0] if len(name) == 2 and item.kind == "method" else "")


class StepTracer:
    """Follows an entry point's main block into the modules it imports."""

    def __init__(self, index: RepoIndex, search: RepoSearch) -> None:
        self.index = index
        self.search = search
        self._outlines: dict[str, list[OutlineItem]] = {}
        self._trees: dict[str, ast.Module | None] = {}

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
                steps.append(Step("Parse command-line arguments", path, min(lines), max(lines)))
        names = self._local_names(path, tree)
        if not _has_main(tree):
            steps += self._test_steps(path, q)
        for qual, target, item in self._called(path, tree, names):
            if len(steps) >= MAX_STEPS - 2:
                break
            if any(s.path == target and s.start == item.start for s in steps):
                continue
            if _INCIDENTAL.search(qual.rsplit(".", 1)[-1]) or qual.endswith("__init__"):
                continue
            steps.append(Step(_action(item), target, item.start, item.end))
        method = self.method_step(path, q, exclude={(s.path, s.start) for s in steps})
        if method:
            steps.insert(1 if steps and steps[0].action.startswith("Parse") else 0, method)
        return steps

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

    def _local_names(self, path: str, tree: ast.Module) -> dict[str, tuple[str, str]]:
        """Name in this file -> (repo file, qualified name) for its defs and repo imports."""
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
        return names

    def _called(
        self, path: str, tree: ast.Module, names: dict[str, tuple[str, str]]
    ) -> list[tuple[str, str, OutlineItem]]:
        """Functions/methods the main block (and the `main` it calls) invokes, in order."""
        body = _main_body(tree)
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
                    if not isinstance(sub, ast.Call):
                        continue
                    hit = self._resolve_call(sub.func, names, instances)
                    if hit is None or hit in seen:
                        continue
                    seen.add(hit)
                    target, qual = hit
                    item = next((i for i in self.outline(target) if i.name == qual), None)
                    if item is None:
                        continue
                    fn_node = self._def_node(target, qual)
                    if qual.split(".")[-1] == "main" and depth < 1 and fn_node is not None:
                        visit(fn_node.body, depth + 1)  # expand main() into its own calls
                        continue
                    out.append((qual, target, item))

        visit(body, 0)
        return out

    @staticmethod
    def _resolve_call(
        func: ast.expr, names: dict[str, tuple[str, str]], instances: dict[str, tuple[str, str]]
    ) -> tuple[str, str] | None:
        if isinstance(func, ast.Name) and func.id in names:
            return names[func.id]
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = instances.get(func.value.id)
            if owner is not None:
                return owner[0], f"{owner[1]}.{func.attr}"
        return None

    def _def_node(self, path: str, qual: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
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
        doc = item.doc.rstrip(".")
        action = doc if 8 <= len(doc) <= 140 else f"{item.name} ({item.kind})"
        return Step(f"Implement the method: {action}", module, item.start, item.end)

    def _idf(self, term: str) -> float:
        n = max(len(self.search.readable), 1)
        return math.log(1 + n / (self.search.document_frequency(term) + 1))

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
        calls): runs of statements between blank lines or comments, each worded by the
        comment above it or by what it calls; a long loop is read through its body.

        Scripts that do their work at top level have no functions to cite; these are the
        lines that load, build, train and evaluate, as a reader would point at them.
        """
        tree = self.tree(path)
        if tree is None:
            return []
        try:
            lines = self.search.text(path).splitlines()
        except (OSError, ValueError):
            return []
        body = _main_body(tree)
        calls_main = [
            n for n in body if isinstance(n, ast.Expr) and "main(" in ast.unparse(n.value)[:40]
        ]
        if calls_main:
            node = next(
                (
                    n
                    for n in tree.body
                    if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "main"
                ),
                None,
            )
            if node is not None:
                body = list(node.body)
        segments: list[list[ast.stmt]] = []
        _segment(body, lines, segments, depth=0)
        steps: list[Step] = []
        for seg in segments:
            if not any(_meaningful(n) for n in seg):
                continue
            if isinstance(seg[0], ast.If) and _INFRA.search(ast.unparse(seg[0].test)):
                continue
            start = seg[0].lineno
            end = max(n.end_lineno or n.lineno for n in seg)
            action = _block_action(seg, lines)
            if _INFRA.search(action):
                continue
            steps.append(Step(action, path, start, end))
        if len(steps) > limit:  # keep the blocks closest to the task, in file order
            wanted = {stem(t) for t in q.terms}
            text = {id(s): set(terms(" ".join(lines[s.start - 1 : s.end]))) for s in steps}
            keep = sorted(steps, key=lambda s: -len(text[id(s)] & wanted))[:limit]
            steps = [s for s in steps if s in keep]
        return steps

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

    def notebook_steps(self, path: str) -> list[Step]:
        """One step per substantial code cell, cited by the cell's lines in the .ipynb file.

        The markdown cell before a code cell usually says what it does, so its first line is
        the step's wording; a cell that only calls what the previous step defined joins it.
        """
        raw = self.search.text(path)
        raw_lines = raw.splitlines()
        try:
            cells = json.loads(raw).get("cells", [])
        except (ValueError, AttributeError):
            return []
        steps: list[Step] = []
        defined: set[str] = set()
        pos = 0
        heading = ""
        for cell in cells:
            src = cell.get("source", "")
            src_lines = src if isinstance(src, list) else str(src).splitlines(keepends=True)
            found, pos = _locate(src_lines, raw_lines, pos)
            if cell.get("cell_type") == "markdown":
                text = next((ln.strip("# \n") for ln in src_lines if ln.strip("# \n")), "")
                text = re.sub(r"^(?:\d+(?:\.\d+)*\.?\s+)", "", text).replace("`", "")
                heading = text if 4 <= len(text) <= 120 else heading
                continue
            if cell.get("cell_type") != "code" or not found:
                continue
            code = "".join(ln for ln in src_lines if not ln.lstrip().startswith(("%", "!")))
            tree = parse(code)
            if tree is None or not tree.body:
                continue
            if _interface_only(tree):
                heading = ""
                continue
            names = {n.name for n in tree.body if isinstance(n, _DEFS)}
            calls = _called_names(tree)
            if steps and not names and calls and calls <= defined and not heading:
                steps[-1].end = max(found)  # running what the previous cell defined
                continue
            defined = names or defined
            action = _cell_action(tree)
            title = _title(heading)
            if title and title.lower() not in action.lower():
                action = f"{title}: {action[0].lower() + action[1:]}"
            heading = ""
            steps.append(Step(action, path, min(found), max(found)))
            if len(steps) >= MAX_STEPS - 1:
                break
        return steps

    def config_steps(self, path: str) -> list[Step]:
        n = len(self.search.text(path).splitlines())
        return [Step("Set the configuration values", path, 1, max(n, 1))]


def _has_main(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.If) and "__main__" in ast.unparse(n.test) for n in tree.body)


def _main_body(tree: ast.Module) -> list[ast.stmt]:
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return list(node.body)
    return [
        n
        for n in tree.body
        if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCK_LINES = 12  # a segment longer than this is cut
_LONG_COMPOUND = 15  # a loop longer than this is read through its body
_QUIET_CALLS = {
    "print", "len", "str", "int", "float", "format", "append", "extend", "makedirs", "exists",
    "join", "info", "debug", "warning", "warn", "mkdir", "isdir", "isfile", "update", "get",
    "add_argument", "parse_args", "ArgumentParser", "seed", "manual_seed", "set_seed", "time",
    "range", "enumerate", "zip", "list", "dict", "set", "tuple", "items", "keys", "values",
    "set_device", "spawn", "getLogger", "init_process_group", "barrier", "device", "cuda",
    "to", "device_count", "is_available", "manual_seed_all", "setLevel", "addHandler",
    "basicConfig", "FileHandler", "StreamHandler", "Formatter", "setFormatter", "now",
    "strftime", "environ", "getenv", "filterwarnings", "seed_everything", "initialize",
    "init", "set_start_method", "use_deterministic_algorithms", "is_initialized", "eval",
}  # fmt: skip
# Blocks about the machine, not the experiment: devices, processes, logging, seeds.
_INFRA = re.compile(
    r"distributed|world_size|local_rank|\bgpus?\b|\bdevices?\b|cuda|amp\b|apex|logg|seed",
    re.I,
)


def _segment(body: list[ast.stmt], lines: list[str], out: list[list[ast.stmt]], depth: int) -> None:
    """Cut statements into runs at blank or comment lines, and at `_BLOCK_LINES`."""
    current: list[ast.stmt] = []
    for node in body:
        if isinstance(node, (*_DEFS, ast.Import, ast.ImportFrom)):
            continue
        long = (node.end_lineno or node.lineno) - node.lineno > _LONG_COMPOUND
        if (
            long
            and depth < 2
            and isinstance(node, ast.For | ast.While | ast.With | ast.Try | ast.If)
        ):
            if current:
                out.append(current)
                current = []
            _segment(list(node.body), lines, out, depth + 1)
            continue
        if current:
            gap = lines[(current[-1].end_lineno or current[-1].lineno) : node.lineno - 1]
            broken = any(not g.strip() or g.strip().startswith("#") for g in gap)
            too_long = (node.end_lineno or node.lineno) - current[0].lineno >= _BLOCK_LINES
            if broken or too_long:
                out.append(current)
                current = []
        current.append(node)
    if current:
        out.append(current)


def _quiet(call: ast.Call) -> bool:
    name = callee_name(call.func)
    return name in _QUIET_CALLS or bool(_INCIDENTAL.search(name))


def _meaningful(node: ast.stmt) -> bool:
    """A statement that does work: it calls something other than printing and bookkeeping."""
    if isinstance(node, ast.Pass | ast.Continue | ast.Break | ast.Return | ast.Raise):
        return False
    return any(isinstance(n, ast.Call) and not _quiet(n) for n in ast.walk(node))


# a comment that remarks on the code rather than names what it does
_NOTE = re.compile(
    r"^(?:note|nb|please|todo|fixme|xxx|hack|warning|to be|tbd|remember|do not|don't|"
    r"this (?:is|was)|it is|here we|we (?:need|have)|i think)\b",
    re.I,
)


def _block_action(seg: list[ast.stmt], lines: list[str]) -> str:
    above = lines[seg[0].lineno - 2].strip() if seg[0].lineno >= 2 else ""
    if above.startswith("#"):
        text = above.lstrip("#").strip().rstrip(".:")
        if len(text.split()) >= 2 and 8 <= len(text) <= 140 and not _NOTE.match(text):
            return text[0].upper() + text[1:]
    for node in seg:
        calls = [c for c in ast.walk(node) if isinstance(c, ast.Call) and not _quiet(c)]
        if not calls:
            continue
        if isinstance(node, ast.With) and any(
            callee_name(i.context_expr.func) == "open"
            for i in node.items
            if isinstance(i.context_expr, ast.Call)
        ):
            inner = [c for c in calls if callee_name(c.func) != "open"]
            how = f" ({ast.unparse(inner[0].func)[:40]})" if inner else ""
            return f"Write the results to a file{how}"
        if isinstance(node, ast.If):
            return f"If {ast.unparse(node.test)[:60]}: {_call_phrase(calls[0])}"
        target = ""
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            target = node.targets[0].id
        phrase = _call_phrase(calls[0])
        return f"{phrase} into {target}" if target else phrase
    return "Run the block's code"


def _call_phrase(call: ast.Call) -> str:
    name = callee_name(call.func)
    if name[:1].isupper():  # a class: an object is made
        return f"Create the {name}"
    words = humanize(name)
    if not words.startswith("Call "):
        return words
    dotted = ast.unparse(call.func)[:60]
    return f"Call {dotted}"


def _locate(src_lines: list[str], raw_lines: list[str], pos: int) -> tuple[list[int], int]:
    """Line numbers, in the .ipynb file, of a cell's source lines (searched from `pos`)."""
    found: list[int] = []
    for line in src_lines:
        needle = json.dumps(line)[1:-1].strip()
        if not needle:
            continue
        for i in range(pos, len(raw_lines)):
            if needle in raw_lines[i]:
                found.append(i + 1)
                pos = i + 1
                break
    return found, pos


def _called_names(tree: ast.Module) -> set[str]:
    return {
        n.func.id
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }


def _cell_action(tree: ast.Module) -> str:
    """What a notebook cell does, from its code: the functions it defines, else its main call
    with what it assigns ("Compute P, U with CAMUV.execute")."""
    defs = [n for n in tree.body if isinstance(n, _DEFS)]
    if defs:
        doc = (ast.get_docstring(defs[0]) or "").strip().splitlines()
        if len(defs) == 1 and doc and 8 <= len(doc[0]) <= 140:
            return doc[0].rstrip(".")
        return f"Define {', '.join(n.name for n in defs[:3])}"
    for node in tree.body:
        value = node.value if isinstance(node, ast.Expr | ast.Assign) else None
        if not isinstance(value, ast.Call) or _quiet(value) or not callee_name(value.func):
            continue
        func = ".".join(ast.unparse(value.func).split(".")[-2:])
        if isinstance(node, ast.Assign):
            targets = ", ".join(ast.unparse(t) for t in node.targets)[:40]
            return f"Compute {targets} with {func}"
        return f"Call {func}"
    for node in tree.body:
        if isinstance(node, ast.For):
            over = ast.unparse(node.iter)[:40]
            shows = any(
                isinstance(c, ast.Call) and callee_name(c.func) in ("print", "display", "plot")
                for c in ast.walk(node)
            )
            return f"Print each item of {over}" if shows else f"Loop over {over}"
    shown = [
        n.value.args[0]
        for n in tree.body
        if isinstance(n, ast.Expr)
        and isinstance(n.value, ast.Call)
        and callee_name(n.value.func) in ("print", "display")
        and n.value.args
    ]
    if shown:
        return f"Print {ast.unparse(shown[0])[:60]}"
    return "Run the cell's code"


def _interface_only(tree: ast.Module) -> bool:
    """A cell that only asks for an API key or draws a widget: no part of the experiment."""
    names = [n.name for n in tree.body if isinstance(n, _DEFS)]
    if names and all(_INTERFACE.search(n) for n in names):
        return True
    return all(
        (isinstance(n, ast.Assign) and "environ" in ast.unparse(n.targets[0]))
        or isinstance(n, ast.Import | ast.ImportFrom)
        for n in tree.body
    )


def _title(text: str) -> str:
    """A markdown line that names what follows ("Data generation", "Meta-World"), not a
    sentence of explanation ("Please note that the sample size ...")."""
    text = text.strip().rstrip(":")
    words = text.split()
    if not 1 <= len(words) <= 6 or re.search(r"[.!?;]\s|[.!?]$|[$<>{}]", text):
        return ""
    return text


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
