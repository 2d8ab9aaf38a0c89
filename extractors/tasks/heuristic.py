"""Offline drafting: tasks read off the paper's structure and findings, no model involved.

Results tables become comparisons of the proposed method against the other rows, ablation
tables one task per ablated component, sweeps and design-choice tables one task each; the
paper's own finding about a table leads its task (`spine`), and figures are drafted in
`figures`. Every number in an expected outcome is copied from a table cell or a sentence of
the paper, so it is grounded by construction. `draft` puts it together, headline first.
"""

from __future__ import annotations

import dataclasses
import itertools
import re

from expcurate.records import (
    DesignComplexity,
    DraftSet,
    Evidence,
    FollowUpIdea,
    ParsedPaper,
    Severity,
    Table,
    TaskDraft,
)
from expcurate.records.names import squash
from extractors.acronyms import definitions, spelled_out, spelled_sentence
from extractors.citations import citation_after, cited_sentence, cited_works
from extractors.numbers import find_numbers, to_float
from extractors.tasks.claims import (
    Claim,
)
from extractors.tasks.context import (
    GENERIC,
    TAKEAWAY,
    Context,
    about_efficiency,
    called,
    caption_constants,
    caption_values,
    clean_title,
    lower_first,
    method_text,
    names_method,
    sentences,
    text_setting,
    topic_of,
)
from extractors.tasks.factors import factor_tasks
from extractors.tasks.figures import (
    figure_tasks,
)
from extractors.tasks.grids import (
    COST,
    EFFICIENCY_CAPTION,
    HIGHER_BETTER,
    LOWER_BETTER,
    Grid,
    best_row,
    caption_metrics,
    column_lower,
    column_name,
    family,
    fold_metrics,
    is_metric,
    is_results_table,
    is_sweep,
    lower_is_better,
    not_a_method,
    only_lower_metrics,
    question_measures,
    read_grid,
    tiers,
    transpose,
)
from extractors.tasks.phrasing import and_list, names_any, share
from extractors.tasks.spine import (
    claim_task,
    fits_table,
    lead_with_claims,
    priority,
    subject_row,
    table_numbers,
)
from extractors.tasks.transfer import transfer_tasks

ABLATION_ROW = re.compile(r"^\s*(w/o|w\.o\.|without|\+|-\s|–|no\s|remove|replace|only)", re.I)


SUMMARY_ROW = re.compile(r"\b(avg|average|mean|median|count|total|sum)\b", re.I)


ABLATION_CAPTION = re.compile(r"ablat|component|variant|w/o", re.I)


FUTURE = re.compile(
    r"\b(future work|left for future|in the future|limitations?|could be extended|we plan to|"
    r"leave .{0,40} (to|for) future|remains? open|open question)\b",
    re.I,
)


def _own_row(grid: Grid, method: str) -> int | None:
    """The row of the paper's method. With several (sizes, variants), the one the authors
    bolded most; among equals the last, where tables put the largest or full model."""
    rows = [i for i, lab in enumerate(grid.labels) if names_method(lab, method)]
    if not rows:
        return None
    bold = {i: sum(grid.bold[i]) if i < len(grid.bold) else 0 for i in rows}
    return max(reversed(rows), key=lambda i: bold[i])


def _row_name(label: str) -> str:
    """A row's own name without its group or ownership mark: "CIFAR-10 / ICH + CCH" and
    "ImageNet-10 / ICH + CCH" are one method; so are "PromptSub+ (ours)" and "PromptSub+"."""
    last = label.split(" / ")[-1]
    return squash(re.sub(r"[(\[](?:ours|this work)[)\]]|[*†‡]", "", last, flags=re.I))


def _summary_rows(grid: Grid) -> set[int]:
    """Rows that sum the others up ("Average", "1st Count"): the best values, not a method."""
    names = [
        next((p for p in reversed(grid.parts[i]) if p), lab) if i < len(grid.parts) else lab
        for i, lab in enumerate(grid.labels)
    ]
    return {i for i, n in enumerate(names) if SUMMARY_ROW.search(n)}


