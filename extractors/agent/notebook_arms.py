"""The compared arms of a notebook the task runs as it is.

A notebook has no command-line options: its arms are what its code passes. Trace's
Meta-World notebook calls `optimize_policy(env_name="llf-metaworld-pick-place-v2", ...,
memory_size=5)` and makes `OptoPrime(...)` inside it; the task compares "Trace (OptoPrime
with memory, memory_size=5)", "Trace NoMem (..., memory_size=0)" and OPRO on Reach,
Pick-place and Push. Each arm is then one of:

- a setting the arm states (`memory_size=0`) that the notebook passes with another value:
  set it there;
- a value a string the notebook passes names ("Pick-place" in `env_name=
  "llf-metaworld-pick-place-v2"`): the notebook runs it as it stands, and the arm's siblings
  of that variable take their own value there;
- a class of the repository named by the arm (`class OPRO(OptoPrime)`) whose base the
  notebook makes: make it in the base's place.

The lines cite the notebook's file lines, as its steps do.
"""

from __future__ import annotations

import json
import posixpath
import re

from extractors.repo import RepoPathError, RepoSearch
from extractors.repo.files import notebook_lines

from .arm_options import fold
from .arms import Arm, in_prose
from .steps import Step

# a setting an arm's explanation states: "memory_size=0", "lr = 0.1"
_STATED = re.compile(r"\b([A-Za-z_]\w*)\s*=\s*([\w.+-]+)")
# a keyword a notebook line passes, or a default it declares, with a literal value
_PASSED = r'(?<![\w.])({name})\s*=\s*([\w.+-]+|\\?"[^"\\]*\\?")'


def cell_lines(search: RepoSearch, path: str) -> list[tuple[int, str]]:
    """A notebook's cell source lines, each with its line in the .ipynb file (its outputs
    are no code)."""
    try:
        return notebook_lines(search.text(path))
    except (OSError, RepoPathError):
        return []


def code_lines(search: RepoSearch, path: str) -> list[tuple[int, str]]:
    """A notebook's code cells' source lines, each with its line in the .ipynb file: not its
    Markdown's, which may show code it never runs ("CAMUV.execute(X, alpha, ...) is the
    method"). All its cells' lines when the file is not the JSON its lines were read from."""
    lines = cell_lines(search, path)
    try:
        cells = json.loads(search.text(path)).get("cells", [])
    except (OSError, RepoPathError, ValueError, AttributeError):
        return lines
    out: list[tuple[int, str]] = []
    k = 0
    for cell in cells if isinstance(cells, list) else []:
        source = cell.get("source", []) if isinstance(cell, dict) else []
        n = len(source) if isinstance(source, list) else len(str(source).splitlines())
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            out += lines[k : k + n]
        k += n
    return out if k == len(lines) else lines


