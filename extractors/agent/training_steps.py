"""Where one program trains and evaluates: the stages a task's steps are built around.

The training loop (`train`, `fit`, `train_one_epoch`, cut to the loop that steps on the
loss), the evaluation (`test`, `evaluate`, an `Evaluator`), the repository's own losses, and
a Lightning module's hooks (`training_step`, ...), which the framework calls and no code of
the repository does. A definition counts only when the code uses it: an `evaluate` nothing
calls is not this run's evaluation. Read once per repository (`StepPlanner`, plan.py).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from expcurate.records import EntryPoint
from expcurate.records.names import squash
from extractors.repo.pysource import OutlineItem

from .inline import doc_wording
from .methods import NARROW, MethodModules
from .run import Run, given_values
from .steps import Step, StepTracer, self_calls

MAX_LOSSES = 3  # the repository's own loss definitions cited; more are a framework's
_LOSS = re.compile(r"loss$|^loss|Loss", re.I)
_LOSS_HOOK = "compute_loss"  # the method a trainer framework calls for the training loss
# the steps a Lightning module takes when the framework trains, validates, tests and predicts
_HOOKS = (
    ("training_step", "Compute the training loss"),
    ("validation_step", "Validate"),
    ("test_step", "Test"),
    ("predict_step", "Predict"),
)
_HOOK_NAMES = frozenset(hook for hook, _ in _HOOKS)
MAX_HOOKS = 5
_TRAIN_NAMES = ("train", "fit", "train_epoch", "train_one_epoch", "training", "run_epoch")
_TRAIN_PREFIX = re.compile(r"train(?:ing)?(?:_|$)")  # train_model, training_loop; not trainable
_EVAL_PREFIX = re.compile(r"eval(?:uate|uation)?(?:_|$)")  # evaluation_loop, eval_epoch
_EVAL_NAMES = (
    "test",
    "evaluate",
    "eval",
    "inference",
    "validate",
    "validation",
    "vali",
    "val",
    "evaluator",
)


class TrainingSteps:
    """The training, evaluation, loss and hook steps of a repository's programs."""

    def __init__(
        self, tracer: StepTracer, methods: MethodModules, entries: dict[str, EntryPoint]
    ) -> None:
        self.tracer = tracer
        self.methods = methods
        self.entries = entries
        # per file, read once for all the repository's tasks: the names its code refers to
        self._names: dict[str, dict[str, frozenset[int]]] = {}  # name -> lines, per file

    def training(
        self, files: list[str | None], picked: Sequence[tuple[str, str]] = ()
    ) -> Step | None:
        """The training loop of `files` (`named` with the training's names)."""
        return self.named(files, _TRAIN_NAMES, picked)

    def evaluation(
        self,
        files: list[str | None],
        picked: Sequence[tuple[str, str]] = (),
        data: frozenset[str] = frozenset(),
    ) -> Step | None:
        """The evaluation of `files` (`named` with the evaluation's names); with the task's
        data sets (`data`, folded), never another data set's own (`CityscapesDataset.evaluate`
        for an ADE20K task)."""
        return self.named(files, _EVAL_NAMES, picked, data)

    def named(
        self,
        files: list[str | None],
        names: tuple[str, ...],
        picked: Sequence[tuple[str, str]] = (),
        data: frozenset[str] = frozenset(),
    ) -> Step | None:
        """The first definition named like `names` (in their order) in `files` that the code
        of `files` uses (an `evaluate` nothing calls is not this run's evaluation), cut to its
        loop when it is long; the methods of the `picked` classes first (the experiment class
        the runs' settings choose: `Exp_Classification.train` for `--task_name
        classification`)."""
        used = self._used_names(files)
        # the names themselves, then names that start like the kind of step (`_evaluation_loop`;
        # never `test_*`, which is a unit test or a helper as often as an evaluation)
        kind = _EVAL_PREFIX if names is _EVAL_NAMES else _TRAIN_PREFIX
        wanted_names = [*((n, True) for n in names), ("", False)]
        # the picked classes' methods by each name, then every file's definitions by each name
        places = [(w, path, owner) for path, owner in picked for w in wanted_names]
        places += [(w, path, "") for w in wanted_names for path in files if path is not None]
        for (wanted, whole), path, owner in places:
            for item in self.tracer.outline(path):
                if owner and not item.name.startswith(owner + "."):
                    continue
                short = item.name.rsplit(".", 1)[-1]
                name = short.lower() if whole else short.lower().strip("_")
                hit = name == wanted if whole else bool(kind.match(name))
                if not hit or item.end - item.start < 3 or short not in used:
                    continue
                if _other_data(item.name, data):
                    continue  # `CityscapesDataset.evaluate` evaluates Cityscapes only
                if not self._used_elsewhere(files, path, item):
                    continue  # only its own body names it (`self.trainer.validate(...)`)
                if "config" in item.name.lower():  # ExperimentConfig.validate checks a config
                    continue
                if self._mode_switch(path, item):  # `BEiT.train(self, mode=True)`
                    continue
                if names is _TRAIN_NAMES and self._without_gradients(path, item):
                    continue  # `@torch.no_grad() def train_index`: it trains no model
                start, end = item.start, item.end
                where = ""
                if end - start > NARROW:
                    loop = self.loop(path, item)
                    node = self.tracer.def_node(path, item.name) if loop is None else None
                    chosen = _default_branch(node) if node is not None else None
                    if loop is not None:
                        start, end = loop
                    elif chosen is not None and chosen.trains:
                        # no loop on the default's path: the branch it takes trains
                        # (`if method == 'ridge': ... reg.fit(...)`)
                        start, end = chosen.start, chosen.end
                        where = f", where {chosen.name} is {chosen.value!r} (its default)"
                verb = "Train" if names is _TRAIN_NAMES else "Evaluate"
                doc = doc_wording(item.doc, longest=120)
                action = f"{verb} ({item.name}){where}" + (f": {doc}" if doc else "")
                return Step(action, path, start, end)
        return None

    def handed_to(self, entry: str) -> list[str]:
        """The repository files defining what `entry` calls by a training's name
        (`train_segmentor`, imported from mmseg.apis), not the framework it imports whole:
        where a config program's training is."""
        tree = self.tracer.tree(entry)
        if tree is None:
            return []
        defined = self.tracer.local_names(entry, tree, packages=True)
        called = {
            n.func.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
        }
        return list(
            dict.fromkeys(
                path
                for name, (path, _) in defined.items()
                if name in called and path != entry and _TRAIN_PREFIX.match(name.lower())
            )
        )

    def handoff(self, path: str) -> Step | None:
        """A training program with no training loop of its own, by the statement that hands
        the training to a library's trainer (`trainer.train()` in medalpaca/train.py's
        `main`): the one such statement, or None."""
        tree = self.tracer.tree(path) if path.endswith(".py") else None
        if tree is None:
            return None
        found = [
            (n, method)
            for n in ast.walk(tree)
            if isinstance(n, ast.stmt)
            and (method := _handover(n, ("train", "fit"))) is not None
            and isinstance(method.value, ast.Name)  # `trainer.train()`
        ]
        if len(found) != 1:
            return None
        stmt, method = found[0]
        what = f"{ast.unparse(method.value)}.{method.attr}"
        return Step(f"Train ({what})", path, stmt.lineno, stmt.end_lineno or stmt.lineno)

    def hooks(self, files: list[str | None]) -> list[Step]:
        """What a Lightning module does when the framework trains and evaluates it: its
        `training_step`, `validation_step`, `test_step` and `predict_step`, which no code of
        the repository calls by name, and the methods of its own they call (`self.generate`),
        for the one or two such modules `files` define."""
        out: list[Step] = []
        modules = 0
        for path in dict.fromkeys(p for p in files if p and p.endswith(".py")):
            tree = self.tracer.tree(path)
            for cls in tree.body if tree else []:
                if not isinstance(cls, ast.ClassDef) or not any(
                    ast.unparse(b).endswith("LightningModule") for b in cls.bases
                ):
                    continue
                modules += 1
                methods = {
                    f.name: f
                    for f in cls.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                }
                helpers: list[str] = []
                for hook, verb in _HOOKS:
                    node = methods.get(hook)
                    if node is None or (node.end_lineno or node.lineno) - node.lineno < 2:
                        continue
                    out.append(
                        Step(f"{verb} ({cls.name}.{hook})", path, node.lineno, node.end_lineno or 0)
                    )
                    helpers += [
                        c.func.attr
                        for c in self_calls(node)
                        if isinstance(c.func, ast.Attribute)
                        and c.func.attr in methods
                        and c.func.attr not in _HOOK_NAMES
                    ]
                for name in dict.fromkeys(helpers):
                    node = methods[name]
                    if (node.end_lineno or node.lineno) - node.lineno >= 3:
                        action = f"Implement {cls.name}.{name}"
                        out.append(Step(action, path, node.lineno, node.end_lineno or 0))
        return out[:MAX_HOOKS] if modules <= 2 else []

    def _without_gradients(self, path: str, item: OutlineItem) -> bool:
        """The definition runs without gradients (`@torch.no_grad()`,
        `@torch.inference_mode()`): whatever its name, it trains no model."""
        node = self.tracer.def_node(path, item.name)
        if node is None:
            return False
        marks = [ast.unparse(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
        return any(m.rsplit(".", 1)[-1] in ("no_grad", "inference_mode") for m in marks)

    def _mode_switch(self, path: str, item: OutlineItem) -> bool:
        """A method `train(self, mode=True)`: a module switching itself, and its layers,
        between training and evaluation, as torch's modules do. It trains nothing."""
        if item.kind != "method":
            return False
        node = self.tracer.def_node(path, item.name)
        if node is None:
            return False
        return [a.arg for a in [*node.args.posonlyargs, *node.args.args]] == ["self", "mode"]

    def losses(self, files: list[str | None], training: list[str | None]) -> list[Step]:
        """The loss classes and functions `files` define that the `training` code (the entry
        point, the training loop's module, the chained training) uses (`InstanceLoss`,
        `ClusterLoss` of modules/contrastive_loss.py), each by the method doing its work;
        none when they are more than `MAX_LOSSES` (a framework's catalogue of losses)."""
        used = self._used_names([p for p in training if p])
        found: list[Step] = []
        for path in dict.fromkeys(p for p in files if p):
            items = self.tracer.outline(path)
            for item in items:
                if "." in item.name or item.name not in used or item.end - item.start < 3:
                    continue
                if item.kind == "class" and not _LOSS.search(item.name):
                    found += _overridden_loss(path, item, items)
                    continue
                if not _LOSS.search(item.name):
                    continue
                core = self.methods.class_core(path, item) if item.kind == "class" else None
                where = core or item
                found.append(Step(f"Compute the loss ({where.name})", path, where.start, where.end))
        return found if len(found) <= MAX_LOSSES else []

    def picked(self, entry: str | None, runs: list[Run]) -> list[tuple[str, str]]:
        """The classes the entry point picks by a value the runs give it (`if args.task_name
        == 'classification': Exp = Exp_Classification` for `--task_name classification`), as
        (module, class): the experiment whose training and evaluation these runs go through."""
        tree = self.tracer.tree(entry) if entry and entry.endswith(".py") else None
        e = self.entries.get(entry or "")
        if tree is None or entry is None or e is None:
            return []
        given = given_values(e, [r for r in runs if not r.missing])
        if not given:
            return []
        names = self.tracer.local_names(entry, tree)
        out: list[tuple[str, str]] = []
        for node in ast.walk(tree):
            test = node.test if isinstance(node, ast.If) else None
            if not (
                isinstance(test, ast.Compare)
                and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.left, ast.Attribute)
                and isinstance(test.comparators[0], ast.Constant)
                and str(test.comparators[0].value) in given.get(test.left.attr, set())
            ):
                continue
            for stmt in node.body if isinstance(node, ast.If) else []:
                picks = stmt.value if isinstance(stmt, ast.Assign) else None
                if isinstance(picks, ast.Name) and picks.id in names:
                    target, qual = names[picks.id]
                    if any(
                        i.name == qual and i.kind == "class" for i in self.tracer.outline(target)
                    ):
                        out.append((target, qual))
        return list(dict.fromkeys(out))

    def _used_names(self, files: list[str | None]) -> set[str]:
        """Every name the code of `files` refers to: called, read as an attribute, or given
        to a call as a string (`getattr(exp, "test")`)."""
        return {name for path in files for name in self._name_lines(path)}

    def _name_lines(self, path: str | None) -> dict[str, frozenset[int]]:
        """The names a file's code refers to, each with the lines it is referred to on."""
        if path is None:
            return {}
        if path not in self._names:
            tree = self.tracer.tree(path)
            names: dict[str, set[int]] = {}
            # a string names code only given to a call (`getattr(exp, "test")`), not when a
            # value is matched against it (`case 'validate':`, a Lightning stage's name)
            given = {
                id(a)
                for node in (ast.walk(tree) if tree else [])
                if isinstance(node, ast.Call)
                for a in [*node.args, *(k.value for k in node.keywords)]
            }
            for node in ast.walk(tree) if tree else []:
                if isinstance(node, ast.Name):
                    name = node.id
                elif isinstance(node, ast.Attribute):
                    name = node.attr
                elif (
                    isinstance(node, ast.Constant)
                    and str(node.value).isidentifier()
                    and id(node) in given
                ):
                    name = str(node.value)
                else:
                    continue
                names.setdefault(name, set()).add(node.lineno)
            self._names[path] = {n: frozenset(lines) for n, lines in names.items()}
        return self._names[path]

    def _used_elsewhere(self, files: list[str | None], path: str, item: OutlineItem) -> bool:
        """The definition's name is referred to outside its own body: `LSPTrainer.validate`,
        whose only mention is the framework's `self.trainer.validate(...)` inside it, is
        called by nothing."""
        short = item.name.rsplit(".", 1)[-1]
        for where in dict.fromkeys(files):
            lines = self._name_lines(where).get(short, frozenset())
            if where != path and lines:
                return True
            if any(not item.start <= n <= item.end for n in lines):
                return True
        return False

    def loop(self, path: str, item: OutlineItem) -> tuple[int, int] | None:
        node = self.tracer.def_node(path, item.name)
        if node is None:
            return None
        # a loop that trains: over epochs or steps, or stepping an optimizer, not one that
        # registers hooks (`for hook_cfg in cfg.custom_hooks:` of mmseg's train_segmentor),
        # nor one in a branch the function's defaults leave (HEST's `train_test_reg` fits a
        # ridge regression by default; its random-forest branch loops over the genes)
        chosen = _default_branch(node)
        loops = [
            n
            for n in ast.walk(node)
            if isinstance(n, ast.For | ast.While)
            and _trains(n)
            and not (chosen and any(a <= n.lineno <= b for a, b in chosen.left))
        ]
        if not loops:
            return _handed_to_runner(node)
        loop = (
            max(loops, key=lambda n: (n.end_lineno or n.lineno) - n.lineno)
            if len(loops) > 1
            else loops[0]
        )
        first = next(
            (
                n
                for n in loops
                if "epoch" in ast.unparse(n.target if isinstance(n, ast.For) else n.test)
            ),
            loop,
        )
        end = first.end_lineno or first.lineno
        if end - first.lineno <= NARROW:
            return first.lineno, end
        # a loop longer than a step: the part that computes the loss and steps on it (the
        # first `loss` assignment before the first `backward()`), where the method trains
        backward = min(
            (
                n.lineno
                for n in ast.walk(first)
                if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and n.func.attr == "backward"
            ),
            default=0,
        )
        losses = [
            n.lineno
            for n in ast.walk(first)
            if isinstance(n, ast.Assign | ast.AugAssign)
            and "loss" in ast.unparse(n.targets[0] if isinstance(n, ast.Assign) else n.target)
            and n.lineno <= backward
        ]
        if backward and losses:
            start = max(min(losses), backward - NARROW)
            return start, _stepped_through(first, backward)
        return first.lineno, first.lineno + NARROW


MAX_STEP_TAIL = 10  # lines past the first `backward()` its `if` may take the range on


def _stepped_through(loop: ast.For | ast.While, backward: int) -> int:
    """The last line of the step a loop's first `backward()` (at line `backward`) takes:
    the optimizer calls after it (`model_optim.step()`, `scaler.update()`), and the
    `if` holding it when it is short (`if use_amp: scaler.scale(loss).backward() ...
    else: loss.backward(); model_optim.step()`): the plain path's step is cited too."""
    end = backward
    for block, parent in _blocks(loop):
        at = next((i for i, st in enumerate(block) if st.lineno == backward), None)
        if at is None:
            continue
        end = block[at].end_lineno or backward
        for st in block[at + 1 :]:
            call = st.value if isinstance(st, ast.Expr) else None
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr in {"step", "update", "zero_grad"}
            ):
                break
            end = st.end_lineno or end
        if isinstance(parent, ast.If) and (parent.end_lineno or 0) - backward <= MAX_STEP_TAIL:
            end = max(end, parent.end_lineno or end)
        break
    return end