def _most_bold(grid: Grid) -> tuple[Grid, int | None]:
    """The row the authors bolded most, as the paper's own method. When the bold cells gather
    in a column instead (one bold per row: each row's best method) and the columns are not
    metrics, methods are the columns: the grid comes back transposed."""
    skip = _summary_rows(grid)
    bold = [row if i not in skip else [False] * len(row) for i, row in enumerate(grid.bold)]
    by_row = [sum(row) for row in bold]
    if not by_row or max(by_row) == 0:
        return grid, None
    by_col = [sum(row[j] for row in bold if j < len(row)) for j in range(len(grid.header))]
    one_per_row = sorted(c for c in by_row if c)[sum(1 for c in by_row if c) // 2] == 1
    metric_columns = sum(is_metric(h) for h in grid.header) * 2 >= len(grid.header)
    if one_per_row and not metric_columns and max(by_col, default=0) > max(by_row):
        grid = fold_metrics(transpose(grid))
        skip = _summary_rows(grid)
        by_row = [0 if i in skip else sum(row) for i, row in enumerate(grid.bold)]
    return grid, (by_row.index(max(by_row)) if max(by_row) else None)


def comparison_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    in_rows = any(names_method(lab, ctx.method) for lab in grid.labels)
    metric_rows = all(is_metric(lab) for lab in grid.labels if lab)
    if not in_rows and (metric_rows or any(names_method(h, ctx.method) for h in grid.header)):
        grid = transpose(grid)  # methods are the columns
    grid = fold_metrics(grid)
    ours = _own_row(grid, ctx.method)
    if ours is None:  # the row the paper's findings on this table are about
        ours = subject_row(grid, ctx.claims_about(table.label))
    if ours is None and not grid.settings_rows:
        grid, ours = _most_bold(grid)
    if ours is None or not re.search(r"[A-Za-z]{2}", grid.labels[ours]):
        return best_row_tasks(ctx, table, grid)
    name = grid.labels[ours]
    caption_lower = (
        lower_is_better(table.caption)
        or bool(EFFICIENCY_CAPTION.search(table.caption))
        or only_lower_metrics(table)
    )
    efficiency = about_efficiency(table)
    # Never a rival: the method's own variants (sizes, ablations), summary and reference rows.
    own = {i for i, lab in enumerate(grid.labels) if i == ours or names_method(lab, ctx.method)}
    own |= {i for i, lab in enumerate(grid.labels) if not_a_method(lab)}
    # The same method in another block of the table (another dataset, size or section).
    own |= {i for i, lab in enumerate(grid.labels) if _row_name(lab) == _row_name(name)}
    if len(tiers(grid, family(name))) >= 2:  # sizes set apart, each with its own rivals
        other_blocks = {i for i, b in enumerate(grid.blocks) if b != grid.blocks[ours]}
        if any(i not in own | other_blocks for i in range(len(grid.labels))):
            own |= other_blocks
    rivals = Grid(
        grid.header,
        grid.labels,
        [v if i not in own else [""] * len(v) for i, v in enumerate(grid.values)],
        grid.bold,
    )
    if len(own) == len(grid.labels):  # every row is a variant of the method: which is best
        return best_row_tasks(ctx, table, grid)
    wins, comparisons, metrics = [], [], []
    rival_rows: list[int] = []
    for col, head in enumerate(grid.header):
        if col >= len(grid.values[ours]) or not grid.values[ours][col]:
            continue
        if COST.search(head) and not efficiency:
            continue  # size and cost are what the method pays, not how well it does
        lower = column_lower(head, caption_lower)
        best_other = best_row(rivals, col, lower)
        if best_other is None:
            continue
        mine, theirs = to_float(grid.values[ours][col]), to_float(grid.values[best_other][col])
        if mine is None or theirs is None:
            continue
        better = mine < theirs if lower else mine > theirs
        wins.append(better)
        rival_rows.append(best_other)
        metrics.append(column_name(head, col))
        comparisons.append(
            f"{column_name(head, col)}: {name} {grid.values[ours][col]} vs. "
            f"{grid.labels[best_other]} {grid.values[best_other][col]}"
        )
    if not comparisons:
        return []
    baselines = [lab for i, lab in enumerate(grid.labels) if i not in own and lab and lab != name]
    baselines = list(dict.fromkeys(baselines))
    cited = {grid.labels[i] for i in rival_rows}  # the rivals the outcome names
    if not baselines:  # the other rows have no names to compare with
        return best_row_tasks(ctx, table, grid)
    won = sum(wins)
    verdict = (
        f"{name} is best on {won} of {len(wins)} reported columns"
        if won
        else f"{name} does not beat the strongest alternative on any reported column"
    )
    shown = comparisons[:8]
    more = (
        f" (and {len(comparisons) - len(shown)} more columns)"
        if len(comparisons) > len(shown)
        else ""
    )
    outcome = f"{verdict} of {table.label}. " + "; ".join(shown) + more + "."
    rival_names = (
        ", ".join(baselines[:4]) + " and the other baselines"
        if len(baselines) > 4
        else and_list(baselines)
    )
    # Named columns only, and none whose name holds a decimal (a threshold reads as a result).
    measures = [
        m
        for m in dict.fromkeys(metrics)
        if not m.startswith("column ")
        and not any("." in n for n in find_numbers(m))
        and not re.search(r"\s\d+$", m)
    ]
    listed, cut = question_measures(measures, costs=efficiency)
    on = ", ".join(listed) + " and the other columns" if cut else and_list(listed)
    question = (
        f"How does {called(name, ctx.method)} compare with {rival_names}"
        f"{f' on {on}' if on else ''} in {table.label} ({topic_of(table.caption)})?"
    )
    what = f"Train and evaluate {name} and the compared methods "
    what += f"({', '.join(_some(baselines, cited, 8))}) "
    what += f"and report {', '.join(dict.fromkeys(metrics[:6]))}."
    section = ctx.section_citing(table.label, table.section)
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:compare",
            question=question,
            method=method_text(ctx, table, what),
            expected_outcome=outcome,
            subsection_source=section,
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables={"method": [name, *_some(baselines, cited, 12)]},
                dependent_variables={"metrics": list(dict.fromkeys(metrics))[:12]},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]


