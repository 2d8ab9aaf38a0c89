"""The code an arm's branch hands over to: what the task varies, implemented.

A branch that selects an arm (`elif enc == 'exp':`) is rarely the arm's code itself; it
calls it (`self._init_exp_encoder()`), builds it (`mod = LocalWLNet(...)`) or points at it
(`self.encoder = self._forward_exp_encoder`). Those definitions are what an agent rebuilding
the experiment must write, and what sets one task of a paper apart from its sibling on
another table: the sibling varies another option, so it takes other branches.
"""

from __future__ import annotations

import ast

from .inline import INCIDENTAL, doc_wording, humanize
from .methods import MethodModules
from .steps import Step, StepTracer

MAX_PER_ARM = 2  # definitions cited for one arm's branch
MIN_LINES = 3  # a definition shorter than this (`return x`) implements nothing


class ArmCode:
    """Resolves what an arm's branch calls, builds or points at into cited definitions."""

    def __init__(self, tracer: StepTracer, methods: MethodModules) -> None:
        self.tracer = tracer
        self.methods = methods

    def steps(self, path: str, node: ast.If | ast.IfExp, arm: str) -> list[Step]:
        """The definitions the branch's own body reaches, in the order it names them, then
        the ones those definitions point at (`self.encoder = self._forward_exp_encoder`)."""
        tree = self.tracer.tree(path)
        if tree is None:
            return []
        owner = _enclosing_class(tree, node.lineno)
        names = self.tracer.local_names(path, tree)
        body: list[ast.AST] = list(node.body) if isinstance(node, ast.If) else [node.body]
        # what the statements beside the `if` reach too is every arm's, not this one's
        # (`ReadDataset(...)` under `if args.enc == 'none':` and again after it)
        beside = set(_references(_beside(tree, node), owner, names, path))
        found = [r for r in _references(body, owner, names, path) if r not in beside]
        out: list[Step] = []
        seen: set[tuple[str, str]] = set()
        for target, qual in found:
            if len(out) >= MAX_PER_ARM:
                break
            step = self._step(target, qual, arm, seen)
            if step is None:
                continue
            out.append(step)
            # what the called definition points at: its forward, bound at construction
            fn = self.tracer.def_node(target, qual)
            cls = qual.rsplit(".", 1)[0] if "." in qual else None
            if fn is not None and cls is not None:
                for t, q in _references(fn.body, cls, {}, target, calls=False):
                    if len(out) < MAX_PER_ARM and (more := self._step(t, q, arm, seen)):
                        out.append(more)
        return out

    def of_a_class(self, step: Step) -> bool:
        """The step cites a class or one of its methods (a model the arm builds, its
        encoder), not a module-level helper: the method's own code, masked with it."""
        return any(
            i.start == step.start and (i.kind == "class" or "." in i.name)
            for i in self.tracer.outline(step.path)
        )

    def _step(self, target: str, qual: str, arm: str, seen: set[tuple[str, str]]) -> Step | None:
        if (target, qual) in seen:
            return None
        seen.add((target, qual))
        short = qual.rsplit(".", 1)[-1]
        if INCIDENTAL.search(short) or short == "__init__":
            return None
        item = next((i for i in self.tracer.outline(target) if i.name == qual), None)
        if item is None or item.end - item.start + 1 < MIN_LINES:
            return None
        if item.kind == "class":
            core = self.methods.class_core(target, item)
            if core is not None:
                return Step(
                    f"On the {arm} path: implement {core.name}", target, core.start, core.end
                )
            return Step(f"On the {arm} path: implement {item.name}", target, item.start, item.end)
        doc = doc_wording(item.doc)
        said = humanize(short.strip("_"))
        if doc:
            what = f"{doc[0].lower()}{doc[1:]} ({qual})"
        elif said.startswith("Call "):
            what = f"implement {qual}"
        else:
            what = f"{said[0].lower()}{said[1:]} ({qual})"
        return Step(f"On the {arm} path: {what}", target, item.start, item.end)


def _enclosing_class(tree: ast.Module, line: int) -> str | None:
    """The name of the innermost top-level class (or class in one) around `line`."""
    best: ast.ClassDef | None = None
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef) and node.lineno <= line <= (node.end_lineno or 0):
            best = node if best is None or node.lineno > best.lineno else best
            stack.extend(node.body)
    return best.name if best else None


def _beside(tree: ast.Module, node: ast.AST) -> list[ast.stmt]:
    """The other statements of the block holding `node` (an `if` among a function's
    statements); none for a node no block holds as a statement."""
    for parent in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(b is node for b in block):
                return [b for b in block if b is not node]
    return []


def _references(
    body: list[ast.AST] | list[ast.stmt],
    owner: str | None,
    names: dict[str, tuple[str, str]],
    path: str,
    calls: bool = True,
) -> list[tuple[str, str]]:
    """(file, qualified name) of what `body` calls or assigns, in source order: `self.m(...)`
    and `self.x = self.m` as methods of `owner`, `Name(...)` and `x = Name` through `names`
    (the file's own definitions and repository imports). With `calls` off, only the
    assigned references (a definition pointing at the one that does the work)."""
    found: list[tuple[int, int, tuple[str, str]]] = []

    def resolve(expr: ast.expr) -> tuple[str, str] | None:
        if (
            isinstance(expr, ast.Attribute)
            and isinstance(expr.value, ast.Name)
            and expr.value.id == "self"
            and owner is not None
        ):
            return path, f"{owner}.{expr.attr}"
        if isinstance(expr, ast.Name) and expr.id in names:
            return names[expr.id]
        return None

    for stmt in body:
        for sub in ast.walk(stmt):
            if calls and isinstance(sub, ast.Call):
                hit = resolve(sub.func)
            elif isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Attribute | ast.Name):
                hit = resolve(sub.value)
            else:
                continue
            if hit is not None:
                found.append((sub.lineno, sub.col_offset, hit))
    return list(dict.fromkeys(h for _, _, h in sorted(found)))
