"""Checks for what a reviewer rejects in a draft: the semantics a count never sees.

A grounded task can still compare two column headers, set a method against its own larger
variant, state "the results are shown in Figure 6" as its finding, or contradict the paper's
own sentence. Each check here names one such failure, so the queue can put the tasks a
reviewer is likely to approve first and say what to fix in the others. They read the task
alone (and the paper's figures, when given).
"""

from __future__ import annotations

import re

from expcurate.records import Flag, ParsedPaper, Severity, TaskFields
from extractors.numbers import find_numbers
from extractors.tasks.grids import is_metric, not_a_method
from extractors.validate.catalog import flag

META_OUTCOME = re.compile(
    r"^(?:in |as )?(?:the )?(?:(?:experimental )?results? (?:are|is) (?:shown|summari[sz]ed|"
    r"reported|listed|presented|plotted|depicted)|(?:we|table\s*[\w.]+|figure\s*[\w.]+|fig\.\s*"
    r"[\w.]+) (?:present|show|report|list|summari[sz]e|plot|illustrate|visuali[sz]e|compare|"
    r"depict|vary|varies)s?\b)",
    re.I,
)
# Tells that a compared "method" is really a header, a metric, a statistic or a reference row.
# Two or more numbers run together inside a label ("GNNExp 0.420.840.56", "Model 12.3 45.6").
GLUED_NUMBERS = re.compile(r"\d\.\d+\.\d|\d+\.\d+\s+\d+\.\d+")
COMPARISON = re.compile(r"(?P<a>[^:;]+?) (?P<x>-?\d[\d.]*) vs\. (?P<b>[^:;]+?) (?P<y>-?\d[\d.]*)\b")
SAYS_BETTER = re.compile(
    r"\b(outperform\w*|surpass\w*|beats?|best|better|superior|state-of-the-art|higher|lower)\b",
    re.I,
)
SAYS_LOST = re.compile(r"does not beat the strongest alternative on any", re.I)
FIGURE_LABEL = re.compile(r"\bFig(?:ure|\.)\s*([A-Z]?\.?\d+)")
NOT_A_PLOT = re.compile(
    r"\b(illustrat\w*|overview|framework|architecture|pipeline|diagram|schematic|workflow|"
    r"qualitative|examples?|showcases?|case study|screenshot|teaser)\b",
    re.I,
)


def _compared(fields: TaskFields) -> list[str]:
    values: list[str] = []
    for name, value in fields.design_complexity.independent_variables.items():
        if name.lower() in ("method", "methods", "model", "models", "component", "setting"):
            values += [str(v) for v in (value if isinstance(value, list) else [value])]
    return values


def check_meta_outcome(fields: TaskFields) -> list[Flag]:
    """An outcome that says what is shown instead of what was found."""
    first = re.split(r"(?<=[.!?])\s", fields.expected_outcome.strip(), maxsplit=1)[0]
    measured = find_numbers(re.sub(r"\b(?:Table|Figure|Fig\.)\s*[\w.]+", "", first))
    if not META_OUTCOME.search(first) or measured:
        return []
    return [
        flag(
            "outcome_meta",
            Severity.error,
            f"the outcome describes the evidence instead of stating a finding: {first[:120]!r}",
        )
    ]


def check_compared_names(fields: TaskFields) -> list[Flag]:
    """Headers, metrics, summary rows or labels with numbers glued in, taken as methods."""
    flags = []
    compared = _compared(fields)
    headers = [v for v in compared if not_a_method(v) or is_metric(v.strip())]
    if headers:
        flags.append(
            flag(
                "method_is_header",
                Severity.error,
                f"compared as methods but read like headers, metrics or summary rows: "
                f"{', '.join(headers[:5])}",
            )
        )
    # Groups show when a group label recurs: "CIFAR-10 / A", "CIFAR-10 / B", "ImageNet / A".
    # Unique prefixes are names of their own ("DANet / ResNet101"), not groups.
    prefixes = [v.split(" / ")[0] for v in compared if " / " in v]
    groups = [g for g in dict.fromkeys(prefixes) if prefixes.count(g) >= 2]
    if len(groups) >= 2 or (groups and len(set(prefixes)) > len(groups)):
        flags.append(
            flag(
                "mixed_blocks",
                Severity.warning,
                f"rows of several groups ({', '.join(groups[:4])}) are compared as rivals: "
                "compare within one group, or make one task per group",
            )
        )
    glued = [v for v in compared if GLUED_NUMBERS.search(v)]
    if glued:
        flags.append(
            flag(
                "label_numbers",
                Severity.warning,
                f"numbers run into a method's name (a misread table row): {glued[0][:80]!r}",
            )
        )
    return flags


def check_self_comparison(fields: TaskFields) -> list[Flag]:
    """ "X 53.2 vs. X 73.6": rows of different blocks (datasets, sizes) collapsed into one;
    or every method compared is one method at several settings ("X / 384", "X / 768")."""
    compared = fields.design_complexity.independent_variables.get("method")
    if isinstance(compared, list) and len(compared) >= 2:
        names = {_method_name(str(c)) for c in compared}
        if len(names) == 1 and "" not in names:
            return [
                flag(
                    "self_comparison",
                    Severity.error,
                    f"every method compared is {str(compared[0]).split(' / ')[0]} at another "
                    "setting: a sweep of one method, not a comparison of methods",
                )
            ]
    for m in COMPARISON.finditer(fields.expected_outcome):
        a, b = _base(m.group("a")), _base(m.group("b"))
        if a and a == b and m.group("x") != m.group("y"):
            return [
                flag(
                    "self_comparison",
                    Severity.error,
                    f"{m.group('a').strip()} is compared with itself "
                    f"({m.group('x')} vs. {m.group('y')}): rows of different groups "
                    "(dataset, model size, setting) were run together",
                )
            ]
    return []


