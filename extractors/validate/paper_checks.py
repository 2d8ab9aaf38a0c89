"""Checks on what a task says: its form, and whether the paper backs it.

Form checks need only the task; grounding and evidence need the parsed paper; duplicates need
the other tasks of the same paper.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from expcurate.records import Flag, ParsedPaper, Severity, TaskFields
from extractors.numbers import NumberBag, find_numbers, is_trivial
from extractors.validate.catalog import flag

MARKDOWN_DEBRIS = re.compile(r"\*\*|__|^#+\s|```|\[\d+\]\(|^\s*(?:[-*+•]|\d+[.)])\s", re.M)
# "Table 3", "Fig. 2", "Sec. 4.1", "[24]": numbers that name things, not results.
REFERENCE_MARKS = re.compile(
    r"\b(Table|Tab\.|Figure|Fig\.|Section|Sec\.|Eq\.|Equation|Appendix)\s*[A-Z]?\d+(\.\d+)*|"
    r"\[[\d,;\s–-]+\]"
)
_AUXILIARIES = frozenset(
    {
        "does", "do", "did", "is", "are", "was", "were", "can", "could", "will", "would", "should",
        "shall", "may", "might", "must", "has", "have", "had", "isn't", "aren't", "doesn't",
        "don't", "can't", "won't",
    }
)  # fmt: skip
_WH = frozenset(
    {
        "what", "which", "how", "who", "whom", "whose", "why", "when", "where", "whether",
    }
)  # fmt: skip
# A question mark that ends one sentence and another sentence starts after it.
_SECOND_QUESTION = re.compile(r"\?\s+[A-Z(]")


def check_required(fields: TaskFields) -> list[Flag]:
    missing = [
        n for n in ("question", "method", "expected_outcome") if not getattr(fields, n).strip()
    ]
    if not missing:
        return []
    return [flag("required_fields", Severity.error, f"empty field: {', '.join(missing)}")]


def _interrogative(text: str) -> bool:
    """Does the sentence open like a question ('Does…', 'To what extent…', 'Compared to X, how…')?"""
    for clause in [text, *text.split(",")[1:]]:
        words = re.findall(r"[a-z']+", clause.lower())[:2]
        if words and (words[0] in _AUXILIARIES | _WH or (len(words) > 1 and words[1] in _WH)):
            return True
    return False


def check_question_form(fields: TaskFields) -> list[Flag]:
    q = fields.question.strip()
    if not q:
        return []
    flags = []
    bare = q.strip("*_ \"'`").rstrip()
    if not bare.endswith("?"):
        flags.append(
            flag(
                "question_form",
                Severity.error,
                "the question is a statement or has text after it: it must end with '?'",
            )
        )
    elif not _interrogative(re.sub(r"^\s*(?:[-*+•]|\d+[.)])\s+", "", bare).lstrip("*_ ")):
        flags.append(
            flag(
                "question_form",
                Severity.warning,
                "the question reads as a statement with a question mark; ask it as a question",
            )
        )
    if len(_SECOND_QUESTION.findall(q)) >= 1:
        flags.append(
            flag("question_form", Severity.warning, "the text asks more than one question")
        )
    if MARKDOWN_DEBRIS.search(q):
        flags.append(
            flag(
                "question_form",
                Severity.warning,
                "the question holds markdown debris (**, #, ```, a list bullet)",
            )
        )
    # Results, not settings: a decimal or a percentage asked about ("PDF(720)", "336 steps"
    # name a configuration, "81.2" or "78%" give away an outcome).
    question = REFERENCE_MARKS.sub(" ", q)
    percents = {m.replace(",", "") for m in re.findall(r"(\d[\d,]*(?:\.\d+)?)\s*%", question)}
    asked = {n for n in find_numbers(question) if "." in n or n in percents}
    # A number in the name of a compared setting ("100% Tool", "w/ 0.5 dropout") or of a
    # measured column ("FPR@TPR 0.95") is a setting.
    asked -= {n for name in _compared_names(fields) for n in find_numbers(name)}
    leaked = [
        n
        for n in find_numbers(REFERENCE_MARKS.sub(" ", fields.expected_outcome))
        if not is_trivial(n) and n in asked
    ]
    if leaked:
        flags.append(
            flag(
                "question_leaks_outcome",
                Severity.error,
                f"the question gives away outcome numbers: {', '.join(sorted(set(leaked)))}",
            )
        )
    return flags


def _compared_names(fields: TaskFields) -> list[str]:
    names: list[str] = []
    design = fields.design_complexity
    for variables in (design.independent_variables, design.dependent_variables):
        for name, value in variables.items():
            names.append(name)
            names += [str(v) for v in value] if isinstance(value, list) else [str(value)]
    return names


def check_grounded(
    fields: TaskFields, paper: ParsedPaper, bag: NumberBag | None = None
) -> list[Flag]:
    bag = bag or NumberBag([paper.full_text()])
    missing = [n for n in find_numbers(fields.expected_outcome) if not bag.contains(n)]
    if not missing:
        return []
    listed = ", ".join(dict.fromkeys(missing))
    return [
        flag(
            "outcome_grounded",
            Severity.error,
            f"numbers in the expected outcome not found in the paper: {listed}",
        )
    ]


def check_evidence(fields: TaskFields, paper: ParsedPaper) -> list[Flag]:
    labels = {t.label for t in paper.tables} | {f.label for f in paper.figures}
    headings = {s.heading for s in paper.sections} | {s.title for s in paper.sections}
    if not fields.evidence:
        return [flag("evidence", Severity.warning, "the task cites no table, figure or section")]
    bad = [
        e.label
        for e in fields.evidence
        if (e.kind in ("table", "figure") and e.label not in labels)
        or (e.kind == "section" and e.label not in headings)
    ]
    if bad:
        return [
            flag("evidence", Severity.error, f"cited evidence not in the paper: {', '.join(bad)}")
        ]
    return []


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / max(1, len(a | b))


def check_duplicates(fields: TaskFields, siblings: Sequence[TaskFields]) -> list[Flag]:
    """Same question (85% of its words), or same question and outcome together (90%).

    Tasks whose independent variables differ are different experiments even when drafted
    from one template ("w/o gating" and "w/o patching" of one ablation table), unless their
    questions are all but identical.
    """
    question = _tokens(fields.question)
    both = question | _tokens(fields.expected_outcome)
    if len(question) < 3:
        return []
    mine = fields.design_complexity.independent_variables
    for position, other in enumerate(siblings):
        if other is fields or (other.key and other.key == fields.key):
            continue
        theirs = other.design_complexity.independent_variables
        same_q = _jaccard(question, _tokens(other.question))
        if mine and theirs and mine != theirs and same_q < 0.9:
            continue  # one template, different variables: sibling experiments, not copies
        same_both = _jaccard(both, _tokens(other.question) | _tokens(other.expected_outcome))
        if same_q >= 0.85 or same_both >= 0.9:
            name = other.key or f"#{position}"
            return [
                flag(
                    "near_duplicate",
                    Severity.warning,
                    f"near duplicate of task {name!r} ({same_q:.0%} of the question's words "
                    f"shared, {same_both:.0%} with the outcome)",
                )
            ]
    return []
