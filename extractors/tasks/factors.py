"""Tables that cross a design choice with groups of rows: compare within each group.

Many results tables repeat the same few variants under each dataset, model size or test set
("OE, PASCL, Ours" under every OOD set; "w/o MSCA, w/ MSCA" for each SegNeXt size). Their
rows are rivals only inside a group: SegNeXt-S beating SegNeXt-T says nothing about MSCA.
`crossing` finds the varied choice and the order to compare its values in; `factor_tasks`
drafts one task that compares them group by group, with tallies in words so every number in
the outcome is a cell of the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from expcurate.records import DesignComplexity, Evidence, Table, TaskDraft
from extractors.numbers import to_float
from extractors.tasks.context import (
    Context,
    about_efficiency,
    method_text,
    names_method,
    topic_of,
)
from extractors.tasks.grids import (
    COST,
    NUMERIC_LABEL,
    Grid,
    column_lower,
    column_name,
    fold_metrics,
    is_metric,
    lower_is_better,
    not_a_method,
    only_lower_metrics,
    question_measures,
)
from extractors.tasks.phrasing import and_list, share

MAX_VALUES = 6  # variants of one choice; more reads as a list of rival methods
# "SegNeXt-T w/o MSCA": a model and the variant of it the row measures.
VARIANT_SPLIT = re.compile(r"\s+(?=(?:w/o?|w\.o\.|with|without)\s)", re.I)
BRACKETED = re.compile(r"^(.*\S)\s*\(([^()]+)\)$")
OWN_MARK = re.compile(r"ours|our method|this work|proposed", re.I)
ABLATED = re.compile(r"^(?:w/o|w\.o\.|without|no)\b", re.I)
SUMMARY_GROUP = re.compile(r"\b(?:avg|average|mean|overall|total)\b", re.I)


@dataclass
class Crossing:
    """Where the varied choice sits in each row's parts, and its values, first the one the
    others are compared against."""

    position: int
    values: list[str]
    parts: list[list[str]]


def _candidate_parts(grid: Grid) -> list[list[list[str]]]:
    """Ways to read each row's name as parts: the grid's label columns; or its last part
    split before a "w/ …" or "without …", or into a name and its bracketed variant
    ("ChatGLM (Few-Shot)"). A row that does not split stays whole, outside the crossing."""
    names = [p[-1] if p else lab for p, lab in zip(grid.parts, grid.labels, strict=False)]
    names += grid.labels[len(names) :]
    out = []
    if grid.parts and len(grid.parts[0]) >= 2:
        out.append([list(p) for p in grid.parts])
    for split in (_variant, _bracketed):
        parts = [split(n) for n in names]
        if sum(len(p) == 2 for p in parts) >= 4:
            out.append([p if len(p) == 2 else [p[0], ""] for p in parts])
    return out


def _variant(name: str) -> list[str]:
    return VARIANT_SPLIT.split(name, maxsplit=1)


def _bracketed(name: str) -> list[str]:
    m = BRACKETED.match(name)
    return [m.group(1), m.group(2)] if m and not OWN_MARK.fullmatch(m.group(2)) else [name]


def crossing(grid: Grid, caption: str, method: str) -> Crossing | None:
    """A part of the rows' names whose 2-6 values recur in every group of rows: the design
    choice the table varies. Its values are ordered: the paper's own (its name, "Ours", the
    "w/" beside a "w/o") against the others; else as the caption names them; else as the
    table sets them."""
    for parts in _candidate_parts(grid):
        found = _crossing(parts)
        if found is not None:
            f, values = found
            return Crossing(f, _ordered(values, caption, method), parts)
    return None


def _crossing(parts: list[list[str]]) -> tuple[int, list[str]] | None:
    for f in range(len(parts[0]) - 1, -1, -1):  # the innermost choice first
        values = [v for v in dict.fromkeys(p[f] for p in parts if p[f]) if not not_a_method(v)]
        if not 2 <= len(values) <= MAX_VALUES or all(NUMERIC_LABEL.fullmatch(v) for v in values):
            continue  # too many to be variants, or a sweep ("384, 768, 1536"): not a choice
        groups: dict[tuple[str, ...], list[str]] = {}
        for p in parts:
            if p[f]:  # a row outside the crossing (a reference model) is no group
                groups.setdefault(tuple(p[:f] + p[f + 1 :]), []).append(p[f])
        if len(groups) < 2 or any(set(values) - set(g) for g in groups.values()):
            continue
        return f, values
    return None


def _ordered(values: list[str], caption: str, method: str) -> list[str]:
    own = [v for v in values if names_method(v, method)]
    if not own and any(ABLATED.match(v) for v in values):
        own = [v for v in values if not ABLATED.match(v)][:1]
    if own:  # several (sizes, variants): the last, where tables put the full model
        return [own[-1], *(v for v in values if v != own[-1])]
    named = {
        v: m.start()
        for v in values
        if (m := re.search(rf"(?<!\w){re.escape(v)}(?!\w)", caption, re.I))
    }
    if len(named) >= 2:
        first = sorted(named, key=named.__getitem__)
        return first + [v for v in values if v not in named]
    return values


def factor_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    """One task for a table that crosses a design choice with models, datasets or test sets:
    how the first value of the choice fares against the best of the others, group by group."""
    grid = fold_metrics(grid)
    found = crossing(grid, table.caption, ctx.method)
    if found is None:
        return []
    f, (first, *others) = found.position, found.values
    rows: dict[tuple[str, ...], dict[str, int]] = {}
    for i, p in enumerate(found.parts):
        rows.setdefault(tuple(p[:f] + p[f + 1 :]), {})[p[f]] = i
    caption_lower = lower_is_better(table.caption) or only_lower_metrics(table)
    efficiency = about_efficiency(table)
    tally = {"better": 0, "equal": 0, "worse": 0}
    lines, names = [], []
    for key, at in rows.items():
        counts = {"better": 0, "equal": 0, "worse": 0}
        pairs: list[tuple[float, str]] = []  # (relative gap, "column: a vs. b")
        for col, head in enumerate(grid.header):
            if COST.search(head) and not efficiency:
                continue  # size and cost are what a variant pays, not how well it does
            lower = column_lower(head, caption_lower)
            mine = _cell(grid, at.get(first), col)
            cells = [(v, c) for v in others if (c := _cell(grid, at.get(v), col)) is not None]
            if mine is None or not cells:
                continue
            rival, theirs = (min if lower else max)(cells, key=lambda r: r[1][0])
            x, y = mine[0], theirs[0]
            verdict = "equal" if x == y else ("better" if (x < y) == lower else "worse")
            counts[verdict] += 1
            gap = abs(x - y) / max(abs(x), abs(y), 1e-9)
            against = f" vs. {rival} {theirs[1]}" if len(others) > 1 else f" vs. {theirs[1]}"
            pairs.append((gap, f"{column_name(head, col)}: {mine[1]}{against}"))
        if not pairs:
            continue
        name = " / ".join(k for k in key if k)
        if not SUMMARY_GROUP.search(name):
            for k in tally:
                tally[k] += counts[k]
        names.append(name)
        shown = [pairs[0][1], max(pairs[1:], default=pairs[0])[1]]
        lines.append(
            f"{name}: better on {share(counts['better'], sum(counts.values()))} of its columns"
            f" ({'; largest gap '.join(dict.fromkeys(shown))})"
        )
    if len(lines) < 2:
        return []
    # A summary group ("Average") is reported, not run: it closes the list as what it is.
    real = [n for n in names if not SUMMARY_GROUP.search(n)] or names
    summary = [n for n in names if n not in real]
    groups = and_list(real) + (f" (and the {summary[0].lower()} over them)" if summary else "")
    rivals = and_list(others)
    against = "the best of " + rivals if len(others) > 1 else rivals
    metrics = list(dict.fromkeys(h for h in grid.header if h))
    overall = share(tally["better"], sum(tally.values()))
    ties = " (some columns tie)" if tally["equal"] else ""
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:factor",
            question=(
                f"How does {first} compare with {rivals}{_on(metrics)} within each of {groups} "
                f"in {table.label} ({topic_of(table.caption)})?"
            ),
            method=method_text(
                ctx,
                table,
                f"For each of {groups}, run {first} and {rivals} under otherwise identical "
                f"settings and report {', '.join(metrics[:6])}"
                f"{' and the other columns' if len(metrics) > 6 else ''}.",
            ),
            expected_outcome=(
                f"{first} is better than {against} on {overall} of the compared columns{ties}. "
                f"Per group, {first} vs. {against}: " + "; ".join(lines[:6]) + "."
            ),
            subsection_source=ctx.section_citing(table.label, table.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables={"compared setting": [first, *others], "group": names[:12]},
                dependent_variables={"metrics": metrics[:12]},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]


def _on(metrics: list[str]) -> str:
    """ " on mIoU (SS) and mIoU (MS)": what a question asks about, when the columns say."""
    # the measure itself where a column names it last ("SetA 12.5% MSE" -> "MSE")
    short = [m.split()[-1] if is_metric(m.split()[-1]) else m for m in metrics if m.strip()]
    named, more = question_measures(short)
    if not named:
        return ""
    return " on " + (", ".join(named) + " and the other columns" if more else and_list(named))


def _cell(grid: Grid, row: int | None, col: int) -> tuple[float, str] | None:
    if row is None or col >= len(grid.values[row]) or not grid.values[row][col]:
        return None
    value = to_float(grid.values[row][col])
    return None if value is None else (value, grid.values[row][col])
