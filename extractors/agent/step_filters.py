"""Which candidate steps say something of this experiment, and which do not.

A program's main block and the functions it calls do much that every run of the repository
does: load a config, make a library's object (`DataLoader(...)`), build what a config sets,
take a branch of an option no run gives. These checks keep the steps to what this task's
runs do (`StepPlanner`, plan.py).
"""

from __future__ import annotations

import ast
import builtins
import keyword
import posixpath
import re

from expcurate.records import EntryPoint
from extractors.repo import RepoPathError, RepoSearch, stem, terms
from extractors.repo.pysource import attribute_equals, callee_name

from .query import TaskQuery
from .run import Run, given_values
from .steps import Step, StepTracer, self_calls

_CONFIG_NAME = re.compile(r"(?:^|_)(?:cfg|conf|config)(?:$|_)", re.I)  # cfg, test_loader_cfg
# a step making one object ("Create the DataLoader as loader (in train)", "Compute counts
# with np.array"), after the condition it is taken under ("If use_lora: ...")
_MADE = re.compile(
    r"(?:^|: )(?:Create the (\w+)(?: as \w+)?|Compute \w+ with (\w+)(?:\.[\w.]+)?)"
    r"(?: \(in \w+\))?$"
)
_BUILTINS = frozenset(n for n in dir(builtins) if not n.startswith("_"))
PLUMBING_LINES = 10  # a library's object made in more lines is set up with care: a step
_EXPERIMENT_WORDS = frozenset(
    terms(
        "model net network train training fit epoch optimizer optim loss criterion backward "
        "step data dataset loader dataloader batch eval evaluate evaluation test predict "
        "inference metric metrics accuracy score result results forward"
    )
)
_CONFIG_WORDS = frozenset(terms("config cfg yaml hydra conf reload restore checkpoint_path"))


