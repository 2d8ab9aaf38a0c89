"""Claims as the spine of a task: the paper's finding leads, the table's cells ground it.

The table readers draft what a grid shows ("X is best on 5 of 6 columns: …"); a reviewer
wants what the authors found ("X outperforms every baseline on all six datasets"), checked
against the cells. `lead_with_claims` puts the finding first in the expected outcome and, for
a table's main task, asks whether it holds; `claim_task` drafts from the finding alone when a
headline table or a discussed plot has no grid to read; `priority` orders a paper's tasks
headline first, then discussed, then the rest.
"""

from __future__ import annotations

import re

from expcurate.records import DesignComplexity, Table, TaskDraft
from extractors.numbers import find_numbers
from extractors.tasks.claims import Claim
from extractors.tasks.context import OURS_LABEL
from extractors.tasks.grids import (
    COST,
    Grid,
    family,
    fold_metrics,
    is_metric,
    plain,
    question_measures,
    tiers,
    transpose,
)
from extractors.tasks.phrasing import and_list, claim_question, clean_claim, names_any

# Drafts that speak for the table as a whole (one per table), as opposed to one row's.
WHOLE_TABLE = (":compare", ":best", ":sweep", ":factor", ":transfer")
MAX_CLAIMS = 2
MAX_ROWS = 4  # rows a finding names, shown with their cells
# A finding that concedes where the method falls short: true, but not what a table shows first.
CONCESSION = re.compile(
    r"\b(?:fail\w*|worse|limitation\w*|drawbacks?|underperform\w*|lags? behind|"
    r"cases where (?:the )?baselines? (?:is|are|performs?) better|falls? short)\b",
    re.I,
)
ABBREVIATED = re.compile(r"([A-Za-z][A-Za-z-]{2,})\.")
MAX_TIER_ROWS = 12  # the same, when the named families repeat in each block (model sizes)
MAX_CELLS = 6
OWN_MARK = re.compile(r"\s*[(\[](?:ours|our method|this work|proposed)[)\]]|\*+$", re.I)
# A finding that speaks of the paper's own row without its name ("our approach").
OUR_WORDS = re.compile(
    r" our (?:\w+ ){0,2}?(?:approach|method|model|framework|system|design|module|network|"
    r"architecture|algorithm|encoder|decoder)s? | ours "
)
SUMMARY = re.compile(r"\b(?:avg|average|mean|median|gain|total)\b", re.I)
DANGLING = re.compile(
    r"(?:following|these|two|three) (?:reasons?|observations?|aspects?)\.?$|:$", re.I
)
META = re.compile(
    r"^(?:the )?(?:experimental )?results? (?:are|is) (?:shown|summari[sz]ed|reported|listed|"
    r"presented)|^(?:we|table|figure|fig\.) (?:present|show|report|list|summari[sz]e|plot|"
    r"illustrate|visuali[sz]e)s?\b|"
    # advice, motives and explanations: not what the experiment measures
    r"\bwe (?:would )?(?:recommend|suggest|argue|believe|hypothesi[sz]e|emphasi[sz]e)\b|"
    r"^(?:considering|to (?:validate|verify|evaluate|investigate|test|study)|the reason|"
    r"this is because|despite|since|because)\b|"
    # a bare pronoun subject: out of its paragraph nobody knows what "it" is
    r"^(?:it|this|they|these|those) (?!is because)\w+",
    re.I,
)


# A finding about every part of an ablation at once, which each row's task may lead with.
EVERY_PART = re.compile(
    r"\b(?:each|every|all (?:the )?(?:\w+ )?(?:components?|parts?|modules?|branches|"
    r"designs?|elements?))\b.{0,80}\b(?:contribut\w*|matters?|necessary|important|essential|"
    r"helps?|benefit\w*|improv\w*|degrad\w*|drops?)\b",
    re.I,
)


