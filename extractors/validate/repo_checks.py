"""Checks against the repository at the pinned commit: references, paths, leaks.

They read a `RepoTree`, so the same checks run on the pipeline's checkout and on an imported
benchmark's commit read straight from git.
"""

from __future__ import annotations

import re
import weakref
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal, NamedTuple

from expcurate.records import STEP_RE, Flag, Setup, Severity, TaskFields
from expcurate.records.refs import confined, references, repo_path
from extractors.numbers import find_numbers, is_trivial
from extractors.validate.catalog import flag
from extractors.validate.tree import RepoTree

# Where answers leak: docs, notebooks, logs, result tables, configs.
DOC_LIKE = frozenset(
    {
        ".md", ".rst", ".txt", ".log", ".out", ".csv", ".tsv", ".json", ".jsonl", ".yaml", ".yml",
        ".toml", ".cfg", ".ini", ".ipynb", ".tex", ".html", ".xml",
    }
)  # fmt: skip
LEAK_MAX_BYTES = 2_000_000
_CODE_LINE_MIN = 25  # shorter lines ("return x", "})") are shared by unrelated files
_COPY_MIN_LINES = 5
_COPY_SHARE = 0.5
_COPY_SPREAD = 3  # a line in more files than this is boilerplate, not the masked file's own


def check_requirements_form(fields: TaskFields) -> list[Flag]:
    bad = [i for i, step in enumerate(fields.requirements, 1) if not STEP_RE.match(step)]
    if not bad:
        return []
    which = ", ".join(str(i) for i in bad[:10]) + (" …" if len(bad) > 10 else "")
    return [
        flag(
            "requirement_form",
            Severity.error,
            f"requirement(s) {which} do not read 'Step k: …' or 'Final Step: …'",
        )
    ]


def _steps(numbers: list[int], verb: str) -> str:
    """'requirement 3 cites' / 'requirements 1, 2 cite'."""
    listed = ", ".join(str(n) for n in numbers)
    if len(numbers) == 1:
        return f"requirement {listed} {verb}s"
    return f"requirements {listed} {verb}"


class RefProblem(NamedTuple):
    """One thing wrong with a requirement's references, for each caller to word its own way."""

    step: int  # 1-based
    kind: Literal["not_a_step", "no_reference", "leaves", "absent", "outside", "unread"]
    path: str = ""
    first: int = 0
    last: int = 0
    lines: int = 0  # the cited file's length, for "outside"


def reference_problems(
    requirements: Sequence[str], tree: RepoTree | None, *, final_needs_reference: bool = False
) -> list[RefProblem]:
    """The one check of requirement steps and their `(path:first-last)` references.

    A path that leaves the repository is refused on its text alone, so this holds without a
    checkout (`tree=None`, an imported task); file existence and line ranges need the tree.
    """
    out: list[RefProblem] = []
    lines: dict[str, int | None] = {}
    for i, step in enumerate(requirements, 1):
        if not STEP_RE.match(step):
            out.append(RefProblem(i, "not_a_step"))
        refs = references(step)
        if not refs and (final_needs_reference or not step.startswith("Final Step")):
            out.append(RefProblem(i, "no_reference"))
        for path, first, last in refs:
            rel = confined(path)
            if rel is None:
                out.append(RefProblem(i, "leaves", path))
                continue
            if tree is None:
                continue
            if not tree.is_file(rel):
                out.append(RefProblem(i, "absent", rel))
                continue
            if rel not in lines:
                lines[rel] = tree.line_count(rel)
            n = lines[rel]
            if n is None:
                out.append(RefProblem(i, "unread", rel))
            elif not (1 <= first <= last <= n):
                out.append(RefProblem(i, "outside", rel, first, last, n))
    return out


def check_requirements(fields: TaskFields, tree: RepoTree | None) -> list[Flag]:
    """Each cited file at the commit and each cited range inside it (one flag per file)."""
    unreferenced: list[int] = []
    leaves: dict[str, list[int]] = {}
    absent: dict[str, list[int]] = {}
    outside: dict[str, list[tuple[int, int, int]]] = {}
    unread: dict[str, list[int]] = {}
    lines: dict[str, int] = {}
    formed = {i for i, step in enumerate(fields.requirements, 1) if STEP_RE.match(step)}
    for p in reference_problems(fields.requirements, tree):
        if p.step not in formed:
            continue  # reported once by check_requirements_form
        if p.kind == "no_reference":
            unreferenced.append(p.step)
        elif p.kind == "leaves":
            leaves.setdefault(p.path, []).append(p.step)
        elif p.kind == "absent":
            absent.setdefault(p.path, []).append(p.step)
        elif p.kind == "unread":
            unread.setdefault(p.path, []).append(p.step)
        elif p.kind == "outside":
            outside.setdefault(p.path, []).append((p.step, p.first, p.last))
            lines[p.path] = p.lines
    flags = [
        flag(
            "requirement_reference",
            Severity.error,
            f"{_steps(sorted(set(steps)), 'cite')} {path}, which leaves the repository",
            [path],
        )
        for path, steps in leaves.items()
    ]
    for rel, steps in absent.items():
        flags.append(
            flag(
                "requirement_reference",
                Severity.error,
                f"{_steps(sorted(set(steps)), 'cite')} {rel}, which is not in the repository",
                [rel],
            )
        )
    for rel, bad in outside.items():
        ranges = ", ".join(f"{a}-{b} (step {i})" for i, a, b in bad)
        flags.append(
            flag(
                "requirement_reference",
                Severity.error,
                f"{rel} has {lines[rel]} lines; requirements cite lines {ranges}",
                [rel],
            )
        )
    for rel, steps in unread.items():
        flags.append(
            flag(
                "requirement_reference",
                Severity.info,
                f"lines of {rel} not checked (its content is not in the clone): "
                f"{_steps(steps, 'cite')} it",
                [rel],
            )
        )
    if unreferenced:
        flags.append(
            flag(
                "requirement_reference",
                Severity.warning,
                f"{_steps(unreferenced, 'cite')} no (path:a-b) lines",
            )
        )
    return flags


