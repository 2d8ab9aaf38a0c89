"""Where an option the runs set takes effect: the code reading the value it carries.

A sweep over `--adapter_layer` or arms selected by `--enc` change the experiment only where
the program reads that value (`self.layers[-1 * self.adapter_layer:]` in the model's forward),
often far from the parser and behind no `if`. Those definitions are what the task varies,
implemented; the parser's line and the plumbing passing the value on (`adapter_layer=
args.adapter_layer`) are not.
"""

from __future__ import annotations

import ast
import posixpath

from .steps import Step, StepTracer

MAX_USES = 2  # definitions cited per option
NARROW = 40  # a longer definition is cited at the lines that read the value


class OptionUses:
    """Finds, in a program's modules, the definitions that read an option's value."""

    def __init__(self, tracer: StepTracer) -> None:
        self.tracer = tracer

    def steps(self, option: str, modules: list[str], entry: str) -> list[Step]:
        """The definitions of `modules` (the entry point's last) reading the attribute the
        option is stored as (`--adapter_layer`: `.adapter_layer`), most reads first; only
        the entry point's when no other module reads it."""
        attr = option.lstrip("-").replace("-", "_")
        if not attr.isidentifier():
            return []
        found: list[tuple[int, int, Step]] = []
        order = [m for m in modules if m != entry] + [entry]
        for rank, path in enumerate(order):
            if found and path == entry:
                break
            for item in self.tracer.outline(path):
                if item.kind not in ("function", "method"):
                    continue
                node = self.tracer.def_node(path, item.name)
                if node is None:
                    continue
                lines = sorted(
                    {
                        n.lineno
                        for n in ast.walk(node)
                        if isinstance(n, ast.Attribute)
                        and n.attr == attr
                        and isinstance(n.ctx, ast.Load)
                        and not _from_args(n)
                    }
                )
                if not lines or _inner(node, lines):
                    continue
                start, end = item.start, item.end
                if end - start > NARROW:
                    start, end = max(item.start, lines[0] - 1), min(item.end, lines[-1] + 1)
                action = f"Read {attr} where {option} takes effect ({item.name})"
                found.append((-len(lines), rank, Step(action, path, start, end)))
        # the entry point's own folder first (a copy of the package elsewhere is another's)
        home = posixpath.dirname(entry)
        found.sort(
            key=lambda f: (
                bool(home) and not f[2].path.startswith(home + "/"),
                f[0],
                f[1],
                f[2].path,
                f[2].start,
            )
        )
        return [s for _, _, s in found[:MAX_USES]]


_PARSED = ("args", "opt", "opts", "FLAGS")  # what parsed options are called


def _from_args(node: ast.Attribute) -> bool:
    """`args.adapter_layer`, `self.args.model`: the parsed options passed on or looked up
    everywhere (every experiment class reads `self.args.model`), not the value put to work."""
    owner = node.value
    return (isinstance(owner, ast.Name) and owner.id in _PARSED) or (
        isinstance(owner, ast.Attribute) and owner.attr in _PARSED
    )


def _inner(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[int]) -> bool:
    """Every read sits in a nested definition, which is cited on its own."""
    inner = [
        (n.lineno, n.end_lineno or n.lineno)
        for n in ast.walk(node)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n is not node
    ]
    return bool(inner) and all(any(a <= x <= b for a, b in inner) for x in lines)