def findings(claims: list[Claim]) -> list[Claim]:
    """The claims worth stating as an outcome: a finding, not what is shown, why, or what to
    do; a sentence that only leads into the next one ("… for the following two reasons") is
    left out."""
    return [
        c for c in claims if not META.search(clean_claim(c.text)) and not DANGLING.search(c.text)
    ][:MAX_CLAIMS]


def fits_table(claim: Claim, table: Table, grid: Grid | None, others: list[set[str]]) -> bool:
    """Is the claim about this table? A finding quoting cells is about the table holding most
    of them (`others`: the other tables' numbers), not one that holds a single number by
    chance; a label the claim only borrowed from a neighbouring sentence counts when it
    quotes this table's cells or names one of its rows."""
    measured = [n for n in find_numbers(clean_claim(claim.text)) if "." in n]
    here = sum(n in table_numbers(table) for n in measured)
    elsewhere = max((sum(n in cells for n in measured) for cells in others), default=0)
    if measured and (here or elsewhere):  # a tie goes to the table the sentence itself cites
        return here > elsewhere or (here == elsewhere and not claim.inferred_labels)
    if not claim.inferred_labels or EVERY_PART.search(claim.text):
        return True  # cites the table, or sums up its parts right after pointing to it
    return grid is not None and bool(claim_rows(grid, [claim])[0])


def table_numbers(table: Table) -> set[str]:
    return {n for row in table.rows for cell in row for n in find_numbers(cell)}


def claim_text(claims: list[Claim]) -> str:
    """The findings as the paper words them, openers and pointers removed, numbers kept."""
    out = []
    for c in claims:
        text = clean_claim(c.text)
        if text:
            out.append(text[0].upper() + text[1:] + ("" if text.endswith((".", "!")) else "."))
    return " ".join(out)