def _blocks(node: ast.AST) -> list[tuple[list[ast.stmt], ast.AST]]:
    """Every statement list under `node`, with the statement holding it."""
    out: list[tuple[list[ast.stmt], ast.AST]] = []
    for n in ast.walk(node):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(n, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                out.append((block, n))
    return out


_STEPPING = {"backward", "step", "zero_grad", "train_step", "run_epoch"}


@dataclass(frozen=True)
class Branch:
    """The branch of a function's `if name == 'value': ... elif ...` chain that the default
    of its parameter `name` takes, and the lines of the branches it leaves."""

    name: str
    value: str
    start: int
    end: int
    trains: bool  # the branch fits, trains or steps something
    left: tuple[tuple[int, int], ...]


def _default_branch(node: ast.AST) -> Branch | None:
    """The branch a function's parameter default selects, in the first chain of its body
    that tests the parameter against string values, one of them the default."""
    args = getattr(node, "args", None)
    if not isinstance(args, ast.arguments):
        return None
    defaults: dict[str, str] = {}
    positional = [*args.posonlyargs, *args.args]
    pairs: list[tuple[ast.arg, ast.expr | None]] = [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
    ]
    for arg, value in pairs:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            defaults[arg.arg] = value.value
    for stmt in getattr(node, "body", []):
        if not isinstance(stmt, ast.If):
            continue
        chain: list[tuple[str, str, list[ast.stmt]]] = []
        at: ast.If | None = stmt
        while at is not None:
            test = at.test
            if not (
                isinstance(test, ast.Compare)
                and isinstance(test.left, ast.Name)
                and len(test.ops) == 1
                and isinstance(test.ops[0], ast.Eq)
                and isinstance(test.comparators[0], ast.Constant)
                and isinstance(test.comparators[0].value, str)
            ):
                break
            chain.append((test.left.id, test.comparators[0].value, at.body))
            nxt = at.orelse
            at = nxt[0] if len(nxt) == 1 and isinstance(nxt[0], ast.If) else None
        names = {name for name, _, _ in chain}
        if len(chain) < 2 or len(names) != 1 or (name := names.pop()) not in defaults:
            continue
        taken = [body for _, value, body in chain if value == defaults[name]]
        if not taken:
            continue
        body = taken[0]
        left = tuple(
            (b[0].lineno, b[-1].end_lineno or b[-1].lineno) for _, _, b in chain if b is not body
        )
        trains = any(
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and (n.func.attr in ("fit", "train") or n.func.attr in _STEPPING)
            for st in body
            for n in ast.walk(st)
        )
        return Branch(
            name,
            defaults[name],
            body[0].lineno,
            body[-1].end_lineno or body[-1].lineno,
            trains,
            left,
        )
    return None


def _trains(loop: ast.For | ast.While) -> bool:
    """The loop goes over epochs or iterations, or steps an optimizer, or trains inside."""
    head = ast.unparse(loop.target if isinstance(loop, ast.For) else loop.test)
    if re.search(r"epoch|iter|step|batch", head, re.I):
        return True
    for n in ast.walk(loop):
        if isinstance(n, ast.Call):
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", "")
            if name in _STEPPING or _TRAIN_PREFIX.match(name.lower()):
                return True
    return False


def _handed_to_runner(node: ast.AST) -> tuple[int, int] | None:
    """The statement a training function ends by handing the run to (`runner.run(loaders,
    cfg.workflow)`, `trainer.fit(model)`): where a framework's training starts."""
    body = getattr(node, "body", [])
    # a `model.train()` opening a training step switches the model's mode: it hands nothing
    # over (2-WL's `def train(mod, ...)`: `mod.train()`, then the step itself)
    for stmt in reversed(body[1:]):
        if _handover(stmt, ("run", "fit", "train")) is not None:
            return stmt.lineno, stmt.end_lineno or stmt.lineno
    return None


def _handover(stmt: ast.stmt, methods: tuple[str, ...]) -> ast.Attribute | None:
    """The method a statement that is only `x.method(...)` calls (`trainer.train`), when it
    is one of `methods`, else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in methods
    ):
        return call.func
    return None


def _overridden_loss(path: str, cls: OutlineItem, items: list[OutlineItem]) -> list[Step]:
    """A trainer class of the repository's own that overrides the framework's loss hook
    (`RRHFTrainer.compute_loss`, as Hugging Face's `Trainer` subclasses do): the hook, after
    the loss methods of the class beside it (`rrhf_loss`, `sft_loss`), which it calls."""
    hook = next(
        (i for i in items if i.kind == "method" and i.name == f"{cls.name}.{_LOSS_HOOK}"), None
    )
    if hook is None:
        return []
    own = [
        i
        for i in items
        if i.kind == "method"
        and i.name.startswith(cls.name + ".")
        and i is not hook
        and _LOSS.search(i.name.rsplit(".", 1)[-1])
        and i.end - i.start >= 3
    ]
    steps = [Step(f"Compute the loss ({i.name})", path, i.start, i.end) for i in own]
    return [*steps, Step(f"Compute the training loss ({hook.name})", path, hook.start, hook.end)]


# a data set class by the data set it is of: `CityscapesDataset`, `ADE20KDataset`; never
# one every data set builds on (`CustomDataset`, `BaseDataset`)
_DATA_CLASS = re.compile(r"^([A-Za-z0-9]+?)Dataset\.")
_GENERIC_DATA = {"custom", "base", "concat", "repeat", "multi", "multiimagemix", "my", "torch"}


def _other_data(name: str, data: frozenset[str]) -> bool:
    """A method of a data set class (`CityscapesDataset.evaluate`) of no data set the task
    names (folded: "ade20k", "imagenet"), when it names any."""
    m = _DATA_CLASS.match(name)
    if m is None or not data:
        return False
    own = squash(m.group(1))
    if own in _GENERIC_DATA:
        return False
    return not any(own.startswith(d) or d.startswith(own) for d in data)