def _some(names: list[str], must: set[str], k: int) -> list[str]:
    """Up to k names in their order, keeping every one of `must` (the rivals an outcome cites
    are never cut from the list that names what to run)."""
    room = max(0, k - len([n for n in names if n in must]))
    kept, others = [], 0
    for n in names:
        if n in must:
            kept.append(n)
        elif others < room:
            kept.append(n)
            others += 1
    return kept


def ablation_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    full = next(
        (
            i
            for i, lab in enumerate(grid.labels)
            if names_method(lab, ctx.method) or re.search(r"\b(full|ours|complete)\b", lab, re.I)
        ),
        None,
    )
    variants = [i for i, lab in enumerate(grid.labels) if ABLATION_ROW.search(lab) and i != full]
    if full is None or not variants:
        return []
    where = [
        f"{name.removesuffix(' measured on')} on {dataset}"
        for name, dataset in caption_constants(table.caption).items()
        if name.endswith(" measured on")
    ]
    named, cut = question_measures(grid.header)
    listed = ", ".join(named) + " and the other columns" if cut else and_list(named)
    measured = f" on {' and '.join(where)}" if where else (f" on {listed}" if named else "")
    table_lower = lower_is_better(table.caption) or only_lower_metrics(table)
    scored = [
        c for c in range(len(grid.header)) if c < len(grid.values[full]) and grid.values[full][c]
    ]
    results, verdicts, kept = [], [], []
    for i in variants:
        cells = [
            f"{column_name(grid.header[c], c)} {grid.values[i][c]}"
            for c in scored
            if c < len(grid.values[i]) and grid.values[i][c]
        ]
        if not cells:
            continue
        worse, of = _worse_columns(grid, full, i, table_lower)
        kept.append(i)
        verdicts.append((worse, of))
        results.append(
            f"'{grid.labels[i]}' "
            + (
                f"is worse on {share(worse, of)} of the scored columns ({', '.join(cells[:6])})"
                if of
                else f"gives {', '.join(cells[:6])}"
            )
        )
    if not kept:
        return []
    reference = ", ".join(
        f"{column_name(grid.header[c], c)} {grid.values[full][c]}" for c in scored[:6]
    )
    if all(of and worse == of for worse, of in verdicts):
        lead = (
            f"{'Every' if len(kept) > 1 else 'The'} variant is worse than the full model "
            f"({reference}) on all of the scored columns"
        )
    else:
        lead = f"Against the full model ({reference})"
    names = [grid.labels[i] for i in kept]
    which = (
        f"the variant '{names[0]}'"
        if len(names) == 1
        else "each variant (" + "; ".join(f"'{n}'" for n in names) + ")"
    )
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:ablation",
            question=(
                f"How does {which} compare with the {_full_name(grid.labels[full])}"
                f"{measured} in {table.label} ({topic_of(table.caption)})?"
            ),
            method=method_text(
                ctx,
                table,
                f"Train the full model ({grid.labels[full]}) and "
                + (
                    f"the variant '{names[0]}'"
                    if len(names) == 1
                    else "each variant (" + "; ".join(names) + ")"
                )
                + " under identical settings and compare them.",
            ),
            expected_outcome=f"{lead}: " + "; ".join(results) + ".",
            subsection_source=ctx.section_citing(table.label, table.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables={"component": [grid.labels[full], *names]},
                dependent_variables={"metrics": [h for h in grid.header if h][:12]},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]


