"""The steps in the order a run executes them.

A plan gathers its steps by kind (the switches, the model, the arms' code paths, the data,
the training), which is not the order the program runs them in: SegVol's `inference_demo.py`
builds the model, loads the checkpoint and the config, prepares the CT and sets the prompt
switches before the inference whose zoom-in path the arms differ by. A step's place in the
run is the chain of call sites leading to its lines from the entry point's top level: a line
of `main` is at (the `main()` call, the line); a line of a function `main` calls at line 214
is at (the `main()` call, 214, the line); a definition of another module is where the entry
point calls it (a class where it is made). The steps whose place is known are put in that
order among their own slots; the others (a launch script's lines, a config's keys, code no
call of the entry point reaches) keep theirs.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from extractors.repo.pysource import OutlineItem

from .steps import Step, StepTracer

Place = tuple[int, ...]
# methods every framework calls by these names on its own objects (`model.train()`,
# `optimizer.step()`): a call by the name alone says nothing of which class's it is
_COMMON = frozenset(
    {"forward", "train", "eval", "step", "run", "update", "call", "fit", "predict", "load"}
)


class ExecutionOrder:
    """Where an entry point's execution reaches each step, read once per entry point."""

    def __init__(self, tracer: StepTracer) -> None:
        self.tracer = tracer
        self._sites: dict[str, dict[str, list[int]]] = {}  # entry -> called name -> lines
        self._places: dict[tuple[str, str], Place | None] = {}
        self._loops: dict[str, frozenset[int]] = {}
        self._names: dict[str, dict[str, tuple[str, str]]] = {}  # entry -> its names' origins
        self._aliases: dict[str, dict[str, list[str]]] = {}  # entry -> a name -> its new names

    def ordered(
        self,
        steps: list[Step],
        entry: str | None,
        starts: Sequence[Step] = (),
        before: Sequence[Step] = (),
    ) -> list[Step]:
        """The steps with a known place sorted by it, each into one of their own slots;
        `before`, what runs ahead of the program (the training an evaluation is chained
        after), just before the first of them; `starts`, the lines that only start the
        program (`bash script/inference_demo.sh`), just after the last of them: they run
        what is written first."""
        if not entry or not entry.endswith(".py") or self.tracer.tree(entry) is None:
            return steps
        try:
            places = [self.place(s, entry) for s in steps]
        except RecursionError:  # a call chain deeper than Python follows: as gathered
            return steps
        slots = [i for i, p in enumerate(places) if p is not None]
        if len(slots) < 2:
            return steps
        ranked = sorted(slots, key=lambda i: (places[i], i))
        out = list(steps)
        for slot, i in zip(slots, ranked, strict=True):
            out[slot] = steps[i]
        moved = [*starts, *before]
        placed = [steps[i] for i in ranked if all(steps[i] is not x for x in moved)]
        if not placed:
            return out
        launching = [s for s in out if any(s is x for x in starts)]
        ahead = [s for s in out if any(s is x for x in before) and s not in launching]
        out = [s for s in out if all(s is not x for x in [*launching, *ahead])]
        at = next(i for i, s in enumerate(out) if s is placed[-1]) + 1
        out = [*out[:at], *launching, *out[at:]]
        at = next(i for i, s in enumerate(out) if s is placed[0])
        return [*out[:at], *ahead, *out[at:]]

    def place(self, step: Step, entry: str) -> Place | None:
        """Where the run reaches the step's first line; None when no call of the entry point
        leads there."""
        if step.path == entry:
            return self._line(entry, step.start)
        item = _innermost(self.tracer.outline(step.path), step.start)
        if item is None:
            return None
        if entry not in self._names:
            tree = self.tracer.tree(entry)
            self._names[entry] = self.tracer.local_names(entry, tree) if tree else {}
        names = self._names[entry]
        cls, _, method = item.name.partition(".")
        if names.get(cls) != (step.path, cls):
            return None  # not a name the entry point takes from that module
        lines = self._main_sites(entry, _called_as(cls, method), handed=item.kind == "function")
        at = self._first(entry, lines)
        return (*at, step.start) if at is not None else None

    def _line(self, entry: str, line: int) -> Place | None:
        """Where the run reaches a line of the entry point: at the top level, the line; in a
        definition, past the first place that calls it."""
        item = _innermost(self.tracer.outline(entry), line)
        if item is None:
            return (line,)
        at = self._definition(entry, item)
        return (*at, line) if at is not None else None

    def _definition(self, entry: str, item: OutlineItem) -> Place | None:
        key = (entry, item.name)
        if key in self._places:
            return self._places[key]
        self._places[key] = None  # a definition reached only from itself is not reached
        cls, _, method = item.name.partition(".")
        lines = self._main_sites(
            entry, _called_as(cls, method), (item.start, item.end), item.kind == "function"
        )
        self._places[key] = self._first(entry, lines)
        return self._places[key]

    def _first(self, entry: str, lines: list[int]) -> Place | None:
        """The earliest place the run reaches of these lines of the entry point."""
        return min((p for x in lines if (p := self._line(entry, x)) is not None), default=None)

    def _main_sites(
        self, entry: str, key: str, outside: tuple[int, int] = (0, 0), handed: bool = False
    ) -> list[int]:
        """The lines reaching a definition, outside its own lines: those in a loop when there
        are (a program testing once before its epochs is training when `test` runs in the
        loop after `train`), else all. A function (`handed`) no line calls by name is
        reached where it is handed over (`{'LAMA': lama_evaluate}`); a class so handed is
        only renamed (`Exp = Exp_Main`), and made later."""
        sites = self.sites(entry)
        lines = [x for x in sites.get(key, []) if not outside[0] <= x <= outside[1]]
        if not lines and handed:
            lines = [x for x in sites.get("&" + key, []) if not outside[0] <= x <= outside[1]]
        if not lines and not key.startswith((".", "&")):
            # a class renamed first (`Exp = Exp_Anomaly_Detection`) is made by its new name
            lines = [
                x
                for alias in self.aliases(entry).get(key, [])
                for x in sites.get(alias, [])
                if not outside[0] <= x <= outside[1]
            ]
        looped = self._looped(entry)
        return [x for x in lines if x in looped] or lines

    def aliases(self, entry: str) -> dict[str, list[str]]:
        """The names the entry point gives a name of its own (`Exp = Exp_Main`), by name."""
        if entry not in self._aliases:
            out: dict[str, list[str]] = {}
            tree = self.tracer.tree(entry)
            for node in ast.walk(tree) if tree is not None else []:
                if (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Name)
                ):
                    out.setdefault(node.value.id, []).append(node.targets[0].id)
            self._aliases[entry] = out
        return self._aliases[entry]

    def _looped(self, entry: str) -> frozenset[int]:
        """The lines of the entry point inside a `for` or `while` loop."""
        if entry not in self._loops:
            tree = self.tracer.tree(entry)
            self._loops[entry] = frozenset(
                line
                for node in (ast.walk(tree) if tree is not None else [])
                if isinstance(node, ast.For | ast.While | ast.AsyncFor)
                for stmt in node.body
                for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1)
            )
        return self._loops[entry]

    def sites(self, entry: str) -> dict[str, list[int]]:
        """The lines of the entry point calling each of its names (`f(...)`, `Model(...)`);
        under ".name", each method called on an object (`x.f(...)`) or bound to be called
        later (`self.encoder = self._forward_exp_encoder`); under "&name", each other use of
        a name (`{'LAMA': lama_evaluate}`)."""
        if entry not in self._sites:
            out: dict[str, list[int]] = {}
            tree = self.tracer.tree(entry)
            called: set[int] = set()
            for node in ast.walk(tree) if tree is not None else []:
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    out.setdefault(node.func.id, []).append(node.lineno)
                    called.add(id(node.func))
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    out.setdefault("." + node.attr, []).append(node.lineno)
            # a function handed over by name (`eval_dict = {'LAMA': lama_evaluate}`), where
            # nothing calls it by name: reached where it is handed over
            for node in ast.walk(tree) if tree is not None else []:
                if (
                    isinstance(node, ast.Name)
                    and isinstance(node.ctx, ast.Load)
                    and id(node) not in called
                ):
                    out.setdefault("&" + node.id, []).append(node.lineno)
            self._sites[entry] = {k: sorted(v) for k, v in out.items()}
        return self._sites[entry]


def _innermost(items: list[OutlineItem], line: int) -> OutlineItem | None:
    """The narrowest definition holding the line."""
    holding = [i for i in items if i.start <= line <= i.end]
    return min(holding, key=lambda i: i.end - i.start, default=None)


def _called_as(name: str, method: str) -> str:
    """The key of `sites` a definition is reached by: a function or class by its name; a
    method by its calls on any object (".step"); a constructor, or a method framework
    objects share the name of (`forward`, called as `model(x)`), where its class is made."""
    short = method.rsplit(".", 1)[-1]
    if not method or short in _COMMON or short.startswith("__"):
        return name
    return "." + short
