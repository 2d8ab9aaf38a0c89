"""What a step's cited lines do, in a few words, where its name alone leaves the step thin.

A step worded by a name ("Train (Exp_Main.train)", "Call analyze_output", "Build model") says
where the work is, not what it is. Its gist is the definition's docstring when that reads as
prose; else what the lines do, read from their syntax: the loops they run in, the class they
pick by an option, the objects they make (with the settings those take), the model they run,
the loss they compute and the optimizer they step, the repository's own functions they call,
and what they save or return. `Step 4: Train (Exp_Main.train): for each epoch, over
train_loader: runs self.model, computes the loss with criterion, backpropagates, steps
model_optim; calls self.vali`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

from extractors.repo.pysource import callee_name, dotted_name

from .arm_options import fold
from .inline import INCIDENTAL, doc_wording
from .steps import Step, StepTracer

THIN = 4  # words a step's own wording has, at most, for its gist to be added
MOST_WORDS = 22  # a gist longer than this drops its last clauses
MOST_NAMES = 3  # names one clause lists

_PAREN = re.compile(r"\s*\([^()]*\)$")
_LOSS = {"loss", "criterion", "nll", "mse", "bce", "crossentropy", "entropy", "kl", "kldiv"}
# library calls that only shape, make, move or log values
_PLUMBING = {
    "zeros", "ones", "zeros_like", "ones_like", "empty", "arange", "tensor", "array", "asarray",
    "cat", "concatenate", "stack", "view", "reshape", "permute", "transpose", "squeeze",
    "unsqueeze", "to", "cuda", "cpu", "float", "long", "int", "detach", "numpy", "item",
    "contiguous", "repeat", "expand", "flatten", "clone", "copy", "deepcopy", "join", "exists",
    "makedirs", "mkdir", "info", "warning", "debug", "error", "format", "dumps", "loads",
    "get", "append", "extend", "keys", "values", "items", "len", "isinstance", "getattr",
    "basename", "dirname", "abspath", "realpath", "no_grad", "set_seed", "manual_seed", "seed",
    "time", "now", "perf_counter", "sleep", "empty_cache", "synchronize",
}  # fmt: skip
# the standard library's and tools' modules whose calls are no experiment's work
_SYSTEM = {
    "os", "sys", "warnings", "logging", "argparse", "time", "shutil", "glob", "pathlib",
    "random", "nni", "wandb", "tqdm", "pdb", "gc", "subprocess", "datetime", "socket",
}  # fmt: skip
# what a function returns that says nothing by its name
_GENERIC = {
    "x", "y", "h", "z", "out", "outs", "output", "outputs", "res", "result", "results", "ret",
    "data", "item", "items", "model", "obj", "value", "values", "processed", "self", "none",
}  # fmt: skip
_OPTIMIZER = re.compile(r"optim|opt$|^opt|scheduler|sched", re.I)
_MODEL = re.compile(r"^(?:self\.)?(?:\w+_)?(?:model|net|network|encoder|decoder|backbone)$", re.I)
_VERB = re.compile(
    r"^(?:self\.)?(?:create|build|load|get|make|init|setup|inference|save|run)_", re.I
)
# objects every program makes that say nothing of the experiment: meters, loggers, containers
_AUXILIARY = re.compile(
    r"Meter|Logger|Writer|Timer|OrderedDict|defaultdict|Counter|Namespace|ArgumentParser|"
    r"Lock|Thread|Pool|Queue|Event|Scaler|Exception|Error|Warning|DataParallel",
)
_NOISE_CALL = re.compile(r"(?:^|_)log(?:_|$)|scaler", re.I)
_SAVE = re.compile(
    r"^(?:torch\.save|np\.save\w*|numpy\.save\w*|json\.dump|pickle\.dump|\w+\.to_csv|"
    r"\w+\.savefig|\w+\.save_pretrained|\w+\.save_checkpoint|save_checkpoint|\w+\.save)$"
)
_COUNTER = {"_", "i", "j", "k", "n", "t", "idx", "index", "it", "step", "ii", "jj"}


def thin(action: str) -> bool:
    """A step's wording is its name only: at most `THIN` words once a trailing "(Cls.name)"
    is set aside, and no clause of its own."""
    text = _PAREN.sub("", action)
    return ":" not in text and len(text.split()) <= THIN


class Gists:
    """Adds each thin step's gist to its wording; reads each file once (the tracer's trees)."""

    def __init__(self, tracer: StepTracer) -> None:
        self.tracer = tracer

    def worded(self, steps: list[Step]) -> list[Step]:
        out: list[Step] = []
        for step in steps:
            said = self.gist(step) if thin(step.action) and step.path.endswith(".py") else ""
            out.append(replace(step, action=f"{step.action}: {said}") if said else step)
        return out

    def gist(self, step: Step) -> str:
        tree = self.tracer.tree(step.path)
        if tree is None:
            return ""
        node = _definition(tree, step.start, step.end)
        if node is not None:
            doc = _doc(node, step.action)
            if doc:
                return doc
            if isinstance(node, ast.ClassDef):
                return self._class_gist(step, tree, node)
            body = [s for s in node.body if not _is_docstring(s)]
            said = self._said(step, tree, body, [], node)
        else:
            stmts = _statements(tree, step.start, step.end)
            around = _enclosing_loops(tree, step.start, step.end)
            said = self._said(step, tree, stmts, around) if stmts else ""
            if not said:  # a line calling what the step names: what that does
                said = self._callee_gist(step, tree, stmts)
        return said

    def _callee_gist(self, step: Step, tree: ast.Module, stmts: list[ast.stmt]) -> str:
        """The gist of the repository's function the range calls and the step names
        ("Compute results with single_gpu_test": what `single_gpu_test` does), a method of
        an object it makes too (`ExplorationStage(...).run(...)`, `stage = Stage(); stage.run()`:
        "in ExplorationStage.run, ...")."""
        names = self.tracer.local_names(step.path, tree, packages=True)
        made = _instances(tree, step.start, names)
        for call in (c for s in stmts for c in ast.walk(s) if isinstance(c, ast.Call)):
            found = self._callee(step, tree, call, names, made)
            if found is None:
                continue
            path, qual = found
            node = self.tracer.def_node(path, qual)
            home = self.tracer.tree(path)
            if node is None or home is None:
                continue
            there = replace(step, path=path, start=node.lineno, end=node.end_lineno or node.lineno)
            body = [s for s in node.body if not _is_docstring(s)]
            said = _doc(node, step.action) or self._said(there, home, body, [], node)
            # not the cited line's own work: where it is done, said so
            owner = qual.rsplit(".", 1)[0] if "." in qual else ""
            named = _named(qual, step.action) and (not owner or owner in step.action)
            where = "its definition" if named else qual  # "in Stage.run"
            return f"in {where}, {said}" if said else ""
        return ""

    @staticmethod
    def _callee(
        step: Step,
        tree: ast.Module,
        call: ast.Call,
        names: dict[str, tuple[str, str]],
        made: dict[str, tuple[str, str]],
    ) -> tuple[str, str] | None:
        """Where the function a call the step names is defined: (file, qualified name)."""
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else _dotted(func)
        if not name or not _named(name, step.action, verb=True):
            return None
        if isinstance(func, ast.Attribute) and _dotted(func.value) == "self":
            cls = _class_at(tree, step.start)
            return (step.path, f"{cls}.{func.attr}") if cls else None
        # a name the file has, a method of an object it binds or makes (`Stage(...).run()`)
        return StepTracer.resolve_call(func, names, made)

    def _class_gist(self, step: Step, tree: ast.Module, node: ast.ClassDef) -> str:
        """What a class holds (the objects its `__init__` makes) and what its `forward` (or
        `__call__`) does with them; of an interface, the methods it leaves to its subclasses
        (`AgentClient.inference` raising NotImplementedError)."""
        methods = {
            n.name: n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        abstract = [n for n, f in methods.items() if not n.startswith("_") and _abstract(f)]
        left = f"declares {_listed(abstract)} for subclasses to implement" if abstract else ""
        made = _made(methods["__init__"].body, frozenset()) if "__init__" in methods else []
        held = f"holds {_listed([m for m, _ in made])}" if made else ""
        call = methods.get("forward") or methods.get("__call__")
        does = self._said(step, tree, call.body, [], call) if call is not None else ""
        said = [held, f"its {call.name} {does}" if call is not None and does else "", left]
        return "; ".join(x for x in said if x)

    def _said(
        self,
        step: Step,
        tree: ast.Module,
        body: list[ast.stmt],
        around: list[ast.For],
        own: ast.FunctionDef | ast.AsyncFunctionDef | None = None,
    ) -> str:
        """What the statements do: their clauses, those of a loop that is most of them said
        as done in it ("makes X; for each epoch, over train_loader: runs self.model, ...") and
        those of a range inside loops led by them."""
        lead = ", ".join([w for w in (_loop_words(f) for f in around) if w][:2])
        at = _loop_at(body) if _mostly_loop(body) else None
        before = after = inner = []
        loops = ""
        if at is None:
            before = self._clauses(step, tree, body, own)
        else:
            before = self._clauses(step, tree, body[:at], own)
            inner = self._clauses(step, tree, [body[at]], own)
            after = self._clauses(step, tree, body[at + 1 :], own)
            loops = ", ".join([w for w in _loops([body[at]]) if w][:2])
        used = (
            []
            if before or inner or after
            else self._library_calls(step.path, self._calls(step, body))
        )
        if used:
            before = [f"uses {_listed(used)}"]  # what it does is a library's work
        returned = _returned(body) if own is not None else []
        ending = [f"returns {_listed(returned, 'and')}"] if returned else []

        # a clause said before the loop is not said again in it, nor after it
        inner = [c for c in inner if c not in before]
        after = [c for c in after if c not in before and c not in inner]

        def text() -> str:
            looped = f"{loops}: {', '.join(inner)}" if loops and inner else ", ".join(inner)
            # a loop none of whose lines says anything is said only beside what else is done
            looped = looped or (f"loops {loops}" if loops and (before or after) else "")
            parts = [*before, *([looped] if looped else []), *after, *ending]
            said = "; ".join(parts)
            return f"{lead}: {said}" if lead and said else said

        # past the words a gist may take: what follows the loop goes first, then the loop's
        # last clauses (never its first), then what precedes it, then the return
        while len(text().split()) > MOST_WORDS:
            for part in (after, inner[1:] and inner, before[1:] and before, ending, before):
                if part:
                    part.pop()
                    break
            else:
                break
        return text()

    @staticmethod
    def _calls(step: Step, body: list[ast.stmt]) -> list[str]:
        """The dotted names the statements call, less what the step's wording names ("Call
        analyze_output") and the classes they make."""
        calls = [c for s in body for c in ast.walk(s) if isinstance(c, ast.Call)]
        return [
            _dotted(c.func)
            for c in calls
            if not _named(_dotted(c.func), step.action) and not _class_called(c)
        ]

    def _clauses(
        self,
        step: Step,
        tree: ast.Module,
        body: list[ast.stmt],
        own: ast.FunctionDef | ast.AsyncFunctionDef | None,
    ) -> list[str]:
        """The statements' clauses: the class they pick by an option, the objects they make,
        the model they run, the loss, the backward pass and the optimizer's step, the
        repository's calls, what they save."""
        calls = [c for s in body for c in ast.walk(s) if isinstance(c, ast.Call)]
        chosen, tests = _picked(body)
        clauses: list[str] = []
        if chosen:
            by = f" by {_listed(tests, 'and')}" if tests else ""
            clauses.append(f"picks {_listed(chosen, 'or')}{by}")
        made = [(m, k) for m, k in _made(body, frozenset(chosen)) if not _named(m, step.action)]
        if made:
            first, keys = made[0]
            settings = f" ({', '.join(keys[:MOST_NAMES])}{', …' if len(keys) > 3 else ''})"
            rest = [m for m, _ in made[1:]]
            clauses.append(
                f"makes {first}{settings if keys else ''}" + (f", {_listed(rest)}" if rest else "")
            )
        # what the call the wording names is given, when a literal is among it ("Load dataset
        # into ds: with 'maveriq/bigbenchhard', task_name")
        given = next((g for c in calls if (g := _given(c, step.action))), "")
        if given:
            clauses.append(f"with {given}")
        dotted = self._calls(step, body)
        models = _unique(d for d in dotted if _MODEL.match(d) and not _VERB.match(d))
        if models:
            clauses.append(f"runs {_listed(models)}")
        # a loss is computed on something: `self._criterion()` only makes one
        computed = [_dotted(c.func) for c in calls if c.args]
        losses = _unique(
            d
            for d in computed
            if d in dotted
            and _LOSS & set(_words(_last(d)))
            and not _VERB.match(_last(d).lstrip("_"))  # `_get_loss` makes one
            and not _MODEL.match(d)
            and not _NOISE_CALL.search(d)
        )
        if losses:
            clauses.append(f"computes the loss with {_listed(losses)}")
        if any(callee_name(c.func) == "backward" for c in calls):
            clauses.append("backpropagates")
        stepped = _unique(_stepped(c) for c in calls if _stepped(c))
        if stepped:
            clauses.append(f"steps {_listed(stepped)}")
        said = set(chosen) | {m for m, _ in made} | set(models) | set(losses)
        own_calls = [d for d in _unique(self._own(step.path, tree, dotted)) if d not in said]
        if own and own.name:
            own_calls = [d for d in own_calls if d.rsplit(".", 1)[-1] != own.name]
        if own_calls:
            clauses.append(f"calls {_listed(own_calls)}")
        saved = _unique(d for d in dotted if _SAVE.match(d))
        if saved:
            clauses.append(f"saves with {_listed(saved)}")
        return clauses

    def _library_calls(self, path: str, dotted: list[str]) -> list[str]:
        """The library functions among `dotted` that do work (`torch.fft.rfft`, `torch.topk`),
        not those that only shape or make tensors."""
        return _unique(
            d
            for d in dotted
            if "." in d
            and self.tracer.from_library(path, d.split(".")[0])
            and d.split(".")[0] not in _SYSTEM
            and _last(d) not in _PLUMBING
            and not _last(d)[:1].isupper()  # a class made in passing (`nn.MaxPool2d`)
        )

    def _own(self, path: str, tree: ast.Module, dotted: list[str]) -> list[str]:
        """The calls among `dotted` of the repository's own functions and methods: a name the
        file defines or imports from the repository, or a method of its own classes on
        `self`."""
        names = self.tracer.local_names(path, tree)
        methods = {i.name.rsplit(".", 1)[-1] for i in self.tracer.outline(path) if "." in i.name}
        classes = {  # a name made, not called: `Block(...)`, said by "makes"
            n
            for n, (home, qual) in names.items()
            if any(i.name == qual and i.kind == "class" for i in self.tracer.outline(home))
            or (n[:1].isupper() and not re.search(r"_[a-z]", n))
        }
        out: list[str] = []
        for d in dotted:
            parts = d.split(".")
            if INCIDENTAL.search(parts[-1]) or _NOISE_CALL.search(parts[-1]):
                continue
            function = len(parts) == 1 and parts[0] in names and parts[0] not in classes
            if function or (len(parts) == 2 and parts[0] == "self" and parts[1] in methods):
                out.append(d)
        return out


