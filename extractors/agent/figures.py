"""What a set of recovered setups looks like to a reviewer, in numbers.

Retrieval scores say whether the right files were found; these say whether the setup around
them is the kind a reviewer approves: how many steps, how narrow their citations, whether a
task's steps are a copy of another task's, whether each command's flags are ones its script
accepts, whether the masked files are the gold's, whether a setup is empty or boilerplate.
`make bench-setup` prints them; the same functions can be run on any repository's setups.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from expcurate.records import EntryPoint, RepoIndex, Setup
from extractors.repo.commands import check_command, command_lines

from .gist import thin

# Steps that say nothing about this experiment: any script's first or last line.
BOILERPLATE = (
    "parse command-line arguments",
    "run the experiment and report",
    "set the configuration values",
    "launch the runs",
)


_LABEL = re.compile(r"^\s*(?:Step \d+|Final Step):\s*")
_CITED = re.compile(r"([^\s(),]+):(\d+)(?:-(\d+))?(?=[,)\s])")


@dataclass
class SetupRow:
    """One task's setup, with what the figures need to know about it."""

    paper: str
    task: str
    setup: Setup
    index: RepoIndex
    gold_masked: list[str] = field(default_factory=list)
    seconds: float = 0.0
    question: str = ""  # the task's question: two tasks asking the same want the same setup


def citations(requirements: Sequence[str]) -> list[tuple[str, int, int]]:
    """Every (path, first, last) a setup's steps cite, in order."""
    out: list[tuple[str, int, int]] = []
    for req in requirements:
        for m in _CITED.finditer(req):
            first = int(m.group(2))
            out.append((m.group(1), first, int(m.group(3) or first)))
    return out


def wording(step: str) -> str:
    """A step less its label and its citation: "Train (Exp.train)" of
    `Step 3: Train (Exp.train) (exp/exp_main.py:98-123)`."""
    return re.sub(r"\s*\([^()]*:\d+(?:-\d+)?\)\s*$", "", _LABEL.sub("", step))


def boilerplate(step: str) -> bool:
    body = _LABEL.sub("", step, count=1).strip().lower()
    return any(body.startswith(b) for b in BOILERPLATE)


def command_check(setup: Setup, index: RepoIndex) -> tuple[int, int, list[str]]:
    """(commands in the usage, commands whose script exists and accepts every flag, problems)."""
    known = {f.path for f in index.files}
    entries: dict[str, EntryPoint] = {e.path: e for e in index.entry_points}
    total = ok = 0
    problems: list[str] = []
    for line in command_lines(setup.usage_instructions):
        total += 1
        missing, unknown = check_command(line, known, entries)
        if missing:
            problems.append(f"{line[:100]!r} runs {missing}, which does not exist")
        problems += [f"{line[:100]!r}: {u[:120]}" for u in unknown]
        ok += not missing and not unknown
    return total, ok, problems


@dataclass
class Figures:
    tasks: int = 0
    no_answer: int = 0
    empty: int = 0  # neither a setup nor a reason for having none
    steps: list[int] = field(default_factory=list)  # per answered task
    widths: list[int] = field(default_factory=list)  # lines per cited range
    boilerplate: int = 0  # steps
    all_steps: int = 0
    words: list[int] = field(default_factory=list)  # per step, its wording less its citation
    name_only: int = 0  # steps worded by a name alone ("Train (Exp.train)", "Call f")
    copied: int = 0  # answered tasks whose citations equal another task's of the paper
    copied_same_question: int = 0  # of them, tasks whose question is the other's too
    # answered tasks at least half of whose cited ranges another task of the paper cites too
    mostly_shared: int = 0
    # the same, a range counting as shared when half its lines are in a range the other cites
    # (hand-written setups cite 178-189 in one task and 179-189 in the next)
    mostly_overlapping: int = 0
    commands: int = 0
    commands_ok: int = 0
    usage_chars: list[int] = field(default_factory=list)
    masked_recall: list[float] = field(default_factory=list)  # tasks with a gold mask
    seconds: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        answered = self.tasks - self.no_answer
        med = statistics.median

        def share(n: int, d: int) -> str:
            return f"{n}/{d} ({n / d:.0%})" if d else "0/0"

        widths = sorted(self.widths)
        out = [
            f"tasks {self.tasks}: answered {answered}, no_answer {self.no_answer}, "
            f"empty {self.empty}",
            f"steps per answered task: median {med(self.steps) if self.steps else 0:g}, "
            f"8-15 steps in {share(sum(8 <= s <= 15 for s in self.steps), len(self.steps))}",
            f"cited range width (lines): median {med(widths) if widths else 0:g}, "
            f"at most 20 lines in {share(sum(w <= 20 for w in widths), len(widths))}",
            f"boilerplate steps: {share(self.boilerplate, self.all_steps)}",
            f"words per step: median {med(self.words) if self.words else 0:g}; "
            f"worded by a name alone: {share(self.name_only, self.all_steps)}",
            f"tasks whose steps equal another task's of the paper: {share(self.copied, answered)}"
            + (
                f", {self.copied_same_question} of them asking the same question"
                if self.copied_same_question
                else ""
            ),
            f"tasks citing mostly what another task of the paper cites (half or more of "
            f"their ranges): {share(self.mostly_shared, answered)}; "
            f"counting ranges that overlap by half: {share(self.mostly_overlapping, answered)}",
            f"commands whose script exists and accepts every flag: "
            f"{share(self.commands_ok, self.commands)}; usage characters median "
            f"{med(self.usage_chars) if self.usage_chars else 0:g}",
        ]
        if self.masked_recall:
            out.append(
                f"masked-file recall against the gold: "
                f"{statistics.fmean(self.masked_recall):.3f} over {len(self.masked_recall)} tasks"
            )
        if self.seconds:
            out.append(
                f"seconds per task: mean {statistics.fmean(self.seconds):.2f}, "
                f"max {max(self.seconds):.2f}"
            )
        return out


