"""Editing a task in the review app: form values in, validated `TaskFields` out, and diffs.

The page holds plain strings and table rows (what widgets produce); these functions turn them
into a `TaskFields`, refusing what cannot be saved (a blank question, a requirement that is
not a step, a path that leaves the repository) and warning about what a validator would flag.
No Streamlit here: the rules are tested on their own.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from expcurate.records import DesignComplexity, Evidence, TaskFields
from expcurate.records.refs import confined, inside
from expcurate.records.task import (
    BOOKKEEPING_FIELDS,
    EDITED_FIELDS,
    LIST_FIELDS,
    REQUIRED_TEXT,
    TEXT_FIELDS,
    VARIABLE_KINDS,
)
from extractors.validate.repo_checks import reference_problems
from extractors.validate.tree import WorkTree

# Field order of the diff and of the history: the published schema's, then the evidence.
DIFF_ORDER = EDITED_FIELDS
NOT_DIFFED = frozenset(BOOKKEEPING_FIELDS)

_EVIDENCE_RE = re.compile(
    r"^(?P<kind>table|figure|section|text)\s*:\s*(?P<label>.+?)(?:\s*\(p\.?\s*(?P<page>\d+)\))?$",
    re.I,
)


@dataclass
class EditForm:
    """What the edit widgets hold: text per field, one list item per line, variable rows."""

    text: dict[str, str] = field(default_factory=dict)
    lists: dict[str, str] = field(default_factory=dict)
    variables: list[dict[str, str]] = field(default_factory=list)  # kind, name, value
    evidence: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": dict(self.text),
            "lists": dict(self.lists),
            "variables": [dict(r) for r in self.variables],
            "evidence": self.evidence,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EditForm:
        return cls(
            text=dict(data.get("text", {})),
            lists=dict(data.get("lists", {})),
            variables=[dict(r) for r in data.get("variables", [])],
            evidence=str(data.get("evidence", "")),
        )


@dataclass(frozen=True)
class Problem:
    """Why an edit cannot be saved (error) or what a validator will flag (warning)."""

    field: str
    message: str
    severity: Literal["error", "warning"] = "error"


@dataclass
class ParsedEdit:
    fields: TaskFields | None
    problems: list[Problem]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return self.fields is not None and not self.errors


# ------------------------------------------------------------------ form <-> fields


def render_value(value: Any) -> str:
    """A variable's value as the reviewer types it: text as is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_evidence(ev: Evidence) -> str:
    page = f" (p. {ev.page})" if ev.page is not None else ""
    return f"{ev.kind}: {ev.label}{page}"


def form_from_fields(fields: TaskFields) -> EditForm:
    dc = fields.design_complexity
    rows = [
        {"kind": kind, "name": name, "value": render_value(value)}
        for kind in VARIABLE_KINDS
        for name, value in getattr(dc, f"{kind}_variables").items()
    ]
    return EditForm(
        text={name: getattr(fields, name) for name in TEXT_FIELDS},
        lists={name: "\n".join(getattr(fields, name)) for name in LIST_FIELDS},
        variables=rows,
        evidence="\n".join(render_evidence(e) for e in fields.evidence),
    )


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _parse_value(name: str, text: str, original: Any, problems: list[Problem]) -> Any:
    """Keep the original value when its rendering is unchanged, so a round trip is exact."""
    if original is not None and render_value(original) == text:
        return original
    stripped = text.strip()
    if stripped[:1] in "[{":
        try:
            return json.loads(stripped)
        except json.JSONDecodeError as exc:
            problems.append(
                Problem(
                    "design_complexity",
                    f"value of {name!r} starts like a JSON list or object but does not parse "
                    f"({exc.msg} at character {exc.pos}); write plain text or valid JSON",
                )
            )
            return stripped
    return stripped