def _worse_columns(grid: Grid, full: int, variant: int, table_lower: bool) -> tuple[int, int]:
    """On how many of the scored columns the variant does worse than the full model, of how
    many (cost columns, what the model pays, are not scored)."""
    worse = scored = 0
    for c, head in enumerate(grid.header):
        if COST.search(head) or c >= len(grid.values[variant]):
            continue
        a, b = to_float(grid.values[full][c] or ""), to_float(grid.values[variant][c] or "")
        if a is None or b is None:
            continue
        scored += 1
        worse += (b > a) if column_lower(head, table_lower) else (b < a)
    return worse, scored


def _full_name(label: str) -> str:
    """ "SegNeXt" -> "full SegNeXt"; a label that already says full stays as it is."""
    return label[0].lower() + label[1:] if re.match(r"full\b", label, re.I) else f"full {label}"


def best_row_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    """No row is the paper's own method: ask which compared row is best per column."""
    if sum(is_metric(lab) for lab in grid.labels) * 2 > len(grid.labels):
        grid = transpose(grid)  # metrics down the side: the settings are the columns
    caption_lower = lower_is_better(table.caption)
    efficiency = about_efficiency(table)
    lines, metrics, winners = [], [], []
    for col, head in enumerate(grid.header):
        if COST.search(head) and not efficiency:
            continue  # the cheapest row is not the best one
        lower = column_lower(head, caption_lower)
        best = best_row(grid, col, lower)
        if best is None:
            continue
        name = column_name(head, col)
        metrics.append(name)
        value = to_float(grid.values[best][col])
        tied = list(
            dict.fromkeys(
                grid.labels[i]
                for i, row in enumerate(grid.values)
                if col < len(row) and row[col] and to_float(row[col]) == value
            )
        )
        winners.append(tied)
        tie = ", tied" if len(tied) > 1 else ""
        lines.append(f"{name}: {' and '.join(tied)} ({grid.values[best][col]}{tie})")
    if not lines or len(set(grid.labels)) < 2:
        return []
    names = [n for won in winners for n in won]
    top = max(dict.fromkeys(names), key=names.count)  # ties: the first to win
    shares = any(top in won and len(won) > 1 for won in winners)
    rows = list(dict.fromkeys(lab for lab in grid.labels if lab))
    shown = lines[:8]
    more = f" (and {len(lines) - len(shown)} more columns)" if len(lines) > len(shown) else ""
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:best",
            question=_best_question(table, rows, list(dict.fromkeys(metrics))),
            method=method_text(ctx, table, f"Run each of: {', '.join(rows[:10])}."),
            expected_outcome=(
                f"{top} is best{' or tied' if shares else ''} on "
                f"{sum(top in won for won in winners)} of {len(winners)} columns. Best per column: "
                + "; ".join(shown)
                + more
                + "."
            ),
            subsection_source=ctx.section_citing(table.label, table.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables={"setting": rows[:16]},
                dependent_variables={"metrics": list(dict.fromkeys(metrics))[:12]},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]


def _best_question(table: Table, rows: list[str], metrics: list[str]) -> str:
    """Which of the compared rows does best, naming them, the measured quantity and the
    setting (the caption's subject)."""
    shown = ", ".join(rows[:4]) + (" and the others" if len(rows) > 4 else "")
    measured = " and ".join(m for m in metrics[:2] if not m.startswith("column")) or "results"
    return (
        f"Which of {shown} achieves the best {measured} in {lower_first(topic_of(table.caption))}?"
    )


