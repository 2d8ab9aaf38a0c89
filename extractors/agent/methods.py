"""The method's own code as steps: the definitions of the modules that implement it.

A task's method lives in a module (models/CycleNet.py, algorithms/mappo.py). Its steps are
that module's definitions named after what the task studies, a long class cited by its parts
(its constructor and its forward pass) rather than whole; each compared method with a module
named after it is cited by its main class's core method.
"""

from __future__ import annotations

import ast
import posixpath
import re

from expcurate.records import RepoIndex
from extractors.acronyms import acronyms, key_word, spelled_out
from extractors.repo import stem, terms
from extractors.repo.pysource import OutlineItem

from .arm_options import (
    fold,
)
from .arms import (
    Arm,
    about_data,
    numeric,
    spread,
    value_forms,
)
from .inline import doc_wording
from .query import TaskQuery
from .steps import Step, StepTracer, humanize, imported, self_calls

NARROW = 40  # a definition longer than this is cited by its parts
HANDOVER = 8  # a pass this short calling one part of its object hands its input over
MAX_ARM_MODULES = 3  # the compared methods whose own module's main definition is cited
_CONFIG_PARTS = frozenset({"configs", "config", "local_configs", "_base_", "conf", "cfgs"})
# what a task studies by a common name (its stem), and the stems code names it by
_TOPICS = {
    "augment": frozenset({"augment", "aug", "transform"}),
    "attent": frozenset({"attent", "attn"}),
    "normal": frozenset({"norm", "normal"}),
    "embed": frozenset({"embed", "emb", "embedding"}),
    "pool": frozenset({"pool"}),
}
_TOPIC_WORDS = {"augment": "augmentation", "attent": "attention", "normal": "normalization"}
MAX_TOPIC_CLASSES = 3
# what a method's class is about, in order: its pass, its objective, its update
_CORE_METHODS = ("forward", "call", "get_loss", "loss", "compute_loss", "update", "learn", "step")


