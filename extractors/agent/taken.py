"""Where an arm no switch selects takes a part of the method away ("w/o MSCA"; "ICH Only"
beside "ICH + CCH"): the steps citing that part, and the line adding it in with the others
(`loss = loss_instance + loss_cluster`), as the place to remove or bypass it."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from extractors.acronyms import acronyms, key_word, spelled_out
from extractors.repo import terms

from .arms import Arm, content_words, taken_parts
from .steps import Step

MAX_PLACES = 2  # steps citing the part: more is no one place to say


def taken_away(
    arm: Arm,
    siblings: list[Arm],
    steps: list[Step],
    text: str = "",
    lines: Callable[[str], list[str]] = lambda path: [],
    worded: list[Step] | None = None,
    define: Callable[[str], tuple[str, int, str] | None] = lambda name: None,
) -> str:
    """What the usage says after "write the command" of an arm taking parts away: where the
    steps cite them, at most `MAX_PLACES` places, and where a sum in the cited programs adds
    them in; "" when neither is found. `text` is the task's (what its acronyms stand for:
    "CCH" is "cluster-level contrastive head", so `loss_cluster` is its term); `lines` gives
    a file's lines; `worded` the steps as the requirements word them (what their lines do:
    "in ExplorationStage.run, calls self._start_prompt_set_evolution"), looked in when the
    steps' names say nothing of the part; `define` finds where a name is defined, so a
    call found there is cited at what it calls (`RepoSearch.definition_of`)."""
    parts = taken_parts(arm, siblings)
    if not parts:
        return ""
    longs = {a: long for s in siblings for a in acronyms(s.value) if (long := spelled_out(text, a))}
    wanted: list[set[str]] = []  # each part's words, as one step's action must hold them all
    keys: list[set[str]] = []  # each part's word as code names it
    for part in parts:
        words = set(content_words(part))
        # a prefix a hyphen sets apart ("co" of "Co-evolution") is no word code names it by
        words = {w for w in words if len(w) >= 3} or words
        if words:
            wanted.append(words)
        for a in acronyms(part):
            others = [long for b, long in longs.items() if b != a]
            if a in longs and (key := key_word(longs[a], others)):
                keys.append(set(terms(key)))
    # where the steps name it, else where what their lines do names it
    cited = _citing(arm, steps, [*wanted, *keys])
    places = [(f"{s.path}:{s.start}-{s.end}", False) for s in cited]
    if not cited:
        cited = _citing(arm, worded or [], [*wanted, *keys])
        places = [_called(s, [*wanted, *keys], define) for s in cited]
    summed = _summed_in(dict.fromkeys(s.path for s in steps if s.path.endswith(".py")), keys, lines)
    if not cited and not summed:
        return ""
    named = "" if taken_parts(arm, []) else f" ({' and '.join(parts)})"  # "ICH Only": say it
    where = " and ".join(place for place, _ in places)
    said = f"; what it takes away{named}"
    if cited:
        cite = "the steps cite its call" if any(call for _, call in places) else "the steps cite it"
        said += f" is implemented at {where} ({cite})"
    if summed:
        said += f"{' and' if cited else ''} is added in at {summed}"
    return said + ": remove or bypass it there"


def _citing(arm: Arm, steps: list[Step], wanted: list[set[str]]) -> list[Step]:
    """The places of the Python steps whose words hold all of one of `wanted`, less the
    comparison naming the arm; none when more than `MAX_PLACES`."""
    cited: list[Step] = []
    for s in steps:
        words = set(terms(s.action))
        if (
            s.path.endswith(".py")
            and any(w <= words for w in wanted)
            and arm.value.lower() not in s.action.lower()  # the comparison naming the arm
            and all((s.path, s.start, s.end) != (c.path, c.start, c.end) for c in cited)
        ):
            cited.append(s)
    return cited if len(cited) <= MAX_PLACES else []


def _called(
    step: Step, wanted: list[set[str]], define: Callable[[str], tuple[str, int, str] | None]
) -> tuple[str, bool]:
    """Where a step's wording says a call does the part (`self._start_prompt_set_evolution`
    for "evolution"): the called definition, "(its name, which the step's lines call)"; the
    step's own lines when no name of its wording holds the part's words, or none is defined;
    and whether it is a call's."""
    here = f"{step.path}:{step.start}-{step.end}"
    for name in re.findall(r"[A-Za-z_][\w.]*", step.action.partition(": ")[2]):
        owner, _, last = name.rpartition(".")
        if owner not in ("", "self"):
            continue  # a library's (`nn.Conv2d`), not the repository's own
        if any(w <= set(terms(last)) for w in wanted) and (found := define(last)):
            path, line, defined = found
            if defined == last:
                return f"{path}:{line} ({defined}, which {here} calls)", True
    return here, False


def _summed_in(
    paths: dict[str, None], keys: list[set[str]], lines: Callable[[str], list[str]]
) -> str:
    """The first line of `paths` assigning a sum of two terms or more one of which `keys`
    name (`loss = loss_instance + loss_cluster` for "cluster"), as "train.py:20 (`...`)"."""
    if not keys:
        return ""
    for path in paths:
        source = "\n".join(lines(path))
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Assign | ast.AugAssign) or not _is_sum(node.value):
                continue
            names = [_name(t) for t in _terms(node.value)]
            if len(names) >= 2 and any(k <= set(terms(n)) for n in names if n for k in keys):
                code = " ".join((ast.get_source_segment(source, node) or "").split())
                return (
                    f"{path}:{node.lineno} (`{code}`)"
                    if len(code) <= 80
                    else f"{path}:{node.lineno}"
                )
    return ""


def _is_sum(node: ast.expr) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)


def _terms(node: ast.expr) -> list[ast.expr]:
    """The terms of a sum, `a + b + c` flattened."""
    if _is_sum(node):
        assert isinstance(node, ast.BinOp)
        return [*_terms(node.left), *_terms(node.right)]
    return [node]


def _name(node: ast.expr) -> str:
    """The name a term is written with: `loss_cluster`, `self.cluster_loss`, `w * loss_cluster`'s
    `loss_cluster`, `criterion_cluster(c_i, c_j)`'s callee; "" for a number."""
    if isinstance(node, ast.BinOp):
        return _name(node.right) or _name(node.left)
    if isinstance(node, ast.Call):
        return _name(node.func)
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""