class StepFilters:
    """The checks a candidate step passes to be one of this task's."""

    def __init__(
        self, search: RepoSearch, tracer: StepTracer, entries: dict[str, EntryPoint]
    ) -> None:
        self.search = search
        self.tracer = tracer
        self.entries = entries
        self._wrappers: dict[tuple[str, str, str], str] = {}  # `_wrapped`, by program and run

    def builds_from_config(self, step: Step) -> bool:
        """The block's first statement builds from the config (`model = build_segmentor(
        cfg.model, ...)`, `datasets = [build_dataset(cfg.data.train)]`, `data_loader =
        build_dataloader(dataset, **test_loader_cfg)`)."""
        tree = self.tracer.tree(step.path)
        first = next(
            (
                n
                for n in (ast.walk(tree) if tree else [])
                if isinstance(n, ast.Assign | ast.Expr) and n.lineno == step.start
            ),
            None,
        )
        if first is None:
            return False
        calls = [
            c
            for c in ast.walk(first.value)
            if isinstance(c, ast.Call)
            and (callee_name(c.func) or "").rsplit(".", 1)[-1] not in ("get", "deepcopy")
        ]
        return bool(calls) and all(
            (callee_name(c.func) or "").rsplit(".", 1)[-1].startswith("build")
            and any(
                isinstance(x, ast.Name) and _CONFIG_NAME.search(x.id)
                for arg in [*c.args, *(k.value for k in c.keywords)]
                for x in ast.walk(arg)
            )
            for c in calls
        )

    def about_experiment(self, step: Step, q: TaskQuery, configured: bool = False) -> bool:
        """The step is about the data, model, training, evaluation or the task's names; one
        loading configuration only when it names the task's own, unless the runs give the
        experiment as a config (`build_segmentor(cfg.model)` builds this experiment's model)."""
        lines = self.search.lines(step.path)[step.start - 1 : step.end]
        if not lines:
            return False
        words = set(terms(step.action + " " + " ".join(lines[:40])))
        named = {stem(t) for t in q.names} | {stem(t) for t in q.focus}
        if words & _CONFIG_WORDS and not configured:  # only when it names the task's own
            return bool(words & named)
        return bool(words & (_EXPERIMENT_WORDS | named))

    def library_object(self, step: Step, q: TaskQuery) -> bool:
        """The step only makes a library's object in a few lines ("Create the DataLoader as
        loader", "Compute counts with np.array", "If x: Create the LoraConfig"), or one of
        Python's own ("Compute results with sorted"), and the task names nothing of it:
        plumbing, no action of this experiment."""
        m = _MADE.search(step.action)
        if m is None or step.end - step.start + 1 > PLUMBING_LINES:
            return False
        name = m.group(1) or m.group(2)
        named = {stem(t) for t in q.names} | {stem(t) for t in q.focus}
        if {stem(t) for t in terms(name)} & named:
            return False
        if self.tracer.from_library(step.path, name):
            return True
        if name in _BUILTINS:  # "Compute results with sorted": Python's own, unless defined
            tree = self.tracer.tree(step.path)
            return tree is None or name not in self.tracer.local_names(step.path, tree)
        # made through its module (`torch.utils.data.DataLoader(...)`): the module's origin
        text = "\n".join(self.search.lines(step.path)[step.start - 1 : step.end])
        root = re.search(rf"\b(\w+)(?:\.\w+)*\.{re.escape(name)}\s*\(", text)
        return root is not None and self.tracer.from_library(step.path, root.group(1))

    def defined(self, steps: list[Step]) -> set[str]:
        """The functions whose definitions the steps cite from their `def` line."""
        out: set[str] = set()
        for s in steps:
            first = self.search.lines(s.path)[s.start - 1 : s.start]
            if first and (m := re.match(r"\s*(?:async\s+)?def\s+(\w+)", first[0])):
                out.add(m.group(1))
        return out

    def only_calls(self, step: Step, names: set[str]) -> bool:
        """The step's lines call nothing but `names` (and printing, and what a module the
        file imports offers: `torch.device('cpu')` as an argument)."""
        lines = self.search.lines(step.path)
        text = "\n".join(lines[step.start - 1 : step.end])
        modules = {
            alias
            for line in lines
            if (m := re.match(r"\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?\s*$", line))
            for alias in [m.group(2) or m.group(1).split(".")[0]]
        }
        calls = {
            name
            for owner, name in re.findall(r"(?:(\w+)\.)?(\w+)\s*\(", text)
            if owner not in modules
        } - {"print", "format", "str", "len"}
        calls = {c for c in calls if not keyword.iskeyword(c)}  # `in (...)` is no call
        return bool(calls) and calls <= names

    def unused_branch(
        self, step: Step, entry: str | None, runs: list[Run], dead: list[tuple[int, int, int]]
    ) -> bool:
        """A block under `if args.x:` where x is a switch off by default that no run turns
        on (`if args.do_predict:`), or under one of the `dead` branches (`_dead_branches`:
        `--model ResNet34` against `if args.model == 'ResNet18':`): it does not run in this
        experiment."""
        if step.path == entry and any(first <= step.start <= last for _, first, last in dead):
            return True  # `Create the CIFAR10` inside `if args.dataset == 'CIFAR-10':`
        m = re.match(r"If (?:not )?args\.(\w+)\b", step.action)
        e = self.entries.get(entry or "")
        if m is None or e is None or step.action.startswith("If not"):
            return False
        if re.match(r"If args\.\w+ == ", step.action):
            return step.path == entry and any(step.start == line for line, _, _ in dead)
        flag = next(
            (f for f in e.flags if f.name.lstrip("-").replace("-", "_") == m.group(1)), None
        )
        if flag is None or flag.default not in ("False", "0", "None", ""):
            return False
        used = {w.lstrip("-").replace("-", "_") for r in runs for w in r.command.split()}
        used |= {w.lstrip("-").replace("-", "_") for r in runs for w in r.settings.split()}
        return m.group(1) not in used

    def not_taken(self, step: Step, program: str | None, runs: list[Run]) -> bool:
        """The block is an `if` of `program` that no run takes: its test, read with each
        run's options (as its command, the evaluation after it or its settings give them,
        else their defaults), is false for every run (`if args.format_only or
        eval_on_format_results:` where `eval_on_format_results = (args.eval is not None and
        'cityscapes' in args.eval)` and the runs pass `--eval mIoU`). A test it cannot read
        keeps the block."""
        e = self.entries.get(program or "")
        tree = self.tracer.tree(program) if program and e else None
        done = [r for r in runs if not r.missing and (r.command or r.then)]
        if tree is None or e is None or not done:
            return False
        node = next(
            (n for n in ast.walk(tree) if isinstance(n, ast.If) and n.lineno == step.start), None
        )
        if node is None:
            return False
        assigned = _assigned_once(assignments(tree), before=node.lineno)
        return all(
            _truth(node.test, _options(e, r, None, self._wrapped(program, r)), assigned) is False
            for r in done
        )

    def _wrapped(self, program: str | None, run: Run) -> str:
        """The options a launch script the run names passes `program` itself, on the lines
        that run it (`dist_test.sh`'s `... $(dirname "$0")/test.py $CONFIG $CHECKPOINT
        --launcher pytorch`); its own variables are no values."""
        if not program:
            return ""
        key = (program, run.command, run.then)
        if key not in self._wrappers:  # asked for each block and each test of a program
            self._wrappers[key] = self._wrapping(program, run)
        return self._wrappers[key]

    def _wrapping(self, program: str, run: Run) -> str:
        name = posixpath.basename(program)
        out: list[str] = []
        for word in f"{run.command} {run.then}".split():
            script = posixpath.normpath(word)
            e = self.entries.get(script)
            if e is None or e.kind != "shell" or program not in e.calls:
                continue
            try:
                text = self.search.text(script).replace("\\\n", " ")
            except (OSError, RepoPathError):
                continue
            for line in text.splitlines():
                if name in line:
                    out += [w for w in line.split() if "$" not in w]
        return " ".join(out)

    def factory(self, step: Step) -> bool:
        """The step cites a function that only returns a class's object made from names and
        values (`def ResNet18(): return ResNet(BasicBlock, [2, 2, 2, 2])`): its call site
        says as much, and the class is where the work is. One building the model in its
        arguments (`nn.Sequential(nn.Conv2d(...), ...)`) is the model, and one computing
        (`return float(pred == gold)`) is no factory."""
        undocumented = step.action.startswith("Call ") or (
            step.action.startswith("Implement ") and ":" not in step.action
        )
        if not undocumented:
            return False  # a documented factory says what it builds ("Build the GateMix model")
        tree = self.tracer.tree(step.path) if step.path.endswith(".py") else None
        if tree is None:
            return False
        fn = next(
            (
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                and n.lineno <= step.start <= (n.end_lineno or n.lineno)
                and step.end == n.end_lineno
            ),
            None,
        )
        if fn is None:
            return False
        body = [
            b
            for b in fn.body
            if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))
        ]
        if len(body) != 1 or not isinstance(body[0], ast.Return):
            return False
        made = body[0].value
        if not isinstance(made, ast.Call):
            return False
        callee = made.func.attr if isinstance(made.func, ast.Attribute) else ""
        callee = made.func.id if isinstance(made.func, ast.Name) else callee
        plain = (ast.Name, ast.Constant, ast.Attribute, ast.List, ast.Tuple, ast.Load)
        return callee[:1].isupper() and all(
            isinstance(n, plain)
            for a in [*made.args, *(k.value for k in made.keywords)]
            for n in ast.walk(a)
        )

    def untaken(self, program: str | None, runs: list[Run]) -> list[tuple[int, int]]:
        """The lines of `program` no run reaches: the body of an `if` whose test is false for
        every run (read as `not_taken` reads it), the `else` of one true for every run, and
        a function of the program called only from those lines (`val_cifar_only_id()` under
        `if args.only_id:`, a switch no run passes). Empty when the runs say too little."""
        e = self.entries.get(program or "")
        tree = self.tracer.tree(program) if program and e else None
        done = [r for r in runs if not r.missing and (r.command or r.then)]
        if tree is None or e is None or not done:
            return []
        # a default counts where the program never sets the option itself (`args.x = ...`)
        set_later = {
            t.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign | ast.AugAssign)
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
            if isinstance(t, ast.Attribute)
        }
        defaults = {k: v for k, v in _parsed_defaults(tree).items() if k not in set_later}
        envs = [_options(e, r, defaults, self._wrapped(program, r)) for r in done]
        assigns = assignments(tree)
        flags = _known_flags(tree, envs, assigns)
        spans: list[tuple[int, int]] = []
        for node in ast.walk(tree):
            if not isinstance(node, ast.If):
                continue
            if not any(isinstance(n, ast.Attribute | ast.Name) for n in ast.walk(node.test)):
                continue  # `if True:`: no option, nothing the runs tell
            assigned = _assigned_once(assigns, before=node.lineno)
            assigned.update({n: v for n, (line, v) in flags.items() if line < node.lineno})
            truths = [_truth(node.test, env, assigned) for env in envs]
            if all(t is False for t in truths):
                spans.append(_span(node.body))
            elif all(t is True for t in truths) and node.orelse:
                spans.append(_span(node.orelse))
        if not spans:
            return []
        functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        for fn in functions:
            calls = [
                n.lineno
                for n in ast.walk(tree)
                if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Name)
                and n.func.id == fn.name
                and not fn.lineno <= n.lineno <= (fn.end_lineno or fn.lineno)
            ]
            if calls and all(any(a <= ln <= b for a, b in spans) for ln in calls):
                first = min([fn.lineno, *(d.lineno for d in fn.decorator_list)])
                spans.append((first, fn.end_lineno or fn.lineno))
        return spans

    def dispatched(self, step: Step, given: dict[str, set[str]]) -> Step:
        """A step citing a method that only hands over by a setting (`forward` of `if
        self.task_name == 'imputation': return self.imputation(...)`, one branch per kind of
        task), when every run gives that setting one value (`--task_name imputation`): the
        method the runs' branch calls (`Model.imputation`), else the step as it is."""
        tree = self.tracer.tree(step.path)
        if tree is None:
            return step
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
            fn = next(
                (
                    n
                    for n in cls.body
                    if isinstance(n, ast.FunctionDef)
                    and n.lineno <= step.start
                    and n.end_lineno == step.end
                ),
                None,
            )
            if fn is None:
                continue
            branches = [n for n in fn.body if isinstance(n, ast.If)]
            if len(branches) < 2 or len(branches) < len(fn.body) - 1:
                return step  # not a method made of its branches
            for branch in branches:
                tested = {
                    (c.left.attr, c.comparators[0].value)
                    for c in ast.walk(branch.test)
                    if isinstance(c, ast.Compare)
                    and isinstance(c.left, ast.Attribute)
                    and isinstance(c.left.value, ast.Name)
                    and c.left.value.id == "self"
                    and len(c.comparators) == 1
                    and isinstance(c.comparators[0], ast.Constant)
                }
                if not any(given.get(attr) == {str(value)} for attr, value in tested):
                    continue
                calls = [
                    n.func.attr
                    for n in self_calls(ast.Module(body=branch.body, type_ignores=[]))
                    if isinstance(n.func, ast.Attribute)
                ]
                target = next(
                    (
                        n
                        for n in cls.body
                        if isinstance(n, ast.FunctionDef) and calls and n.name == calls[0]
                    ),
                    None,
                )
                if target is None:
                    return step
                first = min([target.lineno, *(d.lineno for d in target.decorator_list)])
                action = step.action.replace(f".{fn.name}", f".{target.name}")
                action = action.replace(f"{fn.name} pass", target.name.replace("_", " "))
                if action == step.action:
                    action = f"{step.action} ({cls.name}.{target.name})"
                return Step(action, step.path, first, target.end_lineno or target.lineno)
            return step
        return step

    def dead_branches(self, entry: str | None, runs: list[Run]) -> list[tuple[int, int, int]]:
        """The entry point's `if args.x == 'v':` branches that no run takes, every run giving
        x another value: the `if`'s line and its body's first and last lines."""
        e = self.entries.get(entry or "")
        tree = self.tracer.tree(entry) if entry and e else None
        if tree is None or e is None:
            return []
        given = given_values(e, runs)
        out: list[tuple[int, int, int]] = []
        for node in ast.walk(tree):
            if not isinstance(node, ast.If):
                continue
            tested = attribute_equals(node.test)
            if tested is None:
                continue
            attr, value = tested
            if not (isinstance(attr.value, ast.Name) and attr.value.id == "args"):
                continue
            values = given.get(attr.attr)
            if values and str(value) not in values:
                last = node.body[-1]
                out.append((node.lineno, node.body[0].lineno, last.end_lineno or last.lineno))
        return out

    def called_only_in(self, step: Step, entry: str | None, spans: list[tuple[int, int]]) -> bool:
        """The step cites a definition the entry point calls only inside `spans`."""
        if not spans or entry is None or step.path == entry:
            return False
        item = next((i for i in self.tracer.outline(step.path) if i.start == step.start), None)
        tree = self.tracer.tree(entry)
        if item is None or tree is None:
            return False
        name = item.name.split(".")[0] if item.kind == "method" else item.name
        lines = [
            n.lineno
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
            and (n.func.id if isinstance(n.func, ast.Name) else getattr(n.func, "attr", None))
            == name
        ]
        return bool(lines) and all(any(a <= ln <= b for a, b in spans) for ln in lines)