# ---------------------------------------------------------------- syntax


def _definition(
    tree: ast.Module, start: int, end: int
) -> ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None:
    """The function or class the range is (from its `def` or decorators to its last line)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if start in (first, node.lineno) and (node.end_lineno or node.lineno) == end:
                return node
    return None


def _doc(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, action: str) -> str:
    """The definition's docstring as a clause: its first sentence, when it reads as prose of
    three words or more and says more than the step's wording ("ConvNeXt Block" does not)."""
    doc = doc_wording(ast.get_docstring(node) or "")
    doc = re.split(r"(?<=[a-z)\]])\. ", doc)[0].rstrip(".")
    if len(doc.split()) < 3 or fold(doc) in fold(action) or re.search(r"\[\d+\]", doc):
        return ""
    first = doc.split()[0]
    return doc[0].lower() + doc[1:] if first[1:].islower() or len(first) == 1 else doc


def _statements(tree: ast.Module, start: int, end: int) -> list[ast.stmt]:
    """The outermost statements lying wholly in the range."""
    out: list[ast.stmt] = []

    def visit(nodes: list[ast.stmt]) -> None:
        for n in nodes:
            last = n.end_lineno or n.lineno
            if start <= n.lineno and last <= end:
                out.append(n)
            elif n.lineno <= end and last >= start:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(n, field, None)
                    if isinstance(inner, list):
                        visit([x for x in inner if isinstance(x, ast.stmt)])
                for h in getattr(n, "handlers", []) or []:
                    visit(h.body)

    visit(tree.body)
    return out


