"""The library call a test module makes of what it tests.

A library's repository (causal-learn, a toolkit installed with `pip install`) often has no
program that runs an experiment: its tests are the only code calling its methods, and a
run of a compared method is `python -m pytest tests/TestPC.py`. That checks the method on
the test's own stored data; it runs no experiment of the paper's. What a reader needs is
the call the test makes, to make it on the task's data: `cg = pc(data, 0.05, fisherz)`
(tests/TestPC.py:107), `pc` imported from `causallearn.search.ConstraintBased.PC`, and how
the test reads `data`.

The tested name is the one the test module is named after (`TestPC.py`: `pc`;
`TestANM.py`: the class `ANM`), imported from a module of the repository itself.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from extractors.repo import stem

from .arm_options import fold
from .arms import content_words
from .inline import said_code

QUOTED = 90  # characters of a quoted line
MAX_VALUES = 4  # the compared strings an arm's line names, at most


@dataclass
class LibraryCall:
    """The test's first call of the tested name, and what it needs around it."""

    path: str  # the test module
    name: str  # the tested function or class, as the test imports it
    module: str  # the repository module it is imported from
    call: tuple[int, str]  # the statement making the call, its line and its code
    data: tuple[int, str] | None = None  # where its first argument is made
    then: tuple[int, str] | None = None  # the method the test then calls on what it made

    def arm_note(self, param: str, values: list[tuple[str, int]], where: str) -> str:
        """ "call ges as tests/TestGES.py:58 does, with score_func='local_score_CV_general' or
        'local_score_marginal_general', the values ges tests it for (GES.py:80, :97)"; at
        most `MAX_VALUES` of them."""
        shown = values[:MAX_VALUES]
        said = f"{param}=" + " or ".join(f"'{v}'" for v, _ in shown)
        lines = f"{where}:{shown[0][1]}" + "".join(f", :{n}" for _, n in shown[1:])
        return (
            f"call {self.name} as {self.path}:{self.call[0]} does, with {said}, the "
            f"values {self.name} tests it for ({lines})"
        )

    def note(self) -> str:
        """ "this runs the test's own data: for the task's, call pc as tests/TestPC.py:107
        does, `cg = pc(data, 0.05, fisherz)`, imported from causallearn.search.ConstraintBased.PC
        (the test makes data at :101: `data = np.loadtxt(data_path, skiprows=1)`)"."""
        line, code = self.call
        said = f"`{code}`"
        if self.then is not None:
            said += f", then `{self.then[1]}` (:{self.then[0]})"
        made = (
            f" (the test makes its input at :{self.data[0]}: `{self.data[1]}`)" if self.data else ""
        )
        return (
            f"this runs the test's own data: for the task's, call {self.name} as "
            f"{self.path}:{line} does, {said}, imported from {self.module}{made}"
        )


def compared_values(tree: ast.Module, name: str) -> dict[str, list[tuple[str, int]]]:
    """Each parameter of the module's function `name` and the strings its body tests it
    for, with their lines, in order: ges's `score_func` and "local_score_CV_general"
    (`score_func == "local_score_CV_general"`, GES.py:80), "local_score_BDeu" (:189), ..."""
    fn = next(
        (
            n
            for n in tree.body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name
        ),
        None,
    )
    if fn is None:
        return {}
    params = {a.arg for a in [*fn.args.args, *fn.args.kwonlyargs]}
    out: dict[str, list[tuple[str, int]]] = {}
    for node in ast.walk(fn):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        if not isinstance(node.ops[0], ast.Eq | ast.In):
            continue
        for tested, against in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if not isinstance(tested, ast.Name) or tested.id not in params:
                continue
            items = (
                against.elts if isinstance(against, ast.Tuple | ast.List | ast.Set) else [against]
            )
            for item in items:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    found = out.setdefault(tested.id, [])
                    if all(v != item.value for v, _ in found):
                        found.append((item.value, node.lineno))
    for found in out.values():
        found.sort(key=lambda x: x[1])
    return out


def _value_words(value: str) -> set[str]:
    """A string's words, split at underscores, dashes and case (`local_score_CV_general`)."""
    parts = re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", value)
    return {stem(p.lower()) for p in parts if p}


def picked_values(
    arm: str, compared: dict[str, list[tuple[str, int]]]
) -> tuple[str, list[tuple[str, int]]] | None:
    """The parameter and the strings it is tested for that the arm's words pick out: a word
    of the arm ("Generalized score functions") naming some of one parameter's strings but
    not all ("general" of local_score_CV_general and local_score_marginal_general, where
    "score" names every one). None when no word does."""
    words = {stem(w) for w in content_words(arm) if len(w) >= 4}
    for param, values in compared.items():
        if len(values) < 2:
            continue
        split = [_value_words(v) for v, _ in values]
        picked: set[int] = set()
        for w in words:
            hits = {i for i, ws in enumerate(split) if w in ws}
            if hits and len(hits) < len(values):
                picked |= hits
        if picked:
            return param, [values[i] for i in sorted(picked)]
    return None


