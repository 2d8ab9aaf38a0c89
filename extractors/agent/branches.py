"""Where the code switches between a task's arms, and what each arm's branch hands over to.

An `if` comparing with the value of an arm some run runs (`if args.model == 'ResNet18':`), or
testing the option an arm sets (`if self.wo_conv:`), takes the arm's path; one testing a value
the task holds fixed (`if args.dataset == 'cifar100':`) takes the fixed value's. Of several
`if`s of one test, the one reaching the arm's own code (`arm_code.py`) is the step.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence

from expcurate.records import CliFlag, EntryPoint
from extractors.repo import RepoSearch

from .arm_code import ArmCode
from .arm_options import (
    names_arm,
)
from .arms import (
    Arm,
    about_data,
    numeric,
)
from .inline import statement_blocks
from .run import Run
from .steps import Step, StepTracer

MAX_BRANCHES = 12  # the branches of the arms read per file, of which three are steps
MAX_ARMS = 4  # the arms whose own code (what their branch hands over to) is cited
MAX_TAIL = 3  # the blocks an arm's path runs after a guard that leaves it, cited


class ArmBranches:
    """The branch steps of one repository's tasks, sharing the tracer's parsed files."""

    def __init__(
        self,
        tracer: StepTracer,
        search: RepoSearch,
        entries: dict[str, EntryPoint],
        code: ArmCode,
        programs: Callable[[str], list[str]],
    ) -> None:
        self.tracer = tracer
        self.search = search
        self.entries = entries
        self.code = code
        self.programs = programs  # the repository's programs a command runs (`RunPlanner`)

    def steps(
        self,
        arms: list[Arm],
        files: list[str | None],
        runs: list[Run],
        held: list[tuple[CliFlag, str]],
        arms_only: Sequence[str] = (),
    ) -> tuple[list[Step], list[Step], list[Step]]:
        """Where the code switches between the arms: an `if` comparing with the value of an
        arm some run runs, or testing the option an arm sets (`if self.wo_conv:`); then where
        it switches on the value of what the task holds fixed (`if args.dataset ==
        'cifar100':`). Also those of them that may be cut when steps are too many, and the
        definitions the arms' branches hand over to (`arm_code`), the arms' own code. Of the
        files `arms_only` (the other programs the task runs), only the arms' branches."""
        ran = [a for r in runs if not r.missing for a in r.arms]
        values = {a.value.lower(): a for a in arms if len(a.value) >= 2 and (a in ran or not runs)}
        fixed = {
            value.lower(): Arm(flag.name.lstrip("-").replace("-", "_"), value, frozenset())
            for flag, value in held
            if value.lower() not in values and not numeric(value)
        }
        switches: dict[str, Arm] = {}
        # the names an arm's option is read by (`--dataset`/`--ds`: dataset, ds), for the arms
        # a run selects by an option's value: a test of another option is not the arm's path
        # (`args.dataset == 'cifar100'` for the out-of-distribution set `--dout cifar`)
        via: dict[str, set[str]] = {}
        main = self.entries.get(files[0] or "") if files else None
        flags = main.flags if main else []
        for r in runs:
            for a in r.arms if r.switch else []:
                given = r.settings.split()
                if len(given) == 1:  # `--wo_conv`: testing the option tests the arm
                    switches.setdefault(r.switch.lstrip("-").replace("-", "_"), a)
                elif (
                    len(given) == 2
                    and not about_data(a.variable)
                    and any(about_data(x.variable) for x in r.arms)
                ):
                    continue  # the authors' bare run on a data set: the value is the data's
                else:  # `--algo trace`: the code tests the value
                    # the value after the arm's own option (a crossed run sets a data set too)
                    at = given.index(r.switch) + 1 if r.switch in given[:-1] else len(given) - 1
                    # the data set a crossed run adds is the value of the one other option
                    # (`--enc val --dataset 600`: the code tests '600' for Numeracy600K)
                    other = [
                        i + 1
                        for i, g in enumerate(given[:-1])
                        if g.startswith("-") and g != r.switch and not given[i + 1].startswith("-")
                    ]
                    if about_data(a.variable) and len(r.arms) > 1 and len(other) == 1:
                        at = other[0]
                    values.setdefault(given[at].strip("'\"").lower(), a)
                    if len(r.arms) > 1:
                        continue  # crossed with a data set: which option sets which is unsaid
                    flag = next((f for f in flags if r.switch in (f.name, *f.aliases)), None)
                    names = [r.switch, *((flag.name, *flag.aliases) if flag else ())]
                    via.setdefault(a.value, set()).update(
                        n.lstrip("-").replace("-", "_") for n in names
                    )
        for r in runs:  # `if args.use_zoom_in:` for the arm an in-code setting selects
            for setting, value in r.edits:
                if value and r.arms and not r.missing:
                    switches.setdefault(
                        re.split(r"[.\[]", setting.target)[-1].strip("'\"]"), r.arms[0]
                    )

        def named_by(attr: str) -> Arm | None:
            """The arm a run runs whose switch this is (`args.use_text_prompt` for "text")."""
            return next((a for a in ran if names_arm(attr, a)), None)

        tests: set[str] = set()
        out: list[Step] = []
        held_steps: list[Step] = []  # the branches of what the task holds fixed
        tails: list[Step] = []  # what an arm's path runs after a guard that leaves it
        arm_of: dict[int, str] = {}  # the arm whose path a branch step takes or leaves
        reaches: dict[int, list[Step]] = {}  # what an arm's branch calls, builds or points at
        free: set[str] = set()  # tests whose branches so far reach no code
        tested: dict[str, Step] = {}  # a test's branch reaching code
        naming: dict[str, Step] = {}  # a test's branch that only builds a name
        # the arms no option or setting turns on (Par Conv beside `--wo_conv`): the runs
        # of the script as it stands take the `else` of the tests that select the others
        # (of the program the others' runs set something of: Trace's bare run is no path
        # of DSPy's program)
        switched = {
            p for r in runs if not r.missing and (r.switch or r.edits) for p in self._python(r)
        }
        bare = [
            a
            for r in runs
            if not (r.missing or r.switch or r.edits) and self._python(r) & switched
            for a in r.arms
            if not about_data(a.variable)
        ]
        for path in files:
            tree = self.tracer.tree(path) if path else None
            if tree is None or path is None:
                continue
            nodes = list(ast.walk(tree))
            after = _following(nodes)
            took: dict[int, Arm] = {}  # the arm each `if` of this file takes the path of
            # `if` statements first, then conditional expressions (`text if args.use_text
            # else None`), which select an arm as well
            for node in [n for n in nodes if isinstance(n, ast.If)] + [
                n for n in nodes if isinstance(n, ast.IfExp)
            ]:
                hit: Arm | None = None
                named = [
                    values[c.value.lower()]
                    for c in ast.walk(node.test)
                    if isinstance(c, ast.Constant)
                    and isinstance(c.value, str)
                    and c.value.lower() in values
                ]
                if len({(a.variable, a.value) for a in named}) >= 2:
                    continue  # `x in {'Linear', 'MLP'}`: every arm takes it, it selects none
                for c in ast.walk(node.test):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str):
                        hit = hit or values.get(c.value.lower()) or fixed.get(c.value.lower())
                    elif isinstance(c, ast.Attribute):
                        hit = hit or switches.get(c.attr) or named_by(c.attr)
                    elif isinstance(c, ast.Name):
                        hit = hit or switches.get(c.id)
                if hit is None or (path in arms_only and hit in fixed.values()):
                    continue
                if hit.value in via and not via[hit.value] & {
                    c.attr if isinstance(c, ast.Attribute) else c.id
                    for c in ast.walk(node.test)
                    if isinstance(c, ast.Attribute | ast.Name)
                }:
                    continue  # another option's value of the same name
                test = ast.unparse(node.test)[:80]
                verb = "Leave" if _negated(node.test) else "Take"
                if verb == "Take" and hit not in fixed.values():
                    took[id(node)] = hit
                own = (
                    self.code.steps(path, node, hit.value)
                    if verb == "Take" and hit not in fixed.values()
                    else []
                )
                # a first `if` of a test that only names the run (`if args.copro: save_name
                # += "copro_"`) gives way to a later one doing the arm's work (`elif
                # args.copro: teleprompter = COPRO(...)`)
                replaced = None
                if test in naming and not _names_only(node):
                    replaced = naming.pop(test)
                    tests.discard(test)
                    free.discard(test)
                # a test once: a later `if` of it only when it reaches code the first did not
                if test in tests and (test not in free or not own):
                    continue
                if test not in tests and not own:
                    free.add(test)
                tests.add(test)
                last = node.body[-1] if isinstance(node, ast.If) else node
                end = min(last.end_lineno or node.lineno, node.lineno + 15)
                what = hit.variable.replace("_", " ")
                step = Step(
                    f"{verb} the {hit.value} path ({what}) where {test}", path, node.lineno, end
                )
                arm_of[id(step)] = hit.value
                kept = held_steps if hit in fixed.values() else out
                if replaced is not None and replaced in kept:  # in the named one's place
                    kept[kept.index(replaced)] = step
                else:
                    kept.append(step)
                if _names_only(node):
                    naming[test] = step
                if own:
                    reaches[id(step)] = own
                    free.discard(test)
                    tested[test] = step
                # `if not args.use_zoom_in: continue`: the arm's own code is what follows
                exits = isinstance(node, ast.If) and isinstance(
                    node.body[-1], ast.Continue | ast.Return | ast.Break
                )
                if verb == "Leave" and exits and hit not in fixed.values() and not tails:
                    lines = self.search.lines(path)
                    tails = [
                        Step(f"On the {hit.value} path: {action}", path, start, end)
                        for action, start, end in statement_blocks(
                            after.get(node, []), lines, MAX_TAIL
                        )
                    ]
                if len(out) >= MAX_BRANCHES:
                    break
            for step, arm in _else_paths(nodes, took, bare, path):
                arm_of[id(step)] = arm.value
                out.append(step)
        # the branches handing over to an arm's own code first (the model an `elif` builds
        # beside the hyperparameters another sets), then the first others the code has
        # (one branch per test: the one reaching code); their code, one arm at a time
        out = [st for st in out if tested.get(_test_of(st), st) is st]
        out.sort(key=lambda st: not reaches.get(id(st)))
        code: list[Step] = []
        armed: set[str] = set()
        for st in out:
            if reaches.get(id(st)) and arm_of[id(st)] not in armed and len(armed) < MAX_ARMS:
                armed.add(arm_of[id(st)])
                code += [
                    c
                    for c in reaches[id(st)]
                    if all((c.path, c.start) != (x.path, x.start) for x in code)
                ]
        # the arms' branches first; in the order the code runs them, file by file
        rank = {p: i for i, p in enumerate(files)}
        steps = sorted(
            (_per_arm(out, arm_of) + held_steps)[:3] + tails,
            key=lambda st: (rank.get(st.path, 0), st.start),
        )
        return steps, _extra_branches(steps, [arm_of.get(id(s)) for s in steps]), code

    def _python(self, run: Run) -> set[str]:
        """The Python programs a run runs, itself or through its launch script."""
        return {p for p in self.programs(run.command) if p.endswith(".py")}