def _parse_variables(
    rows: list[dict[str, Any]], base: DesignComplexity, problems: list[Problem]
) -> DesignComplexity:
    out: dict[str, dict[str, Any]] = {k: {} for k in VARIABLE_KINDS}
    for n, row in enumerate(rows, 1):
        kind = str(row.get("kind") or "").strip().lower().removesuffix("_variables")
        name = str(row.get("name") or "").strip()
        value = row.get("value")
        text = "" if value is None else str(value)
        if not kind and not name and not text.strip():
            continue  # an empty row the table editor added
        if kind not in VARIABLE_KINDS:
            problems.append(
                Problem(
                    "design_complexity",
                    f"row {n}: kind must be one of {', '.join(VARIABLE_KINDS)}, not {kind!r}",
                )
            )
            continue
        if not name:
            problems.append(Problem("design_complexity", f"row {n}: the variable has no name"))
            continue
        if name in out[kind]:
            problems.append(
                Problem("design_complexity", f"row {n}: {kind} variable {name!r} appears twice")
            )
            continue
        original = getattr(base, f"{kind}_variables").get(name)
        out[kind][name] = _parse_value(name, text, original, problems)
    extra = base.model_extra or {}
    return DesignComplexity.model_validate(
        {**extra, **{f"{k}_variables": v for k, v in out.items()}}
    )


def _parse_evidence(text: str, problems: list[Problem]) -> list[Evidence]:
    out = []
    for line in _lines(text):
        m = _EVIDENCE_RE.match(line)
        if m is None:
            problems.append(
                Problem(
                    "evidence",
                    f"{line!r}: write one per line as 'table: Table 3 (p. 4)' "
                    "(kind table, figure, section or text; page optional)",
                )
            )
            continue
        page = int(m["page"]) if m["page"] else None
        out.append(Evidence(kind=m["kind"].lower(), label=m["label"].strip(), page=page))  # type: ignore[arg-type]
    return out


def parse_form(form: EditForm, base: TaskFields, repo_root: Path | None = None) -> ParsedEdit:
    """Turn form values into `TaskFields` built on `base` (key, trace, extras kept)."""
    problems: list[Problem] = []
    data = base.model_dump(mode="json")
    for name in TEXT_FIELDS:
        data[name] = form.text.get(name, data.get(name, "")).strip()
    for name in LIST_FIELDS:
        data[name] = _lines(form.lists[name]) if name in form.lists else data.get(name, [])
    data["design_complexity"] = _parse_variables(
        form.variables, base.design_complexity, problems
    ).model_dump(mode="json")
    data["evidence"] = [e.model_dump(mode="json") for e in _parse_evidence(form.evidence, problems)]
    try:
        fields = TaskFields.model_validate(data)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        return ParsedEdit(None, [*problems, Problem("task", str(exc))])
    problems += check_fields(fields, repo_root)
    return ParsedEdit(fields, problems)


# ------------------------------------------------------------------ checks before save


def check_fields(fields: TaskFields, repo_root: Path | None = None) -> list[Problem]:
    """Errors refuse the save; warnings are what the validators will flag on this text."""
    problems = [
        Problem(name, f"{name} must not be empty")
        for name in REQUIRED_TEXT
        if not getattr(fields, name).strip()
    ]
    if fields.question.strip() and not fields.question.rstrip().endswith("?"):
        problems.append(Problem("question", "the question does not end with '?'", "warning"))
    tree = WorkTree(repo_root) if repo_root is not None else None
    unformed = set()
    for p in reference_problems(fields.requirements, tree):
        n = p.step
        if n in unformed:
            continue  # one problem a line: write it as a step first
        if p.kind == "not_a_step":
            unformed.add(n)
            problems.append(
                Problem(
                    "requirements",
                    f"line {n} is not a step: write 'Step {n}: … (path:first-last)' or "
                    "'Final Step: …'",
                )
            )
        elif p.kind == "no_reference":
            problems.append(
                Problem("requirements", f"line {n} names no code lines (path:a-b)", "warning")
            )
        elif p.kind == "leaves":
            problems.append(Problem("requirements", f"line {n}: {p.path} leaves the repository"))
        elif p.kind == "absent":
            problems.append(
                Problem("requirements", f"line {n}: {p.path} is not a file of the repository")
            )
        elif p.kind == "outside":
            problems.append(
                Problem(
                    "requirements",
                    f"line {n}: lines {p.first}-{p.last} are outside {p.path} ({p.lines} lines)",
                    "warning",
                )
            )
    for name in ("source", "masked_source"):
        for path in getattr(fields, name):
            if repo_root is None:
                if confined(path) is None:
                    problems.append(Problem(name, f"{path}: use a path inside the repository"))
                continue
            target = inside(repo_root, path)
            if target is None:
                problems.append(Problem(name, f"{path}: use a path inside the repository"))
            elif not target.exists():
                problems.append(
                    Problem(name, f"{path} does not exist at the pinned commit", "warning")
                )
    return problems