def named_after(path: str) -> str:
    """What a test module is named after: `TestPC.py` PC, `test_custom_ci.py` custom_ci."""
    stem = posixpath.basename(path).rsplit(".", 1)[0]
    return re.sub(r"^(?:test_?|Test)|_test$", "", stem)


def library_call(
    path: str, tree: ast.Module, known_module: Callable[[str], bool]
) -> LibraryCall | None:
    """The call a test module makes of the name it is named after, imported from one of
    the repository's modules (`known_module` says which dotted names are); None when the
    test imports no one such name, or never calls it."""
    tested = fold(named_after(path))
    if len(tested) < 2:
        return None
    imported: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and known_module(node.module):
            for alias in node.names:
                if alias.name != "*":
                    imported[alias.asname or alias.name] = node.module
    names = [n for n in imported if fold(n) == tested]
    if len(names) != 1:
        return None
    name = names[0]
    calls: list[ast.stmt] = sorted(
        (s for s in ast.walk(tree) if isinstance(s, ast.Assign | ast.Expr | ast.AnnAssign)),
        key=lambda s: s.lineno,
    )
    made = [c for c in (_found(tree, path, name, imported[name], s, calls) for s in calls) if c]
    # the first call on data the test reads from a file, else its first call
    return next((c for c in made if c.data and _READ.search(c.data[1])), made[0] if made else None)


_READ = re.compile(r"load|read|open", re.I)


def _found(
    tree: ast.Module,
    path: str,
    name: str,
    module: str,
    first: ast.stmt,
    calls: list[ast.stmt],
) -> LibraryCall | None:
    """The call of `name` the statement `first` makes, with the method the test then calls
    on what it made and where its first argument is made; None when it makes none."""
    if not _calls(first, name):
        return None
    found = LibraryCall(path, name, module, (first.lineno, said_code(first, QUOTED)))
    scope = _enclosing(tree, first.lineno)
    made = _assigned(first)
    if made and name[:1].isupper():  # a class: the method the test calls on its object
        then = next((s for s in calls if s.lineno > first.lineno and _calls_method(s, made)), None)
        if then is not None:
            found.then = (then.lineno, said_code(then, QUOTED))
            scope = _enclosing(tree, then.lineno)
    call = next(c for c in ast.walk(first) if isinstance(c, ast.Call) and _named(c, name))
    arg = call.args[0] if call.args else None
    if found.then is not None:  # the data goes to the method
        then_stmt = next(s for s in calls if s.lineno == found.then[0])
        value = getattr(then_stmt, "value", None)
        arg = value.args[0] if isinstance(value, ast.Call) and value.args else arg
    if isinstance(arg, ast.Name) and scope is not None:
        made_at = [
            s
            for s in ast.walk(scope)
            if isinstance(s, ast.Assign)
            and s.lineno < (found.then or found.call)[0]
            and any(isinstance(t, ast.Name) and t.id == arg.id for t in s.targets)
        ]
        if made_at:
            last = max(made_at, key=lambda s: s.lineno)
            found.data = (last.lineno, said_code(last, QUOTED))
    return found


def _named(call: ast.Call, name: str) -> bool:
    return isinstance(call.func, ast.Name) and call.func.id == name


def _calls(stmt: ast.stmt, name: str) -> bool:
    value = getattr(stmt, "value", None)
    return isinstance(value, ast.Call) and _named(value, name)


def _assigned(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
        return target.id if isinstance(target, ast.Name) else ""
    return ""


def _calls_method(stmt: ast.stmt, obj: str) -> bool:
    value = getattr(stmt, "value", None)
    if not isinstance(value, ast.Call) or not isinstance(value.func, ast.Attribute):
        return False
    owner = value.func.value  # `anm.cause_or_effect`, or `self.anm.cause_or_effect` for an
    # object a test class makes once
    if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name):
        return owner.value.id == "self" and owner.attr == obj
    return isinstance(owner, ast.Name) and owner.id == obj


def _enclosing(tree: ast.Module, line: int) -> ast.AST | None:
    """The innermost function holding the line; the module when none does."""
    best: ast.AST | None = tree
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end and (
                best is tree or node.lineno >= getattr(best, "lineno", 0)
            ):
                best = node
    return best