def _names_only(node: ast.AST) -> bool:
    """An `if` whose body only adds to or sets a string (`if args.copro: save_name +=
    "copro_"`): it names the run's output, and does none of the arm's work."""
    if not isinstance(node, ast.If) or node.orelse:
        return False
    return all(
        isinstance(st, ast.Assign | ast.AugAssign)
        and (
            isinstance(st.value, ast.JoinedStr)
            or (isinstance(st.value, ast.Constant) and isinstance(st.value.value, str))
        )
        for st in node.body
    )


def _negated(test: ast.expr) -> bool:
    """`not args.wo_conv`, `'imagenet' not in args.dataset`, `args.model != 'x'`: the
    branch is where the value tested is not the arm's."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    return isinstance(test, ast.Compare) and all(
        isinstance(op, ast.NotIn | ast.NotEq | ast.IsNot) for op in test.ops
    )


def _else_paths(
    nodes: list[ast.AST], took: dict[int, Arm], bare: list[Arm], path: str
) -> list[tuple[Step, Arm]]:
    """The `else` of an `if`/`elif` chain each of whose tests takes an arm's path, taken by
    the arm of the same variable that no test names and whose run sets nothing (PDF's
    `if self.wo_conv:` ... `elif self.serial_conv:` ... `else:`, Par Conv's parallel
    convolution): that arm's own path, with its step."""
    elifs = {
        id(n.orelse[0])
        for n in nodes
        if isinstance(n, ast.If) and len(n.orelse) == 1 and isinstance(n.orelse[0], ast.If)
    }
    out: list[tuple[Step, Arm]] = []
    for node in nodes:
        if not isinstance(node, ast.If) or id(node) in elifs:
            continue
        chain = [node]
        while len(chain[-1].orelse) == 1 and isinstance(chain[-1].orelse[0], ast.If):
            chain.append(chain[-1].orelse[0])
        block = chain[-1].orelse
        taken = [took.get(id(n)) for n in chain]
        if not block or any(a is None for a in taken):
            continue
        variable = {a.variable for a in taken if a is not None}
        arm = next((a for a in bare if {a.variable} == variable and a not in taken), None)
        if arm is None:
            continue
        tests = [ast.unparse(n.test)[:60] for n in chain]
        where = (
            f"not {tests[0]}"
            if len(tests) == 1
            else f"neither {' nor '.join(tests)} holds"
            if len(tests) == 2
            else f"none of {', '.join(tests)} holds"
        )
        start = block[0].lineno
        end = min(block[-1].end_lineno or start, start + 15)
        what = arm.variable.replace("_", " ")
        out.append(
            (Step(f"Take the {arm.value} path ({what}) where {where}", path, start, end), arm)
        )
    return out