def sweep_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    """A table whose rows are the values of one setting (layers 10, 20, 30): how each measured
    column moves along the setting, with what it costs beside it."""
    caption_lower = lower_is_better(table.caption) or only_lower_metrics(table)
    efficiency = about_efficiency(table)
    row_var = (table.rows[0][0].strip() if table.rows and table.rows[0] else "") or "the setting"
    measured: list[tuple[str, list[tuple[str, str]], bool]] = []
    costs: list[tuple[str, list[tuple[str, str]], bool]] = []
    for j, head in enumerate(grid.header):
        series = [
            (grid.labels[i], row[j])
            for i, row in enumerate(grid.values)
            if j < len(row) and row[j] and to_float(row[j]) is not None
        ]
        if len(series) < 2:
            continue
        name = head or f"column {j + 2}"
        kind = costs if COST.search(head) and not efficiency else measured
        kind.append((name, series, column_lower(head, caption_lower)))
    if not measured:
        return []
    # Columns that are a second setting ("D = 64", "D = 128"): the caption names the measure.
    two_way = all(SETTING_HEAD.fullmatch(name) for name, _, _ in measured)
    measure = _measure(table.caption) if two_way else ""
    if two_way:
        measured = [(f"with {name}, {measure}", se, lo) for name, se, lo in measured]
    best_at = [_best_setting(series, lower) for _, series, lower in measured]
    top = max(set(best_at), key=best_at.count)
    lines = [_trend(name, series, lower, row_var) for name, series, lower in measured[:4]]
    more = f" (and {len(measured) - 4} more columns)" if len(measured) > 4 else ""
    outcome = "; ".join(lines) + more + "."
    outcome = outcome[0].upper() + outcome[1:]
    if len(measured) > 1:
        outcome += f" {row_var} {top} is best on {share(best_at.count(top), len(best_at))} columns."
    if costs:
        cost = "; ".join(_trend(n, se, lo, row_var) for n, se, lo in costs[:2])
        outcome += f" Cost: {cost}."
    settings = list(dict.fromkeys(grid.labels))
    names = [name for name, _, _ in measured]
    shown = ", ".join(names[:3]) + (" and the other columns" if len(names) > 3 else "")
    varied: dict[str, str | list[str]] = {row_var: settings}
    if two_way:
        names = [h for h in grid.header if h]
        form = SETTING_HEAD.fullmatch(names[0])
        column_var = form.group(1) if form and form.group(1) else "column setting"
        shown = f"{measure} (for each {column_var})"
        varied[column_var] = names
        names = [measure]
    topic = topic_of(table.caption)
    # Whose setting it is, when neither the caption nor the column names say.
    of = (
        f" of {ctx.method}"
        if ctx.method and ctx.method.lower() not in f"{topic} {shown}".lower()
        else ""
    )
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:sweep",
            question=f"How does {shown}{of} change as {row_var} varies ({', '.join(settings[:6])}) "
            f"in {table.label} ({topic}), and which {row_var} is best?",
            method=method_text(
                ctx, table, f"Run every setting of {row_var} in {table.label} and report {shown}."
            ),
            expected_outcome=outcome,
            subsection_source=ctx.section_citing(table.label, table.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables=varied,
                dependent_variables={"metrics": names[:12] + [n for n, _, _ in costs][:3]},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]


SETTING_HEAD = re.compile(r"(?:([A-Za-z][\w ]{0,20}?)\s*=\s*)?[\d.]+%?")


def _measure(caption: str) -> str:
    """What a sweep table measures, as its caption names it ("test MSE"), else "the result"."""
    m = LOWER_BETTER.search(caption) or HIGHER_BETTER.search(caption)
    if m is None:
        return "the result"
    before = caption[: m.start()].split()
    lead = (
        before[-1]
        if before and before[-1].lower() in ("test", "validation", "val", "train")
        else ""
    )
    return f"{lead} {m.group(0)}".strip()


def _best_setting(series: list[tuple[str, str]], lower: bool) -> str:
    pick = min if lower else max
    return pick(series, key=lambda p: to_float(p[1]) or 0.0)[0]


def _trend(name: str, series: list[tuple[str, str]], lower: bool, unit: str = "") -> str:
    """How one column moves along the setting, in the table's own numbers ("at Layers 10")."""
    at = f"at {unit} " if unit else "at "
    values = [to_float(v) or 0.0 for _, v in series]
    (s0, v0), (sn, vn) = series[0], series[-1]  # the cells as printed
    steps = [b - a for a, b in itertools.pairwise(values)]
    if all(d > 0 for d in steps):
        return f"{name} rises from {v0} {at}{s0} to {vn} {at}{sn}"
    if all(d < 0 for d in steps):
        return f"{name} falls from {v0} {at}{s0} to {vn} {at}{sn}"
    best = _best_setting(series, lower)
    value = next(v for k, v in series if k == best)
    return f"{name} is best {at}{best} ({value}), against {v0} at {s0} and {vn} at {sn}"