def _enclosing_loops(tree: ast.Module, start: int, end: int) -> list[ast.For]:
    """The `for` loops the range lies in, outermost first."""
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For)]
    return sorted(
        (
            n
            for n in loops
            if n.lineno <= start <= end <= (last := n.end_lineno or n.lineno)
            and (n.lineno, last) != (start, end)  # the range itself is a statement
        ),
        key=lambda n: n.lineno,
    )


def _loops(body: list[ast.stmt]) -> list[str]:
    """The loops the statements run, outermost first: the first `for` and the first inside it."""
    out: list[str] = []
    found = next((n for s in body for n in _walk_stmts(s) if isinstance(n, ast.For)), None)
    while found is not None and len(out) < 2:
        out.append(_loop_words(found))
        found = next(
            (n for s in found.body for n in _walk_stmts(s) if isinstance(n, ast.For)), None
        )
    return out


def _abstract(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The method only raises NotImplementedError (after its docstring)."""
    body = [s for s in node.body if not _is_docstring(s)]
    return (
        len(body) == 1
        and isinstance(body[0], ast.Raise)
        and body[0].exc is not None
        and "NotImplementedError" in ast.unparse(body[0].exc)
    )


def _loop_at(body: list[ast.stmt]) -> int | None:
    """The statement of `body` holding its first `for` loop."""
    return next(
        (k for k, s in enumerate(body) if any(isinstance(n, ast.For) for n in _walk_stmts(s))),
        None,
    )


def _mostly_loop(body: list[ast.stmt]) -> bool:
    """The statements are mostly one `for` loop's: what they do is said as done in it (else a
    call made once before the loop would read as made on every round)."""
    lines = sum((s.end_lineno or s.lineno) - s.lineno + 1 for s in body)
    loop = next((n for s in body for n in _walk_stmts(s) if isinstance(n, ast.For)), None)
    return loop is not None and 2 * ((loop.end_lineno or loop.lineno) - loop.lineno + 1) >= lines


def _walk_stmts(node: ast.stmt) -> list[ast.stmt]:
    """The statement and those inside it, not inside nested definitions."""
    out = [node]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return out
    for field in ("body", "orelse", "finalbody"):
        for x in getattr(node, field, []) or []:
            if isinstance(x, ast.stmt):
                out += _walk_stmts(x)
    return out


def _loop_words(loop: ast.For) -> str:
    """`for epoch in range(n)` -> "for each epoch"; `for _ in range(n_iter)` -> "n_iter times";
    `for i, batch in enumerate(loader)` -> "over loader"."""
    it = loop.iter
    target = loop.target.id if isinstance(loop.target, ast.Name) else ""
    if (
        isinstance(it, ast.Call)
        and callee_name(it.func) in ("enumerate", "tqdm", "zip")
        and it.args
    ):
        inner = [_dotted(a) for a in it.args if _dotted(a)]
        return f"over {' and '.join(inner)}" if inner else ""
    if isinstance(it, ast.Call) and callee_name(it.func) == "range" and it.args:
        last = it.args[-1]
        if isinstance(last, ast.Call) and callee_name(last.func) == "len" and last.args:
            return f"over {_dotted(last.args[0])}" if _dotted(last.args[0]) else ""
        if len(target) > 2 and target not in _COUNTER:
            return f"for each {target.replace('_', ' ')}"
        bound = _dotted(last)
        return f"{bound} times" if bound else ""
    name = _dotted(it.func) + "()" if isinstance(it, ast.Call) and _dotted(it.func) else _dotted(it)
    if name and "__" not in name:
        return f"over {name}"
    return f"for each {target}" if len(target) > 2 and target not in _COUNTER else ""


def _stepped(call: ast.Call) -> str:
    """The optimizer a call steps: `model_optim.step()`, or AMP's `scaler.step(model_optim)`."""
    if callee_name(call.func) != "step":
        return ""
    for name in [*(_dotted(a) for a in call.args[:1]), _dotted(call.func)[: -len(".step")]]:
        if name and _OPTIMIZER.search(name.rsplit(".", 1)[-1]):
            return name
    return ""