class MethodModules:
    """The modules of one repository that define methods, read once for all its tasks."""

    def __init__(self, index: RepoIndex, tracer: StepTracer) -> None:
        self.index = index
        self.tracer = tracer
        self._stems: dict[str, list[str]] | None = None

    def method_steps(self, method: Step, q: TaskQuery, mode: str = "") -> list[Step]:
        """The method's own definitions in its module, each cut to parts a step can cite.
        `mode` is how the runs use the model, "test" (an evaluation program runs it) or
        "train", else "": a forward pass that returns early in that mode is cited to there."""
        module = method.path
        items = [i for i in self.tracer.outline(module) if i.kind != "method"]
        focus = {stem(t) for t in q.focus} | {stem(t) for t in q.names}
        chosen = [i for i in items if i.start == method.start]
        named = [
            i
            for i in items
            if i not in chosen and i.end - i.start >= 4 and not i.name.startswith("_")
        ]
        # the definitions named after what the task studies, then the module's largest
        named.sort(key=lambda i: (not set(terms(i.name)) & focus, -(i.end - i.start)))
        if set(terms(module)) & focus or any(set(terms(i.name)) & focus for i in named):
            chosen += named[: 3 - len(chosen)]
        # else the class whose core method the step cites (SparseTSF's Model.forecast)
        chosen = chosen or [i for i in items if i.start <= method.start <= i.end][:1]
        chosen = sorted(chosen, key=lambda i: i.start)[:3]
        out: list[Step] = []
        for item in chosen:
            if item.end - item.start <= NARROW or item.kind != "class":
                out.append(Step(_define(item), module, item.start, item.end))
                continue
            out += self._class_steps(module, item, mode)
        return out

    def _class_steps(
        self, module: str, item: OutlineItem, mode: str, depth: int = 0, via: str = ""
    ) -> list[Step]:
        """A long class by its parts: its constructor and its forward pass (or other core
        method). A wrapper, whose pass only hands its input to an object its constructor
        builds from another class of the repository (PDF's `Model` around `PDF_backbone`),
        is cited by that class's parts instead: the wrapper's own say nothing of the method
        (its module stays the method's, for the mask)."""
        out: list[Step] = []
        methods = [
            m
            for m in self.tracer.outline(module)
            if m.kind == "method" and m.name.startswith(item.name + ".")
        ]
        init = next((m for m in methods if m.name.endswith(".__init__")), None)
        core = _core([m for m in methods if m is not init], ("forward", "call"))
        inner = self._delegate(module, init, core) if depth < 2 else None
        if inner is not None and core is not None:
            path, cls = inner
            via = f", to which `{core.name}` hands its input"
            return self._class_steps(path, cls, mode, depth + 1, via)
        if init is not None:
            out.append(
                Step(
                    f"Build the parts of {item.name}{via} ({init.name})",
                    module,
                    init.start,
                    init.end,
                )
            )
            via = ""
        if core is not None:
            passing = core.name.endswith(("forward", "__call__"))
            node = self.tracer.def_node(module, core.name) if passing and mode else None
            early = _mode_return(node, mode) if node is not None else None
            action = (
                f"Compute {item.name}'s {core.name.rsplit('.', 1)[-1]} pass{via}"
                if passing
                else _define(core)
            )
            end = core.end
            if early is not None:  # the rest of the pass is the other mode's
                test, end = early
                action += f" in {mode} mode (`if {test}:` returns at :{end})"
            out.append(Step(action, module, core.start, end))
        if init is None and core is None:
            out.append(Step(_define(item), module, item.start, item.end))
        return out

    def _delegate(
        self, module: str, init: OutlineItem | None, core: OutlineItem | None
    ) -> tuple[str, OutlineItem] | None:
        """The class a wrapper's pass hands its input to: a pass of at most `HANDOVER` lines
        whose one call on an attribute of `self` (`x = self.model(x)`) calls the object the
        constructor builds there from one class of the repository, found where the module
        takes it from, at least `NARROW` lines long (the work is there, not in the wrapper)."""
        if init is None or core is None or core.end - core.start > HANDOVER:
            return None
        node = self.tracer.def_node(module, core.name)
        built = self.tracer.def_node(module, init.name)
        tree = self.tracer.tree(module)
        if node is None or built is None or tree is None:
            return None
        called = {c.func.attr for c in self_calls(node) if isinstance(c.func, ast.Attribute)}
        if len(called) != 1:
            return None
        (attr,) = called
        classes = {
            n.value.func.id
            for n in ast.walk(built)
            if isinstance(n, ast.Assign)
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name)
            and any(
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
                and t.attr == attr
                for t in n.targets
            )
        }
        if len(classes) != 1:
            return None
        found = self.tracer.local_names(module, tree).get(classes.pop())
        if found is None:
            return None
        path, name = found
        cls = next(
            (i for i in self.tracer.outline(path) if i.kind == "class" and i.name == name), None
        )
        if cls is None or cls.end - cls.start <= NARROW or (path, name) == (module, core.name):
            return None
        return path, cls

    def modules_by_stem(self) -> dict[str, list[str]]:
        """Python modules by their lower-case file stem (models/PatchTST.py as "patchtst"),
        tests left out."""
        if self._stems is None:
            self._stems = {}
            for f in self.index.files:
                name = posixpath.basename(f.path)
                if name.endswith(".py") and not name.startswith("test") and "/test" not in f.path:
                    self._stems.setdefault(name[:-3].lower(), []).append(f.path)
        return self._stems

    def arm_steps(self, arms: list[Arm], skip: set[str]) -> list[Step]:
        """Each compared method's own module, when one is named after it (algorithms/mappo.py
        for "MAPPO", models/PatchTST.py for "PatchTST"): its main class by its core method."""
        by_stem = self.modules_by_stem()
        out: list[Step] = []
        for arm in arms:
            if numeric(arm.value.split()[0]) or about_data(arm.variable):
                continue
            forms = value_forms(arm.value)
            bare = re.sub(r"\s*\([^()]*\)", "", arm.value).strip()
            head = bare.split("/")[0] if "/" in bare else ""
            if by_stem.get(head.lower()):  # "CycleNet/Linear" is CycleNet's, not Linear's
                forms = [head]
            for form in forms:
                paths = by_stem.get(re.sub(r"[\s-]+", "_", form.lower()), [])
                if len(paths) != 1 or paths[0] in skip:
                    continue
                step = self.main_definition(paths[0], arm.value, through=True)
                if step is not None:
                    out.append(step)
                break
        # a few of many: the first, the last and between, not the first few alone (MASAC,
        # MADDPG and MAPPO of six, none of the three Q-learning methods they are set against)
        kept = {id(s) for s in spread(out)[:MAX_ARM_MODULES]}
        return [s for s in out if id(s) in kept]

    def component_steps(self, text: str, arms: list[Arm], modules: list[str]) -> list[Step]:
        """The classes implementing a component an arm adds or removes by its acronym ("w/o
        MSCA"), where the task's text spells it out ("multi-scale convolutional attention
        (MSCA)", or drafting wrote what the paper spells it out as): the method's modules'
        classes named by the spelled-out name's last word (`AttentionModule`,
        `SpatialAttention`), or by the word it differs in from another arm's
        ("instance-level contrastive head" beside "cluster-level contrastive head":
        `InstanceLoss`), at most two, each by its core when long."""
        out: list[Step] = []
        named = {
            a: long for arm in arms for a in acronyms(arm.value) if (long := spelled_out(text, a))
        }
        for acronym, long in named.items():
            # "instance" of "instance-level contrastive head" beside "cluster-level ...": the
            # word the two heads' names differ in
            head = key_word(long, [o for a, o in named.items() if a != acronym])
            if head:
                for module in dict.fromkeys(modules):
                    for item in self.tracer.outline(module):
                        if item.kind != "class" or head not in item.name.lower():
                            continue
                        core = (
                            self.class_core(module, item)
                            if item.end - item.start > NARROW
                            else None
                        )
                        first, last = (core.start, core.end) if core else (item.start, item.end)
                        step = Step(f"Implement {acronym} ({item.name})", module, first, last)
                        if all(step.path != o.path or step.start != o.start for o in out):
                            out.append(step)
                        if len(out) >= 2:
                            return out
        return out

    def named_modules(self, question: str) -> list[str]:
        """The modules the question names by an acronym their name begins with ("the design
        of MSCA": mscan.py, whose `MSCAN` is built of it), one module per acronym."""
        by_stem = self.modules_by_stem()
        out: list[str] = []
        for acronym in dict.fromkeys(re.findall(r"\b[A-Z][A-Z0-9]{2,}\b", question)):
            low = acronym.lower()
            found = [
                p
                for name, paths in by_stem.items()
                if name.startswith(low) and len(name) - len(low) <= 2
                for p in paths
                if not _CONFIG_PARTS & set(p.split("/"))  # a config of that name sets it up
            ]
            if len(found) == 1:
                out.append(found[0])
        return out

    def topic_steps(self, question: str, modules: list[str]) -> list[Step]:
        """The classes implementing what the question studies by a common name, as code names
        it ("data augmentations": the `Transforms` of modules/transform.py; "attention":
        `Attention`, `SpatialAttention`), in `modules`: at most two, each whole when short,
        else by its core; none when more than `MAX_TOPIC_CLASSES` match (a framework's
        catalogue of attention blocks is no answer)."""
        asked = set(terms(question))
        out: list[Step] = []
        for topic, names in _TOPICS.items():
            if topic not in asked:
                continue
            found = [
                (module, item)
                for module in dict.fromkeys(modules)
                for item in self.tracer.outline(module)
                if item.kind == "class" and set(terms(item.name)) & names
            ]
            if not found or len(found) > MAX_TOPIC_CLASSES:
                continue
            for module, item in found[:2]:
                core = self.class_core(module, item) if item.end - item.start > NARROW else None
                first, last = (core.start, core.end) if core else (item.start, item.end)
                what = _TOPIC_WORDS.get(topic, topic)
                out.append(Step(f"Implement the {what} ({item.name})", module, first, last))
        return out

    def input_steps(self, arms: list[Arm], modules: list[str]) -> list[Step]:
        """Where the arms enter the method's own model: the method of its classes whose
        parameters two arms or more name (SegVol's `forward_decoder(..., text, boxes,
        points)` for the text, box and point prompts) and which uses them, not one that only
        hands them on to another method of its class (`forward` calling
        `self.forward_decoder(..., text, boxes, points)`). At most one, the first found."""
        named = [
            {w.lower() for w in re.findall(r"[A-Za-z]{3,}", a.value)}
            for a in arms
            if not numeric(a.value.split()[0]) and not about_data(a.variable)
        ]
        if len(named) < 2:
            return []
        for module in dict.fromkeys(modules):
            tree = self.tracer.tree(module)
            for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)) if tree else []:
                methods = {
                    f.name: f
                    for f in cls.body
                    if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                }
                for fn in methods.values():
                    params = [a.arg for a in fn.args.args[1:] + fn.args.kwonlyargs]
                    taken = {
                        p for p in params for words in named if any(_plural(w, p) for w in words)
                    }
                    hits = sum(any(_plural(w, p) for w in words for p in params) for words in named)
                    if hits < 2 or _hands_on(fn, taken, set(methods)):
                        continue
                    what = ", ".join(sorted(taken))
                    return [
                        Step(
                            f"Take the arms' inputs ({what}) into the model ({cls.name}.{fn.name})",
                            module,
                            fn.lineno,
                            fn.end_lineno or fn.lineno,
                        )
                    ]
        return []

    def defined_model(self, name: str, programs: list[str]) -> Step | None:
        """The model a run names by a definition, not a module (`--model Llama7B_adapter`,
        a function of models_llama_adapter.py the program looks up by name): a class of that
        name, or the class such a function builds (llama/model.py's `Transformer`), as its
        module's main definition. Found in what the `programs` import; None when no single
        definition has the name."""
        found: list[tuple[str, OutlineItem]] = []
        for path in dict.fromkeys(m for p in programs for m in imported(self.index, p)):
            found += [
                (path, i)
                for i in self.tracer.outline(path)
                if i.name == name and i.kind in ("class", "function")
            ]
        if len(found) != 1:
            return None
        path, item = found[0]
        if item.kind == "class":
            return self.main_definition(path, name, item)
        fn = self.tracer.def_node(path, item.name)
        tree = self.tracer.tree(path)
        if fn is None or tree is None:
            return None
        names = self.tracer.local_names(path, tree, packages=True)
        for node in ast.walk(fn):
            call = node.func if isinstance(node, ast.Call) else None
            if isinstance(call, ast.Name) and call.id in names:
                target, qual = names[call.id]
                built = [i for i in self.tracer.outline(target) if i.name == qual]
                if built and built[0].kind == "class":
                    return self.main_definition(target, name, built[0])
        return None

    def main_definition(
        self, module: str, what: str, top: OutlineItem | None = None, through: bool = False
    ) -> Step | None:
        """A module's largest class (or `top`), cited by its core method when it is long;
        `through` a wrapper's pass, by the pass of the class it hands its input to."""
        items = self.tracer.outline(module)
        # a class that only declares fields (a dataclass of a config's keys: BenchMARL's
        # `TaskConfig` of vmas/balance) implements nothing
        classes = [
            i
            for i in items
            if i.kind == "class"
            and i.end - i.start >= 4
            and any(m.name.startswith(f"{i.name}.") for m in items)
        ]
        functions = [i for i in items if i.kind == "function"]
        # a module of functions is entered by the one named as it is (`pc` of PC.py, which
        # hands over to `pc_alg` or `mvpc_alg`), not by its longest
        own_name = fold(posixpath.basename(module).rsplit(".", 1)[0])
        named = [f for f in functions if fold(f.name) == own_name] if not classes else []
        top = (
            top
            or (named[0] if named else None)
            or max(classes or functions, key=lambda i: i.end - i.start, default=None)
        )
        if top is None:
            return None
        if top.kind == "class" and top.end - top.start > NARROW:
            core = self.class_core(module, top)
            init = next((i for i in items if i.name == f"{top.name}.__init__"), None)
            # a wrapper's (PDF's `Model`) is the pass of the class it hands its input to
            inner = self._delegate(module, init, core) if through else None
            if inner is not None and core is not None:
                path, cls = inner
                deep = self.class_core(path, cls)
                if deep is not None:
                    return Step(
                        f"Implement {what}'s {deep.name}, to which `{core.name}` hands its input",
                        path,
                        deep.start,
                        deep.end,
                    )
            if core is not None:
                return Step(f"Implement {what}'s {core.name}", module, core.start, core.end)
        return Step(f"Implement {what} ({top.name})", module, top.start, top.end)

    def class_core(self, module: str, cls: OutlineItem) -> OutlineItem | None:
        """The method doing a class's work (`forward`, `loss`, else its largest), never its
        constructor; None for a class with no other methods."""
        methods = [
            m
            for m in self.tracer.outline(module)
            if m.kind == "method"
            and m.name.startswith(cls.name + ".")
            and not m.name.endswith(".__init__")
        ]
        return _core(methods, _CORE_METHODS)