def check_same_steps(fields: TaskFields, siblings: Sequence[TaskFields]) -> list[Flag]:
    """The steps cite exactly the code another task's of the paper cite, in the same order:
    either the experiments differ and the steps do not show it, or it is one task twice."""
    mine = _cited(fields.requirements)
    if not mine:
        return []
    for position, other in enumerate(siblings):
        if other is fields or (other.key and other.key == fields.key):
            continue
        if _cited(other.requirements) == mine:
            name = other.key or f"#{position}"
            return [
                flag(
                    "same_steps",
                    Severity.warning,
                    f"the setup's steps cite exactly the code task {name!r}'s steps cite "
                    f"({len(mine)} references, in the same order)",
                )
            ]
    return []


def _cited(requirements: Sequence[str]) -> tuple[tuple[str, int, int], ...]:
    return tuple(
        (repo_path(r.path), r.first, r.last) for step in requirements for r in references(step)
    )


def check_setup_found(fields: TaskFields) -> list[Flag]:
    if fields.source and not fields.no_answer.strip() and not fields.requirements:
        return [
            flag(
                "setup_found",
                Severity.error,
                "source files but no requirement steps: the setup says what to run, not how it "
                "is built",
            )
        ]
    if fields.source or fields.no_answer.strip():
        return []
    return [flag("setup_found", Severity.error, "no source files and no no_answer reason")]


def check_paths(fields: TaskFields, tree: RepoTree | None) -> list[Flag]:
    """Listed files exist at the commit; without a checkout, at least they stay inside it."""
    flags = []
    for name in ("source", "masked_source"):
        paths = getattr(fields, name)
        leaving = [p for p in paths if confined(repo_path(p)) is None]
        if leaving:
            flags.append(
                flag(
                    f"{name}_exists",
                    Severity.error,
                    f"{name} names paths that leave the repository: {', '.join(leaving)}",
                    leaving,
                )
            )
        if tree is None:
            continue
        missing = [p for p in paths if p not in leaving and not tree.exists(repo_path(p))]
        if missing:
            flags.append(
                flag(
                    f"{name}_exists",
                    Severity.error,
                    f"{name} names files not in the repository: {', '.join(missing)}",
                    missing,
                )
            )
    return flags


# What a published instruction must never tell a harness or an agent to do: delete, escalate,
# fetch and run code from elsewhere, write outside the workspace, or reach for secrets.
UNSAFE = re.compile(
    r"(?<![\w-])(?:rm\s+(?:-\w+\s+)*(?:/|~|\*|\.\.)|sudo|su\s+-|mkfs\S*|dd\s+if=|shutdown|reboot|"
    r"chmod\s+(?:-R\s+)?[0-7]*7[0-7]*\s+/|chown\s+-R\s+\S+\s+/|:\(\)\s*\{|"
    r"(?:curl|wget)\b[^\n|]*\|\s*(?:ba|z)?sh|(?:nc|ncat|netcat)\s+-|eval\s+\$|"
    r"base64\s+(?:-d|--decode)[^\n|]*\|\s*(?:ba)?sh)(?![\w-])|"
    r">\s*/(?:etc|dev/sd|dev/nvme|boot|usr|bin|sbin|lib|root)\b|"
    r"/etc/(?:passwd|shadow|sudoers)|~/\.ssh|\.ssh/id_|\bexfiltrat\w*|"
    r"\b(?:AWS_SECRET_ACCESS_KEY|OPENAI_API_KEY|GITHUB_TOKEN)\b",
    re.I,
)


def check_unsafe_commands(fields: TaskFields) -> list[Flag]:
    """Usage or agent instructions that delete, escalate, run downloaded code, write to
    system paths or reach for secrets (a model's text is published as it is otherwise)."""
    flags = []
    for name in ("usage_instructions", "agent_instructions"):
        found = UNSAFE.search(getattr(fields, name) or "")
        if found:
            flags.append(
                flag(
                    "unsafe_command",
                    Severity.error,
                    f"{name} asks for something no experiment needs: {found.group(0)!r}",
                )
            )
    return flags