def check_merged_blocks(fields: TaskFields) -> list[Flag]:
    """A measured column named twice for one row ("DSPy: BBH all 41.6, …, BBH all 70.4"), or
    twice among the measures: blocks of the table set side by side were run together."""
    for value in fields.design_complexity.dependent_variables.values():
        names = [str(v) for v in value] if isinstance(value, list) else []
        twice = [n for n in dict.fromkeys(names) if names.count(n) > 1]
        for segment in re.split(r"[;:]\s", fields.expected_outcome):
            twice += [
                n
                for n in dict.fromkeys(names)
                if len(n) >= 3 and len(re.findall(rf"{re.escape(n)}:? -?\d", segment)) > 1
            ]
        if twice:
            return [
                flag(
                    "merged_blocks",
                    Severity.warning,
                    f"the column {twice[0]!r} is measured twice for one row: blocks of the "
                    "table were read as one",
                )
            ]
    return []


def check_own_variants(fields: TaskFields) -> list[Flag]:
    """The paper's row set against its own other sizes or variants ("MSCAN-T" vs "MSCAN-S")."""
    compared = fields.design_complexity.independent_variables.get("method")
    if not isinstance(compared, list) or len(compared) < 2:
        return []
    family = _family(str(compared[0]))
    same = [str(c) for c in compared[1:] if family and _family(str(c)) == family]
    if not same or len(same) == len(compared) - 1:  # all of them: self_comparison's case
        return []
    return [
        flag(
            "own_variants",
            Severity.warning,
            f"{compared[0]} is compared with its own variants: {', '.join(same[:4])}",
        )
    ]


SIZE = re.compile(r"[-_\s](?:t|s|b|l|xl|tiny|small|base|large|huge|\d+(?:\.\d+)?[bmk]?)$", re.I)


def _family(label: str) -> str:
    """A model's family when its name ends in a size ("MSCAN-T" -> "mscan", "LLaMA-13B" ->
    "llama"); "" for a name without one ("Vicuna (TRICE-MIX)": a method, not a size)."""
    name = label.split(" / ")[-1].strip().rstrip("*∗†").lower()
    head = SIZE.sub("", name)
    return head if head != name and len(head) >= 3 else ""


def _method_name(label: str) -> str:
    """A compared row's method without its settings and marks: "TimesNet (ours) / 384" and
    "TimesNet" are one method."""
    parts = [p for p in label.split(" / ") if not re.fullmatch(r"[\d.,×x%\s]+", p)]
    name = re.sub(r"[(\[](?:ours|this work)[)\]]", "", " ".join(parts), flags=re.I)
    return " ".join(name.lower().split())


def _base(name: str) -> str:
    """The row's own name, without its group ("CIFAR-10 / ICH + CCH" -> "ich cch")."""
    last = name.split(":")[-1].split(" / ")[-1]
    return re.sub(r"[^a-z0-9]+", " ", last.lower()).strip()


def check_truncated_question(fields: TaskFields) -> list[Flag]:
    q = fields.question.strip()
    if "…" in q or "..." in q or re.search(r"\b(?:vs|and|of|the|for|with|in)\s*\??$", q, re.I):
        return [
            flag("question_truncated", Severity.warning, f"the question is cut off: {q[-80:]!r}")
        ]
    return []


def check_direction(fields: TaskFields) -> list[Flag]:
    """The paper's finding says the method wins; the table's tally says it never does."""
    text = fields.expected_outcome
    lost = SAYS_LOST.search(text)
    if lost and SAYS_BETTER.search(text[: lost.start()]):
        return [
            flag(
                "direction_disagrees",
                Severity.warning,
                "the paper's sentence says the method does better, but the cells compared "
                "say it never beats the strongest alternative: check the metric's direction, "
                "the subject row, or which rows belong together",
            )
        ]
    return []


def check_figure_is_plot(fields: TaskFields, paper: ParsedPaper) -> list[Flag]:
    """A trend task whose figure's caption says it draws or shows examples, not measurements."""
    for ev in fields.evidence:
        if ev.kind != "figure":
            continue
        fig = next((f for f in paper.figures if f.label == ev.label), None)
        topic = fig.caption.split(". ")[0] if fig else ""
        if fig is not None and NOT_A_PLOT.search(topic):
            return [
                flag(
                    "figure_not_plot",
                    Severity.warning,
                    f"{ev.label} reads as a drawing or example ({topic[:80]!r}), not a plot "
                    "of measurements",
                )
            ]
    return []


def check_table_reading(fields: TaskFields, paper: ParsedPaper) -> list[Flag]:
    """The doubts the table reader recorded about a table the task cites."""
    out = []
    for ev in fields.evidence:
        table = (
            next((t for t in paper.tables if t.label == ev.label), None)
            if ev.kind == "table"
            else None
        )
        if table is not None and table.doubts:
            doubts = "; ".join(table.doubts)
            out.append(flag("table_reading", Severity.warning, f"{ev.label}: {doubts}"))
    return out


def check_draft_semantics(fields: TaskFields, paper: ParsedPaper | None) -> list[Flag]:
    flags = (
        check_meta_outcome(fields)
        + check_compared_names(fields)
        + check_self_comparison(fields)
        + check_merged_blocks(fields)
        + check_own_variants(fields)
        + check_truncated_question(fields)
        + check_direction(fields)
    )
    if paper is not None:
        flags += check_figure_is_plot(fields, paper) + check_table_reading(fields, paper)
    return flags