# an attribute telling a model's modes apart, and the mode it says when true
_MODE_FLAG = re.compile(r"^(?:is_)?(?:(test|eval|evaluat|infer)\w*|(train)\w*)$")


def _mode_return(fn: ast.FunctionDef | ast.AsyncFunctionDef, mode: str) -> tuple[str, int] | None:
    """The `if self.test_mode:` (or `if not self.training:`) of a forward pass's body whose
    branch is `mode`'s and ends by returning: its test as written, and the branch's last
    line. The lines after it are the other mode's (SegVol returns `forward_decoder` in test
    mode; its training losses follow). None when the pass has no such branch."""
    for stmt in fn.body:
        if not isinstance(stmt, ast.If) or not stmt.body:
            continue
        test, negated = stmt.test, False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, True
        if not (
            isinstance(test, ast.Attribute)
            and isinstance(test.value, ast.Name)
            and test.value.id == "self"
            and (flag := _MODE_FLAG.match(test.attr))
        ):
            continue
        says = "test" if flag.group(1) else "train"
        if negated:
            says = "train" if says == "test" else "test"
        if says == mode and isinstance(stmt.body[-1], ast.Return) and not stmt.orelse:
            return ast.unparse(stmt.test), stmt.end_lineno or stmt.lineno
        return None
    return None