class NotebookArms:
    """Reads one notebook's code lines and the repository's class definitions."""

    def __init__(self, path: str, search: RepoSearch) -> None:
        self.path = path
        self.code = cell_lines(search, path)  # (line in the file, source line)
        self.search = search
        # the lines that set arms: what each does, for which arms
        self._places: dict[int, dict[str, list[str]]] = {}

    def lines(self, arms: list[Arm]) -> tuple[list[str], list[Arm]]:
        """A line for each arm the notebook's code can select, in the arms' order, and the
        arms it cannot."""
        said: dict[int, str] = {}
        for variable in dict.fromkeys(a.variable for a in arms):
            group = [a for a in arms if a.variable == variable]
            said.update(self._named_values(group))
        for arm in arms:
            if id(arm) not in said and (line := self._stated(arm) or self._subclass(arm)):
                said[id(arm)] = line
        return [said[id(a)] for a in arms if id(a) in said], [a for a in arms if id(a) not in said]

    def steps(self, arms: list[Arm]) -> list[Step]:
        """The notebook's lines that set the arms, one step each, in the notebook's order:
        "Set memory_size for Trace and Trace NoMem", "Make OPRO in place of OptoPrime for
        OPRO"."""
        self._places = {}
        self.lines(arms)
        return [
            Step(
                "; ".join(
                    f"{what} for {in_prose(list(dict.fromkeys(who)))}" for what, who in done.items()
                ),
                self.path,
                line,
                line,
            )
            for line, done in sorted(self._places.items())
        ]

    def _place(self, line: int, what: str, arms: list[str]) -> None:
        self._places.setdefault(line, {}).setdefault(what, []).extend(arms)

    def _passed(self, name: str) -> list[tuple[int, str]]:
        """The literal values the notebook gives `name`, by line (1-based)."""
        rx = re.compile(_PASSED.format(name=re.escape(name)))
        return [
            (i, m.group(2).replace('\\"', '"')) for i, code in self.code for m in rx.finditer(code)
        ]

    def _stated(self, arm: Arm) -> str:
        """The arm states `name=value` and the notebook passes `name` a literal: the last
        place it does (the call, after the default its function declares)."""
        for name, value in _STATED.findall(arm.said or arm.value):
            given = self._passed(name)
            if not given:
                continue
            line, now = given[-1]
            where = f"{self.path}:{line}"
            self._place(line, f"Set {name}", [arm.value])
            if now == value:
                return f"Run {arm.value}: the notebook passes {name}={now} ({where}) as it stands."
            return (
                f"Run {arm.value}: set {name}={value} where the notebook passes {name}={now} "
                f"({where}), then run it."
            )
        return ""

    def _named_values(self, group: list[Arm]) -> dict[int, str]:
        """Arms of one variable one of which a string the notebook passes names
        (`env_name="llf-metaworld-pick-place-v2"` for Pick-place): that one as it stands,
        each sibling by its own value in that place."""
        for i, code in self.code:
            for m in re.finditer(r'(?<![\w.])(\w+)\s*=\s*"([^"]+)"', code):
                held = fold(m.group(2))
                named = [a for a in group if len(fold(a.value)) >= 4 and fold(a.value) in held]
                if len(named) != 1 or len(group) < 2:
                    continue
                where = f"{self.path}:{i}"
                passed = f'{m.group(1)}="{m.group(2)}"'
                self._place(i, f"Set {m.group(1)}", [a.value for a in group])
                out = {
                    id(named[0]): f"Run {named[0].value}: the notebook passes {passed} ({where}) "
                    "as it stands."
                }
                allowed = self._allowed(m.group(1))
                for arm in group:
                    if arm is not named[0]:
                        out[id(arm)] = self._sibling(arm, m.group(1), m.group(2), where, allowed)
                return out
        return {}

    def _sibling(
        self,
        arm: Arm,
        name: str,
        passed: str,
        where: str,
        allowed: tuple[int, list[str]] | None,
    ) -> str:
        """The line of a sibling of the arm a passed string names: the string the notebook
        writes for it elsewhere (`"llf-metaworld-reach-v2"` in a list of names), else its
        own to write; and a list an `assert` holds the name to that leaves it out."""
        own = fold(arm.value)
        written = [
            (i, x)
            for i, code in self.code
            for x in re.findall(r'"([^"]+)"', code)
            if own in fold(x) and fold(x)[:4] == fold(passed)[:4]
        ]
        said = f'{name}="{passed}" ({where})'
        if written:
            line, value = written[0]
            text = (
                f"Run {arm.value}: where the notebook passes {said}, set "
                f'{name}="{value}", as it writes it at :{line}'
            )
        else:
            text = f"Run {arm.value}: set {name} to {arm.value}'s where the notebook passes {said}"
        if allowed is not None and not any(own in fold(x) for x in allowed[1]):
            text += (
                f", and add it to the names its `assert {name} in [...]` allows "
                f"(:{allowed[0]}: {', '.join(allowed[1])})"
            )
        return text + ", then run it."

    def _allowed(self, name: str) -> tuple[int, list[str]] | None:
        """The list of values an `assert name in [...]` of the notebook holds, and its line."""
        rx = re.compile(rf"assert\s+{re.escape(name)}\s+in\s+[\[(]([^\])]*)[\])]")
        for i, code in self.code:
            if m := rx.search(code):
                return i, re.findall(r'"([^"]+)"', m.group(1))
        return None

    def _classes(self, name: str) -> list[tuple[str, int, str]]:
        """The `class <name>` lines of the repository's Python files."""
        try:
            hits = self.search.grep(rf"(?m)^\s*class\s+{re.escape(name)}\b", max_hits=5)
        except RepoPathError:
            return []
        return [h for h in hits if h[0].endswith(".py")]

    def _subclass(self, arm: Arm) -> str:
        """A class of the repository the arm names (`class OPRO(OptoPrime)`) whose base the
        notebook makes: made in its place."""
        name = arm.value.strip()
        if not re.fullmatch(r"[A-Za-z][\w-]{2,}", name):
            return ""
        for path, line, text in self._classes(name):
            m = re.match(r"\s*class\s+(\w+)\s*\(\s*(\w+)", text)
            if m is None or fold(m.group(1)) != fold(name):
                continue
            base = m.group(2)
            made = next((i for i, code in self.code if re.search(rf"\b{base}\(", code)), 0)
            if made:
                self._place(made, f"Make {m.group(1)} in place of {base}", [arm.value])
                return (
                    f"Run {arm.value}: make {m.group(1)} ({path}:{line}), a subclass of {base}, "
                    f"where the notebook makes {base} ({self.path}:{made}), then run it."
                )
        return ""