def check_model_fallback(setup: Setup, model: str) -> list[Flag]:
    """A setup the heuristic wrote in place of the model a curator asked for."""
    if model == "heuristic" or not any(call.tool == "fallback" for call in setup.trace):
        return []
    return [
        flag(
            "model_fallback",
            Severity.error,
            f"{model} did not write this setup; the heuristic policy's stands in",
        )
    ]


# How the setup agent's review notes a problem it kept (extractors/agent/llm_checks.py).
KEPT_DESPITE = "kept despite: "


def check_command_flags(setup: Setup) -> list[Flag]:
    """Commands a model's setup kept though the script's parser does not define a flag they
    pass (the agent's review notes them): the reviewer checks them before approving."""
    kept = [
        line.removeprefix(KEPT_DESPITE)
        for call in setup.trace
        if call.tool == "validate"
        for line in call.result.splitlines()
        if line.startswith(f"{KEPT_DESPITE}command ")
    ]
    if not kept:
        return []
    return [flag("command_flags", Severity.warning, "; ".join(k[:200] for k in kept[:5]))]


def check_instructions(fields: TaskFields) -> list[Flag]:
    text = fields.agent_instructions
    named = []
    for p in fields.masked_source:
        rel = repo_path(p)
        name = PurePosixPath(rel).name
        pattern = rf"(?<![\w-]){re.escape(name)}(?![\w-])"
        if rel in text or (name and re.search(pattern, text)):
            named.append(p)
    if not named:
        return []
    return [
        flag(
            "instructions_leak_masked",
            Severity.error,
            f"agent_instructions name masked files: {', '.join(named)}",
            named,
        )
    ]


# ------------------------------------------------------------------ leakage


@dataclass
class _LeakIndex:
    """What each readable file of a tree holds, computed once per tree."""

    numbers: dict[str, frozenset[str]] = field(default_factory=dict)  # doc-like files only
    lines: dict[str, frozenset[str]] = field(default_factory=dict)  # every text file
    # How many files hold each line: boilerplate shared by many sibling scripts is no copy.
    spread: Counter[str] = field(default_factory=Counter)


_INDEXES: weakref.WeakKeyDictionary[object, _LeakIndex] = weakref.WeakKeyDictionary()


def _code_lines(text: str) -> frozenset[str]:
    out = set()
    for raw in text.splitlines():
        line = raw.strip()
        if len(line) < _CODE_LINE_MIN or line.startswith(("#", "//", "import ", "from ")):
            continue
        out.add(line)
    return frozenset(out)


def _index(tree: RepoTree) -> _LeakIndex:
    found = _INDEXES.get(tree)
    if found is not None:
        return found
    index = _LeakIndex()
    for rel in tree.files():
        if not 0 <= tree.size(rel) <= LEAK_MAX_BYTES:
            continue
        text = tree.read_text(rel)
        if "\x00" in text[:8192]:
            continue  # binary
        suffix = PurePosixPath(rel).suffix.lower()
        if suffix in DOC_LIKE or not suffix:
            index.numbers[rel] = frozenset(find_numbers(text))
        index.lines[rel] = _code_lines(text)
        index.spread.update(index.lines[rel])
    _INDEXES[tree] = index
    return index


def _specific(token: str) -> bool:
    """A result-like value ('81.2', '0.347'): round ones ('1.0', '0.5') appear everywhere."""
    digits = token.lstrip("-").replace(".", "").lstrip("0").rstrip("0")
    return "." in token and not is_trivial(token) and len(digits) >= 3


def _listed(paths: list[str], limit: int = 8) -> str:
    more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
    return ", ".join(paths[:limit]) + more


def check_leakage(fields: TaskFields, tree: RepoTree) -> list[Flag]:
    """Files the agent will see that hold the expected numbers or a copy of masked code."""
    hidden = {repo_path(p) for p in [*fields.masked_source, *fields.mask_also]}
    index = _index(tree)
    flags = []
    numbers = {n for n in find_numbers(fields.expected_outcome) if _specific(n)}
    if numbers:
        need = max(1, min(2, len(numbers)))
        leaks = sorted(
            rel
            for rel, found in index.numbers.items()
            if rel not in hidden and len(found & numbers) >= need
        )
        if leaks:
            flags.append(
                flag(
                    "leakage",
                    Severity.warning,
                    f"unmasked files contain the expected numbers: {_listed(leaks)}",
                    leaks,
                )
            )
    copies: set[str] = set()
    for masked in sorted(hidden):
        own = frozenset(
            x for x in index.lines.get(masked, frozenset()) if index.spread[x] <= _COPY_SPREAD
        )
        if len(own) < _COPY_MIN_LINES:
            continue
        for rel, lines in index.lines.items():
            if rel in hidden:
                continue
            shared = len(own & lines)
            if shared >= _COPY_MIN_LINES and shared >= _COPY_SHARE * len(own):
                copies.add(rel)
    if copies:
        found = sorted(copies)
        flags.append(
            flag(
                "leakage",
                Severity.warning,
                f"unmasked files hold a copy of masked code: {_listed(found)}",
                found,
            )
        )
    return flags