def takeaways(paper: ParsedPaper) -> list[str]:
    texts = [paper.abstract] + [
        s.text for s in paper.sections if re.search(r"conclu", s.title, re.I)
    ]
    found = [s for t in texts for s in sentences(t) if TAKEAWAY.search(s)]
    return list(dict.fromkeys(found))[:6]


def follow_ups(paper: ParsedPaper) -> list[FollowUpIdea]:
    ideas = []
    for s in paper.sections:
        if s.appendix:
            continue
        for sent in sentences(s.text):
            if FUTURE.search(sent):
                ideas.append(FollowUpIdea(idea=sent, subsection_source=clean_title(s.heading)))
    return ideas[:5]


def draft(paper: ParsedPaper) -> DraftSet:
    ctx = Context(paper)
    result = DraftSet(main_takeaways=takeaways(paper), follow_up_work_ideas=follow_ups(paper))
    seen: set[str] = set()
    appendix = {clean_title(s.heading) for s in paper.sections if s.appendix}
    discussed = {lab for c in ctx.claims for lab in c.labels}
    numbers = [table_numbers(t) for t in paper.tables]
    settings = {t.label: caption_constants(t.caption).get("setting", "") for t in paper.tables}
    grids = {t.label: _called(read_grid(t), ctx.method) for t in paper.tables}
    asked: dict[tuple[str, str, str] | None, TaskDraft] = {}  # see _asked_key
    for table in paper.tables:
        grid = grids[table.label]
        others = [numbers[i] for i, t in enumerate(paper.tables) if t is not table]
        claims = [
            c
            for c in ctx.claims_about(table.label)
            if fits_table(c, table, grid, others)
            and not _about_elsewhere(c, table, settings)
            and not _rows_elsewhere(c, table, grids)
        ]
        headline = table.label in ctx.headline
        if clean_title(table.section) in appendix and not claims and not headline:
            continue  # an appendix table no sentence discusses: last, if at all
        if grid is not None and not is_results_table(table, grid):
            continue
        drafts = _table_drafts(ctx, table, grid) if grid is not None else []
        drafts = [_caption_metric(d, table.caption) for d in drafts]
        topic = topic_of(table.caption)
        drafts = [lead_with_claims(d, claims, ctx.method, grid, ctx.used, topic) for d in drafts]
        if not drafts and headline:
            drafts = _claim_only(ctx, table, claims)
        if grid is None and not drafts:
            result.add_error(
                "tasks",
                "table",
                f"{table.label}: no numeric cells to draft from",
                severity=Severity.warning,
                page=table.page,
            )
        fixed = caption_constants(table.caption) or text_setting(ctx, table.label)
        cells = frozenset(c.strip() for row in table.rows for c in row)
        fixed = {**fixed, **caption_values(table.caption, cells)}  # "(ρ = 50)"
        for d in drafts:
            asked_as = _asked_key(d, table.caption)
            if asked_as in asked:  # one task, citing both tables
                twin = asked[asked_as]
                twin.evidence += [e for e in d.evidence if e not in twin.evidence]
                continue
            if d.key not in seen:
                seen.add(d.key)
                d.design_complexity.constant_variables = {
                    **fixed,
                    **d.design_complexity.constant_variables,
                }
                task = _with_setting(d, fixed.get("setting", ""), table.label)
                result.tasks.append(task)
                if asked_as is not None:
                    asked[asked_as] = task
    for figure in paper.figures:
        # "... across the training on ImageNet-10", "(K = 5)"
        fixed = {**caption_constants(figure.caption), **caption_values(figure.caption)}
        for d in figure_tasks(ctx, figure):
            if d.key not in seen:
                seen.add(d.key)
                d.design_complexity.constant_variables = {
                    **fixed,
                    **d.design_complexity.constant_variables,
                }
                result.tasks.append(_with_setting(d, fixed.get("setting", ""), figure.label))
    cites = _citing_text(paper)
    result.tasks = [_with_cited(d, cites, ctx.method) for d in result.tasks]
    spelled = "\n".join([paper.abstract, *(s.text for s in paper.sections)])
    result.tasks = [_with_spelled(d, spelled, ctx.method) for d in result.tasks]
    result.tasks.sort(key=lambda d: priority(d, ctx.headline, discussed))
    return result


# what a task's rows are run on or grouped by (data sets, models), not compared methods
_WHERE_RUN = re.compile(
    r"\b(?:group|data|dataset|datasets|benchmark|benchmarks|task|tasks)\b", re.I
)
# a variant of the authors' method ("w/ Ham", "+ CoT"), whatever work its part comes from
_VARIANT = re.compile(r"\s*(?:w/o?(?![a-z])|with\b|without\b|no\b|\+|-\s)", re.I)


