"""Offline drafting: tasks read off the paper's structure, no model involved.

Results tables become comparisons of the proposed method against the other rows, ablation
tables one task per ablated component, and captioned figures trend questions whose outcome is
the paper's own sentence about the figure. Every number in an expected outcome is copied from
a table cell or a sentence of the paper, so it is grounded by construction.
"""

from __future__ import annotations

import re

from expcurate.records import (
    Axis,
    DesignComplexity,
    DraftSet,
    Evidence,
    Figure,
    FollowUpIdea,
    ParsedPaper,
    Severity,
    Table,
    TaskDraft,
)
from expcurate.records.names import slug, squash
from extractors.numbers import find_numbers, to_float
from extractors.tasks.claims import (
    Claim,
    cited_labels,
    claims_for,
    find_claims,
    headline_labels,
)
from extractors.tasks.grids import (
    CITATION,
    COST,
    HIGHER_BETTER,
    Grid,
    best_row,
    fold_metrics,
    is_metric,
    is_results_table,
    is_sweep,
    lower_is_better,
    not_a_method,
    only_lower_metrics,
    read_grid,
    transpose,
)
from extractors.tasks.phrasing import claim_question, trend_variable
from extractors.tasks.spine import (
    claim_task,
    claim_text,
    findings,
    fits_table,
    lead_with_claims,
    priority,
    table_numbers,
)

ABLATION_ROW = re.compile(r"^\s*(w/o|w\.o\.|without|\+|-\s|–|no\s|remove|replace|only)", re.I)
SUMMARY_ROW = re.compile(r"\b(avg|average|mean|median|count|total|sum)\b", re.I)
ABLATION_CAPTION = re.compile(r"ablat|component|variant|w/o", re.I)
EFFICIENCY_CAPTION = re.compile(r"efficien|runtime|speed|memory|flops|throughput|latency", re.I)
SETUP_TITLE = re.compile(
    r"setup|setting|implementation|dataset|benchmark|baseline|training|hyper|protocol", re.I
)
HYPER_SENTENCE = re.compile(
    r"learning rate|batch size|epoch|optimizer|adam|sgd|dropout|weight decay|warm-?up|"
    r"hidden (size|dim)|layers?|heads?|seed|steps|lr\b|temperature|beam",
    re.I,
)
PROCEDURE = re.compile(
    r"\b(we (train|evaluate|use|adopt|follow|run|conduct|test|fine-?tune|pre-?train|measure|"
    r"report|compare|implement|set|apply|consider|sample)|(is|are|was|were) (trained|evaluated|"
    r"run|tested|measured|fine-?tuned|averaged|computed|implemented|conducted)|following)\b",
    re.I,
)
# Sentences that describe other work or write formulas, not how this experiment was run.
NOT_SETUP = re.compile(r"\[\d[\d,\s–-]*\]|\bet al\b|[∈∑∏≤≥⊆→]|\bprior work|\bprevious work", re.I)
SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")
TAKEAWAY = re.compile(
    r"\b(we (show|demonstrate|find|observe|propose|introduce)|outperform\w*|state-of-the-art|"
    r"achiev\w*|improv\w*|consistently|reduc\w*|lower|higher|better|fewer|faster|surpass\w*)\b",
    re.I,
)
FUTURE = re.compile(
    r"\b(future work|left for future|in the future|limitations?|could be extended|we plan to|"
    r"leave .{0,40} (to|for) future|remains? open|open question)\b",
    re.I,
)


def sentences(text: str) -> list[str]:
    flat = re.sub(r"\s+", " ", text).strip()
    return [s.strip() for s in SENTENCE_SPLIT.split(flat) if len(s.strip()) > 20]


