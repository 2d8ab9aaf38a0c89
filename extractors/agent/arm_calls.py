"""Arms a program runs by calling each one's own definition.

A comparison is often written as one program whose main block calls a function per
compared method: torchopt's `examples/visualize.py` calls `draw_torchviz()` and then
`draw_torchopt()`, the two arms of "TorchViz against TorchOpt". No option, launch script or
switch selects those arms, yet running that program runs both. This module finds such a
program for the arms no other rule gave a run, and the call that runs each.

A definition is named by an arm when its name holds every word of the arm and at most one
word more (`draw_torchviz` for TorchViz; `sliding_window_inference` for "sliding window"),
and the arm says more than one plain word: two words, or a name written in mixed case.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from expcurate.records import EntryPoint
from extractors.repo import RepoPathError, RepoSearch
from extractors.repo.pysource import dotted_name

from .arm_options import fold
from .arms import Arm
from .config_runs import arm_words
from .inline import has_main, main_body

MIN_ARMS = 2  # a program calling one arm's function is that arm's demo, not the comparison


def definition_words(arm: Arm) -> list[str]:
    """The words a definition's name must hold to be this arm's; none when the arm is one
    plain word ("Database"), which names too many definitions to tell one."""
    # a name with its depth (`resnest269` of "ResNeSt-269") by its name
    named = (re.sub(r"(?<=[a-z])\d{2,}$", "", w) for w in arm_words(arm.value))
    words = [w for w in named if len(w) >= 3 and w.isalpha()]
    proper = re.search(r"[a-z][A-Z]", arm.value) is not None  # TorchViz, not Database
    return words if len(words) >= 2 or (words and proper) else []


def named_by(name: str, words: list[str]) -> bool:
    """A definition's name holds every one of the words and at most one word more
    (`sliding_window_inference` for sliding, window; not `get_max_batch_size` for batch,
    size)."""
    folded = fold(name)
    parts = [p.lower() for p in re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)]
    extra = [p for p in parts if not any(p in w for w in words)]
    return bool(words) and all(w in folded for w in words) and len(extra) <= 1


def arm_definition(search: RepoSearch, arm: Arm) -> tuple[str, int, str] | None:
    """The one definition of the repository an arm names: by its words and at most one
    more ("sliding window": SegVol's `sliding_window_inference`; "MogaNet-S":
    `moganet_small`), or, for a short capitalised name too short to look for by words, the
    first definition holding it where the repository implements it (OE: `oe_loss_fn`);
    (path, line, name), or None when none or several, or one plain word ("Database") is
    all the arm says."""
    words = definition_words(arm)
    if not words:
        short = arm.value.strip()
        if not re.fullmatch(r"[A-Z][A-Za-z0-9]{1,5}", short):
            return None
        return search.definition_of(short)
    try:
        hits = search.grep(rf"(?im)^\s*(?:def|class)\s+\w*{re.escape(words[0])}\w*", max_hits=20)
    except RepoPathError:
        return None
    found = {
        (path, line, m.group(1))
        for path, line, text in hits
        if path.endswith(".py")
        and (m := re.match(r"\s*(?:def|class)\s+(\w+)", text))
        and named_by(m.group(1), words)
    }
    return next(iter(found)) if len(found) == 1 else None


class ArmDefinitions:
    """`arm_definition` in one repository, each arm's value looked up once: the setup's
    step and its usage's hint ask for the same arms."""

    def __init__(self, search: RepoSearch) -> None:
        self.search = search
        self._found: dict[str, tuple[str, int, str] | None] = {}

    def __call__(self, arm: Arm) -> tuple[str, int, str] | None:
        if arm.value not in self._found:
            self._found[arm.value] = arm_definition(self.search, arm)
        return self._found[arm.value]


@dataclass
class ArmCall:
    """One arm and the call of the program's main block that runs it."""

    arm: Arm
    name: str  # the definition called, as written (`draw_torchviz`)
    line: int  # the call's line in the program


@dataclass
class CallingProgram:
    """A program whose main block runs several arms, each through its own call."""

    path: str
    calls: list[ArmCall]

    def note(self) -> str:
        """What the run's line says of how it runs the arms: "one run runs them all: its main
        block calls draw_torchviz (examples/visualize.py:77) for TorchViz and draw_torchopt
        (:78) for TorchOpt"."""
        said = [
            f"{c.name} ({self.path if i == 0 else ''}:{c.line}) for {c.arm.value}"
            for i, c in enumerate(self.calls)
        ]
        listed = ", ".join(said[:-1]) + f" and {said[-1]}"
        return f"one run runs them all: its main block calls {listed}"


class ArmCalls:
    """Finds, for a task's arms, the program of the repository that calls each one's own
    definition from its main block; each program's calls are read once."""

    def __init__(self, entries: list[EntryPoint], tree: Callable[[str], ast.Module | None]) -> None:
        self._programs = [
            e.path for e in entries if e.runnable and e.kind != "shell" and e.path.endswith(".py")
        ]
        self._tree = tree
        self._calls: dict[str, list[tuple[str, int]]] = {}

    def calls(self, program: str) -> list[tuple[str, int]]:
        """The names the program's main block calls, each with its first line, in order:
        `draw_torchviz` for `draw_torchviz()`, `run` for `runner.run(...)`."""
        if program not in self._calls:
            tree = self._tree(program)
            found: dict[str, int] = {}
            if tree is not None and has_main(tree):
                for stmt in main_body(tree):
                    for node in ast.walk(stmt):
                        if isinstance(node, ast.Call):
                            name = dotted_name(node.func).rsplit(".", 1)[-1]
                            if name and name not in found:
                                found[name] = node.lineno
            self._calls[program] = sorted(found.items(), key=lambda x: x[1])
        return self._calls[program]

    def program(self, arms: list[Arm]) -> CallingProgram | None:
        """The one program calling the definitions of the most arms, at least `MIN_ARMS`,
        one call per arm; None when none does, or two programs call as many."""
        wanted = [(a, w) for a in arms if (w := definition_words(a))]
        if len(wanted) < MIN_ARMS:
            return None
        best: list[CallingProgram] = []
        for path in self._programs:
            calls: list[ArmCall] = []
            used: set[str] = set()
            for arm, words in wanted:
                hits = [(n, line) for n, line in self.calls(path) if named_by(n, words)]
                if len(hits) == 1 and hits[0][0] not in used:
                    used.add(hits[0][0])
                    calls.append(ArmCall(arm, hits[0][0], hits[0][1]))
            if len(calls) < MIN_ARMS:
                continue
            if not best or len(calls) > len(best[0].calls):
                best = [CallingProgram(path, calls)]
            elif len(calls) == len(best[0].calls):
                best.append(CallingProgram(path, calls))
        return best[0] if len(best) == 1 else None