def _plural(word: str, name: str) -> bool:
    """An arm's word and a parameter's name are one thing, one of them maybe plural ("box"
    and `boxes`, "point" and `points`)."""
    a, b = sorted((word.lower(), name.lower()), key=len)
    return b in (a, a + "s", a + "es")


def _hands_on(fn: ast.FunctionDef | ast.AsyncFunctionDef, params: set[str], own: set[str]) -> bool:
    """Every use of the parameters in the function is as an argument of a call to another
    method of its class (`self.forward_decoder(..., text, boxes, points)`)."""
    uses = [
        n
        for n in ast.walk(fn)
        if isinstance(n, ast.Name) and n.id in params and isinstance(n.ctx, ast.Load)
    ]
    handed = {
        id(a)
        for c in self_calls(fn)
        if isinstance(c.func, ast.Attribute) and c.func.attr in own
        for a in [*c.args, *(k.value for k in c.keywords)]
        if isinstance(a, ast.Name)
    }
    return bool(uses) and all(id(u) in handed for u in uses)


def _core(methods: list[OutlineItem], names: tuple[str, ...]) -> OutlineItem | None:
    """The method that does a class's work: the first of `names` it defines, unless that one
    only hands over (a three-line forward calling `forecast`); else its largest."""
    named = (
        m
        for want in names
        for m in methods
        if m.name.rsplit(".", 1)[-1].strip("_") == want and m.end - m.start >= 4
    )
    return next(named, max(methods, key=lambda m: m.end - m.start, default=None))


def _define(item: OutlineItem) -> str:
    doc = doc_wording(item.doc)
    short = item.name.rsplit(".", 1)[-1]
    if doc:
        return f"Implement {item.name}: {doc[0].lower() + doc[1:]}"
    if item.kind == "class":
        return f"Implement the {item.name} class"
    return humanize(short) if humanize(short) != f"Call {short}" else f"Implement {item.name}"