def _per_arm(steps: list[Step], arm_of: dict[int, str]) -> list[Step]:
    """The branch steps with each arm's first before any arm's second, its path taken
    before one left (`Take the w/o Conv path` over `Leave the w/o Conv path`), so that
    the three kept show three arms where the code has them."""
    first: list[Step] = []
    seen: set[str | None] = set()
    for st in steps:
        arm = arm_of.get(id(st))
        if arm in seen:
            continue
        seen.add(arm)
        own = [x for x in steps if arm_of.get(id(x)) == arm]
        first.append(next((x for x in own if x.action.startswith("Take")), st))
    return first + [st for st in steps if all(st is not x for x in first)]


def _extra_branches(branches: list[Step], paths: list[str | None]) -> list[Step]:
    """The branches past the first two that may be cut: not one that is the only branch
    taking its arm's path (`elif self.serial_conv:` beside two branches of `wo_conv`).
    `paths` are the branches' arms (None for a step of no one arm)."""
    first = set(paths[:2])
    return [
        b
        for b, p in zip(branches[2:], paths[2:], strict=True)
        if p is None or p in first or paths.count(p) > 1
    ]


def _test_of(step: Step) -> str:
    """The test a branch step quotes (`args.pattern == '2wl'`)."""
    return step.action.split(" where ", 1)[-1]


def _following(nodes: list[ast.AST]) -> dict[ast.AST, list[ast.stmt]]:
    """Each statement's later siblings in the block it sits in."""
    out: dict[ast.AST, list[ast.stmt]] = {}
    for node in nodes:
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                for i, stmt in enumerate(block):
                    out[stmt] = block[i + 1 :]
    return out