# ------------------------------------------------------------------ diffs


@dataclass(frozen=True)
class FieldChange:
    """One changed field: its two renderings and a readable diff."""

    field: str
    before: str
    after: str
    diff: str


def field_lines(fields: TaskFields, name: str) -> list[str]:
    """A field rendered as lines, the unit of the diff (items, variables, evidence)."""
    value = getattr(fields, name)
    if name == "design_complexity":
        return [
            f"{kind}.{var} = {render_value(v)}"
            for kind in VARIABLE_KINDS
            for var, v in getattr(value, f"{kind}_variables").items()
        ]
    if name == "evidence":
        return [render_evidence(e) for e in value]
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value).splitlines()


def word_diff(before: str, after: str) -> str:
    """Git-style word diff: [-removed-]{+added+}, the rest as is.

    A lone space between two changes joins them, so a rewritten sentence reads as one change
    rather than a comb of single words.
    """
    a, b = re.findall(r"\S+|\s+", before), re.findall(r"\S+|\s+", after)
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    chunks: list[list[str]] = []  # [removed, added] or [text] for equal runs
    for n, (op, i1, i2, j1, j2) in enumerate(ops):
        text = "".join(a[i1:i2])
        between = 0 < n < len(ops) - 1 and op == "equal" and not text.strip()
        if op == "equal" and not between:
            chunks.append([text])
            continue
        if not chunks or len(chunks[-1]) != 2:
            chunks.append(["", ""])
        chunks[-1][0] += text
        chunks[-1][1] += "".join(b[j1:j2])
    out = []
    for chunk in chunks:
        if len(chunk) == 1:
            out.append(chunk[0])
            continue
        removed, added = chunk
        out.append((f"[-{removed}-]" if removed else "") + (f"{{+{added}+}}" if added else ""))
    return "".join(out)


def field_diff(old: TaskFields, new: TaskFields) -> list[FieldChange]:
    """Fields that differ between two versions, in schema order, each with its diff."""
    extra = sorted(
        k
        for k in {*(old.model_extra or {}), *(new.model_extra or {})}
        if k not in DIFF_ORDER and k not in NOT_DIFFED
    )
    changes = []
    for name in (*DIFF_ORDER, *extra):
        if name in extra:
            a_val = (old.model_extra or {}).get(name)
            b_val = (new.model_extra or {}).get(name)
            a = [] if a_val is None else [render_value(a_val)]
            b = [] if b_val is None else [render_value(b_val)]
        else:
            a, b = field_lines(old, name), field_lines(new, name)
        if a == b:
            continue
        if name in TEXT_FIELDS:
            diff = word_diff("\n".join(a), "\n".join(b))
        else:
            diff = "\n".join(
                line
                for line in difflib.unified_diff(a, b, lineterm="", n=len(a) + len(b))
                if not line.startswith(("---", "+++", "@@"))
            )
        changes.append(FieldChange(name, "\n".join(a), "\n".join(b), diff))
    return changes


def rebase(base: TaskFields, mine: TaskFields, theirs: TaskFields) -> tuple[TaskFields, list[str]]:
    """Apply my changes (against the revision I started from) on top of theirs.

    A field only they changed keeps their value, so accepting this never undoes their work.
    Fields both of us changed keep mine and are returned, for the page to name them.
    """
    b, m, t = (f.model_dump(mode="json") for f in (base, mine, theirs))
    merged, both = dict(t), []
    for name, value in m.items():
        if name in NOT_DIFFED or value == b.get(name):
            continue
        if t.get(name) not in (b.get(name), value):
            both.append(name)
        merged[name] = value
    return TaskFields.model_validate(merged), both