def lead_with_claims(
    draft: TaskDraft,
    claims: list[Claim],
    method: str,
    grid: Grid | None = None,
    used: set[str] | None = None,
    topic: str = "",
) -> TaskDraft:
    """The draft with the paper's finding first in its outcome, and for a whole-table task a
    question asking whether the finding holds (when the sentence can be asked as one).
    `used` collects the findings that already lead a whole-table task, so that one sentence
    citing two tables does not make two identical tasks.

    When the finding is about other rows than the ones the draft compared (the table reader
    took a model size or a baseline for the method), the finding's own rows ground it.
    """
    used = used if used is not None else set()
    whole = draft.key.endswith(WHOLE_TABLE)
    # A finding already leading another table's task would make this one its duplicate; when
    # it is all the paper says of this table too ("great results on both (Tables 2-3)"), it
    # still states the outcome here, but the question stays this table's own.
    lead = findings([c for c in claims if c.text not in used] if whole else claims)
    shared = whole and not lead
    if shared:
        lead = findings(claims)
    if whole:  # a finding about the row the task compares comes first, a concession last
        lead.sort(key=lambda c: (not _about(draft, [c]), bool(CONCESSION.search(c.text))))
    if not whole:  # one row's task: only findings about that row
        row = _words(
            " ".join(
                map(str, draft.design_complexity.independent_variables.get("component", [])[1:])
            )
        )
        about_row = [c for c in lead if _shares_word(row, _words(c.text))]
        # else what the paper says of every part at once ("each component contributes")
        lead = about_row or [c for c in lead if EVERY_PART.search(c.text)][:1]
    if not lead:
        return draft
    label = draft.evidence[0].label if draft.evidence else ""
    grounding = draft.expected_outcome
    update: dict[str, object] = {}
    same_axis = False  # the finding's rows are rows of the draft's own comparison
    if grid is not None and whole and not draft.key.endswith((":factor", ":transfer")):
        # The rows the finding names ground it better than the reader's own comparison,
        # which may run blocks of the table together (a factor task compares within blocks).
        rows, named = claim_rows(grid, lead)
        # Rows that are all one method's variants ground no comparison with its rivals.
        families = {family(named.labels[i]) for i in rows}
        variants = len(rows) >= 2 and len(families) == 1 and "" not in families
        if (len(rows) >= 2 and not variants) or (rows and not _about(draft, lead)):
            grounding = claim_cells(named, rows)
            design = draft.design_complexity.model_copy(deep=True)
            design.independent_variables = {"method": [named.labels[i] for i in rows]}
            same_axis = named is grid
            update["design_complexity"] = design
            if _tiered(named, rows) and draft.method.startswith("Train and evaluate "):
                _, sep, tail = draft.method.partition(" and report ")
                if sep:  # the rivals of every block, not only the focal row's
                    update["method"] = (
                        f"Train and evaluate, block by block as {label} sets them apart, "
                        f"{_by_block(named, rows)}{sep}{tail}"
                    )
            if named is not grid and len(rows) >= 2:  # the draft asked about the other axis
                names = [named.labels[i] for i in rows]
                metric = draft.design_complexity.dependent_variables.get("metric")
                design.dependent_variables = {"measured on": [h for h in named.header if h][:12]}
                if isinstance(metric, list):
                    design.dependent_variables["metric"] = metric
                method_text = draft.method
                first, dot, rest = method_text.partition(". Follow the protocol")
                if first.startswith("Run each of:"):
                    update["method"] = f"Run each of: {', '.join(names)}{dot}{rest}"
                listed, cut = question_measures([h for h in named.header if h])
                on = ", ".join(listed) + " and the other columns" if cut else and_list(listed)
                if on and isinstance(metric, list):
                    on += f" ({and_list(metric)})"
                update["question"] = (
                    f"How do {and_list(names)} compare{f' on {on}' if on else ''} in {label}"
                    f"{f' ({topic})' if topic else ''}?"
                )
        elif not _about(draft, lead):
            grounding = ""  # the reader compared other rows than the finding speaks of
    if whole:
        used.update(c.text for c in lead)
    outcome = claim_text(lead) + (f" In {label}: {grounding}" if grounding else "")
    update["expected_outcome"] = outcome.strip()
    if whole and not shared:
        question = claim_question(lead[0].text, method)
        if question and not _leaks(question, draft.expected_outcome) and well_formed(question):
            measured = draft.design_complexity.dependent_variables
            measures = [
                m
                for v in (
                    [measured["metric"]]
                    if isinstance(measured.get("metric"), list)
                    else measured.values()
                )
                if isinstance(v, list)
                for m in v
                if isinstance(m, str)
            ]
            update["question"] = with_setting(question, label, topic, measures)
    kept = update.get("design_complexity")
    if same_axis and "question" not in update and isinstance(kept, DesignComplexity):
        # the draft's own question still names its rows: they stay arms, after the finding's
        compared = kept.independent_variables["method"]
        before = draft.design_complexity.independent_variables.get("method")
        compared += [v for v in before or [] if v not in compared]
    return draft.model_copy(update=update)


# What a finding leaves behind when turned into a question and it does not read as one:
# "rank on with …", "in 3 out cases" with its numbers taken out, "also manage to", a negation.
CLUMSY = re.compile(
    r"\brank on (?:with|this|these|most|and|a|an|to)\b|\bout (?:of )?cases\b|\bmanage to\b|"
    r"\bfind \w+(?: \w+)? to compare\b|\b(?:do|does|did|is|are) not\b|\bnot always\b|"
    r"\b(?:and|or|but|with|of|to)\s*\?$|"
    # rivals counted but not named: out of the paragraph nobody knows which
    r"\bthe (?:two|three|four|five|other) (?:baselines|methods|models|approaches)\b",
    re.I,
)
MAX_QUESTION_WORDS = 30


def well_formed(question: str) -> bool:
    """Does a question made from a finding read as a research question?"""
    return len(question.split()) <= MAX_QUESTION_WORDS and not CLUMSY.search(question)


def claim_task(key: str, claims: list[Claim], method: str, base: TaskDraft) -> TaskDraft | None:
    """A task drafted from the paper's finding alone (its table's grid could not be read):
    `base` carries the method text, section, design and evidence."""
    lead = findings(claims)
    if not lead:
        return None
    question = base.question or claim_question(lead[0].text, method)
    if not question:
        return None
    return base.model_copy(
        update={"key": key, "question": question, "expected_outcome": claim_text(lead)}
    )