def _picked(body: list[ast.stmt]) -> tuple[list[str], list[str]]:
    """An if/elif chain whose branches bind one name to different classes: the classes, and
    the options and names its tests read."""
    for s in body:
        for n in _walk_stmts(s):
            if not isinstance(n, ast.If):
                continue
            branches, tests = _chain(n)
            classes: list[str] = []
            target = None
            for branch in branches:
                for x in (x for b in branch for x in _walk_stmts(b)):
                    if isinstance(x, ast.Assign) and isinstance(x.value, ast.Call):
                        cls, name = _class_called(x.value), ast.unparse(x.targets[0])
                        if cls and target in (None, name):
                            target = name
                            classes.append(cls)
            classes = _unique(classes)
            if len(classes) >= 2:
                return classes, _unique(tests)[:MOST_NAMES]
    return [], []


def _chain(node: ast.If) -> tuple[list[list[ast.stmt]], list[str]]:
    """The branches of an if/elif/else chain, and what its tests read."""
    branches: list[list[ast.stmt]] = []
    tests: list[str] = []
    while True:
        branches.append(node.body)
        tests += _tested(node.test)
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        if node.orelse:
            branches.append(node.orelse)
        return branches, tests


def _tested(test: ast.expr) -> list[str]:
    """The options and names a condition reads (`self.args.smooth`, `mixup_active`; the
    `args.dataset` of `args.dataset.startswith("ogbl")`)."""
    inner = {id(n.value) for n in ast.walk(test) if isinstance(n, ast.Attribute)}
    called = {id(n.func) for n in ast.walk(test) if isinstance(n, ast.Call)}
    out: list[str] = []
    for n in ast.walk(test):
        if id(n) in inner or not isinstance(n, ast.Attribute | ast.Name):
            continue
        if id(n) in called:  # a method of what is read: what it is called on
            n = n.value if isinstance(n, ast.Attribute) else n
            if id(n) in called or not isinstance(n, ast.Attribute | ast.Name):
                continue
        name = _dotted(n)
        if name and name not in ("self", "None", "True", "False"):
            out.append(name)
    return out