def _citing_text(paper: ParsedPaper) -> str:
    """Where a paper cites the works it compares with: its text, and its tables' cells as
    printed ("VAN-Tiny [24]"), one cell per line."""
    cells = ["\n".join(c for row in t.rows for c in row if c) for t in paper.tables]
    return "\n".join([*(s.text for s in paper.sections), *cells])


def _compared_values(draft: TaskDraft) -> list[str]:
    """The values of the draft's varied design variables, less what the rows are run on
    (data sets, models of a "group"), as written."""
    return [
        str(v)
        for variable, values in draft.design_complexity.independent_variables.items()
        if not _WHERE_RUN.search(variable)
        for v in (values if isinstance(values, list) else [values])
    ]


def _with_cited(draft: TaskDraft, text: str, method: str) -> TaskDraft:
    """The draft with what its method says of the compared names the paper cites ("The paper
    cites OE (Hendrycks, Mazeika, and Dietterich 2019) and PASCL (Wang et al. 2022) as prior
    work."): which rows are others' methods. Never the paper's own method, a variant of it
    ("w/ Ham [21]"), nor what the rows are run on (data sets, models of a "group")."""
    names = [
        v.strip()
        for v in _compared_values(draft)
        if v.strip() and not names_method(v, method) and not _VARIANT.match(v)
    ]
    # a name the method cites already ("an MLP-Mixer [4] with the same patching") is said
    said = cited_sentence(
        {n: c for n, c in cited_works(text, names).items() if not citation_after(draft.method, n)}
    )
    if not said:
        return draft
    return draft.model_copy(update={"method": f"{draft.method} {said}".strip()})


def _with_spelled(draft: TaskDraft, text: str, method: str) -> TaskDraft:
    """The draft with what its method says of the acronyms its compared names use, as the
    paper spells them out ("The paper spells out ICH as instance-level contrastive head, and
    CCH as cluster-level contrastive head."): what "ICH Only" keeps, for whoever runs the
    task without the paper. Never the paper's own method's name, a field-wide acronym (CNN),
    what the rows are run on (data sets, models of a "group"), nor one the task spells out
    already ("multi-scale convolutional attention (MSCA)" in a caption)."""
    said = f"{draft.question}\n{draft.method}"
    found = {
        a: long
        for a, long in definitions(text, _compared_values(draft), skip={method, *GENERIC}).items()
        if not spelled_out(said, a)
    }
    if not found:
        return draft
    return draft.model_copy(update={"method": f"{draft.method} {spelled_sentence(found)}"})


_LABEL = re.compile(r"\b(?:Table|Tab\.|Figure|Fig\.)\s*[A-Z]?\d+\b[:.]?")


def _asked_key(draft: TaskDraft, caption: str) -> tuple[str, str, str] | None:
    """What makes two tables' drafts the same experiment reported twice (an appendix table
    repeating a main one with more rows): the same kind (`table-3:compare`,
    `table-17:compare`), the same caption title (its first sentence, the label aside, at least
    five words), and the same method asked about."""
    text = " ".join(_LABEL.sub("", caption).split()).partition(". ")[0]  # its title
    if len(text.split()) < 5:
        return None
    focus = _LABEL.sub("", draft.question).partition(" compare with ")[0]
    return draft.key.rpartition(":")[2], text, focus


