"""Transfer tables: a model trained (or fine-tuned) on each of several datasets, tested on
each of them. The rows are training datasets, not rival methods; what the table shows is
whether training on the test dataset itself does best (the diagonal) and how far the others
carry over."""

from __future__ import annotations

import itertools
import re

from expcurate.records import DesignComplexity, Evidence, Table, TaskDraft
from extractors.numbers import to_float
from extractors.tasks.context import Context, method_text, topic_of
from extractors.tasks.grids import Grid, column_lower, column_name, lower_is_better, plain
from extractors.tasks.phrasing import and_list, share

# A stub header saying the rows are what the model was trained on.
TRAINED_ON = re.compile(
    r"\b(?:fine-?tun\w*|train\w*|source|pre-?train\w*)\s*(?:on\s*)?(?:data\s*sets?|datasets?|"
    r"domains?|corpus|corpora|tasks?|sets?)?\b",
    re.I,
)
# The model a caption names ("of MedAlpaca-7b fine-tuning"): a word with capitals and digits.
MODEL = re.compile(r"\b([A-Z][A-Za-z]+(?:-[A-Za-z0-9.]+)*-\d[\w.]*|[A-Z][a-z]+[A-Z]\w*-\d+\w*)\b")


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", plain(text).lower())


def _name(label: str) -> str:
    return label.split(" / ")[-1]  # the row's own name, its group aside


def transfer_rows(grid: Grid) -> tuple[list[int], dict[int, str]]:
    """Rows named after a test dataset (the columns' groups), and each column's group."""
    groups = {
        j: parts[0] for j, parts in enumerate(grid.header_parts) if parts and parts[0].strip()
    }
    labels = {_key(_name(lab)): _name(lab) for lab in grid.labels}
    # A dataset whose name the header split over two spans ("AW" | "FB" for "AW FB").
    order = list(dict.fromkeys(groups.values()))
    for a, b in itertools.pairwise(order):
        joined = labels.get(_key(a + b))
        if joined:
            groups = {j: joined if g in (a, b) else g for j, g in groups.items()}
    names = {_key(g) for g in groups.values()}
    rows = [
        i for i, lab in enumerate(grid.labels) if _key(_name(lab)) in names and any(grid.values[i])
    ]
    return rows, groups


def is_transfer(table: Table, grid: Grid, rows: list[int], groups: dict[int, str]) -> bool:
    """The stub or caption says what the rows were trained on, and two or more rows are
    named after two or more of the columns' datasets."""
    stub = " ".join(table.rows[0][:1] + [r[0] for r in table.rows[1:3]]) if table.rows else ""
    matched = {_key(_name(grid.labels[i])) for i in rows}
    return (
        bool(TRAINED_ON.search(stub) or TRAINED_ON.search(table.caption))
        and len(matched) >= 2
        and len(set(groups.values())) >= 2
    )


def transfer_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    """One task: is each test dataset's best model the one trained on it?"""
    if not grid.header_parts:
        return []
    rows, groups = transfer_rows(grid)
    if not is_transfer(table, grid, rows, groups):
        return []
    table_lower = lower_is_better(table.caption)
    own = diagonal = 0
    lines: list[str] = []
    for col, group in groups.items():
        key = _key(group)
        if not any(_key(_name(grid.labels[i])) == key for i in rows):
            continue  # no model trained on this test dataset: nothing on the diagonal
        cells = [
            (value, i)
            for i in rows
            if col < len(grid.values[i])
            and grid.values[i][col]
            and (value := to_float(grid.values[i][col])) is not None
        ]
        if len(cells) < 2:
            continue
        lower = column_lower(grid.header[col], table_lower)
        _, best = (min if lower else max)(cells)
        name = _name(grid.labels[best])
        own += 1
        hit = _key(name) == key
        diagonal += hit
        if not hit and len(lines) < 4:
            lines.append(
                f"{column_name(grid.header[col], col)}: trained on {name} {grid.values[best][col]}"
            )
    if own < 2:
        return []
    trained = list(dict.fromkeys(_name(grid.labels[i]) for i in rows))
    tested = list(dict.fromkeys(groups.values()))
    found = MODEL.search(table.caption)
    model = found.group(1) if found else "the model"
    measures = list(dict.fromkeys(h for h in grid.header if h))
    outcome = (
        f"Trained on the test dataset itself, {model} is best on "
        f"{share(diagonal, own)} of the columns whose dataset it was also trained on."
    )
    if lines:
        outcome += " Elsewhere the best comes from another dataset: " + "; ".join(lines) + "."
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:transfer",
            question=(
                f"When {model} is trained on one of {and_list(trained)} and tested on each of "
                f"{and_list(tested)}, does it do best on a test dataset when it was trained on "
                f"that same dataset ({table.label}: {topic_of(table.caption)})?"
            ),
            method=method_text(
                ctx,
                table,
                f"Train {model} on each of {', '.join(trained)} in turn, evaluate every trained "
                f"model on every test dataset, and report {', '.join(measures[:6])}"
                f"{' and the other columns' if len(measures) > 6 else ''}.",
            ),
            expected_outcome=outcome,
            subsection_source=ctx.section_citing(table.label, table.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables={"trained on": trained, "tested on": tested},
                dependent_variables={"metrics": measures[:12]},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]