def _class_called(call: ast.Call) -> str:
    """The class a call makes (`ClipPPOLoss(...)`, `nn.CrossEntropyLoss()`), else ""."""
    name = callee_name(call.func)
    if (
        not name[:1].isupper()
        or name.isupper()
        or re.search(r"_[a-z]", name)  # `FFT_for_Period` is a function's name
        or _AUXILIARY.search(name)
        or name == "Path"
    ):
        return ""
    return _dotted(call.func) or name


def _made(body: list[ast.stmt], skip: frozenset[str]) -> list[tuple[str, list[str]]]:
    """The classes the statements bind to names or return, each with its keyword settings,
    else the classes its arguments make (`nn.Sequential(nn.Conv2d(...), ...)`); a method
    chained on the new object (`SegVol(...).cuda()`) is seen through."""
    out: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for s in body:
        for n in _walk_stmts(s):
            value = n.value if isinstance(n, ast.Assign | ast.AnnAssign | ast.Return) else None
            call = _maker(value) if isinstance(value, ast.Call) else None
            cls = _class_called(call) if call is not None else ""
            if call is None or not cls or cls in skip or cls in seen:
                continue
            seen.add(cls)
            keys = [k.arg for k in call.keywords if k.arg]
            parts = _unique(
                c for a in call.args if isinstance(a, ast.Call) and (c := _class_called(a))
            )
            out.append((cls, keys or parts))
    return out