def _table_drafts(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    is_ablation = (
        ABLATION_CAPTION.search(table.caption)
        or sum(bool(ABLATION_ROW.search(lab)) for lab in grid.labels) >= 2
    )
    drafts = transfer_tasks(ctx, table, grid) or factor_tasks(ctx, table, grid)
    drafts = drafts or (ablation_tasks(ctx, table, grid) if is_ablation else [])
    drafts = drafts or (sweep_tasks(ctx, table, grid) if is_sweep(grid) else [])
    return drafts or comparison_tasks(ctx, table, grid)


def _about_elsewhere(claim: Claim, table: Table, settings: dict[str, str]) -> bool:
    """A finding that names the dataset another table's caption is about, and not this
    table's ("On CIFAR100-LT, our approach …" beside the CIFAR10-LT table), is that table's.
    When this table's caption names no dataset, the finding must be set on the other one
    ("… on the Pascal VOC 2012 leaderboard") and the name must appear nowhere in this table."""
    own, said = settings.get(table.label, ""), f"{claim.context} {claim.text}".strip()
    if own and own.lower() in said.lower():
        return False
    here = squash(" ".join([table.caption, *(cell for row in table.rows for cell in row)]))
    on = "" if own else r"\b[Oo]n (?:the )?"
    return any(
        other
        and other != own
        and (own or not all(squash(w) in here for w in re.split(r"[\s/_-]+", other) if w))
        and re.search(rf"{on}(?<![\w-]){re.escape(other)}(?![\w-])", said)
        for label, other in settings.items()
        if label != table.label
    )


def _called(grid: Grid | None, method: str) -> Grid | None:
    """The grid with a row the table calls "Ours" named as the paper names its method ("EAT
    (Ours)"), so that every question, method text and outcome says which method it is."""
    if grid is None or not method:
        return grid
    return dataclasses.replace(
        grid,
        labels=[called(lab, method) for lab in grid.labels],
        parts=[[called(part, method) for part in row] for row in grid.parts],
    )


def _rows_elsewhere(claim: Claim, table: Table, grids: dict[str, Grid | None]) -> bool:
    """A finding citing several tables ("As shown in Tab. 8 and Tab. 3, SegNeXt w/ MSCA beats
    w/o MSCA") belongs to those whose row names it uses: when it shares a word with the row
    labels of another table it cites and none with this one's, it is not about this one."""
    if len(claim.labels) < 2 or claim.inferred_labels:
        return False
    said = set(_words(claim.text))

    def named(label: str) -> bool:
        grid = grids.get(label)
        return grid is not None and bool(said & {w for lab in grid.labels for w in _words(lab)})

    return not named(table.label) and any(named(lab) for lab in claim.labels if lab != table.label)


def _words(text: str) -> list[str]:
    """Words of three or more letters or digits, lower case, without the commonest."""
    return [w for w in re.findall(r"[a-z0-9]{3,}", text.lower()) if w not in COMMON_WORDS]


COMMON_WORDS = frozenset(
    [
        "the",
        "and",
        "with",
        "for",
        "our",
        "than",
        "that",
        "this",
        "are",
        "from",
        "all",
        "which",
        "more",
        "less",
        "better",
        "worse",
        "results",
        "model",
        "models",
        "method",
        "methods",
        "performance",
        "base",
        "large",
        "small",
    ]
)


def _with_setting(draft: TaskDraft, setting: str, label: str) -> TaskDraft:
    """The question names the dataset the table is measured on when it does not yet."""
    marker = f" in {label} ("
    if not setting or setting.lower() in draft.question.lower() or marker not in draft.question:
        return draft
    question = draft.question.replace(marker, f" on {setting}{marker}", 1)
    return draft.model_copy(update={"question": question})


def _caption_metric(draft: TaskDraft, caption: str) -> TaskDraft:
    """A draft whose columns mostly name no metric (datasets, settings) measures what the caption
    says ("F1-score for each dataset"): that is its `metric`, and its comparison question
    names it."""
    measured = draft.design_complexity.dependent_variables
    flat = [m for v in measured.values() if isinstance(v, list) for m in v if isinstance(m, str)]
    metrics = caption_metrics(caption)
    if not metrics or sum(map(is_metric, flat)) >= len(flat) / 2:
        return draft
    design = draft.design_complexity.model_copy(deep=True)
    design.dependent_variables["metric"] = metrics
    question = draft.question
    marker = f" in {draft.evidence[0].label} (" if draft.evidence else ""
    said_already = names_any(question, metrics)
    if marker and marker in question and question.startswith("How does ") and not said_already:
        head = question.split(marker, 1)[0]
        said = f" ({and_list(metrics)})" if " on " in head else f" on {and_list(metrics)}"
        question = question.replace(marker, said + marker, 1)
    return draft.model_copy(update={"design_complexity": design, "question": question})


def _claim_only(ctx: Context, table: Table, claims: list[Claim]) -> list[TaskDraft]:
    """A headline table whose cells could not be compared still gets its finding as a task."""
    base = TaskDraft(
        question="",
        method=method_text(ctx, table, f"Run the experiment reported in {table.label}."),
        subsection_source=ctx.section_citing(table.label, table.section),
        design_complexity=DesignComplexity(constant_variables=dict(ctx.constants)),
        evidence=[Evidence(kind="table", label=table.label, page=table.page)],
    )
    key = f"{table.label.lower().replace(' ', '-')}:claim"
    task = claim_task(key, claims, ctx.method, base)
    return [task] if task is not None else []


__all__ = ["draft"]