def run_reaches(entry: EntryPoint, tree: ast.Module, run: Run, line: int) -> bool:
    """Whether the run can reach `line` of its program: not when the line is in the body of
    an `if` whose test the run's options make false (`tfile = 'data/test600.json'` under
    `if args.dataset == '600':` for a run passing `--dataset WC`), nor in the `else` of one
    they make true. A test it cannot read reaches both sides."""
    env = _options(entry, run)
    assigns = assignments(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or not node.lineno < line <= (node.end_lineno or 0):
            continue
        body = node.body[0].lineno <= line <= (node.body[-1].end_lineno or 0)
        other = bool(node.orelse) and node.orelse[0].lineno <= line
        if not body and not other:
            continue  # the test itself
        truth = _truth(node.test, env, _assigned_once(assigns, before=node.lineno))
        if (body and truth is False) or (other and truth is True):
            return False
    return True


def _known_flags(
    tree: ast.Module, envs: list[dict[str, object]], assigns: list[tuple[int, str, ast.expr]]
) -> dict[str, tuple[int, ast.expr]]:
    """Names set to True or False on both sides of an `if` whose test every run reads the
    same way (`distributed = False` under `if args.launcher == 'none':`, `True` in its
    `else`, every run passing `--launcher pytorch`): the value the runs' side gives, and the
    `if`'s line."""
    out: dict[str, tuple[int, ast.expr]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.If) or not node.orelse:
            continue
        mine, theirs = _flags_set(node.body), _flags_set(node.orelse)
        if not mine or set(mine) != set(theirs):
            continue
        assigned = _assigned_once(assigns, before=node.lineno)
        truths = {_truth(node.test, env, assigned) for env in envs}
        if truths == {True} or truths == {False}:
            taken = mine if truths == {True} else theirs
            out.update({n: (node.lineno, ast.Constant(v)) for n, v in taken.items()})
    return out


def _flags_set(body: list[ast.stmt]) -> dict[str, bool]:
    """The plain names a branch's own statements set to True or False."""
    return {
        n.targets[0].id: n.value.value
        for n in body
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and isinstance(n.value, ast.Constant)
        and isinstance(n.value.value, bool)
    }


_UNKNOWN = object()  # a value the runs' options do not tell
_TWICE: ast.expr = ast.Name(id="assigned twice")  # a name assigned more than once


def assignments(tree: ast.Module) -> list[tuple[int, str, ast.expr]]:
    """Each assignment of one plain name: its line, the name and the value."""
    found = [
        (n.lineno, n.targets[0].id, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
    ]
    return sorted(found, key=lambda a: a[0])


def _assigned_once(assigns: list[tuple[int, str, ast.expr]], before: int) -> dict[str, ast.expr]:
    """The value each name is assigned before line `before`; `_TWICE` for a name assigned
    more than once, which one assignment does not tell."""
    assigned: dict[str, ast.expr] = {}
    for line, name, value in assigns:
        if line >= before:
            break
        assigned[name] = value if name not in assigned else _TWICE
    return assigned


def _span(body: list[ast.stmt]) -> tuple[int, int]:
    return body[0].lineno, body[-1].end_lineno or body[-1].lineno


def _options(
    entry: EntryPoint, run: Run, defaults: dict[str, object] | None = None, wrapped: str = ""
) -> dict[str, object]:
    """Each option of the program as one run gives it (`--eval mIoU` as ["mIoU"], a switch
    passed as True), else its default (a switch off, `None`, or the value `defaults` holds
    for it: `'ResNet18'`), by its name in the code. `wrapped` is what a launch script the
    run goes through passes the program itself (`--launcher pytorch` in `dist_test.sh`)."""
    # each source ends the values of an option before it ("--" between them)
    words = " -- ".join([run.invocation or run.command, run.then, run.settings, wrapped]).split()
    out: dict[str, object] = {}
    for flag in entry.flags:
        name = flag.name.lstrip("-").replace("-", "_")
        names = (flag.name, *flag.aliases)
        at = next((i for i, w in enumerate(words) if w.split("=")[0] in names), None)
        if at is None:
            default = flag.default.strip("'\"")
            if flag.switch or default in ("None", ""):
                out[name] = False if flag.switch else None
            else:
                out[name] = (defaults or {}).get(name, _UNKNOWN)
        elif flag.switch:
            out[name] = True
        else:
            given = words[at].split("=", 1)[1:] or []
            for w in words[at + 1 :]:
                if (given and "=" in words[at]) or w.startswith("-"):
                    break
                given.append(w.strip("'\""))
            # a shell variable or a placeholder (`--dout $dout` in a loop, `<PATH>`) is no value
            unknown = not given or any("$" in g or g.startswith("<") for g in given)
            out[name] = _UNKNOWN if unknown else given
    return out


def _truth(expr: ast.expr, env: dict[str, object], assigned: dict[str, ast.expr]) -> object:
    """The value of a test over `args` options, or `_UNKNOWN`; a bool for a test."""
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        return env.get(expr.attr, _UNKNOWN) if expr.value.id == "args" else _UNKNOWN
    if isinstance(expr, ast.Name):
        value = assigned.get(expr.id)
        if value is None or value is _TWICE:
            return _UNKNOWN
        inner = dict(assigned)
        inner.pop(expr.id)  # no name read through itself
        return _truth(value, env, inner)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        operand = _truth(expr.operand, env, assigned)
        return _UNKNOWN if operand is _UNKNOWN else not operand
    if isinstance(expr, ast.BoolOp):
        values = [_truth(v, env, assigned) for v in expr.values]
        known = [bool(v) for v in values if v is not _UNKNOWN]
        if isinstance(expr.op, ast.And):
            return False if False in known else True if len(known) == len(values) else _UNKNOWN
        return True if True in known else False if len(known) == len(values) else _UNKNOWN
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1:
        left = _truth(expr.left, env, assigned)
        right = _truth(expr.comparators[0], env, assigned)
        if left is _UNKNOWN or right is _UNKNOWN:
            return _UNKNOWN
        op = expr.ops[0]
        if isinstance(op, ast.Eq | ast.NotEq):
            if isinstance(expr.comparators[0], ast.Constant):
                left = _as_type(left, right)
            elif isinstance(expr.left, ast.Constant):
                right = _as_type(right, left)
            if left is _UNKNOWN or right is _UNKNOWN or isinstance(left, list | dict):
                return _UNKNOWN
            return (left == right) == isinstance(op, ast.Eq)
        try:
            if isinstance(op, ast.Is | ast.IsNot):
                return (left is right) == isinstance(op, ast.Is)
            if isinstance(op, ast.In | ast.NotIn) and isinstance(right, list | str):
                return (left in right) == isinstance(op, ast.In)
        except TypeError:
            return _UNKNOWN
    return _UNKNOWN


def _parsed_defaults(tree: ast.Module) -> dict[str, object]:
    """The literal default of each option the program's own parser adds (`default='ResNet18'`,
    `default=0.01`), by its name in the code; an expression (`os.getcwd()`) is none."""
    out: dict[str, object] = {}
    for n in ast.walk(tree):
        if not (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == "add_argument"
        ):
            continue
        names = [
            a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
        ]
        dest = next((k.value for k in n.keywords if k.arg == "dest"), None)
        long = next((x for x in names if x.startswith("--")), names[0] if names else "")
        name = dest.value if isinstance(dest, ast.Constant) else long.lstrip("-").replace("-", "_")
        default = next((k.value for k in n.keywords if k.arg == "default"), None)
        if not name or default is None:
            continue
        try:
            out[str(name)] = ast.literal_eval(default)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return out


def _as_type(value: object, like: object) -> object:
    """A run's value (["ResNet34"] from `--model ResNet34`) as the kind of the constant it is
    compared with (3 for `== 3`); `_UNKNOWN` when it is not one value of that kind."""
    if isinstance(value, list):
        if len(value) != 1:
            return _UNKNOWN
        value = value[0]
    if isinstance(like, bool) or like is None:
        return value if isinstance(value, bool) or value is None else _UNKNOWN
    if isinstance(like, int | float) and isinstance(value, str):
        try:
            return type(like)(value)
        except ValueError:
            return _UNKNOWN
    return value if isinstance(value, type(like)) else _UNKNOWN