def _given(call: ast.Call, action: str) -> str:
    """The arguments of a call the step's wording names, when one is a short string: the
    literals quoted, the names as written, at most three."""
    name = _dotted(call.func)
    literal = [a for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not name or not _named(name, action) or not literal:
        return ""
    said = [
        f"'{a.value}'" if isinstance(a, ast.Constant) and isinstance(a.value, str) else _dotted(a)
        for a in call.args
    ]
    said = [x for x in said if x and len(x) <= 60]
    return ", ".join(said[:MOST_NAMES])


def _maker(call: ast.Call) -> ast.Call:
    """The call that makes the object a chain ends on: `SegVol(...)` of
    `SegVol(...).cuda()`, `nn.Sequential(...)` of `nn.Sequential(...).to(device)`."""
    while (
        not _class_called(call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in _CHAINED
        and isinstance(call.func.value, ast.Call)
    ):
        call = call.func.value
    return call


# what is chained on a new object to move or switch it, not to use it (`.run()` is a use)
_CHAINED = {"cuda", "to", "cpu", "eval", "train", "float", "half", "double", "requires_grad_"}


def _returned(body: list[ast.stmt]) -> list[str]:
    """What the function's last `return` hands back, when that is names."""
    last = next(
        (n for s in reversed(body) for n in reversed(_walk_stmts(s)) if isinstance(n, ast.Return)),
        None,
    )
    if last is None or last.value is None:
        return []
    parts = last.value.elts if isinstance(last.value, ast.Tuple) else [last.value]
    names = [_dotted(p) for p in parts]
    if not names or not all(names) or len(names) > MOST_NAMES:
        return []
    names = [n.removeprefix("self.") for n in names]
    return [] if all(n.lower() in _GENERIC for n in names) else names


def _dotted(node: ast.expr) -> str:
    """`a.b.c` of a name's attributes; "" for one that starts from a call or a subscript."""
    base = node
    while isinstance(base, ast.Attribute):
        base = base.value
    return dotted_name(node) if isinstance(base, ast.Name) else ""


def _named(dotted: str, action: str, *, verb: bool = False) -> bool:
    """The step's wording names the call already: as written ("Call analyze_output",
    "Create the IMBALANCECIFAR10"), or word for word ("Load experiment config" for
    `load_experiment_config`). One word counts only as written: "Model's forward pass" names
    the class, not `self.model`. With `verb`, the wording's first word may be the name made a
    verb ("Run (in run)" of `stage.run()`)."""
    last = _last(dotted)
    said = re.findall(r"\w+", action)
    if last in said or (verb and said and last == said[0].lower()):
        return True
    words = _words(last)
    return len(words) >= 2 and set(words) <= {w.lower() for w in re.findall(r"\w+", action)}


def _words(name: str) -> list[str]:
    """`cross_entropy` -> cross, entropy; `ClipPPOLoss` -> clip, ppo, loss."""
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)
    return [p.lower() for p in parts]


def _instances(
    tree: ast.Module, line: int, names: dict[str, tuple[str, str]]
) -> dict[str, tuple[str, str]]:
    """The names the function holding `line` binds to the repository's classes it makes
    (`prompt_evolve = PromptEvolve(self)`): name -> the class's (file, qualified name)."""
    holding = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and n.lineno <= line <= (n.end_lineno or n.lineno)
    ]
    out: dict[str, tuple[str, str]] = {}
    scope = max(holding, key=lambda n: n.lineno) if holding else tree
    for n in ast.walk(scope):
        if (
            isinstance(n, ast.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0], ast.Name)
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name)
            and n.value.func.id in names
            and n.value.func.id[:1].isupper()
        ):
            out[n.targets[0].id] = names[n.value.func.id]
    return out


def _class_at(tree: ast.Module, line: int) -> str:
    """The innermost class whose lines hold `line`, else ""."""
    holding = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.ClassDef) and n.lineno <= line <= (n.end_lineno or n.lineno)
    ]
    return max(holding, key=lambda n: n.lineno).name if holding else ""


def _last(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _unique(items: object) -> list[str]:
    return list(dict.fromkeys(items))  # type: ignore[call-overload]


def _listed(names: list[str], last: str = "and") -> str:
    names = names[:MOST_NAMES]
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {last} {names[-1]}"