def clean_title(text: str) -> str:
    """Section titles as printed, without hyphenation or spacing artifacts."""
    text = re.sub(r"(\w)-\s+(\w)", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip(" .:")


# ------------------------------------------------------------------ proposed method


NAMED = re.compile(
    r"\b(?:called|named|dubbed|termed|coined)\s+((?:[A-Z][\w-]*\s*){1,4})(?:\(([A-Z][\w-]{1,15})\))?"
)
PROPOSE = re.compile(
    r"\b(?:we|this paper|this work)\s+(?:\w+\s+)?(?:propose|present|introduce)", re.I
)
ACRONYM = re.compile(r"\(([A-Z][A-Za-z0-9-]{1,15})\)")
# Field-wide acronyms that name no one paper's method.
GENERIC = frozenset(
    {
        "AI",
        "ML",
        "NLP",
        "LLM",
        "LM",
        "RL",
        "GPU",
        "CPU",
        "API",
        "SOTA",
        "CV",
        "DL",
        "NN",
        "QA",
        "GNN",
        "CNN",
        "RNN",
        "MLP",
        "OOD",
        "VQA",
        "ASR",
        "MT",
        "IR",
        "KG",
    }
)
CAMEL = re.compile(r"\b([A-Z][a-z0-9]*[A-Z][\w-]*|[A-Z]{2,}[\w-]*)\b")


def proposed_method(paper: ParsedPaper) -> str:
    """The paper's own method name, from the title or the abstract's "we propose" sentence.

    In order: a short "Name: subtitle" title; a name the abstract introduces ("called
    Contrastive Clustering (CC)" gives the acronym, which tables use); an acronym or a
    CamelCase word in the sentence that proposes something.
    """
    head = paper.title.split(":", 1)[0].strip()
    if ":" in paper.title and 1 <= len(head.split()) <= 3:
        return head
    for sentence in sentences(paper.abstract):
        if not PROPOSE.search(sentence):
            continue
        named = NAMED.search(sentence)
        if named and (named.group(2) or named.group(1).strip()) not in GENERIC:
            return named.group(2) or named.group(1).strip()
        start = PROPOSE.search(sentence)
        rest = sentence[start.start() :] if start else sentence
        for pattern in (ACRONYM, CAMEL):
            for m in pattern.finditer(rest):
                if m.group(1) not in GENERIC and m.group(1).rstrip("s") not in GENERIC:
                    return m.group(1)
    return ""


OURS_LABEL = re.compile(
    r"^\W*ours\b|\((?:ours|this work)\)|\bour (?:method|model|approach)\b", re.I
)


def _called(label: str, method: str) -> str:
    """A row the table calls "Ours", by the paper's name for it: "EAT (Ours)"."""
    if method and re.match(r"^\W*ours\W*$", label, re.I):
        return f"{method} ({label.strip()})"
    return label


def _match(label: str, name: str) -> bool:
    """Does a row or column label stand for the paper's method: its name, or "Ours"?"""
    if OURS_LABEL.search(label):
        return True
    if not name:
        return False
    norm, target = squash(label), squash(name)
    return bool(target) and (norm == target or norm.startswith(target) or target in norm.split())


# ------------------------------------------------------------------ table reading


class Context:
    """What the paper says about its setup, reused in every task's method."""

    def __init__(self, paper: ParsedPaper) -> None:
        self.paper = paper
        self.method = proposed_method(paper)
        setup = [s for s in paper.sections if SETUP_TITLE.search(s.title) and not s.appendix]
        self.setup_sentences = [
            sent for s in setup for sent in sentences(s.text) if HYPER_SENTENCE.search(sent)
        ][:6]
        self.constants = _hyperparameters(" ".join(self.setup_sentences))
        self.claims = find_claims(paper)
        self.headline = headline_labels(paper)
        self.used: set[str] = set()  # findings that already lead a task

    def claims_about(self, label: str) -> list[Claim]:
        """The paper's findings about `label`, strongest first (own citations before borrowed)."""
        return claims_for(label, self.claims)

    def setup_for(self, label: str) -> list[str]:
        """How the experiment behind `label` was run, in the words next to where the paper
        cites it: the citing sentence and its neighbours when they state settings or
        procedure, never a finding. A section often reports several experiments, so the rest
        of it is not this one's. Falls back to the paper's setup sections (settings shared by
        every experiment) when the citation says nothing of the kind."""
        findings = {c.text for c in self.claims}
        pattern = re.compile(rf"\b({re.escape(label)}|{re.escape(_short(label))})\b")
        local = []
        for s in self.paper.sections:
            if not pattern.search(s.text):
                continue
            sents = sentences(s.text)
            near = {
                j
                for i, sent in enumerate(sents)
                if pattern.search(sent)
                for j in (i - 1, i, i + 1)
                if 0 <= j < len(sents)
            }
            for j in sorted(near):
                sent = sents[j]
                if sent in findings or (find_numbers(sent) and TAKEAWAY.search(sent)):
                    continue
                if NOT_SETUP.search(sent) or len(sent.split()) > 60:
                    continue
                other = {lab for lab in cited_labels(sent) if lab != label}
                if other and not pattern.search(sent):
                    continue  # a neighbour about another table
                if HYPER_SENTENCE.search(sent) or PROCEDURE.search(sent):
                    local.append(sent)
        local = list(dict.fromkeys(local))[:3]
        return local or self.setup_sentences[:3]

    def section_citing(self, label: str, fallback: str) -> str:
        pattern = re.compile(rf"\b{re.escape(label)}\b|\b{re.escape(_short(label))}\b")
        for s in self.paper.sections:
            if not s.appendix and pattern.search(s.text):
                return clean_title(s.heading)
        return clean_title(fallback)

    def sentences_citing(self, label: str) -> list[str]:
        pattern = re.compile(rf"\b({re.escape(label)}|{re.escape(_short(label))})\b")
        return [t for s in self.paper.sections for t in sentences(s.text) if pattern.search(t)]


def _short(label: str) -> str:
    kind, _, num = label.partition(" ")
    return {"Figure": "Fig.", "Table": "Tab."}.get(kind, kind) + " " + num


def _hyperparameters(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, pat in [
        ("learning_rate", r"learning rate (?:of |is |to |=\s*)?([\d.eE-]+)"),
        ("batch_size", r"batch size (?:of |is |to |=\s*)?(\d+)"),
        ("epochs", r"(\d+) epochs"),
        ("optimizer", r"\b(Adam[W]?|SGD|RMSProp|Adagrad)\b"),
        ("dropout", r"dropout (?:rate )?(?:of |is |=\s*)?([\d.]+)"),
        ("weight_decay", r"weight decay (?:of |is |=\s*)?([\d.eE-]+)"),
        ("seeds", r"(\d+) (?:random )?seeds"),
    ]:
        m = re.search(pat, text, re.I)
        if m:
            out[name] = m.group(1).rstrip(".")
    return out


# ------------------------------------------------------------------ drafting


def _method_text(ctx: Context, item: Table | Figure, what: str) -> str:
    parts = [what, f"Follow the protocol of {item.label} ({clean_title(item.caption)})."]
    setup = ctx.setup_for(item.label)
    if setup:
        parts.append("Setup reported in the paper: " + " ".join(setup))
    return " ".join(parts)


def _column_lower(head: str, table_lower: bool) -> bool:
    """Is lower better in this column: its header says so, or the table does and the header
    does not say otherwise."""
    return lower_is_better(head) or (table_lower and not HIGHER_BETTER.search(head))


def _own_row(grid: Grid, method: str) -> int | None:
    """The row of the paper's method. With several (sizes, variants), the one the authors
    bolded most; among equals the last, where tables put the largest or full model."""
    rows = [i for i, lab in enumerate(grid.labels) if _match(lab, method)]
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
    in_rows = any(_match(lab, ctx.method) for lab in grid.labels)
    metric_rows = all(is_metric(lab) for lab in grid.labels if lab)
    if not in_rows and (metric_rows or any(_match(h, ctx.method) for h in grid.header)):
        grid = transpose(grid)  # methods are the columns
    grid = fold_metrics(grid)
    ours = _own_row(grid, ctx.method)
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
    efficiency = bool(EFFICIENCY_CAPTION.search(_topic(table.caption)))
    # Never a rival: the method's own variants (sizes, ablations), summary and reference rows.
    own = {i for i, lab in enumerate(grid.labels) if i == ours or _match(lab, ctx.method)}
    own |= {i for i, lab in enumerate(grid.labels) if not_a_method(lab)}
    # The same method in another block of the table (another dataset, size or section).
    own |= {i for i, lab in enumerate(grid.labels) if _row_name(lab) == _row_name(name)}
    rivals = Grid(
        grid.header,
        grid.labels,
        [v if i not in own else [""] * len(v) for i, v in enumerate(grid.values)],
        grid.bold,
    )
    if len(own) == len(grid.labels):  # every row is a variant of the method: which is best
        return best_row_tasks(ctx, table, grid)
    wins, comparisons, metrics = [], [], []
    for col, head in enumerate(grid.header):
        if col >= len(grid.values[ours]) or not grid.values[ours][col]:
            continue
        if COST.search(head) and not efficiency:
            continue  # size and cost are what the method pays, not how well it does
        lower = _column_lower(head, caption_lower)
        best_other = best_row(rivals, col, lower)
        if best_other is None:
            continue
        mine, theirs = to_float(grid.values[ours][col]), to_float(grid.values[best_other][col])
        if mine is None or theirs is None:
            continue
        better = mine < theirs if lower else mine > theirs
        wins.append(better)
        metrics.append(head or f"column {col + 2}")
        comparisons.append(
            f"{head or 'column ' + str(col + 2)}: {name} {grid.values[ours][col]} vs. "
            f"{grid.labels[best_other]} {grid.values[best_other][col]}"
        )
    if not comparisons:
        return []
    baselines = [lab for i, lab in enumerate(grid.labels) if i not in own and lab and lab != name]
    baselines = list(dict.fromkeys(baselines))
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
    question = (
        f"Does {_called(name, ctx.method)} outperform {', '.join(baselines[:4])}{' and others' if len(baselines) > 4 else ''} "
        f"on the settings of {table.label} ({_topic(table.caption)})?"
    )
    what = f"Train and evaluate {name} and the compared methods ({', '.join(baselines[:8])}) "
    what += f"and report {', '.join(dict.fromkeys(metrics[:6]))}."
    section = ctx.section_citing(table.label, table.section)
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:compare",
            question=question,
            method=_method_text(ctx, table, what),
            expected_outcome=outcome,
            subsection_source=section,
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables={"method": [name, *baselines[:12]]},
                dependent_variables={"metrics": list(dict.fromkeys(metrics))[:12]},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]


def _factor(grid: Grid, caption: str) -> tuple[int, list[str]] | None:
    """A label column whose 2-4 values recur in every group of rows and which the caption
    names ("unified training and independent training"): the design choice the table studies.
    Returns its position and its values in the caption's order."""
    if not grid.parts or len(grid.parts[0]) < 2:
        return None
    for f in range(len(grid.parts[0])):
        values = list(dict.fromkeys(p[f] for p in grid.parts if p[f]))
        if not 2 <= len(values) <= 4:
            continue
        groups: dict[tuple[str, ...], list[str]] = {}
        for p in grid.parts:
            groups.setdefault(tuple(p[:f] + p[f + 1 :]), []).append(p[f])
        if len(groups) < 2 or any(sorted(g) != sorted(values) for g in groups.values()):
            continue
        named = {
            v: m.start()
            for v in values
            if (m := re.search(rf"(?<!\w){re.escape(v)}(?!\w)", caption, re.I))
        }
        if len(named) >= 2:
            return f, sorted(named, key=named.__getitem__)
    return None


def factor_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    """One task for a table that crosses a design choice with models or datasets: how the
    caption's first-named choice fares against the next, group by group."""
    grid = fold_metrics(grid)
    found = _factor(grid, table.caption)
    if found is None:
        return []
    f, (first, second, *_) = found
    rows: dict[tuple[str, ...], dict[str, int]] = {}
    for i, p in enumerate(grid.parts):
        rows.setdefault(tuple(p[:f] + p[f + 1 :]), {})[p[f]] = i
    caption_lower = lower_is_better(table.caption) or only_lower_metrics(table)
    tally = {"better": 0, "equal": 0, "worse": 0}
    lines, names = [], []
    for key, at in rows.items():
        a, b = grid.values[at[first]], grid.values[at[second]]
        counts = {"better": 0, "equal": 0, "worse": 0}
        pairs: list[tuple[float, str]] = []  # (relative gap, "column: a vs. b")
        for col, head in enumerate(grid.header):
            x, y = to_float(a[col]) if a[col] else None, to_float(b[col]) if b[col] else None
            if x is None or y is None:
                continue
            lower = _column_lower(head, caption_lower)
            verdict = "equal" if x == y else ("better" if (x < y) == lower else "worse")
            counts[verdict] += 1
            gap = abs(x - y) / max(abs(x), abs(y), 1e-9)
            pairs.append((gap, f"{head or 'column ' + str(col + 2)}: {a[col]} vs. {b[col]}"))
        if not pairs:
            continue
        for k in tally:
            tally[k] += counts[k]
        name = " / ".join(k for k in key if k)
        names.append(name)
        shown = [pairs[0][1], max(pairs[1:], default=pairs[0])[1]]
        lines.append(
            f"{name}: better on {_share(counts['better'], sum(counts.values()))} of its columns"
            f" ({'; largest gap '.join(dict.fromkeys(shown))})"
        )
    if not lines:
        return []
    groups = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
    metrics = list(dict.fromkeys(h for h in grid.header if h))
    overall = _share(tally["better"], sum(tally.values()))
    ties = " (some columns tie)" if tally["equal"] else ""
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:factor",
            question=(
                f"How does {first} compare with {second} for {groups} in {table.label} "
                f"({_topic(table.caption)})?"
            ),
            method=_method_text(
                ctx,
                table,
                f"For each of {groups}, run both {first} and {second} under otherwise identical "
                f"settings and report {', '.join(metrics[:6])}"
                f"{' and the other columns' if len(metrics) > 6 else ''}.",
            ),
            expected_outcome=(
                f"{first} is better than {second} on {overall} of the compared columns{ties}. "
                f"Per group, {first} vs. {second}: " + "; ".join(lines[:6]) + "."
            ),
            subsection_source=ctx.section_citing(table.label, table.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables={"compared setting": [first, second], "group": names[:12]},
                dependent_variables={"metrics": metrics[:12]},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]


def _share(part: int, whole: int) -> str:
    """A count in words that a grader can check against the table without new numbers."""
    if whole and part == whole:
        return "all"
    ratio = part / whole if whole else 0.0
    for bound, words in ((0.0, "none"), (0.34, "few"), (0.6, "about half"), (0.999, "most")):
        if ratio <= bound:
            return words
    return "all"


def ablation_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    full = next(
        (
            i
            for i, lab in enumerate(grid.labels)
            if _match(lab, ctx.method) or re.search(r"\b(full|ours|complete)\b", lab, re.I)
        ),
        None,
    )
    variants = [i for i, lab in enumerate(grid.labels) if ABLATION_ROW.search(lab) and i != full]
    if full is None or not variants:
        return []
    tasks = []
    section = ctx.section_citing(table.label, table.section)
    for i in variants:
        pairs = [
            f"{grid.header[c] or 'column ' + str(c + 2)}: {grid.values[full][c]} (full) vs. "
            f"{grid.values[i][c]}"
            for c in range(len(grid.header))
            if c < len(grid.values[i]) and grid.values[i][c] and grid.values[full][c]
        ]
        if not pairs:
            continue
        part = slug(grid.labels[i])
        tasks.append(
            TaskDraft(
                key=f"{table.label.lower().replace(' ', '-')}:ablation:{part}",
                question=(
                    f"How does the variant '{grid.labels[i]}' compare with the "
                    f"{_full_name(grid.labels[full])} in {table.label} "
                    f"({_topic(table.caption)})?"
                ),
                method=_method_text(
                    ctx,
                    table,
                    f"Train the full model ({grid.labels[full]}) and the variant "
                    f"'{grid.labels[i]}' under identical settings and compare them.",
                ),
                expected_outcome=(
                    f"Changing the model as in '{grid.labels[i]}' moves the results from the "
                    f"full model's to the variant's: " + "; ".join(pairs[:8]) + "."
                ),
                subsection_source=section,
                design_complexity=DesignComplexity(
                    constant_variables=dict(ctx.constants),
                    independent_variables={"component": [grid.labels[full], grid.labels[i]]},
                    dependent_variables={"metrics": [h for h in grid.header if h][:12]},
                ),
                evidence=[Evidence(kind="table", label=table.label, page=table.page)],
            )
        )
    return tasks


def _full_name(label: str) -> str:
    """ "SegNeXt" -> "full SegNeXt"; a label that already says full stays as it is."""
    return label if re.match(r"full\b", label, re.I) else f"full {label}"


def best_row_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    """No row is the paper's own method: ask which compared row is best per column."""
    if sum(is_metric(lab) for lab in grid.labels) * 2 > len(grid.labels):
        grid = transpose(grid)  # metrics down the side: the settings are the columns
    caption_lower = lower_is_better(table.caption)
    efficiency = bool(EFFICIENCY_CAPTION.search(_topic(table.caption)))
    lines, metrics, winners = [], [], []
    for col, head in enumerate(grid.header):
        if COST.search(head) and not efficiency:
            continue  # the cheapest row is not the best one
        lower = _column_lower(head, caption_lower)
        best = best_row(grid, col, lower)
        if best is None:
            continue
        name = head or f"column {col + 2}"
        metrics.append(name)
        winners.append(grid.labels[best])
        lines.append(f"{name}: {grid.labels[best]} ({grid.values[best][col]})")
    if not lines or len(set(grid.labels)) < 2:
        return []
    top = max(dict.fromkeys(winners), key=winners.count)  # ties: the first to win
    rows = list(dict.fromkeys(lab for lab in grid.labels if lab))
    shown = lines[:8]
    more = f" (and {len(lines) - len(shown)} more columns)" if len(lines) > len(shown) else ""
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:best",
            question=_best_question(table, rows, list(dict.fromkeys(metrics))),
            method=_method_text(ctx, table, f"Run each of: {', '.join(rows[:10])}."),
            expected_outcome=(
                f"{top} is best on {winners.count(top)} of {len(winners)} columns. Best per column: "
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
        f"Which of {shown} achieves the best {measured} in {_lower_first(_topic(table.caption))}?"
    )


def sweep_tasks(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    lower = lower_is_better(table.caption) or only_lower_metrics(table)
    cells = [
        (to_float(v), i, j)
        for i, row in enumerate(grid.values)
        for j, v in enumerate(row)
        if v and to_float(v) is not None
    ]
    if len(cells) < 3:
        return []
    ordered = sorted(cells, key=lambda c: c[0] or 0.0, reverse=not lower)
    (_, bi, bj), (_, wi, wj) = ordered[0], ordered[-1]
    row_var = (table.rows[0][0].strip() if table.rows and table.rows[0] else "") or "row setting"

    def at(i: int, j: int) -> str:
        col = grid.header[j] if j < len(grid.header) and grid.header[j] else f"column {j + 2}"
        return f"{grid.values[i][j]} at {row_var} {grid.labels[i]}, {col}"

    best_word = "lowest" if lower else "highest"
    worst_word = "highest" if lower else "lowest"
    outcome = (
        f"The {best_word} value in {table.label} is {at(bi, bj)}; the {worst_word} is {at(wi, wj)}."
    )
    topic = _topic(table.caption)
    return [
        TaskDraft(
            key=f"{table.label.lower().replace(' ', '-')}:sweep",
            question=f"How do the results of {table.label} ({topic}) change across {row_var} and "
            f"the column settings, and which setting is best?",
            method=_method_text(
                ctx, table, f"Run every setting of {row_var} and of the columns of {table.label}."
            ),
            expected_outcome=outcome,
            subsection_source=ctx.section_citing(table.label, table.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables={
                    row_var: list(dict.fromkeys(grid.labels)),
                    "columns": [h for h in grid.header if h],
                },
                dependent_variables={"result": topic},
            ),
            evidence=[Evidence(kind="table", label=table.label, page=table.page)],
        )
    ]


# A figure that plots measurements: the caption names a quantity's behaviour.
PLOT_CAPTION = re.compile(
    r"\b(curves?|plots?|trends?|vs\.?|versus|as a function of|w\.r\.t\.|with respect to|"
    r"effect|impact|influence|sensitivity|varying|number of|scal(?:e|es|ing)|convergence|"
    r"across the training|during training|over (?:the )?(?:training|epochs|iterations|time)|"
    r"grows?|increas\w*|decreas\w*|performance|accuracy|loss|error|comparison|distribution|"
    r"histogram|statistics|correlation|speed|memory|efficiency)\b",
    re.I,
)
# A figure that shows how the method works or what it outputs: no measurement to reproduce.
NOT_AN_EXPERIMENT = re.compile(
    r"\b(illustrat\w*|overview|framework|architecture|pipeline|diagram|schematic|workflow|"
    r"qualitative|visuali[sz]\w*|examples?|showcases?|case study|a case of|interface|"
    r"screenshot|counter-?examples?|observation|motivation|intuition|proof|details of|schemas?|"
    r"characteristics of|structure of|design of)\b",
    re.I,
)
MIN_TICKS = 4  # numbers printed inside a figure that make it a plot
MAX_SERIES = 8


def is_plot(figure: Figure) -> bool:
    """Does the figure plot measurements (rather than draw the method or show outputs)?

    The caption's first sentence decides when it says which; otherwise the numbers printed
    inside a vector figure (tick labels) do.
    """
    if _topic_says_not(figure):
        return False
    return bool(PLOT_CAPTION.search(_topic(figure.caption))) or figure.ticks >= MIN_TICKS


TEASER_SECTION = re.compile(r"^\W*(?:\d+\.?\s*)?(?:introduction|abstract|overview)\b", re.I)


def figure_tasks(ctx: Context, figure: Figure) -> list[TaskDraft]:
    """A trend task for a plot the text draws a finding from; the finding is the outcome.

    A figure no sentence draws a finding from has no checkable outcome ("the results are
    shown in Figure 6" is not one), so it gets no task; neither do drawings and examples.
    """
    if TEASER_SECTION.match(clean_title(figure.section)) or (figure.page <= 1):
        return []  # a teaser sums up the paper; its experiments have tasks of their own
    said = findings([c for c in ctx.claims_about(figure.label) if c.text not in ctx.used])
    if not said:
        return []
    # A raster carries no text to judge it by: the finding about it decides.
    unreadable = figure.kind in ("raster", "unknown") and not _topic_says_not(figure)
    if not is_plot(figure) and not unreadable:
        return []
    topic = _topic(figure.caption)
    y = next((a for a in figure.axes if a.orientation == "y"), None)
    x = next((a for a in figure.axes if a.orientation == "x" and len(a.ticks) >= 2), None)
    if y is not None and x is not None and _clean_axis(x, figure):
        question: str | None = (
            f"In {figure.label} ({_lower_first(topic)}), how does {y.label} change as "
            f"{x.label} varies?"
        )
    else:  # axes misread or absent: ask what the finding says
        question = claim_question(said[0].text, ctx.method) or _figure_question(
            ctx, figure, said, y.label if y else ""
        )
    if not question:
        return []
    ctx.used.update(c.text for c in said)
    # What varies: the x axis read cleanly, else what the finding varies, and the series.
    var = next((v for c in said if (v := trend_variable(c.text))), None)
    independent: dict[str, object] = {}
    if x is not None and _clean_axis(x, figure):
        independent[x.label] = x.ticks
    elif var:
        independent[var] = f"the values plotted in {figure.label}"
    series = [s for s in figure.legend if len(s) <= 30 and not find_numbers(s)]
    if 2 <= len(series) <= MAX_SERIES:
        independent["series"] = series
    measured = y.label if y else _measured(" ".join(c.text for c in said) + " " + topic)
    return [
        TaskDraft(
            key=f"{figure.label.lower().replace(' ', '-')}:trend",
            question=question,
            method=_method_text(ctx, figure, f"Reproduce the measurements behind {figure.label}."),
            expected_outcome=claim_text(said),
            subsection_source=ctx.section_citing(figure.label, figure.section),
            design_complexity=DesignComplexity(
                constant_variables=dict(ctx.constants),
                independent_variables=independent,
                dependent_variables={measured: f"as plotted in {figure.label}"},
            ),
            evidence=[Evidence(kind="figure", label=figure.label, page=figure.page)],
        )
    ]


MEASURED = re.compile(
    r"\b(accuracy|f1(?:-score)?|bleu|rouge|cider|miou|map|auroc|aupr|auc|mse|mae|rmse|error|"
    r"loss|perplexity|throughput|latency|speed|memory|flops|runtime|success rate|win rate|"
    r"pass rate|returns?|reward|retention|similarit(?:y|ies)|score)\b",
    re.I,
)


def _measured(text: str) -> str:
    """The quantity a finding or caption speaks of ("return", "accuracy")."""
    m = MEASURED.search(text)
    return m.group(1).lower() if m else "the plotted quantity"


CAPTION_DATASET = re.compile(
    r"\b(?:on|over)\s+(?:the\s+)?((?:[A-Z][\w.-]*)(?:[ -](?:[A-Z0-9][\w.-]*)){0,2})"
)
CAPTION_BACKBONE = re.compile(
    r"\b(?:using|with|based on|backbone)\s+(?:the\s+|a\s+)?([A-Z][\w.-]*\d[\w.-]*)"
)


def caption_constants(caption: str) -> dict[str, str]:
    """Settings a caption fixes for the whole table: "Results on CIFAR10-LT using ResNet18"
    holds the dataset and the backbone constant."""
    topic = _topic(caption)
    out = {}
    if m := CAPTION_DATASET.search(topic):
        out["setting"] = m.group(1).rstrip(".,")
    if m := CAPTION_BACKBONE.search(topic):
        out["backbone"] = m.group(1).rstrip(".,")
    return out


def _clean_axis(axis: Axis, figure: Figure) -> bool:
    """An x axis read cleanly: a short title that is not a legend or panel label, over at
    least three numeric ticks in order."""
    ticks = [to_float(t) for t in axis.ticks]
    values = [t for t in ticks if t is not None]
    return (
        len(axis.label.split()) <= 6
        and not re.match(r"\(\w\)", axis.label)
        and axis.label not in figure.legend
        and len(values) >= 3
        and values == sorted(values)
    )


def _figure_question(ctx: Context, figure: Figure, said: list[Claim], y: str) -> str | None:
    """A question from what the finding varies or compares, in the caption's setting."""
    topic = _lower_first(_topic(figure.caption))
    var = next((v for c in said if (v := trend_variable(c.text))), None)
    if var:
        return f"In {figure.label} ({topic}), how does {y or 'the result'} change with {var}?"
    if ctx.method and any(ctx.method.lower() in c.text.lower() for c in said):
        return f"In {figure.label} ({topic}), how does {ctx.method} compare with the alternatives?"
    return None


def _topic_says_not(figure: Figure) -> bool:
    return bool(NOT_AN_EXPERIMENT.search(_topic(figure.caption)))


def _lower_first(text: str) -> str:
    """ "The key result" -> "the key result"; "ETTh1 results" stays (an acronym or name)."""
    first = text.split(" ", 1)[0]
    if len(first) >= 2 and first[0].isupper() and first[1:].isalpha() and first[1:].islower():
        return text[0].lower() + text[1:]
    return text


def _topic(caption: str) -> str:
    text = re.sub(r"^(Table|Tab\.|Figure|Fig\.)\s*\S+\s*[:.]?\s*", "", caption.strip())
    first = re.split(r"(?<=[a-z0-9)])\.\s", text, maxsplit=1)[0].strip().rstrip(".")
    first = re.sub(r"\s+", " ", CITATION.sub("", first))
    # Outcome numbers must not leak into questions.
    first = re.sub(
        r"\d+(?:\.\d+)?%?", lambda m: m.group(0) if "." not in m.group(0) else "…", first
    )
    return (first[:140].rsplit(" ", 1)[0] + "…") if len(first) > 140 else first or "this setting"


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
    for table in paper.tables:
        grid = read_grid(table)
        others = [numbers[i] for i, t in enumerate(paper.tables) if t is not table]
        claims = [c for c in ctx.claims_about(table.label) if fits_table(c, table, grid, others)]
        headline = table.label in ctx.headline
        if clean_title(table.section) in appendix and not claims and not headline:
            continue  # an appendix table no sentence discusses: last, if at all
        if grid is not None and not is_results_table(table, grid):
            continue
        drafts = _table_drafts(ctx, table, grid) if grid is not None else []
        topic = _topic(table.caption)
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
        fixed = caption_constants(table.caption)
        for d in drafts:
            if d.key not in seen:
                seen.add(d.key)
                d.design_complexity.constant_variables = {
                    **fixed,
                    **d.design_complexity.constant_variables,
                }
                result.tasks.append(d)
    for figure in paper.figures:
        for d in figure_tasks(ctx, figure):
            if d.key not in seen:
                seen.add(d.key)
                result.tasks.append(d)
    result.tasks.sort(key=lambda d: priority(d, ctx.headline, discussed))
    return result


def _table_drafts(ctx: Context, table: Table, grid: Grid) -> list[TaskDraft]:
    is_ablation = (
        ABLATION_CAPTION.search(table.caption)
        or sum(bool(ABLATION_ROW.search(lab)) for lab in grid.labels) >= 2
    )
    drafts = factor_tasks(ctx, table, grid)
    drafts = drafts or (ablation_tasks(ctx, table, grid) if is_ablation else [])
    drafts = drafts or (sweep_tasks(ctx, table, grid) if is_sweep(grid) else [])
    return drafts or comparison_tasks(ctx, table, grid)


def _claim_only(ctx: Context, table: Table, claims: list[Claim]) -> list[TaskDraft]:
    """A headline table whose cells could not be compared still gets its finding as a task."""
    base = TaskDraft(
        question="",
        method=_method_text(ctx, table, f"Run the experiment reported in {table.label}."),
        subsection_source=ctx.section_citing(table.label, table.section),
        design_complexity=DesignComplexity(constant_variables=dict(ctx.constants)),
        evidence=[Evidence(kind="table", label=table.label, page=table.page)],
    )
    key = f"{table.label.lower().replace(' ', '-')}:claim"
    task = claim_task(key, table.label, claims, ctx.method, base)
    return [task] if task is not None else []


__all__ = ["draft", "proposed_method", "read_grid"]
