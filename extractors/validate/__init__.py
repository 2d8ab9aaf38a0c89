"""Automatic checks on tasks, each named, with a severity and a message a reviewer understands.

Errors block auto-approval (and, later, publishing without an override); warnings are shown.
Checks are grouped by what they need: the paper (drafts), the repository (setups), both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from expcurate.records import REF_RE, STEP_RE, Flag, ParsedPaper, Severity, TaskFields
from extractors.numbers import NumberBag, find_numbers, is_trivial

MARKDOWN_DEBRIS = re.compile(r"\*\*|__|^#+\s|```|\[\d+\]\(", re.M)
WORKSPACE = "/workspace/"
# "Table 3", "Fig. 2", "Sec. 4.1", "[24]": numbers that name things, not results.
REFERENCE_MARKS = re.compile(
    r"\b(Table|Tab\.|Figure|Fig\.|Section|Sec\.|Eq\.|Equation|Appendix)\s*[A-Z]?\d+(\.\d+)*|"
    r"\[[\d,;\s–-]+\]"
)


def repo_path(path: str) -> str:
    """EXP-Bench writes `/workspace/x.py`; we store repo-relative `x.py`. Accept both."""
    return path[len(WORKSPACE) :] if path.startswith(WORKSPACE) else path.lstrip("/")


def _flag(check: str, severity: Severity, message: str, paths: Sequence[str] = ()) -> Flag:
    return Flag(check=check, severity=severity, message=message, paths=list(paths))


# ------------------------------------------------------------------ paper-side checks


def check_required(fields: TaskFields) -> list[Flag]:
    missing = [
        n for n in ("question", "method", "expected_outcome") if not getattr(fields, n).strip()
    ]
    return (
        [_flag("required_fields", Severity.error, f"empty field: {', '.join(missing)}")]
        if missing
        else []
    )


def check_question_form(fields: TaskFields) -> list[Flag]:
    q = fields.question.strip()
    flags = []
    if not q.endswith("?"):
        flags.append(
            _flag(
                "question_form", Severity.error, "the question is a statement: it must end with '?'"
            )
        )
    if MARKDOWN_DEBRIS.search(q):
        flags.append(
            _flag(
                "question_form", Severity.warning, "the question holds markdown debris (**, #, ```)"
            )
        )
    asked = find_numbers(REFERENCE_MARKS.sub(" ", q))
    leaked = [
        n
        for n in find_numbers(REFERENCE_MARKS.sub(" ", fields.expected_outcome))
        if not is_trivial(n) and n in asked
    ]
    if leaked:
        flags.append(
            _flag(
                "question_leaks_outcome",
                Severity.error,
                f"the question gives away outcome numbers: {', '.join(sorted(set(leaked)))}",
            )
        )
    return flags


def check_grounded(
    fields: TaskFields, paper: ParsedPaper, bag: NumberBag | None = None
) -> list[Flag]:
    bag = bag or NumberBag([paper.full_text()])
    missing = [n for n in find_numbers(fields.expected_outcome) if not bag.contains(n)]
    if not missing:
        return []
    return [
        _flag(
            "outcome_grounded",
            Severity.error,
            f"numbers in the expected outcome not found in the paper: {', '.join(dict.fromkeys(missing))}",
        )
    ]


def check_evidence(fields: TaskFields, paper: ParsedPaper) -> list[Flag]:
    labels = {t.label for t in paper.tables} | {f.label for f in paper.figures}
    headings = {s.heading for s in paper.sections} | {s.title for s in paper.sections}
    if not fields.evidence:
        return [_flag("evidence", Severity.warning, "the task cites no table, figure or section")]
    bad = [
        e.label
        for e in fields.evidence
        if (e.kind in ("table", "figure") and e.label not in labels)
        or (e.kind == "section" and e.label not in headings)
    ]
    if bad:
        return [
            _flag("evidence", Severity.error, f"cited evidence not in the paper: {', '.join(bad)}")
        ]
    return []


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def check_duplicates(fields: TaskFields, siblings: Sequence[TaskFields]) -> list[Flag]:
    mine = _tokens(fields.question + " " + fields.expected_outcome)
    for other in siblings:
        if other.key == fields.key or not mine:
            continue
        theirs = _tokens(other.question + " " + other.expected_outcome)
        overlap = len(mine & theirs) / max(1, len(mine | theirs))
        if overlap >= 0.9:
            return [
                _flag(
                    "near_duplicate",
                    Severity.warning,
                    f"near duplicate of task {other.key!r} ({overlap:.0%} shared words)",
                )
            ]
    return []


def validate_draft(
    fields: TaskFields, paper: ParsedPaper, siblings: Sequence[object] = ()
) -> list[Flag]:
    """Checks that need only the paper (the tasks stage)."""
    others = [
        s if isinstance(s, TaskFields) else TaskFields.model_validate(s, from_attributes=True)
        for s in siblings
    ]
    return (
        check_required(fields)
        + check_question_form(fields)
        + check_grounded(fields, paper)
        + check_evidence(fields, paper)
        + check_duplicates(fields, others)
    )


# ------------------------------------------------------------------ repository-side checks


def _inside(root: Path, rel: str) -> Path | None:
    path = (root / rel).resolve()
    try:
        path.relative_to(root.resolve())
    except ValueError:
        return None
    return path


def _line_count(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(1 for _ in fh)


def check_requirements(fields: TaskFields, root: Path) -> list[Flag]:
    flags = []
    for i, step in enumerate(fields.requirements, 1):
        if not STEP_RE.match(step):
            flags.append(
                _flag(
                    "requirement_form",
                    Severity.error,
                    f"requirement {i} does not read 'Step k: …' or 'Final Step: …'",
                )
            )
            continue
        m = REF_RE.search(step)
        if m is None:
            if not step.startswith("Final Step"):
                flags.append(
                    _flag(
                        "requirement_reference",
                        Severity.warning,
                        f"requirement {i} has no (path:a-b) reference",
                    )
                )
            continue
        rel, start = repo_path(m.group(1)), int(m.group(2))
        end = int(m.group(3) or start)
        path = _inside(root, rel)
        if path is None or not path.is_file():
            flags.append(
                _flag(
                    "requirement_reference",
                    Severity.error,
                    f"requirement {i} cites {rel}, which is not in the repository",
                    [rel],
                )
            )
            continue
        n = _line_count(path)
        if not (1 <= start <= end <= n):
            flags.append(
                _flag(
                    "requirement_reference",
                    Severity.error,
                    f"requirement {i} cites lines {start}-{end} of {rel}, which has {n} lines",
                    [rel],
                )
            )
    return flags


def check_paths(fields: TaskFields, root: Path) -> list[Flag]:
    flags = []
    for name in ("source", "masked_source"):
        missing = [
            p
            for p in getattr(fields, name)
            if (q := _inside(root, repo_path(p))) is None or not q.exists()
        ]
        if missing:
            flags.append(
                _flag(
                    f"{name}_exists",
                    Severity.error,
                    f"{name} names files not in the repository: {', '.join(missing)}",
                    missing,
                )
            )
    if not fields.source and not fields.no_answer:
        flags.append(
            _flag("setup_found", Severity.error, "no source files and no no_answer reason")
        )
    return flags


def check_instructions(fields: TaskFields) -> list[Flag]:
    text = fields.agent_instructions
    named = [p for p in fields.masked_source if repo_path(p) in text or Path(p).name in text]
    if named:
        return [
            _flag(
                "instructions_leak_masked",
                Severity.error,
                f"agent_instructions name masked files: {', '.join(named)}",
                named,
            )
        ]
    return []


def validate_setup(fields: TaskFields, root: Path) -> list[Flag]:
    """Checks that need the repository at the pinned commit (the setup stage)."""
    return check_paths(fields, root) + check_requirements(fields, root) + check_instructions(fields)


def check_leakage(fields: TaskFields, root: Path, max_bytes: int = 2_000_000) -> list[Flag]:
    """Unmasked docs, logs and result files that hold the expected numbers."""
    numbers = {n for n in find_numbers(fields.expected_outcome) if not is_trivial(n) and "." in n}
    if not numbers:
        return []
    masked = {repo_path(p) for p in fields.masked_source}
    leaks = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(".git/") or rel in masked or not path.is_file() or path.is_symlink():
            continue
        if path.suffix.lower() not in {
            ".md",
            ".rst",
            ".txt",
            ".log",
            ".csv",
            ".json",
            ".yaml",
            ".yml",
            ".ipynb",
            ".out",
            ".tsv",
        }:
            continue
        if path.stat().st_size > max_bytes:
            continue
        found = set(find_numbers(path.read_text(errors="replace"))) & numbers
        if len(found) >= max(1, min(2, len(numbers))):
            leaks.append(rel)
    if not leaks:
        return []
    return [
        _flag(
            "leakage",
            Severity.warning,
            f"unmasked files contain the expected numbers: {', '.join(leaks)}",
            leaks,
        )
    ]


def validate_task(
    fields: TaskFields, paper: ParsedPaper, root: Path, siblings: Sequence[TaskFields] = ()
) -> list[Flag]:
    """Every check, for final approval (the package stage)."""
    return (
        validate_draft(fields, paper, siblings)
        + validate_setup(fields, root)
        + check_leakage(fields, root)
    )


__all__ = [
    "check_leakage",
    "repo_path",
    "validate_draft",
    "validate_setup",
    "validate_task",
]