def _leaks(question: str, outcome: str) -> bool:
    """A decimal of the outcome in the question gives the answer away."""
    return any("." in n and n in find_numbers(outcome) for n in find_numbers(question))


def priority(draft: TaskDraft, headline: list[str], discussed: set[str]) -> tuple[int, int]:
    """Sort key: headline results first (in the paper's order of importance), then tasks on
    tables and figures the text discusses, then the rest."""
    label = draft.evidence[0].label if draft.evidence else ""
    if label in headline:
        return (0, headline.index(label))
    return (1 if label in discussed else 2, 0)


def _words(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9]+", " ", text.lower()).strip() + " "


def _about(draft: TaskDraft, claims: list[Claim]) -> bool:
    """Does the finding speak of the row the draft took as the method?"""
    compared = draft.design_complexity.independent_variables.get("method") or []
    subject = compared[0] if isinstance(compared, list) and compared else ""
    if not subject:
        return True  # no row stands for the method: nothing to contradict the finding
    names = [_name(n) for n in re.split(r"\s*/\s*", str(subject))]
    text = _words(" ".join(c.text for c in claims))
    if OUR_WORDS.search(text) and draft.key.endswith(":compare"):
        return True  # "our method sets a new state of the art": the row the task compares
    return any(len(n) >= 2 and _words(n) in text for n in names)


def _name(label: str) -> str:
    """A row's name without citation and ownership marks: "GateMix (ours)" -> "GateMix"."""
    return OWN_MARK.sub("", plain(label)).strip()


def claim_rows(grid: Grid, claims: list[Claim]) -> tuple[list[int], Grid]:
    """The rows (of the grid or its transpose) that the finding names, most specific first:
    a row whose group and name are both named beats one whose name alone is."""
    text = _words(" ".join(c.text for c in claims))
    best: tuple[list[int], Grid] = ([], grid)
    top = 0
    for g in (grid, fold_metrics(transpose(grid))):
        scored = []
        # A name's first word stands for the row when no other row starts with it
        # ("ToolLLaMA" for "ToolLLaMA-DFSDT"; "SegNeXt" names no one row of SegNeXt-T, -S, -B).
        firsts = [_words(_name(lab.split(" / ")[-1])).split()[:1] for lab in g.labels]
        unique = {f[0] for f in firsts if f and sum(f == o for o in firsts) == 1}
        for i, lab in enumerate(g.labels):
            parts = g.parts[i] if i < len(g.parts) and any(g.parts[i]) else lab.split(" / ")
            hits = sum(_compared(_name(part), text) for part in parts if not is_metric(part))
            first = firsts[i][0] if firsts[i] else ""
            if not hits and first in unique and len(first) >= 5 and _compared(first, text):
                hits = 1
            if not hits and OURS_LABEL.search(lab) and OUR_WORDS.search(text):
                hits = 1
            if not hits and (short := ABBREVIATED.fullmatch(lab.split(" / ")[-1].strip())):
                # "FED." and "Auto." in a crowded header stand for FEDformer and Autoformer
                hits = int(bool(re.search(rf"\b{re.escape(short[1].lower())}\w{{2,}}", text)))
            if hits and not SUMMARY.search(lab) and not is_metric(lab):
                scored.append((hits, i))
        most = max((h for h, _ in scored), default=0)
        rows = [i for h, i in scored if h == most][:MAX_ROWS]
        if most > top:  # the grid as read wins ties: it is the authors' orientation
            best, top = (rows, g), most
    if not top:
        return _tier_rows(grid, text), grid
    return best


def _tier_rows(grid: Grid, text: str) -> list[int]:
    """Rows of the families the finding names ("MSCAN … ConvNeXt … Swin Transformer"), when
    the table sets sizes apart in blocks and the families recur in them: the finding holds
    size by size, so each block's named rows ground it."""
    named = {
        fam
        for lab in grid.labels
        if len(fam := family(lab)) >= 3 and _compared(fam, text) and len(tiers(grid, fam)) >= 2
    }
    if len(named) < 2:
        return []
    rows = [
        i for i, lab in enumerate(grid.labels) if family(lab) in named and not SUMMARY.search(lab)
    ]
    return rows[:MAX_TIER_ROWS]