def setup_figures(rows: Iterable[SetupRow]) -> Figures:
    fig = Figures()
    by_paper: dict[str, list[tuple[str, tuple[tuple[str, int, int], ...]]]] = defaultdict(list)
    for row in rows:
        s = row.setup
        fig.tasks += 1
        fig.seconds.append(row.seconds)
        if s.no_answer:
            fig.no_answer += 1
            continue
        if not s.source or not s.requirements or not s.usage_instructions.strip():
            fig.empty += 1
        fig.steps.append(len(s.requirements))
        fig.all_steps += len(s.requirements)
        fig.boilerplate += sum(boilerplate(r) for r in s.requirements)
        wordings = [wording(r) for r in s.requirements]
        fig.words += [len(w.split()) for w in wordings]
        fig.name_only += sum(thin(w) for w in wordings)
        cited = citations(s.requirements)
        fig.widths += [last - first + 1 for _, first, last in cited]
        if cited:
            by_paper[row.paper].append((_said(row.question), tuple(cited)))
        total, ok, problems = command_check(s, row.index)
        fig.commands += total
        fig.commands_ok += ok
        fig.problems += [f"{row.task}: {p}" for p in problems]
        fig.usage_chars.append(len(s.usage_instructions))
        if row.gold_masked:
            ours = set(s.masked_source)
            fig.masked_recall.append(sum(g in ours for g in row.gold_masked) / len(row.gold_masked))
    for tasks in by_paper.values():
        fig.mostly_shared += mostly_shared([set(refs) for _, refs in tasks])
        fig.mostly_overlapping += mostly_shared([set(refs) for _, refs in tasks], overlap=True)
        seen: dict[tuple[tuple[str, int, int], ...], list[str]] = defaultdict(list)
        for question, refs in tasks:
            seen[refs].append(question)
        for questions in seen.values():
            if len(questions) > 1:
                fig.copied += len(questions)
                asked = Counter(q for q in questions if q)
                fig.copied_same_question += sum(n for n in asked.values() if n > 1)
    return fig


def mostly_shared(
    cited: list[set[tuple[str, int, int]]], at_least: float = 0.5, *, overlap: bool = False
) -> int:
    """How many of one paper's tasks have at least `at_least` of their cited ranges cited by
    one other task of the paper too: steps generic to the paper (its training loop, its
    model) rather than this experiment's. With `overlap`, a range is cited by the other task
    when half or more of its lines are inside one of the other's ranges."""

    def shared(mine: set[tuple[str, int, int]], other: set[tuple[str, int, int]]) -> int:
        if not overlap:
            return len(mine & other)
        return sum(any(_inside_half(r, o) for o in other) for r in mine)

    return sum(
        any(shared(mine, other) >= at_least * len(mine) for j, other in enumerate(cited) if j != i)
        for i, mine in enumerate(cited)
        if mine
    )


def agreement(ours: Sequence[str], gold: Sequence[str]) -> tuple[float, float] | None:
    """How far a setup's steps cite what a curated one's cite: the share of the curated
    ranges half inside one of ours, and the share of ours half inside one of the curated;
    None when the curated steps cite nothing. Paths are read as the repository's
    (`/workspace/x.py` is `x.py`)."""

    mine, theirs = _cited(ours), _cited(gold)
    if not theirs:
        return None
    found = sum(any(_inside_half(g, m) for m in mine) for g in theirs) / len(theirs)
    kept = sum(any(_inside_half(m, g) for g in theirs) for m in mine) / len(mine) if mine else 0.0
    return found, kept


def order_agreement(ours: Sequence[str], gold: Sequence[str]) -> tuple[int, int]:
    """How far the steps come in the curated steps' order: each of ours matched to the first
    curated step citing lines of its own (same file, overlapping lines), the pairs of matched
    steps in the curated order and those against it."""

    theirs = _cited(gold)
    at = [
        next(
            (
                j
                for j, (path, first, last) in enumerate(theirs)
                if path == p and min(b, last) >= max(a, first)
            ),
            None,
        )
        for p, a, b in _cited(ours)
    ]
    matched = [j for j in at if j is not None]
    pairs = [(x, y) for k, x in enumerate(matched) for y in matched[k + 1 :] if x != y]
    return sum(x < y for x, y in pairs), sum(x > y for x, y in pairs)


def _cited(steps: Sequence[str]) -> list[tuple[str, int, int]]:
    """The ranges steps cite, paths read as the repository's (`/workspace/x.py` is `x.py`)."""
    return [(p.removeprefix("/workspace/").lstrip("/"), a, b) for p, a, b in citations(steps)]


def _inside_half(cited: tuple[str, int, int], other: tuple[str, int, int]) -> bool:
    path, first, last = cited
    common = min(last, other[2]) - max(first, other[1]) + 1
    return path == other[0] and 2 * common >= last - first + 1


def _said(question: str) -> str:
    return " ".join(re.findall(r"\w+", question.lower()))