_INSTALLED_FROM = {"src", "lib", "python"}


def unresolved_import(path: str, search: RepoSearch, known: set[str]) -> tuple[str, str]:
    """A repository module a notebook imports by a path that resolves neither from its
    folder nor from the repository's root, but from one folder of it (causal-learn's
    `tests/Example_CAMUV.ipynb` importing `search.FCMBased.lingam.CAMUV`, which is
    `causallearn/search/FCMBased/lingam/CAMUV.py`): that folder, and the note saying so;
    ("", "") when every import resolves, or names no file of the repository."""
    home = posixpath.dirname(path)
    for i, line in cell_lines(search, path):
        code = line.strip()
        m = re.match(r"(?:from\s+([\w.]+)\s+import|import\s+([\w.]+))", code)
        if m is None or (m[1] or m[2]).startswith("."):
            continue
        rel = (m[1] or m[2]).replace(".", "/")
        forms = (f"{rel}.py", f"{rel}/__init__.py")
        if any(posixpath.join(root, f) in known for root in ("", home) for f in forms):
            continue
        roots = sorted(
            {k[: -len(f)].rstrip("/") for k in known for f in forms if k.endswith("/" + f)},
            key=len,
        )
        # a package under src/ is the one its installation makes importable
        if roots and roots[0] and roots[0] not in _INSTALLED_FROM:
            note = (
                f"its import `{code}` ({path}:{i}) resolves only from {roots[0]}/: the command puts "
                f"{roots[0]} on PYTHONPATH"
            )
            return roots[0], note
    return "", ""


def unbound_module(path: str, search: RepoSearch, known: set[str]) -> str:
    """A name a notebook uses as a module (`CAMUV.execute(data, 0.01, 3)`) that nothing in it
    binds, where a star import reads the module of that name (`from
    search.FCMBased.lingam.CAMUV import *`), which binds what the module defines, not the
    module: as written the cell stops with a NameError. The note saying so and how to mend
    it; "" when there is none."""
    lines = code_lines(search, path)
    stars: dict[str, tuple[int, str]] = {}  # a module's last name, its line and dotted path
    bound: set[str] = set()
    for i, line in lines:
        code = line.split("#", 1)[0]
        if m := re.match(r"\s*from\s+([\w.]+)\s+import\s+\*", code):
            stars.setdefault(m[1].rsplit(".", 1)[-1], (i, m[1]))
            continue
        if m := re.match(r"\s*import\s+(.+)", code):
            for part in m[1].split(","):
                words = part.split()
                bound.add(words[-1].split(".")[0] if words else "")
        if m := re.match(r"\s*from\s+[\w.]+\s+import\s+(.+)", code):
            bound |= {p.split()[-1] for p in m[1].strip("() ").split(",") if p.strip()}
        bound |= set(re.findall(r"^\s*(?:def|class)\s+(\w+)", code))
        bound |= set(re.findall(r"(\w+)\s*(?:,\s*\w+\s*)*=(?!=)", code))
        bound |= set(re.findall(r"\bfor\s+(\w+)\s+in\b", code))
    for i, line in lines:
        for name, attr in re.findall(r"(?<![\w.])(\w+)\.(\w+)\s*\(", line):
            if name not in stars or name in bound:
                continue
            at, dotted = stars[name]
            rel = dotted.replace(".", "/") + ".py"
            module = next((k for k in sorted(known) if k == rel or k.endswith("/" + rel)), None)
            if module is None:
                continue
            try:
                text = search.text(module)
            except (OSError, RepoPathError):
                continue
            if not re.search(rf"(?m)^(?:def|class)\s+{re.escape(attr)}\b", text):
                continue
            parent = dotted.rsplit(".", 1)[0]
            return (
                f"`{name}.{attr}` ({path}:{i}) names the module its star import `from {dotted} "
                f"import *` (:{at}) reads from, which that import does not bind: call `{attr}` "
                f"itself, or import the module (`from {parent} import {name}`)"
            )
    return ""