SETTING_WORDS = frozenset({"on", "in", "across", "for", "under", "at"})
ARTICLES = frozenset({"the", "both", "all", "a"})
JOINERS = frozenset({"and", "or"})


def _compared(name: str, text: str) -> bool:
    """Does the finding (`text`, as `_words` gives it) name `name` as something compared,
    not only as the setting it was measured in ("on CIFAR-10", "On Cora and Pubmed")?"""
    target = _words(name).split()
    core = re.sub(r"\W", "", name)
    if not target or len(core) < 2 or (len(core) < 3 and not core.isupper()):
        return False  # "In." (Informer) would be found in every sentence
    words = text.split()
    for i in range(len(words) - len(target) + 1):
        if words[i : i + len(target)] == target and not _introduced(words, i):
            return True
    return False


def _introduced(words: list[str], i: int) -> bool:
    """Is the name at word i a setting: "on (the) X", or the last of a list "on A and X"?"""
    k = i - 1
    while k >= 0 and words[k] in ARTICLES:
        k -= 1
    if k >= 0 and words[k] in JOINERS:
        return any(w in SETTING_WORDS for w in words[max(0, k - 3) : k])
    return k >= 0 and words[k] in SETTING_WORDS


COMPARATIVE = re.compile(
    r"\b(?:outperform\w*|surpass\w*|beats?|exceed\w*|achiev\w*|improv\w*|better|higher|"
    r"lower|best|superior\w*|competitive|matches|generali[sz]\w*)\b"
)
OBJECT_OF = re.compile(r" (?:over|than|vs|versus|against|to|with) $")


def subject_row(grid: Grid, claims: list[Claim]) -> int | None:
    """The row the findings are about: named (or its first word, "ToolLLaMA" for
    "ToolLLaMA-DFSDT") before the comparison in the most sentences. None when no row is."""
    counts: dict[int, int] = {}
    for claim in claims:
        text = _words(claim.text)
        cue = COMPARATIVE.search(text)
        if cue is None:
            continue
        before = text[: cue.start()] + " "
        for i, lab in enumerate(grid.labels):
            name = _words(_name(lab.split(" / ")[-1])).split()
            if not name or SUMMARY.search(lab):
                continue
            head = [name[0]] if len(name[0]) >= 4 else []
            for n in (name, head):
                at = before.find(f" {' '.join(n)} ") if n else -1
                # "the superiority of X over Y": Y is what X is compared with
                if at >= 0 and not OBJECT_OF.search(before[:at] + " "):
                    counts[i] = counts.get(i, 0) + 1
                    break
    if not counts:
        return None
    best = max(counts.values())
    rows = [i for i, c in counts.items() if c == best]
    return rows[0] if len(rows) == 1 else None


def _per_block(grid: Grid, rows: list[int]) -> list[list[int]]:
    """The rows grouped by the table block each sits in, blocks in order of first use."""
    groups: dict[int, list[int]] = {}
    for i in rows:
        groups.setdefault(grid.blocks[i], []).append(i)
    return list(groups.values())


def _by_block(grid: Grid, rows: list[int]) -> str:
    return "; ".join(
        f"({n}) {', '.join(grid.labels[i] for i in part)}"
        for n, part in enumerate(_per_block(grid, rows), 1)
    )


def _tiered(grid: Grid, rows: list[int]) -> bool:
    """Are the rows model sizes set apart block by block, the same families in each: every
    block holds two or more of them and two families recur across blocks?"""
    if len(grid.blocks) != len(grid.labels):
        return False
    blocks = [{family(grid.labels[i]) for i in part} for part in _per_block(grid, rows)]
    if len(blocks) < 2 or any(len(f) < 2 for f in blocks):
        return False
    families = set().union(*blocks)
    return sum(1 for f in families if sum(f in fams for fams in blocks) >= 2) >= 2


def claim_cells(grid: Grid, rows: list[int]) -> str:
    """The named rows' cells, as "row: column value, …" (cost columns last, a few each);
    rows of several blocks (model sizes) block by block, "(1) …; (2) …"."""
    if _tiered(grid, rows):
        return " ".join(
            f"({n}) {_row_cells(grid, part)}" for n, part in enumerate(_per_block(grid, rows), 1)
        )
    return _row_cells(grid, rows)


def _row_cells(grid: Grid, rows: list[int]) -> str:
    out = []
    for i in rows:
        pairs = [
            (bool(COST.search(head)), f"{head} {value}".strip())
            for head, value in zip(grid.header, grid.values[i], strict=False)
            if value
        ]
        shown = [text for _, text in sorted(pairs, key=lambda p: p[0])][:MAX_CELLS]
        if shown:
            out.append(f"{grid.labels[i]}: {', '.join(shown)}")
    return "; ".join(out) + ("." if out else "")


def _shares_word(a: str, b: str) -> bool:
    """Two texts share a content word (five letters or more, by its first five)."""
    stems = {w[:5] for w in a.split() if len(w) >= 5 and w.isalpha()}
    return bool(stems & {w[:5] for w in b.split() if len(w) >= 5 and w.isalpha()})


ANAPHORA = re.compile(r"\b(?:this|these|those|such|the same|above|aforementioned)\b", re.I)


# A name in a caption's subject: a benchmark, dataset, model or unit ("Big-Bench", "M4",
# "ImageNet-LT", "0-shot"), i.e. a word past the first with a capital inside or a digit.
NAME = re.compile(r"(?<=\s)[\w-]*(?:[A-Z]|\d)[\w-]*")


def _names_missing(question: str, topic: str) -> bool:
    """Does the caption's subject name something (a benchmark, a dataset) the question does
    not?"""
    asked = question.lower()
    return any(
        len(name) >= 2 and name.lower() not in asked and not name[:-1].isdigit()
        for name in NAME.findall(topic)
    )


def with_setting(
    question: str | None, label: str, topic: str, measures: list[str] | None = None
) -> str | None:
    """A claim's question names the setting when the sentence leaned on its context ("this
    difficult task"), is too short to carry it, or leaves out a benchmark or dataset the
    caption names: the caption's subject is added. It names what is measured when it names
    none of `measures` (the table's scored columns): "(measured by MSE and MAE; …)"."""
    if question is None:
        return question
    added = []
    setting = bool(topic) and bool(
        ANAPHORA.search(question) or len(question.split()) < 12 or _names_missing(question, topic)
    )
    asked = f"{question} {topic if setting else ''}".lower()
    named = measure_names(measures or [])
    if named and not names_any(asked, named):
        added.append(f"measured by {and_list(named)}")
    if setting:
        added.append(f"setting of {label}: {topic[0].lower() + topic[1:]}")
    if not added:
        return question
    return f"{question[:-1].rstrip()} ({'; '.join(added)})?"


def measure_names(headers: list[str], most: int = 4) -> list[str]:
    """What a table's scored columns measure, without the dataset or group a header also
    names ("ETTh1 MSE" is MSE) and without cost columns; at most `most`, or none when the
    columns name no metric at all (datasets as columns)."""
    out: list[str] = []
    # "P" and "R" beside "F1" are precision and recall
    pr = any(h.split()[-1:] == ["F1"] for h in headers if h)
    for head in headers:
        if not head or COST.search(head):
            continue
        words = head.split()
        name = next(
            (
                tail
                for i in reversed(range(len(words)))
                if re.search(r"[A-Za-z]", tail := " ".join(words[i:]))
                and (is_metric(tail) or (pr and tail in ("P", "R")))
            ),
            "",
        )
        if not name:
            return []  # a column naming no metric (a dataset): the list would mislead
        if name not in out:
            out.append(name)
    return out if len(out) <= most else []
